//! The experiment catalog: every optimization of the pipeline as a numbered, switchable entry.
//!
//! Experiment `N` runs the baseline plus the optimizations of entries `1..=N`, folded in order:
//! each entry adds its optimization, and an entry may revert an earlier one (10 reverts 09).
//! `--enable` / `--disable` then switch single optimizations on top, for ablations.
//!
//! The table at the bottom of this file is the one definition of the catalog: the
//! [`Optimization`] enum, its slugs, [`Optimization::ALL`] and [`CATALOG`] are all generated from
//! it by the `catalog!` macro, so adding an experiment is adding one entry (see CONTRIBUTING.md).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Generates [`Optimization`] and [`CATALOG`] from one list of entries, each written as
/// `NUMBER baseline "slug" { .. }`, `NUMBER adds Variant "slug" { .. }` (with the variant's doc
/// comment before it) or `NUMBER reverts Variant "slug" { .. }`. The first rules walk the list and
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
        $(#[doc = $doc:literal])* $number:literal adds $variant:ident $slug:literal $body:tt,
        $($rest:tt)*
    ) => {
        catalog!(@walk
            [$($optimizations)* { $(#[doc = $doc])* $variant $slug }]
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
        [$({ $(#[doc = $doc:literal])* $variant:ident $variant_slug:literal })*]
        [$({ $number:literal $slug:literal $adds:expr, $reverts:expr, {
            summary: $summary:literal, changes: $changes:literal, study: $study:expr $(,)?
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
        }

        /// Every experiment, by number.
        pub static CATALOG: &[Experiment] = &[$(
            Experiment {
                number: $number,
                slug: $slug,
                summary: $summary,
                changes: $changes,
                adds: $adds,
                reverts: $reverts,
                study: $study,
            },
        )*];
    };
    ($($entries:tt)*) => {
        catalog!(@walk [] [] $($entries)*);
    };
}

// An `Optimizations` set is one bit per optimization in a `u32`.
const _: () = assert!(
    Optimization::ALL.len() <= 32,
    "Optimizations needs a wider bit set"
);

impl Optimization {
    fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// The optimizations this one acts through: without them it changes nothing (the code path
    /// it alters is not taken).
    pub fn needs(self) -> &'static [Optimization] {
        use Optimization::*;
        match self {
            // Text strategies and interning apply to builders, not to per-row structs.
            ReuseNumberBuffer | ReuseNameBuffer | InternedNames | DirectNames | DirectDigits => {
                &[NoRowStructs]
            }
            GuidedNameRanks | LookedUpSmallWeights | BitGuidedRanks => &[PrecomputedSampling],
            // Only persistent builders can take spent buffers back.
            RecyclingChannel => &[ThreadLocalBuilders],
            _ => &[],
        }
    }
}

impl Optimization {
    /// Whether this optimization acts on the contacts generator or on the contacts' columns,
    /// and so means nothing for a workload read from a spec file.
    pub fn contacts_only(self) -> bool {
        use Optimization::*;
        matches!(
            self,
            DictionaryPhoneType
                | NoRowStructs
                | ReuseNumberBuffer
                | ReuseNameBuffer
                | PrecomputedSampling
                | ThreadLocalBuilders
                | InternedNames
                | DirectNames
                | DirectDigits
                | FittedWriterProperties
                | NoTypeStatistics
                | GuidedNameRanks
                | RecyclingChannel
                | LookedUpSmallWeights
                | BitGuidedRanks
        )
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
    /// No experiment has this number.
    #[error("unknown experiment {0}: experiments are numbered 0 to {max}; run `pipeline --list`", max = CATALOG.len() - 1)]
    UnknownExperiment(u32),
}

impl FromStr for Optimization {
    type Err = CatalogError;

    fn from_str(slug: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|o| o.slug() == slug.trim())
            .ok_or_else(|| CatalogError::UnknownOptimization(slug.to_string()))
    }
}

/// A set of optimizations, resolved once per run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Optimizations(u32);

impl Optimizations {
    /// Whether `o` is on.
    pub fn has(self, o: Optimization) -> bool {
        self.0 & o.bit() != 0
    }

    /// Switches `o` on.
    pub fn enable(&mut self, o: Optimization) {
        self.0 |= o.bit();
    }

    /// Switches `o` off.
    pub fn disable(&mut self, o: Optimization) {
        self.0 &= !o.bit();
    }

    /// The optimizations that are on, in catalog order.
    pub fn iter(self) -> impl Iterator<Item = Optimization> {
        Optimization::ALL
            .iter()
            .copied()
            .filter(move |o| self.has(*o))
    }

    /// The optimizations that are on but change nothing, because one they need is off.
    pub fn inert(self) -> impl Iterator<Item = Optimization> {
        self.iter()
            .filter(move |o| o.needs().iter().any(|need| !self.has(*need)))
    }

    /// The optimizations of experiment `number`: entries `1..=number` folded in order.
    pub fn for_experiment(number: u32) -> Result<Self, CatalogError> {
        let entries = CATALOG
            .get(..=number as usize)
            .ok_or(CatalogError::UnknownExperiment(number))?;
        let mut set = Self::default();
        for entry in entries {
            if let Some(o) = entry.adds {
                set.enable(o);
            }
            if let Some(o) = entry.reverts {
                set.disable(o);
            }
        }
        Ok(set)
    }
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
    /// What changes in the code, and any caveat.
    pub changes: &'static str,
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

/// The catalog as aligned text: number, slug, the study's figure, summary.
pub fn text_table() -> String {
    let mut text = format!("{:>3}  {:<26} {:>9}  {}\n", "N", "slug", "study", "summary");
    for e in CATALOG {
        let study = e
            .study
            .map_or_else(|| "-".to_string(), |s| format!("{:.2} s", s.median_s));
        text.push_str(&format!(
            "{:>3}  {:<26} {:>9}  {}\n",
            format!("{:02}", e.number),
            e.slug,
            study,
            e.summary
        ));
    }
    text
}

/// The catalog as the Markdown table of the README (a test keeps the two equal).
pub fn markdown_table() -> String {
    let mut text = String::from("| N | slug | what changes |\n|---|---|---|\n");
    for e in CATALOG {
        text.push_str(&format!(
            "| {:02} | {} | {} |\n",
            e.number,
            e.slug,
            e.summary.replace('|', "\\|")
        ));
    }
    text
}

const fn study(median_s: f64, ipc: f64) -> Option<StudyFigure> {
    Some(StudyFigure { median_s, ipc })
}

catalog! {
    0 baseline "baseline" {
        summary: "per-row structs, fresh `String`s, distributions built per draw, `std::sync::mpsc`, 1 `ArrowWriter` with default properties, 1,024-row batches, `phone_type` as Utf8",
        changes: "rows drawn into Vec<Contact> with a new String per value, distributions built at every draw, std::sync::mpsc, one ArrowWriter with default properties, phone_type as Utf8",
        study: study(3.69, 1.20),
    },
    /// `phone_type` as `Dictionary(UInt8, Utf8)` instead of `Utf8`.
    1 adds DictionaryPhoneType "dictionary-phone-type" {
        summary: "`phone_type` as `Dictionary(UInt8, Utf8)`",
        changes: "three distinct values stored as u8 keys instead of repeated strings",
        study: study(3.77, 1.21),
    },
    /// Draw rows straight into Arrow builders instead of per-row structs.
    2 adds NoRowStructs "no-row-structs" {
        summary: "rows drawn straight into Arrow builders",
        changes: "rows drawn straight into Arrow builders; still a fresh String per name and number",
        study: study(3.79, 1.19),
    },
    /// One reused buffer for phone-number formatting.
    3 adds ReuseNumberBuffer "reuse-number-buffer" {
        summary: "one reused buffer for phone numbers",
        changes: "numbers formatted with write! into one String per producer (needs no-row-structs)",
        study: study(3.74, 1.17),
    },
    /// One reused buffer for names.
    4 adds ReuseNameBuffer "reuse-name-buffer" {
        summary: "one reused buffer for names",
        changes: "names assembled in one String per producer (needs no-row-structs)",
        study: study(3.61, 1.18),
    },
    /// Two writer threads and files instead of one.
    5 adds TwoWriters "two-writers" {
        summary: "two writer threads and files",
        changes: "batch i goes to writer i mod 2 (unless --writers is given)",
        study: study(2.76, 1.05),
    },
    /// Distributions built once instead of at every draw.
    6 adds PrecomputedSampling "precomputed-sampling" {
        summary: "distributions built once, not per draw",
        changes: "WeightedIndex and Uniform tables built once per producer instead of at every draw; the draws themselves are identical",
        study: study(1.18, 2.02),
    },
    /// Writer and producer thread counts sized to the machine.
    7 adds SizedThreadPools "sized-thread-pools" {
        summary: "writers = max(2, cores/2), producers = cores",
        changes: "writers = max(2, cores / 2), producers = cores (unless --writers / --producers are given); on 2 cores this equals 05's counts",
        study: study(0.81, 1.76),
    },
    /// Per-thread generator state and persistent builders, 4,096-row batches.
    8 adds ThreadLocalBuilders "thread-local-builders" {
        summary: "per-producer sampler and persistent builders, 4,096-row batches",
        changes: "each producer keeps its own sampler and batch builder across batches; default batch size 4,096",
        study: study(0.58, 2.21),
    },
    /// Names interned in one map shared by all producers.
    9 adds InternedNames "interned-names" {
        summary: "names interned in one shared map (a regression, as in the study)",
        changes: "every name is looked up in a shared RwLock<HashMap> and its Arc<str> cloned; the shared cache lines bounce between cores",
        study: study(0.97, 1.10),
    },
    10 reverts InternedNames "revert-interning" {
        summary: "revert of 09",
        changes: "back to per-producer name buffers; the study credited an unmeasured refactor to this step",
        study: study(0.53, 2.05),
    },
    /// Each producer owns a fixed stride of batches instead of claiming them from a shared counter.
    11 adds StaticBatchAssignment "static-batch-assignment" {
        summary: "fixed batch strides per producer instead of a shared counter (ids already follow from the row, so the study's per-batch id ranges are moot here)",
        changes: "the study replaced a global atomic phone-id counter with per-batch id ranges; ids here already follow from the row number, so the nearest honest equivalent drops the one remaining shared counter: producers take fixed batch strides instead of claiming batches from an atomic",
        study: study(0.57, 2.23),
    },
    /// Names written straight into the column buffer, never copied through a `String`.
    12 adds DirectNames "direct-names" {
        summary: "names written into the column buffer with no intermediate `String`",
        changes: "the study stopped cloning the name buffer; here names are written straight into the Arrow value buffer with no intermediate String",
        study: study(0.57, 2.21),
    },
    /// Phone-number digits written by hand instead of through `fmt`.
    13 adds DirectDigits "direct-digits" {
        summary: "phone digits written by hand instead of through `fmt`",
        changes: "the ten digits are written two at a time from a 100-entry table straight into the value buffer instead of formatted with {:010}",
        study: None,
    },
    /// Writer properties fitted to the data: no dictionary or statistics for the unique numbers.
    14 adds FittedWriterProperties "fitted-writer-properties" {
        summary: "no dictionary and no statistics for the unique `phones.number`; no dictionary (it overflows anyway) and no statistics (unsorted: min/max prune nothing) for `name`",
        changes: "no dictionary and no statistics for the unique phones.number column; no dictionary (it overflows and falls back within each row group) and no statistics for the Zipfian names (unsorted, so every chunk's min/max spans the vocabulary and prunes nothing); phone_type keeps its dictionary. Output grows ~3% (names plain)",
        study: None,
    },
    /// Name ranks found through a guide table instead of a binary search.
    15 adds GuidedNameRanks "guided-name-ranks" {
        summary: "Zipf name ranks found through a guide table instead of a binary search (identical draws)",
        changes: "profiling (make profile N=14) put ~17% of CPU in the binary search of WeightedIndex<f64> over 1,500-2,000 Zipf weights; the same uniform draw now indexes a bucket table and scans forward, giving the identical rank (needs precomputed-sampling)",
        study: None,
    },
    /// New allocations from mimalloc instead of the system allocator.
    16 adds Mimalloc "mimalloc" {
        summary: "new allocations from mimalloc instead of glibc (chosen at start-up, no second build)",
        changes: "new blocks come from mimalloc (switched at start-up; each block is freed by the allocator that made it); profiling showed glibc's per-thread arenas trimming and re-faulting memory, i.e. system time, under multi-threaded encoding",
        study: None,
    },
    /// One file per writer encoded by `shredlab-writer`'s parallel column-encoding writer.
    17 adds ParallelWriter "parallel-writer" {
        summary: "one file encoded by `ParallelArrowWriter` with an encoder pool (default 1 writer)",
        changes: "each file is encoded by ParallelArrowWriter (leaf columns on a worker pool, byte-identical to ArrowWriter); default 1 writer with an encoder pool of max(2, cores / writers) threads",
        study: None,
    },
    /// Bounded crossbeam channels, and spent batches returned to producers for buffer reuse.
    18 adds RecyclingChannel "recycling-channel" {
        summary: "bounded crossbeam channels; written batches go back to producers, whose builders reuse their buffers",
        changes: "bounded crossbeam channels replace std::sync::mpsc, and writers hand written batches back so producers' persistent builders reuse their buffers (needs thread-local-builders; buffers still held elsewhere, e.g. by parallel-writer's workers, are dropped)",
        study: None,
    },
    /// 16,384-row batches, the best batch size of `make sweep`.
    19 adds LargeBatches "large-batches" {
        summary: "16,384-row batches, the best cell of an early `make sweep`",
        changes: "an early make sweep over experiment 18 (writers 1-4 x batch 1,024-65,536) put 16,384-row batches fastest: fewer per-batch costs (channel hand-offs, builder finishes, Arrow array assembly). The rerun on the current code (results/vm/sweep-18) no longer separates 4,096 to 65,536 rows (medians 1.07-1.15 s), and the catalog run finds 19 against 18 not significant",
        study: None,
    },
    /// The kernel starts writing each file to disk while it is produced, not at the final sync.
    20 adds EarlyWriteback "early-writeback" {
        summary: "the kernel writes each file back to disk while it is produced (`sync_file_range` every 8 MiB), so the final sync waits only for the tail",
        changes: "every file is synced before its rename, so a finished file is durable; without help the kernel holds the whole file in the page cache until that sync, and the run then waits idle ~0.1 s for the disk (strace -T: fdatasync 85-100 ms for 279 MiB). Now sync_file_range starts writeback every 8 MiB, so the disk works alongside the CPUs and the final sync waits only for the tail",
        study: None,
    },
    /// Smaller row groups, one in flight and a smaller queue: the writer's memory bounded.
    21 adds BoundedWriterMemory "bounded-writer-memory" {
        summary: "262,144-row row groups, 1 row group in flight, an 8 MiB queue: the writer holds a fifth of the memory",
        changes: "every writer holds a whole row group's encoded pages until it closes (about 28 MB per 1,048,576 rows here), and the parallel writer kept 2 closed row groups encoding plus a 32 MiB queue of Arrow data: --count-allocations put the peak live heap of 20 at ~120 MiB. Row groups of 262,144 rows (about 7 MB, still 4 pages per column chunk), 1 in flight and an 8 MiB queue cut it to ~30 MiB, and the freshly faulted pages (system time) with it; readers get 4x as many row groups, whose cost issue 16's read-side tables measure",
        study: None,
    },
    22 reverts Mimalloc "system-allocator" {
        summary: "back to glibc's allocator: with the writer's buffers bounded, mimalloc's retained pages were most of the RSS",
        changes: "with 21's bounded buffers, mimalloc kept ~180 MiB resident for ~30 MiB of live heap (its per-thread pages of large page buffers are retained, not returned), while glibc holds ~50 MiB at the same speed; 16's reason (glibc trimming and re-faulting its arenas) went away with the buffers that caused it",
        study: None,
    },
    /// New allocations from jemalloc with one arena.
    23 adds Jemalloc "jemalloc" {
        summary: "new allocations from jemalloc with a single arena: 22's memory, with far less of glibc's creep over long runs",
        changes: "with glibc, 22's peak RSS grew from 62 MiB at 100 M rows to 127 MiB at 1,000 M (make billion N=22) while its live heap stayed near 30 MiB: arenas fragment as batches built on producer threads are freed on encoder threads and page buffers the other way round. jemalloc with one arena (narenas:1, set at link time) reuses those extents across threads: make billion N=23 grows from 50 to 67 MiB over the same billion rows",
        study: None,
    },
    /// NULL, phone count, shape and type weights looked up in tables instead of searched.
    24 adds LookedUpSmallWeights "looked-up-small-weights" {
        summary: "the NULL-name, phone count, shape and type draws read their index from a table of one entry per unit of weight instead of a binary search (identical draws)",
        changes: "a profile of 23's generation alone (perf record -e cpu-clock on --sink null, then perf annotate of the batch builder) put about a fifth of the builder's samples, a tenth of generation, on the inlined binary searches of WeightedIndex<u32> over 2-4 weights, four draws per row; a table of one u8 per unit of weight (100 entries each here) indexed by the same uniform value gives the same index without the search. Generation alone, 10 M rows: 0.72 -> 0.67 CPU s (medians of 7 interleaved runs of --sink null against 23)",
        study: None,
    },
    /// No statistics for `phone_type`, whose every row group holds all three values.
    25 adds NoTypeStatistics "no-type-statistics" {
        summary: "no statistics for `phone_type`: every row group holds all three types and NULLs, so its min/max and null counts prune nothing",
        changes: "with the other columns' statistics gone (14), phone_type's were the writer's last per-value min/max and level histograms; every row group of a 10 M-row file holds Home, Mobile and Work and NULLs (checked with pyarrow on all 39), so min/max and null counts prune no row group and no page for any type that exists. Encoding alone (--prebuilt --sink count), 10 M rows: 0.96 -> 0.88 CPU s, medians of 7 interleaved runs against 24; the file loses phone_type's statistics and its column index",
        study: None,
    },
    /// Zipf name ranks through a guide table indexed by the random word's top bits.
    26 adds BitGuidedRanks "bit-guided-ranks" {
        summary: "Zipf name ranks through a guide table indexed by the top bits of the random word, which settles most draws with one read (identical draws)",
        changes: "the guide table of 15 is indexed by the uniform float, so its read waits for the float arithmetic; here it is indexed by the top bits of the random word the float is made of (monotone in it), and marks the buckets whose every word lands on one rank, so most draws take one read and the float is computed only to finish the others. Generation alone, 10 M rows: 0.67 -> 0.54 CPU s (medians of 7 interleaved runs of --sink null against 24)",
        study: None,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_positions() {
        for (i, e) in CATALOG.iter().enumerate() {
            assert_eq!(e.number as usize, i);
        }
    }

    #[test]
    fn every_optimization_is_added_exactly_once() {
        for &o in Optimization::ALL {
            let adders = CATALOG.iter().filter(|e| e.adds == Some(o)).count();
            assert_eq!(adders, 1, "{o}");
            assert_eq!(o.slug().parse::<Optimization>(), Ok(o));
        }
    }

    #[test]
    fn interning_is_on_only_at_nine() {
        for n in 0..CATALOG.len() as u32 {
            let set = Optimizations::for_experiment(n).unwrap();
            assert_eq!(
                set.has(Optimization::InternedNames),
                n == 9,
                "experiment {n}"
            );
            assert_eq!(set.has(Optimization::TwoWriters), n >= 5, "experiment {n}");
        }
        assert_eq!(
            Optimizations::for_experiment(0).unwrap(),
            Optimizations::default()
        );
    }

    #[test]
    fn no_catalog_experiment_holds_an_inert_optimization() {
        for n in 0..CATALOG.len() as u32 {
            let set = Optimizations::for_experiment(n).unwrap();
            assert_eq!(set.inert().count(), 0, "experiment {n}");
        }
        let mut alone = Optimizations::default();
        alone.enable(Optimization::DirectDigits);
        assert_eq!(
            alone.inert().collect::<Vec<_>>(),
            [Optimization::DirectDigits]
        );
    }

    #[test]
    fn unknown_names_are_rejected() {
        let n = CATALOG.len() as u32;
        assert!(Optimizations::for_experiment(n).is_err());
        assert!("turbo"
            .parse::<Optimization>()
            .unwrap_err()
            .to_string()
            .contains("--list"));
    }
}
