//! The experiment catalog: every optimization of the pipeline as a numbered, switchable entry.
//!
//! Experiment `N` runs the baseline plus the optimizations of entries `1..=N`, folded in order:
//! each entry adds its optimization, and an entry may revert an earlier one (10 reverts 09).
//! `--enable` / `--disable` then switch single optimizations on top, for ablations.
//!
//! The table in `entries.rs` is the one definition of the catalog: the
//! [`Optimization`] enum, its slugs, [`Optimization::ALL`] and [`CATALOG`] are all generated from
//! it by the `catalog!` macro, so adding an experiment is adding one entry (see CONTRIBUTING.md).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Generates [`Optimization`] and [`CATALOG`] from one list of entries, each written as
/// `NUMBER baseline "slug" { .. }`, `NUMBER adds Variant "slug" on WORKLOADS { .. }` (with the
/// variant's doc comment before it; `WORKLOADS` is `contacts` or `any_workload`, see
/// [`Workloads`]) or `NUMBER reverts Variant "slug" { .. }`. The first rules walk the list and
/// sort it into optimizations and entries; the `@emit` rule writes the items.
macro_rules! catalog {
    (@walk [$($optimizations:tt)*] [$($entries:tt)*]) => {
        catalog!(@emit [$($optimizations)*] [$($entries)*]);
    };
    (@walk [$($optimizations:tt)*] [$($entries:tt)*]
        $number:literal baseline $slug:literal $body:tt, $($rest:tt)*
    ) => {
        catalog!(@walk [$($optimizations)*] [$($entries)* { $number $slug None, None, $body }] $($rest)*);
    };
    (@walk [$($optimizations:tt)*] [$($entries:tt)*]
        $(#[doc = $doc:literal])* $number:literal adds $variant:ident $slug:literal
        on $workloads:ident $body:tt,
        $($rest:tt)*
    ) => {
        catalog!(@walk
            [$($optimizations)* { $(#[doc = $doc])* $variant $slug $workloads }]
            [$($entries)* { $number $slug Some(Optimization::$variant), None, $body }]
            $($rest)*);
    };
    (@walk [$($optimizations:tt)*] [$($entries:tt)*]
        $number:literal reverts $variant:ident $slug:literal $body:tt, $($rest:tt)*
    ) => {
        catalog!(@walk [$($optimizations)*]
            [$($entries)* { $number $slug None, Some(Optimization::$variant), $body }]
            $($rest)*);
    };
    (@emit
        [$({ $(#[doc = $doc:literal])* $variant:ident $variant_slug:literal $workloads:ident })*]
        [$({ $number:literal $slug:literal $adds:expr, $reverts:expr, {
            summary: $summary:literal, mechanism: $mechanism:literal, study: $study:expr $(,)?
        } })*]
    ) => {
        /// One switchable change to the pipeline. Its slug names it on the command line.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Optimization {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Optimization {
            /// Every optimization, in catalog order.
            pub const ALL: &'static [Optimization] = &[$(Self::$variant),*];

            /// The command-line name, which is also the slug of the entry that adds it.
            pub fn slug(self) -> &'static str {
                match self {
                    $(Self::$variant => $variant_slug,)*
                }
            }

            /// The workloads it acts on, as its catalog entry says.
            pub fn workloads(self) -> Workloads {
                match self {
                    $(Self::$variant => catalog!(@workloads $workloads),)*
                }
            }
        }

        /// Every experiment, by number.
        pub static CATALOG: &[Experiment] = &[$(
            Experiment {
                number: $number,
                slug: $slug,
                summary: $summary,
                mechanism: $mechanism,
                adds: $adds,
                reverts: $reverts,
                study: $study,
            },
        )*];
    };
    (@workloads contacts) => { Workloads::Contacts };
    (@workloads any_workload) => { Workloads::Any };
    ($($entries:tt)*) => {
        catalog!(@walk [] [] $($entries)*);
    };
}

/// Which workloads an optimization acts on: every catalog entry that adds one says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workloads {
    /// The contacts generator or the contacts' columns: it means nothing for a workload read
    /// from a spec file, so `--spec` runs switch it off and refuse it with `--enable`.
    Contacts,
    /// Any workload: threads, channels, the writer, the allocator, the files.
    Any,
}

impl Optimization {
    /// Whether this optimization acts on the contacts generator or on the contacts' columns,
    /// and so means nothing for a workload read from a spec file.
    pub fn contacts_only(self) -> bool {
        self.workloads() == Workloads::Contacts
    }
}

impl fmt::Display for Optimization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.slug())
    }
}

/// An unknown optimization or experiment.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CatalogError {
    /// No optimization has this slug.
    #[error("unknown optimization '{0}': run `pipeline --list` to see the slugs")]
    UnknownOptimization(String),
    /// The slug of a catalog entry that adds no optimization: the baseline, or an entry that
    /// switches one off again.
    #[error("'{slug}' is catalog entry {number}, not an optimization: {}", not_an_optimization_hint(*number, *reverts))]
    NotAnOptimization {
        /// The entry's slug.
        slug: &'static str,
        /// The entry's number.
        number: u32,
        /// The optimization it switches off again, if any.
        reverts: Option<Optimization>,
    },
    /// No experiment has this number.
    #[error("unknown experiment {0}: experiments are numbered 0 to {max}; run `pipeline --list`", max = CATALOG.len() - 1)]
    UnknownExperiment(u32),
}

/// What to write instead of the slug of entry `number`, which adds no optimization and switches
/// `reverts` off again, if any.
fn not_an_optimization_hint(number: u32, reverts: Option<Optimization>) -> String {
    match reverts {
        Some(o) => format!(
            "it switches {o} off again; use --disable {o} to switch it off, or --enable {o} to switch it on"
        ),
        None => format!("it switches nothing on; run it with -e {number}"),
    }
}

impl FromStr for Optimization {
    type Err = CatalogError;

    /// The optimization with this slug; the slug of an entry that adds none is refused with
    /// what to write instead.
    fn from_str(slug: &str) -> Result<Self, Self::Err> {
        let slug = slug.trim();
        if let Some(o) = Self::ALL.iter().find(|o| o.slug() == slug) {
            return Ok(*o);
        }
        Err(match CATALOG.iter().find(|e| e.slug == slug) {
            Some(entry) => CatalogError::NotAnOptimization {
                slug: entry.slug,
                number: entry.number,
                reverts: entry.reverts,
            },
            None => CatalogError::UnknownOptimization(slug.to_string()),
        })
    }
}

/// The number of the catalog's newest entry: the fastest configuration, with byte-reproducible
/// files (`--experiment`'s default, and the Python package's).
pub fn newest_experiment() -> u32 {
    CATALOG.len() as u32 - 1
}

/// What the study reported for one of its optimizations (10 M rows, 16-thread Ryzen 7 PRO 8700GE).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StudyFigure {
    /// Median wall time in seconds.
    pub median_s: f64,
    /// Instructions per cycle.
    pub ipc: f64,
}

/// One catalog entry.
#[derive(Debug, Clone, Copy)]
pub struct Experiment {
    /// Its number; entry `n` is `CATALOG[n]`.
    pub number: u32,
    /// Names the results folder, `NN-slug`.
    pub slug: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    /// How it works, in a sentence or two: the mechanism in the code, no measurements.
    pub mechanism: &'static str,
    /// The optimization it switches on.
    pub adds: Option<Optimization>,
    /// The optimization it switches off again.
    pub reverts: Option<Optimization>,
    /// The study's figure, where it is one of the study's steps.
    pub study: Option<StudyFigure>,
}

impl Experiment {
    /// The results folder name, e.g. `07-sized-thread-pools`.
    pub fn dir_name(&self) -> String {
        format!("{:02}-{}", self.number, self.slug)
    }
}

mod entries;

pub use entries::{Optimization, CATALOG};

#[cfg(test)]
mod tests;
