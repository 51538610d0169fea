//! The experiment catalog: every optimization of the pipeline as a numbered, switchable entry.
//!
//! Experiment `N` runs the baseline plus the optimizations of entries `1..=N`, folded in order:
//! each entry adds its optimization, and an entry may revert an earlier one (10 reverts 09).
//! `--enable` / `--disable` then switch single optimizations on top, for ablations.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// One switchable change to the pipeline. Its slug names it on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Optimization {
    /// `phone_type` as `Dictionary(UInt8, Utf8)` instead of `Utf8`.
    DictionaryPhoneType,
    /// Draw rows straight into Arrow builders instead of per-row structs.
    NoRowStructs,
    /// One reused buffer for phone-number formatting.
    ReuseNumberBuffer,
    /// One reused buffer for names.
    ReuseNameBuffer,
    /// Two writer threads and files instead of one.
    TwoWriters,
    /// Distributions built once instead of at every draw.
    PrecomputedSampling,
    /// Writer and producer thread counts sized to the machine.
    SizedThreadPools,
    /// Per-thread generator state and persistent builders, 4,096-row batches.
    ThreadLocalBuilders,
    /// Names interned in one map shared by all producers.
    InternedNames,
    /// Each producer owns a fixed stride of batches instead of claiming them from a shared counter.
    StaticBatchAssignment,
    /// Names written straight into the column buffer, never copied through a `String`.
    DirectNames,
    /// Phone-number digits written by hand instead of through `fmt`.
    DirectDigits,
    /// Writer properties fitted to the data: no dictionary or statistics for the unique numbers.
    FittedWriterProperties,
    /// Name ranks found through a guide table instead of a binary search.
    GuidedNameRanks,
    /// New allocations from mimalloc instead of the system allocator.
    Mimalloc,
    /// One file per writer encoded by `shredlab-writer`'s parallel column-encoding writer.
    ParallelWriter,
    /// Bounded crossbeam channels, and spent batches returned to producers for buffer reuse.
    RecyclingChannel,
    /// 16,384-row batches, the best batch size of `make sweep`.
    LargeBatches,
    /// The kernel starts writing each file to disk while it is produced, not at the final sync.
    EarlyWriteback,
}

impl Optimization {
    /// Every optimization, in catalog order.
    pub const ALL: [Optimization; 19] = [
        Self::DictionaryPhoneType,
        Self::NoRowStructs,
        Self::ReuseNumberBuffer,
        Self::ReuseNameBuffer,
        Self::TwoWriters,
        Self::PrecomputedSampling,
        Self::SizedThreadPools,
        Self::ThreadLocalBuilders,
        Self::InternedNames,
        Self::StaticBatchAssignment,
        Self::DirectNames,
        Self::DirectDigits,
        Self::FittedWriterProperties,
        Self::GuidedNameRanks,
        Self::Mimalloc,
        Self::ParallelWriter,
        Self::RecyclingChannel,
        Self::LargeBatches,
        Self::EarlyWriteback,
    ];

