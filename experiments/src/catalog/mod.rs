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
                changes: $changes,
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

catalog! {
    0 baseline "baseline" {
        summary: "per-row structs, fresh `String`s, distributions built per draw, `std::sync::mpsc`, 1 `ArrowWriter` with default properties, 1,024-row batches, `phone_type` as Utf8",
        changes: "rows drawn into Vec<Contact> with a new String per value, distributions built at every draw, std::sync::mpsc, one ArrowWriter with default properties, phone_type as Utf8",
        study: study(3.69, 1.20),
    },
    /// `phone_type` as `Dictionary(UInt8, Utf8)` instead of `Utf8`.
    1 adds DictionaryPhoneType "dictionary-phone-type" on contacts {
        summary: "`phone_type` as `Dictionary(UInt8, Utf8)`",
        changes: "three distinct values stored as u8 keys instead of repeated strings",
        study: study(3.77, 1.21),
    },
    /// Draw rows straight into Arrow builders instead of per-row structs.
    2 adds NoRowStructs "no-row-structs" on contacts {
        summary: "rows drawn straight into Arrow builders",
        changes: "rows drawn straight into Arrow builders; still a fresh String per name and number",
        study: study(3.79, 1.19),
    },
    /// One reused buffer for phone-number formatting.
    3 adds ReuseNumberBuffer "reuse-number-buffer" on contacts {
        summary: "one reused buffer for phone numbers",
        changes: "numbers formatted with write! into one String per producer (needs no-row-structs)",
        study: study(3.74, 1.17),
    },
    /// One reused buffer for names.
    4 adds ReuseNameBuffer "reuse-name-buffer" on contacts {
        summary: "one reused buffer for names",
        changes: "names assembled in one String per producer (needs no-row-structs)",
        study: study(3.61, 1.18),
    },
    /// Two writer threads and files instead of one.
    5 adds TwoWriters "two-writers" on any_workload {
        summary: "two writer threads and files",
        changes: "batch i goes to writer i mod 2 (unless --writers is given)",
        study: study(2.76, 1.05),
    },
    /// Distributions built once instead of at every draw.
    6 adds PrecomputedSampling "precomputed-sampling" on contacts {
        summary: "distributions built once, not per draw",
        changes: "WeightedIndex and Uniform tables built once per producer instead of at every draw; the draws themselves are identical",
        study: study(1.18, 2.02),
    },
    /// Writer and producer thread counts sized to the machine.
    7 adds SizedThreadPools "sized-thread-pools" on any_workload {
        summary: "writers = max(2, cores/2), producers = cores",
        changes: "writers = max(2, cores / 2), producers = cores (unless --writers / --producers are given); on 2 cores this equals 05's counts",
        study: study(0.81, 1.76),
    },
    /// Per-thread generator state and persistent builders, 4,096-row batches.
    8 adds ThreadLocalBuilders "thread-local-builders" on contacts {
        summary: "per-producer sampler and persistent builders, 4,096-row batches",
        changes: "each producer keeps its own sampler and batch builder across batches; default batch size 4,096",
        study: study(0.58, 2.21),
    },
    /// Names interned in one map shared by all producers.
    9 adds InternedNames "interned-names" on contacts {
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
    11 adds StaticBatchAssignment "static-batch-assignment" on any_workload {
        summary: "fixed batch strides per producer instead of a shared counter (ids already follow from the row, so the study's per-batch id ranges are moot here)",
        changes: "the study replaced a global atomic phone-id counter with per-batch id ranges; ids here already follow from the row number, so the nearest honest equivalent drops the one remaining shared counter: producers take fixed batch strides instead of claiming batches from an atomic",
        study: study(0.57, 2.23),
    },
    /// Names written straight into the column buffer, never copied through a `String`.
    12 adds DirectNames "direct-names" on contacts {
        summary: "names written into the column buffer with no intermediate `String`",
        changes: "the study stopped cloning the name buffer; here names are written straight into the Arrow value buffer with no intermediate String",
        study: study(0.57, 2.21),
    },
    /// Phone-number digits written by hand instead of through `fmt`.
    13 adds DirectDigits "direct-digits" on contacts {
        summary: "phone digits written by hand instead of through `fmt`",
        changes: "the ten digits are written two at a time from a 100-entry table straight into the value buffer instead of formatted with {:010}",
        study: None,
    },
    /// Writer properties fitted to the data: no dictionary or statistics for the unique numbers.
    14 adds FittedWriterProperties "fitted-writer-properties" on contacts {
        summary: "no dictionary and no statistics for the unique `phones.number`; no dictionary (it overflows anyway) and no statistics (unsorted: min/max prune nothing) for `name`",
        changes: "no dictionary and no statistics for the unique phones.number column; no dictionary (it overflows and falls back within each row group) and no statistics for the Zipfian names (unsorted, so every chunk's min/max spans the vocabulary and prunes nothing); phone_type keeps its dictionary. The files grow a little, as names are stored plain",
        study: None,
    },
    /// Name ranks found through a guide table instead of a binary search.
    15 adds GuidedNameRanks "guided-name-ranks" on contacts {
        summary: "Zipf name ranks found through a guide table instead of a binary search (identical draws)",
        changes: "the binary search of WeightedIndex<f64> over 1,500-2,000 Zipf weights is replaced: the same uniform draw indexes a bucket table and scans forward, giving the identical rank (needs precomputed-sampling)",
        study: None,
    },
    /// New allocations from mimalloc instead of the system allocator.
    16 adds Mimalloc "mimalloc" on any_workload {
        summary: "new allocations from mimalloc instead of glibc (chosen at start-up, no second build)",
        changes: "new blocks come from mimalloc (switched at start-up; each block is freed by the allocator that made it), against glibc's per-thread arenas trimming and re-faulting memory, i.e. system time, under multi-threaded encoding (results/vm/profile/16-mimalloc)",
        study: None,
    },
    /// One file per writer encoded by `shredlab-writer`'s parallel column-encoding writer.
    17 adds ParallelWriter "parallel-writer" on any_workload {
        summary: "one file encoded by `ParallelArrowWriter` with an encoder pool (default 1 writer)",
        changes: "each file is encoded by ParallelArrowWriter (leaf columns on a worker pool, byte-identical to ArrowWriter); default 1 writer with an encoder pool of max(2, cores / writers) threads",
        study: None,
    },
    /// Bounded crossbeam channels, and spent batches returned to producers for buffer reuse.
    18 adds RecyclingChannel "recycling-channel" on contacts {
        summary: "bounded crossbeam channels; written batches go back to producers, whose builders reuse their buffers",
        changes: "bounded crossbeam channels replace std::sync::mpsc, and writers hand written batches back so producers' persistent builders reuse their buffers (needs thread-local-builders; buffers still held elsewhere, e.g. by parallel-writer's workers, are dropped)",
        study: None,
    },
    /// 16,384-row batches, the best batch size of `make sweep`.
    19 adds LargeBatches "large-batches" on any_workload {
        summary: "16,384-row batches, the best cell of an early `make sweep`",
        changes: "an early make sweep over experiment 18 (writers 1-4 x batch 1,024-65,536) put 16,384-row batches fastest: fewer per-batch costs (channel hand-offs, builder finishes, Arrow array assembly). The rerun on the current code (results/vm/sweep-18) no longer separates 4,096 to 65,536 rows",
        study: None,
    },
    /// The kernel starts writing each file to disk while it is produced, not at the final sync.
    20 adds EarlyWriteback "early-writeback" on any_workload {
        summary: "the kernel writes each file back to disk while it is produced (`sync_file_range` every 8 MiB), so the final sync waits only for the tail",
        changes: "every file is synced before its rename, so a finished file is durable; without help the kernel holds the whole file in the page cache until that sync, and the run then waits idle for the disk. Now sync_file_range starts writeback every 8 MiB, so the disk works alongside the CPUs and the final sync waits only for the tail",
        study: None,
    },
    /// Smaller row groups, one in flight and a smaller queue: the writer's memory bounded.
    21 adds BoundedWriterMemory "bounded-writer-memory" on any_workload {
        summary: "262,144-row row groups, 1 row group in flight, an 8 MiB queue: the writer holds under a quarter of the memory",
        changes: "every writer holds a whole row group's encoded pages until it closes, and the parallel writer kept 2 closed row groups encoding plus a 32 MiB queue of Arrow data. Row groups of 262,144 rows (still 4 pages per column chunk), 1 in flight and an 8 MiB queue cut the peak live heap (--count-allocations, in the memory table of results/vm/README.md and in results/vm/memory-20), and the freshly faulted pages (system time) with it; readers get 4x as many row groups, whose cost the read-side tables of results/vm/peers measure",
        study: None,
    },
    22 reverts Mimalloc "system-allocator" {
        summary: "back to glibc's allocator: with the writer's buffers bounded, mimalloc's retained pages were most of the RSS",
        changes: "with 21's bounded buffers, mimalloc kept several times the live heap resident (its per-thread pages of large page buffers are retained, not returned), while glibc holds far less at the same speed (peak RSS against peak live heap in the memory table of results/vm/README.md); 16's reason (glibc trimming and re-faulting its arenas) went away with the buffers that caused it",
        study: None,
    },
    /// New allocations from jemalloc with one arena.
    23 adds Jemalloc "jemalloc" on any_workload {
        summary: "new allocations from jemalloc with a single arena: 22's memory, with far less of glibc's creep over long runs",
        changes: "with glibc, 22's peak RSS keeps growing over a billion rows while its live heap stays flat (make billion N=22, results/vm/billion-22): arenas fragment as batches built on producer threads are freed on encoder threads and page buffers the other way round. jemalloc with one arena (narenas:1, set at link time) reuses those extents across threads, and grows far less over the same billion rows (results/vm/billion-23)",
        study: None,
    },
    /// NULL, phone count, shape and type weights looked up in tables instead of searched.
    24 adds LookedUpSmallWeights "looked-up-small-weights" on contacts {
        summary: "the NULL-name, phone count, shape and type draws read their index from a table of one entry per unit of weight instead of a binary search (identical draws)",
        changes: "four draws per row (NULL name, phone count, shape, type) binary-search WeightedIndex<u32> over 2-4 weights; a table of one u8 per unit of weight (100 entries each here) indexed by the same uniform value gives the same index without the search. Its generation CPU (--sink null) is in the floor table of results/vm/README.md",
        study: None,
    },
    /// No statistics for `phone_type`, whose every row group holds all three values.
    25 adds NoTypeStatistics "no-type-statistics" on contacts {
        summary: "no statistics for `phone_type`: every row group holds all three types and NULLs, so its min/max and null counts prune nothing",
        changes: "with the other columns' statistics gone (14), phone_type's were the writer's last per-value min/max and level histograms; every row group holds Home, Mobile and Work and NULLs, so min/max and null counts prune no row group and no page for any type that exists. The file loses phone_type's statistics and its column index; its encoding CPU (--prebuilt --sink count) is in the floor table of results/vm/README.md",
        study: None,
    },
    /// Zipf name ranks through a guide table indexed by the random word's top bits.
    26 adds BitGuidedRanks "bit-guided-ranks" on contacts {
        summary: "Zipf name ranks through a guide table indexed by the top bits of the random word, which settles most draws with one read (identical draws)",
        changes: "the guide table of 15 is indexed by the uniform float, so its read waits for the float arithmetic; here it is indexed by the top bits of the random word the float is made of (monotone in it), and marks the buckets whose every word lands on one rank, so most draws take one read and the float is computed only to finish the others. Its generation CPU (--sink null) is in the floor table of results/vm/README.md",
        study: None,
    },
    /// Each writer takes its batches in batch-index order, through a bounded reorder window.
    27 adds OrderedHandOff "ordered-hand-off" on any_workload {
        summary: "batches reach their writers in batch-index order through a bounded reorder window: the same command writes the same bytes for any producer count",
        changes: "until 26 a writer takes batches in the order producers finish them, so the rows' order in each file, and so its bytes, follow the threads' schedule (the data gate's digest ignores order, so the data is the same). Now a finished batch waits in a reorder window until the ones before it are handed over, and a producer builds a batch only while it is inside the window (as many batches as the channels hold per writer), so memory stays bounded: the same command writes the same bytes for any --producers, batch claiming and machine. Experiments before 27 keep the study's arrival order",
        study: None,
    },
    /// Workers that generate each row group where they encode it.
    28 adds FusedRowGroups "fused-row-groups" on any_workload {
        summary: "each worker claims the next row group, generates it batch by batch and encodes each batch at once into that row group's column writers, while it is still in the core's caches; whoever completes the run appends finished row groups in order",
        changes: "until 27 every batch is built on a producer thread and encoded on others (the parallel writer's pool), so its Arrow data has left the producer's caches when it is encoded, and producers, writer and encoders wait on each other through the channel and the writer's budget. Here each of --producers workers claims the next row group, builds its batches (cut at the row group's end: with 262,144-row row groups they are 27's batches), encodes each into the row group's own column writers (shredlab_writer::OrderedRowGroupWriter: ArrowWriter's column-writer factory, compute_leaves and ArrowColumnWriter) and gives its buffers back to its builders for the next; the worker that finishes the row group a file waits for appends it and every finished one after it. No channel, no writer thread, no encoder pool. With --writers W, row group g goes to file g mod W. A worker starts a row group only within --producers + --row-groups-in-flight of the next its file appends, which bounds memory. Each file is the one ArrowWriter writes from the same batches and properties, so with one writer it is 27's, byte for byte",
        study: None,
    },
    /// `name` dictionary-encoded again, with a dictionary page that holds a row group's names.
    29 adds NameDictionary "name-dictionary" on contacts {
        summary: "`name` dictionary-encoded again, with a dictionary page limit that holds a row group's distinct names instead of overflowing the 1 MiB default: fewer bytes to write and read for some hashing",
        changes: "arrow-rs abandons a column's dictionary once its page passes the 1 MiB limit; a 262,144-row group holds about 88,000 distinct Zipfian names (1.5 MB of dictionary), so 14 turned the dictionary off and names were stored plain. With a limit that holds them (8 MiB: a 1,048,576-row group holds about 239,000, 4 MB), `name` is stored as RLE_DICTIONARY indices over one dictionary page per row group, as polars writes it: the encoder hashes every name, and the file is about a fifth smaller (`make experiments EXPERIMENTS=\"0 26 27 28 29 30\"` in results/vm/README.md; each run's output_bytes in its gate.json)",
        study: None,
    },
    30 reverts NameDictionary "plain-names" {
        summary: "revert of 29: the encoder's hashing of every name costs more write time than the smaller file saves; 28's configuration, for its speed",
        changes: "back to 28's properties (results/vm/README.md): the dictionary makes the file about a fifth smaller but adds the hashing of every name to the encoders' CPU, which the 2 cores cannot hide. 29 stays in the catalog for those who would rather write, store and read fewer bytes",
        study: None,
    },
    /// Files written with `O_DIRECT` from aligned buffers, past the page cache.
    31 adds DirectWrites "direct-writes" on any_workload {
        summary: "files written with O_DIRECT, past the page cache: each file's bytes fill one of two aligned 4 MiB buffers while a thread of the file's own writes the other to the disk",
        changes: "until 30 every byte written is copied by the writing thread into a page-cache page, which the kernel then allocates, writes back (from 20, sync_file_range every 8 MiB) and reclaims, much of it on the CPUs the workers need. Here each file is opened a second time with O_DIRECT (shredlab_writer::PendingFile::with_direct_writes): bytes are copied into an aligned buffer, and a full buffer goes to the file's disk thread, which writes it while the other fills; the last partial block is written padded and the file cut back to its length. The commit still syncs. Where the directory's file system takes no direct writes (tmpfs before Linux 6.6, some FUSE and network file systems), the run says so and writes through the page cache. The files are 30's, byte for byte",
        study: None,
    },
    32 reverts DirectWrites "page-cache-writes" {
        summary: "revert of 31: on this machine direct writes cost the workers 3% of wall time at the same CPU; 30's writes through the page cache",
        changes: "back to 30's writes through the page cache with early writeback. 31 was 3.0% slower than 30 in 30 paired rounds (results/vm/ab-direct-writes, p=0.0001) at the same CPU, and kept fewer cores busy (1.86 against 32's 1.93 in the same rounds, results/vm/README.md). Its profile (results/vm/profile/31-direct-writes) shows the kernel's system calls down from 7.2% of the CPU (28's profile) to 2.0%, but every byte is still copied once, now by the writing thread into the aligned buffer instead of by the kernel into a cache page, and page faults rose from 0.9% to 3.4%. 31 stays in the catalog (--enable direct-writes) for machines where writeback through the page cache costs more: measure it there with make ab",
        study: None,
    },
    /// Each row's four seed words computed in general registers, not packed into vector lanes.
    33 adds ScalarRowSeeds "scalar-row-seeds" on contacts {
        summary: "each row's generator seeded in general registers: the compiler had packed the four SplitMix64 words into SSE2 lanes, where every 64-bit multiply takes three (identical draws)",
        changes: "every row starts its own xoshiro256++ generator from four SplitMix64 words, two 64-bit multiplies each. Written as one map over the four words, the compiler packs them into two SSE2 registers, and x86-64's baseline vector instructions have no 64-bit multiply: each multiply, two words at a time, becomes three 32-bit multiplies (pmuludq), two shifts and two adds (rustc 1.95, x86-64 baseline target). Here each word's input passes through std::hint::black_box (shredlab_generator::rng::ScalarSeeding), which keeps the four computations apart: two scalar multiplies (imul) per word, eight in all, and a store and a load per word. The words, and so the data, are the same. Over 30 paired rounds of make ab against 32, generation alone (--sink null) is 4.9% faster (p<0.0001, results/vm/ab-scalar-seeds-generation) and the whole write 1.8% (p=0.028, results/vm/ab-scalar-seeds)",
        study: None,
    },
    /// Contacts drawn into plain vectors that become Arrow arrays once per batch.
    34 adds RawColumnVectors "raw-column-vectors" on contacts {
        summary: "rows drawn into plain vectors (text bytes, offsets, validity words, type keys) that become Arrow arrays once per batch: no builder call per value, each name copied by fixed-size moves, each number's 14 bytes stored at once (identical data)",
        changes: "until 33 every value goes through Arrow's builders (shredlab_generator::ContactBatchBuilder): a call per value or NULL (GenericByteBuilder::append_value and append_null, PrimitiveBuilder::append_option), a capacity check per piece of text (a number is written in six), a branch in the null-buffer builder, and a call to the C library's memcpy for each name part, whose length is known only at run time. In 33's profile of the whole write (results/vm/profile/33-scalar-row-seeds/stacks.folded) the builder calls the row loop does not inline (end_phones, append_value, append_null, PhoneTypeKeys::append, NullBufferBuilder::materialize_if_needed) and generation's memcpy calls take 8.9% of the CPU. Here shredlab_generator::RawContactBuilder appends to plain Vecs: a name is copied with two overlapping fixed-size moves per part into room made for the longest and cut back, a number's text is assembled in a local 14-byte array and stored with one copy, NULLs and list ends set a bit in a 64-bit word, and the arrays are made once per batch from the vectors (no UTF-8 pass: the text is whole vocabulary names and digits). It writes what direct-names and direct-digits write, so with either off (an ablation), or with interning (09) on, the builders' path is taken and pipeline warns that raw-column-vectors changes nothing. The batches are 33's, array for array. Over 30 paired rounds of make ab against 33, generation alone (--sink null) is 15.0% faster (p<0.0001, results/vm/ab-raw-vectors-generation) and the whole write 5.7% (p<0.0001, results/vm/ab-raw-vectors)",
        study: None,
    },
    /// Each file's disk blocks reserved ahead of its writes with `fallocate`.
    35 adds PreallocatedFiles "preallocated-files" on any_workload {
        summary: "each file reserves its disk blocks 64 MiB ahead of its writes (fallocate, keeping the size) and gives back the rest at the commit: ext4 stops reserving a block for every page written",
        changes: "until 34 a file grows by buffered writes into blocks nobody has reserved: for every 4 KiB page copied in, ext4 reserves a block for delayed allocation (ext4_da_get_block_prep, the extent status tree, quota) in the writing thread, and allocates the blocks at writeback. In 34's profile (results/vm/profile/34-raw-column-vectors) the kernel's system calls, most of them these writes, take 8.3% of the CPU. Here each file (shredlab_writer::PendingFile::with_preallocation) reserves the next 64 MiB with one fallocate(FALLOC_FL_KEEP_SIZE) call whenever a write would pass the reserved end: the pages land in unwritten extents, which ext4 converts as each writeback completes, in a kernel thread, and the file's size, as readers see it, stays what was written. Before the sync the file is truncated to its own length, which gives back the blocks past the end. ext4_da_get_block_prep falls from 1.9% to 0.3% of the CPU (results/vm/profile/35-preallocated-files against 34's, from another session). Only on ext4 and tmpfs, where that truncate was checked to free the blocks at once (other file systems are left alone: on some the truncate is not known to give the blocks back); only while the file system keeps 16 steps free; a refused reservation is given back at once and the file grows as before. With direct writes (31) on it changes nothing. The files are 34's, byte for byte. Over 60 paired rounds of make ab against 34 the write is 1.3% faster (p=0.0005) and takes 0.102 s of system time against 0.122 (results/vm/ab-preallocated-files-60); an earlier run of 30 rounds gave -0.5% (p=0.87, results/vm/ab-preallocated-files)",
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
    fn unknown_names_are_rejected() {
        assert!("turbo"
            .parse::<Optimization>()
            .unwrap_err()
            .to_string()
            .contains("--list"));
    }
}