    /// The command-line name.
    pub fn slug(self) -> &'static str {
        match self {
            Self::DictionaryPhoneType => "dictionary-phone-type",
            Self::NoRowStructs => "no-row-structs",
            Self::ReuseNumberBuffer => "reuse-number-buffer",
            Self::ReuseNameBuffer => "reuse-name-buffer",
            Self::TwoWriters => "two-writers",
            Self::PrecomputedSampling => "precomputed-sampling",
            Self::SizedThreadPools => "sized-thread-pools",
            Self::ThreadLocalBuilders => "thread-local-builders",
            Self::InternedNames => "interned-names",
            Self::StaticBatchAssignment => "static-batch-assignment",
            Self::DirectNames => "direct-names",
            Self::DirectDigits => "direct-digits",
            Self::FittedWriterProperties => "fitted-writer-properties",
            Self::GuidedNameRanks => "guided-name-ranks",
            Self::Mimalloc => "mimalloc",
            Self::ParallelWriter => "parallel-writer",
            Self::RecyclingChannel => "recycling-channel",
            Self::LargeBatches => "large-batches",
            Self::EarlyWriteback => "early-writeback",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
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
            .into_iter()
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
        Optimization::ALL.into_iter().filter(move |o| self.has(*o))
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

const fn study(median_s: f64, ipc: f64) -> Option<StudyFigure> {
    Some(StudyFigure { median_s, ipc })
}

/// Every experiment, by number.
pub static CATALOG: &[Experiment] = &[
    Experiment {
        number: 0,
        slug: "baseline",
        summary: "per-row structs, fresh strings, per-call sampling, 1 writer, 1,024-row batches",
        changes: "rows drawn into Vec<Contact> with a new String per value, distributions built at every draw, std::sync::mpsc, one ArrowWriter with default properties, phone_type as Utf8",
        adds: None,
        reverts: None,
        study: study(3.69, 1.20),
    },
    Experiment {
        number: 1,
        slug: "dictionary-phone-type",
        summary: "phone_type as Dictionary(UInt8, Utf8)",
        changes: "three distinct values stored as u8 keys instead of repeated strings",
        adds: Some(Optimization::DictionaryPhoneType),
        reverts: None,
        study: study(3.77, 1.21),
    },
    Experiment {
        number: 2,
        slug: "no-row-structs",
        summary: "no intermediate per-row structs",
        changes: "rows drawn straight into Arrow builders; still a fresh String per name and number",
        adds: Some(Optimization::NoRowStructs),
        reverts: None,
        study: study(3.79, 1.19),
    },
    Experiment {
        number: 3,
        slug: "reuse-number-buffer",
        summary: "one reused buffer for phone numbers",
        changes: "numbers formatted with write! into one String per producer (needs no-row-structs)",
        adds: Some(Optimization::ReuseNumberBuffer),
        reverts: None,
        study: study(3.74, 1.17),
    },
    Experiment {
        number: 4,
        slug: "reuse-name-buffer",
        summary: "one reused buffer for names",
        changes: "names assembled in one String per producer (needs no-row-structs)",
        adds: Some(Optimization::ReuseNameBuffer),
        reverts: None,
        study: study(3.61, 1.18),
    },
    Experiment {
        number: 5,
        slug: "two-writers",
        summary: "two writer threads, two files",
        changes: "batch i goes to writer i mod 2 (unless --writers is given)",
        adds: Some(Optimization::TwoWriters),
        reverts: None,
        study: study(2.76, 1.05),
    },
    Experiment {
        number: 6,
        slug: "precomputed-sampling",
        summary: "lightweight sampling: distributions built once",
        changes: "WeightedIndex and Uniform tables built once per producer instead of at every draw; the draws themselves are identical",
        adds: Some(Optimization::PrecomputedSampling),
        reverts: None,
        study: study(1.18, 2.02),
    },
    Experiment {
        number: 7,
        slug: "sized-thread-pools",
        summary: "more writers and a producer pool sized to the machine",
        changes: "writers = max(2, cores / 2), producers = cores (unless --writers / --producers are given); on 2 cores this equals 05's counts",
        adds: Some(Optimization::SizedThreadPools),
        reverts: None,
        study: study(0.81, 1.76),
    },
    Experiment {
        number: 8,
        slug: "thread-local-builders",
        summary: "thread-local generator state, persistent builders, 4,096-row batches",
        changes: "each producer keeps its own sampler and batch builder across batches; default batch size 4,096",
        adds: Some(Optimization::ThreadLocalBuilders),
        reverts: None,
        study: study(0.58, 2.21),
    },
    Experiment {
        number: 9,
        slug: "interned-names",
        summary: "names interned in one map shared by all producers (a regression)",
        changes: "every name is looked up in a shared RwLock<HashMap> and its Arc<str> cloned; the shared cache lines bounce between cores",
        adds: Some(Optimization::InternedNames),
        reverts: None,
        study: study(0.97, 1.10),
    },
    Experiment {
        number: 10,
        slug: "revert-interning",
        summary: "revert of 09",
        changes: "back to per-producer name buffers; the study credited an unmeasured refactor to this step",
        adds: None,
        reverts: Some(Optimization::InternedNames),
        study: study(0.53, 2.05),
    },
    Experiment {
        number: 11,
        slug: "static-batch-assignment",
        summary: "no shared counter on the hot path",
        changes: "the study replaced a global atomic phone-id counter with per-batch id ranges; ids here already follow from the row number, so the nearest honest equivalent drops the one remaining shared counter: producers take fixed batch strides instead of claiming batches from an atomic",
        adds: Some(Optimization::StaticBatchAssignment),
        reverts: None,
        study: study(0.57, 2.23),
    },
    Experiment {
        number: 12,
        slug: "direct-names",
        summary: "name buffer no longer copied",
        changes: "the study stopped cloning the name buffer; here names are written straight into the Arrow value buffer with no intermediate String",
        adds: Some(Optimization::DirectNames),
        reverts: None,
        study: study(0.57, 2.21),
    },
    Experiment {
        number: 13,
        slug: "direct-digits",
        summary: "phone numbers written without fmt",
        changes: "the ten digits are written two at a time from a 100-entry table straight into the value buffer instead of formatted with {:010}",
        adds: Some(Optimization::DirectDigits),
        reverts: None,
        study: None,
    },
    Experiment {
        number: 14,
        slug: "fitted-writer-properties",
        summary: "writer properties fitted to the data",
        changes: "no dictionary and no statistics for the unique phones.number column; no dictionary (it overflows and falls back within each row group) and no statistics for the Zipfian names (unsorted, so every chunk's min/max spans the vocabulary and prunes nothing); phone_type keeps its dictionary. Output grows ~3% (names plain)",
        adds: Some(Optimization::FittedWriterProperties),
        reverts: None,
        study: None,
    },
    Experiment {
        number: 15,
        slug: "guided-name-ranks",
        summary: "name ranks found through a guide table",
        changes: "profiling (make profile N=14) put ~17% of CPU in the binary search of WeightedIndex<f64> over 1,500-2,000 Zipf weights; the same uniform draw now indexes a bucket table and scans forward, giving the identical rank (needs precomputed-sampling)",
        adds: Some(Optimization::GuidedNameRanks),
        reverts: None,
        study: None,
    },
    Experiment {
        number: 16,
        slug: "mimalloc",
        summary: "mimalloc instead of the system allocator",
        changes: "new blocks come from mimalloc (switched at start-up; each block is freed by the allocator that made it); profiling showed glibc's per-thread arenas trimming and re-faulting memory, i.e. system time, under multi-threaded encoding",
        adds: Some(Optimization::Mimalloc),
        reverts: None,
        study: None,
    },
    Experiment {
        number: 17,
        slug: "parallel-writer",
        summary: "parallel column-encoding writer",
        changes: "each file is encoded by ParallelArrowWriter (leaf columns on a worker pool, byte-identical to ArrowWriter); default 1 writer with an encoder pool of max(2, cores / writers) threads",
        adds: Some(Optimization::ParallelWriter),
        reverts: None,
        study: None,
    },
    Experiment {
        number: 18,
        slug: "recycling-channel",
        summary: "crossbeam channels, spent batches recycled to producers",
        changes: "bounded crossbeam channels replace std::sync::mpsc, and writers hand written batches back so producers' persistent builders reuse their buffers (needs thread-local-builders; buffers still held elsewhere, e.g. by parallel-writer's workers, are dropped)",
        adds: Some(Optimization::RecyclingChannel),
        reverts: None,
        study: None,
    },
    Experiment {
        number: 19,
        slug: "large-batches",
        summary: "16,384-row batches, the sweep's best cell",
        changes: "make sweep over experiment 18 (writers 1-4 x batch 1,024-65,536) put 16,384-row batches fastest: fewer per-batch costs (channel hand-offs, builder finishes, Arrow array assembly); 65,536 loses again to cache footprint",
        adds: Some(Optimization::LargeBatches),
        reverts: None,
        study: None,
    },
    Experiment {
        number: 20,
        slug: "early-writeback",
        summary: "files written back to disk while they are produced",
        changes: "every file is synced before its rename, so a finished file is durable; without help the kernel holds the whole file in the page cache until that sync, and the run then waits idle ~0.1 s for the disk (strace -T: fdatasync 85-100 ms for 279 MiB). Now sync_file_range starts writeback every 8 MiB, so the disk works alongside the CPUs and the final sync waits only for the tail",
        adds: Some(Optimization::EarlyWriteback),
        reverts: None,
        study: None,
    },
];

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
        for o in Optimization::ALL {
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
