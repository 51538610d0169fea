//! The catalog's entries: the one table the `catalog!` macro (in `mod.rs`) makes
//! [`Optimization`] and [`CATALOG`] from.

use super::{Experiment, StudyFigure, Workloads};

const fn study(median_s: f64, ipc: f64) -> Option<StudyFigure> {
    Some(StudyFigure { median_s, ipc })
}

catalog! {
    0 baseline "baseline" {
        summary: "per-row structs, fresh `String`s, distributions built per draw, `std::sync::mpsc`, 1 `ArrowWriter` with default properties, 1,024-row batches, `phone_type` as Utf8",
        mechanism: "rows drawn into Vec<Contact> with a new String per value, distributions built at every draw, std::sync::mpsc, one ArrowWriter with default properties and phone_type as Utf8: the starting point every later entry changes",
        study: study(3.69, 1.20),
    },
    /// `phone_type` as `Dictionary(UInt8, Utf8)` instead of `Utf8`.
    1 adds DictionaryPhoneType "dictionary-phone-type" on contacts {
        summary: "`phone_type` as `Dictionary(UInt8, Utf8)`",
        mechanism: "the three distinct phone types are stored as u8 keys over a three-entry dictionary instead of a repeated string per phone, so there is less to build and encode",
        study: study(3.77, 1.21),
    },
    /// Draw rows straight into Arrow builders instead of per-row structs.
    2 adds NoRowStructs "no-row-structs" on contacts {
        summary: "rows drawn straight into Arrow builders",
        mechanism: "rows are drawn straight into Arrow builders instead of into per-row structs that are copied into columns afterwards; still a fresh String per name and number",
        study: study(3.79, 1.19),
    },
    /// One reused buffer for phone-number formatting.
    3 adds ReuseNumberBuffer "reuse-number-buffer" on contacts {
        summary: "one reused buffer for phone numbers",
        mechanism: "numbers are formatted with write! into one String per producer, reused, instead of a new String per number (needs no-row-structs)",
        study: study(3.74, 1.17),
    },
    /// One reused buffer for names.
    4 adds ReuseNameBuffer "reuse-name-buffer" on contacts {
        summary: "one reused buffer for names",
        mechanism: "names are assembled in one reused String per producer instead of a new String per name (needs no-row-structs)",
        study: study(3.61, 1.18),
    },
    /// Two writer threads and files instead of one.
    5 adds TwoWriters "two-writers" on any_workload {
        summary: "two writer threads and files",
        mechanism: "batch i goes to writer i mod 2 (unless --writers is given), so two files are encoded at once on two threads instead of one",
        study: study(2.76, 1.05),
    },
    /// Distributions built once instead of at every draw.
    6 adds PrecomputedSampling "precomputed-sampling" on contacts {
        summary: "distributions built once, not per draw",
        mechanism: "WeightedIndex and Uniform tables are built once per producer instead of at every draw, which takes their setup out of every draw; the draws themselves are identical",
        study: study(1.18, 2.02),
    },
    /// Writer and producer thread counts sized to the machine.
    7 adds SizedThreadPools "sized-thread-pools" on any_workload {
        summary: "writers = max(2, cores/2), producers = cores",
        mechanism: "writers = max(2, cores / 2), producers = cores (unless --writers / --producers are given), so the thread counts follow the machine; on 2 cores this equals 05's counts",
        study: study(0.81, 1.76),
    },
    /// Per-thread generator state and persistent builders, 4,096-row batches.
    8 adds ThreadLocalBuilders "thread-local-builders" on contacts {
        summary: "per-producer sampler and persistent builders, 4,096-row batches",
        mechanism: "each producer owns a copy of the sampler instead of sharing one, and keeps one batch builder for its life instead of a new one per batch; the default batch size becomes 4,096, which spreads per-batch costs over more rows",
        study: study(0.58, 2.21),
    },
    /// Names interned in one map shared by all producers.
    9 adds InternedNames "interned-names" on contacts {
        summary: "names interned in one shared map (a regression, as in the study)",
        mechanism: "every name is looked up in a shared RwLock<HashMap> and its Arc<str> cloned, meant to save copies; the shared cache lines bounce between cores",
        study: study(0.97, 1.10),
    },
    10 reverts InternedNames "revert-interning" {
        summary: "revert of 09",
        mechanism: "back to per-producer name buffers, with no shared map; the study credited an unmeasured refactor to this step",
        study: study(0.53, 2.05),
    },
    /// Each producer owns a fixed stride of batches instead of claiming them from a shared counter.
    11 adds StaticBatchAssignment "static-batch-assignment" on any_workload {
        summary: "fixed batch strides per producer instead of a shared counter (ids already follow from the row, so the study's per-batch id ranges are moot here)",
        mechanism: "producers take fixed batch strides instead of claiming batches from a shared atomic counter: the nearest honest equivalent of the study's per-batch id ranges, as ids here already follow from the row number",
        study: study(0.57, 2.23),
    },
    /// Names written straight into the column buffer, never copied through a `String`.
    12 adds DirectNames "direct-names" on contacts {
        summary: "names written into the column buffer with no intermediate `String`",
        mechanism: "names are written straight into the Arrow value buffer with no intermediate String, one copy fewer per name (the study stopped cloning the name buffer)",
        study: study(0.57, 2.21),
    },
    /// Phone-number digits written by hand instead of through `fmt`.
    13 adds DirectDigits "direct-digits" on contacts {
        summary: "phone digits written by hand instead of through `fmt`",
        mechanism: "the ten digits are written two at a time from a 100-entry table straight into the value buffer instead of formatted with {:010}, which skips fmt's machinery",
        study: None,
    },
    /// Writer properties fitted to the data: no dictionary or statistics for the unique numbers.
    14 adds FittedWriterProperties "fitted-writer-properties" on contacts {
        summary: "no dictionary and no statistics for the unique `phones.number`; no dictionary (it overflows anyway) and no statistics (unsorted: min/max prune nothing) for `name`",
        mechanism: "no dictionary and no statistics for the unique phones.number, nor for the Zipfian names (their dictionary overflows within each row group; unsorted, their min/max prune nothing), so the writer skips work that buys nothing; phone_type keeps its dictionary",
        study: None,
    },
    /// Name ranks found through a guide table instead of a binary search.
    15 adds GuidedNameRanks "guided-name-ranks" on contacts {
        summary: "Zipf name ranks found through a guide table instead of a binary search (identical draws)",
        mechanism: "the binary search of WeightedIndex<f64> over 1,500-2,000 Zipf weights is replaced: the same uniform draw indexes a bucket table and scans forward to the identical rank, in fewer steps (needs precomputed-sampling)",
        study: None,
    },
    /// New allocations from mimalloc instead of the system allocator.
    16 adds Mimalloc "mimalloc" on any_workload {
        summary: "new allocations from mimalloc instead of glibc (chosen at start-up, no second build)",
        mechanism: "new blocks come from mimalloc (switched at start-up; each block is freed by the allocator that made it), whose per-thread pages spare multi-threaded encoding glibc's arenas trimming and re-faulting memory, i.e. system time",
        study: None,
    },
    /// One file per writer encoded by `shredlab-writer`'s parallel column-encoding writer.
    17 adds ParallelWriter "parallel-writer" on any_workload {
        summary: "one file encoded by `ParallelArrowWriter` with an encoder pool (default 1 writer)",
        mechanism: "each file is encoded by ParallelArrowWriter, leaf columns on a worker pool and byte-identical to ArrowWriter, so one file's encoding uses several cores; default 1 writer with an encoder pool of max(2, cores / writers) threads",
        study: None,
    },
    /// Bounded crossbeam channels, and spent batches returned to producers for buffer reuse.
    18 adds RecyclingChannel "recycling-channel" on contacts {
        summary: "bounded crossbeam channels; written batches go back to producers, whose builders reuse their buffers",
        mechanism: "bounded crossbeam channels replace std::sync::mpsc, and writers hand written batches back so producers' builders reuse their buffers instead of allocating new ones (needs thread-local-builders; buffers still held by parallel-writer's workers are dropped)",
        study: None,
    },
    /// 16,384-row batches instead of 4,096.
    19 adds LargeBatches "large-batches" on any_workload {
        summary: "16,384-row batches instead of 4,096: fewer channel hand-offs, builder finishes and array assemblies per row",
        mechanism: "batches of 16,384 rows instead of 4,096 spread the per-batch costs (channel hand-offs, builder finishes, Arrow array assembly) over four times as many rows",
        study: None,
    },
    /// The kernel starts writing each file to disk while it is produced, not at the final sync.
    20 adds EarlyWriteback "early-writeback" on any_workload {
        summary: "the kernel writes each file back to disk while it is produced (`sync_file_range` every 8 MiB), so the final sync waits only for the tail",
        mechanism: "sync_file_range starts writeback every 8 MiB, so the disk works alongside the CPUs instead of the kernel holding the whole file in the page cache until the sync before its rename, which now waits only for the tail",
        study: None,
    },
    /// Smaller row groups, one in flight and a smaller queue: the writer's memory bounded.
    21 adds BoundedWriterMemory "bounded-writer-memory" on any_workload {
        summary: "262,144-row row groups, 1 row group in flight, an 8 MiB queue: the writer's memory bounded",
        mechanism: "row groups of 262,144 rows (still 4 pages per column chunk), 1 in flight and an 8 MiB queue, instead of 2 closed row groups encoding and a 32 MiB queue, so writers hold fewer encoded pages and fault in fewer fresh ones; readers get 4x as many row groups",
        study: None,
    },
    22 reverts Mimalloc "system-allocator" {
        summary: "back to glibc's allocator: with the writer's buffers bounded, its arena trimming no longer bites, and it keeps no per-thread pages resident as mimalloc does",
        mechanism: "back to glibc's allocator: with 21's bounded buffers, mimalloc's per-thread pages of large page buffers are retained rather than returned, and 16's reason (glibc trimming and re-faulting its arenas) went away with the buffers that caused it",
        study: None,
    },
    /// New allocations from jemalloc with one arena.
    23 adds Jemalloc "jemalloc" on any_workload {
        summary: "new allocations from jemalloc with a single arena, which reuses memory freed on other threads where glibc's arenas fragment over long runs",
        mechanism: "jemalloc with one arena (narenas:1, set at link time) reuses extents freed on other threads, where glibc's arenas fragment as batches built on producer threads are freed on encoder threads and page buffers the other way round",
        study: None,
    },
    /// NULL, phone count, shape and type weights looked up in tables instead of searched.
    24 adds LookedUpSmallWeights "looked-up-small-weights" on contacts {
        summary: "the NULL-name, phone count, shape and type draws read their index from a table of one entry per unit of weight instead of a binary search (identical draws)",
        mechanism: "four draws per row (NULL name, phone count, shape, type) read their index from a table of one u8 per unit of weight (100 entries each), indexed by the same uniform value, instead of binary-searching WeightedIndex<u32> over 2-4 weights",
        study: None,
    },
    /// No statistics for `phone_type`, whose every row group holds all three values.
    25 adds NoTypeStatistics "no-type-statistics" on contacts {
        summary: "no statistics for `phone_type`: every row group holds all three types and NULLs, so its min/max and null counts prune nothing",
        mechanism: "phone_type loses its statistics and column index, the writer's last per-value min/max and level histograms: every row group holds Home, Mobile, Work and NULLs, so they prune no row group and no page for any type that exists",
        study: None,
    },
    /// Zipf name ranks through a guide table indexed by the random word's top bits.
    26 adds BitGuidedRanks "bit-guided-ranks" on contacts {
        summary: "Zipf name ranks through a guide table indexed by the top bits of the random word, which settles most draws with one read (identical draws)",
        mechanism: "15's guide table is indexed by the top bits of the random word instead of the uniform float made from it, so its read need not wait for the float arithmetic, and it marks buckets that land on one rank, so most draws take one read",
        study: None,
    },
    /// Each writer takes its batches in batch-index order, through a bounded reorder window.
    27 adds OrderedHandOff "ordered-hand-off" on any_workload {
        summary: "batches reach their writers in batch-index order through a bounded reorder window: the same command writes the same bytes for any producer count",
        mechanism: "a finished batch waits in a bounded reorder window until the ones before it reach its writer, and producers build only inside the window, so each file's bytes no longer follow the threads' schedule: the same command writes the same bytes for any --producers and machine",
        study: None,
    },
    /// Workers that generate each row group where they encode it.
    28 adds FusedRowGroups "fused-row-groups" on any_workload {
        summary: "each worker claims the next row group, generates it batch by batch and encodes each batch at once into that row group's column writers, while it is still in the core's caches; whoever completes the run appends finished row groups in order",
        mechanism: "each worker claims the next row group, builds its batches and encodes each at once into that row group's column writers while its data is still in the core's caches; no channel, writer thread or encoder pool to wait on, and finished row groups are appended in order",
        study: None,
    },
    /// `name` dictionary-encoded again, with a dictionary page that holds a row group's names.
    29 adds NameDictionary "name-dictionary" on contacts {
        summary: "`name` dictionary-encoded again, with a dictionary page limit that holds a row group's distinct names instead of overflowing the 1 MiB default: fewer bytes to write and read for some hashing",
        mechanism: "an 8 MiB dictionary page limit holds a row group's distinct Zipfian names, so `name` is stored as RLE_DICTIONARY indices over one dictionary page per row group, as polars writes it, instead of plain: fewer bytes to write and read, for hashing every name",
        study: None,
    },
    30 reverts NameDictionary "plain-names" {
        summary: "revert of 29: names stored plain again, so the encoders no longer hash every name; 28's configuration",
        mechanism: "back to 28's plain names: the encoders no longer hash every name, CPU the two cores have no room for, at the price of larger files; 29 stays for those who would rather write, store and read fewer bytes",
        study: None,
    },
    /// Files written with `O_DIRECT` from aligned buffers, past the page cache.
    31 adds DirectWrites "direct-writes" on any_workload {
        summary: "files written with O_DIRECT, past the page cache: each file's bytes fill one of two aligned 4 MiB buffers while a thread of the file's own writes the other to the disk",
        mechanism: "each file is also opened with O_DIRECT and written from two aligned buffers, one filling while the file's disk thread writes the other, so the kernel no longer copies bytes into page-cache pages, writes them back and reclaims them on the workers' CPUs",
        study: None,
    },
    32 reverts DirectWrites "page-cache-writes" {
        summary: "revert of 31: back to 30's writes through the page cache with early writeback; direct writes stay available with `--enable direct-writes`",
        mechanism: "back to 30's writes through the page cache with early writeback: direct writes move the copy of every byte from the kernel into the writing thread rather than remove it; 31 stays (--enable direct-writes) for machines where the page cache costs more",
        study: None,
    },
    /// Each row's four seed words computed in general registers, not packed into vector lanes.
    33 adds ScalarRowSeeds "scalar-row-seeds" on contacts {
        summary: "each row's generator seeded in general registers: the compiler had packed the four SplitMix64 words into SSE2 lanes, where every 64-bit multiply takes three (identical draws)",
        mechanism: "each row's four SplitMix64 seed words pass through std::hint::black_box, which keeps the compiler from packing them into SSE2 lanes, where baseline x86-64 turns each 64-bit multiply into three pmuludq plus shifts and adds: two scalar imul per word instead",
        study: None,
    },
    /// Contacts drawn into plain vectors that become Arrow arrays once per batch.
    34 adds RawColumnVectors "raw-column-vectors" on contacts {
        summary: "rows drawn into plain vectors (text bytes, offsets, validity words, type keys) that become Arrow arrays once per batch: no builder call per value, each name copied by fixed-size moves, each number's 14 bytes stored at once (identical data)",
        mechanism: "rows are drawn into plain Vecs (text bytes, offsets, validity words, type keys) that become Arrow arrays once per batch, instead of a builder call, capacity check and null-buffer branch per value; names are copied by fixed-size moves, not memcpy calls",
        study: None,
    },
    /// Each file's disk blocks reserved ahead of its writes with `fallocate`.
    35 adds PreallocatedFiles "preallocated-files" on any_workload {
        summary: "each file reserves its disk blocks 64 MiB ahead of its writes (fallocate, keeping the size) and gives back the rest at the commit: ext4 stops reserving a block for every page written",
        mechanism: "each file reserves its disk blocks 64 MiB ahead of its writes with fallocate(FALLOC_FL_KEEP_SIZE) and truncates the rest away at the commit, so ext4 no longer reserves a block for delayed allocation in the writing thread for every page written (ext4 and tmpfs only)",
        study: None,
    },
    /// shredlab's column encoder for the leaves it supports.
    36 adds NativeEncoder "native-encoder" on any_workload {
        summary: "every leaf (name, phones.number, phones.phone_type) encoded by shredlab's column encoder: levels from list offsets and validity a range of rows at a time, and its own data pages (PLAIN values or dictionary indices, levels RLE-encoded run by run, statistics for numbers and byte arrays, Snappy, Zstandard or LZ4_RAW): ArrowWriter's bytes",
        mechanism: "the fused workers' row groups hand every leaf whose type and properties it supports to shredlab's encoder, which computes its levels from list offsets and validity bitmaps in ranges instead of compute_leaves' walk element by element (a list without a list below lays out its rows once for every leaf under it) and, where it supports the leaf's statistics and codec, writes its data pages itself: levels RLE-encoded a run at a time rather than a value at a time, an Arrow dictionary's keys looked up once per batch rather than each value hashed; other leaves stay with ArrowColumnWriter",
        study: None,
    },
    /// A spec's sequential and unique strings written digit by digit instead of through `fmt`.
    37 adds SpecDirectDigits "spec-direct-digits" on any_workload {
        summary: "a spec's sequential strings (the contacts spec's phone numbers) and unique ones written digit by digit into the batch's bytes instead of formatted with {:0width$} and {:016x} (identical data)",
        mechanism: "each sequential value's decimal digits (64-bit division where the number fits) and each unique value's 16 hexadecimal digits are written straight into the column's byte buffer instead of through core::fmt's write!, whose padding and Display machinery cost more than the digits: 13's lesson for the contacts, for any spec column by its distribution",
        study: None,
    },
    /// A spec's vocabulary entries appended by one copy of known size instead of `memcpy`.
    38 adds SpecWordMoves "spec-word-moves" on any_workload {
        summary: "a spec's vocabulary entries (the contacts spec's first and last names, categorical values, drawn vocabularies) appended to each string as one 32-byte block cut back to its length instead of a memcpy call per entry (identical data)",
        mechanism: "each vocabulary is kept back to back in one buffer with 32 bytes of slack, so that an entry of up to 32 bytes (16 until f83e856; the otel-logs preset's keys and values run to 30) is appended as a 32-byte block from its start and cut back to its length: a copy of known size compiles to a few moves, where the call to memcpy per entry cost more than the copy (34's fixed-size name moves for the contacts, for any spec column drawn from a vocabulary)",
        study: None,
    },
    /// A spec's weighted draws read from a guide table by their random bits.
    39 adds SpecBitGuidedDraws "spec-bit-guided-draws" on any_workload {
        summary: "a spec's weighted draws (the contacts spec's Zipf-ranked first and last names, its phone types' weights and its phone lists' length_weights) read from a guide table indexed by the draw's top random bits instead of by the float made of them (identical data)",
        mechanism: "a table of the largest power of two of buckets that is at most eight per index, indexed by the top bits of the draw's 64-bit word, holds each bucket's lowest index and marks the buckets whose every word has the same one: most draws take that one table read, with no conversion to a float, no multiply by the total and no read of the cumulative sums, and the others compute the point as before and scan from the bucket's index (26's bit-guided ranks for the contacts, for any spec column with weights)",
        study: None,
    },
    /// A spec's NULL slots left without a drawn value.
    40 adds SpecNullSkips "spec-null-skips" on any_workload {
        summary: "a spec's NULL slots (the contacts spec's 20% NULL names, 5% NULL numbers and 6% NULL phone types) get no drawn value: no bytes under a NULL string, zero under a NULL number or key, instead of a value drawn, written and hidden by the validity (identical data: every value, NULL and file byte the same)",
        mechanism: "each column's validity is drawn first, and with this entry its value loop tests the slot's validity bit before drawing: a NULL slot skips the value's hashes, vocabulary draws and byte copies, and a string column's buffer holds only the values readers see (the hand-written contacts never wrote a NULL name's bytes)",
        study: None,
    },
    /// A spec row's draw keys hashed once for all its columns.
    41 adds SpecSharedSlotKeys "spec-shared-slot-keys" on any_workload {
        summary: "a spec slot's (a row's, a list item's) NULL and value draw keys, its address hashed with each draw's salt, computed once when the slot is made and shared by every column at it (the contacts spec's name and phones, number and phone_type; the wide preset's 100 columns) instead of hashed again in each column's draws (identical data)",
        mechanism: "every draw is splitmix(column stream ^ splitmix(address ^ salt)): the inner hash depends on the slot and the draw only, so the slot carries the NULL and value draws' inner hashes and each column's draw is one splitmix instead of two; the slot grows from 16 to 32 bytes, and each column's stream says whether it reads them (the study's one seed per row shared by the row's columns, for any spec)",
        study: None,
    },
    /// A spec column's per-value choices made once per batch.
    42 adds SpecResolvedDraws "spec-resolved-draws" on any_workload {
        summary: "a spec column's per-value choices made once per batch: a uniform integer column (the wide preset's integers, decimals and timestamps; lineitem's part and supplier keys, line numbers, prices and dates) drawn by a loop that only scales a hash, a sequential one (otel-logs' timestamps, ids) by one that only multiplies its ordinal, and every NULL draw compared as an integer (identical data)",
        mechanism: "a uniform integer column's value went through the match on its distribution, a test of its range's width, a clamp and granule check in 128-bit arithmetic and the stored type's conversion, each the same for every value; for a column without a granule or conversion (not Date64, not a second-unit time stored as milliseconds) whose range holds at most 2^64 values, resolved once per batch into a loop of a draw's hash and a multiply-shift (a whole 64-bit range takes the second draw's word instead of a 128-bit modulo); a sequential column of whole steps through a range of 64-bit values, stored as it is, likewise into a loop of a 64-bit multiply and a test that it stays in range (the wrap and the step's sign resolved once); a NULL draw's 53 random bits are compared with the probability's as integers, not converted to a float",
        study: None,
    },
    /// A spec's bit-guided tables with 16-bit entries: twice the buckets in the same bytes.
    43 adds SpecNarrowGuides "spec-narrow-guides" on any_workload {
        summary: "a spec's bit-guided tables (39) for vocabularies of fewer than 32,768 entries (the contacts spec's first and last names, any Zipf or weighted column) hold 16-bit entries, so the same bytes hold twice the buckets and fewer draws land in a bucket two entries share (identical data)",
        mechanism: "a bucket whose words all pick one entry answers in one table read; a bucket two entries share marks itself unsettled, and its draws compute the point and scan the running sums behind a branch the processor cannot predict; at eight 32-bit buckets per entry, rounded down to a power of two, 17% of the contacts spec's first-name draws and 21% of its last-name draws took that path; 16-bit entries fit twice the buckets into the bytes the vocabulary bound counts, and the shares fall to 9% and 12%",
        study: None,
    },
    /// A spec map's keys made from the picks that kept them distinct.
    44 adds SpecMapKeyPicks "spec-map-key-picks" on any_workload {
        summary: "a spec map's keys drawn from one vocabulary list (the otel-logs preset's resource and log attribute keys, any string, binary or dictionary key with values, cardinality or one word list) made from the picks that kept them distinct within each map instead of drawn a second time by the key column (identical data)",
        mechanism: "a map keeps a key's first entry only, so every item's key is picked once to find the repeats; the key column then drew every kept key again, a hash and a guide-table read per key, and wrote it through the per-value match on the source; the deduplication now records each kept key's pick, and the key column copies those vocabulary entries, while the value column is drawn as before; keys of several words, integers or NULLs keep the drawn path",
        study: None,
    },
    /// A spec slot's hashes computed eight slots at a time in AVX-512 registers.
    45 adds SpecWideHashes "spec-wide-hashes" on any_workload {
        summary: "a spec's hashes computed in passes over a batch's slots, eight at a time in AVX-512 registers where the processor has AVX-512 F and DQ: each slot's draw keys and item address, each column's NULL draws, list lengths, dictionary keys and the words of vocabulary strings (the contacts spec's every hash but the phone numbers', which have none) instead of one by one as each value is made (identical data)",
        mechanism: "every spec value costs SplitMix64 hashes of its slot and column: a row's NULL and value keys (41), an item's address and keys, each column's NULL draw, a list's length draw, a dictionary key's or a word's value draw; one hash is about nine dependent scalar instructions, two of them 64-bit multiplies; an AVX-512 register holds eight 64-bit lanes and DQ's vpmullq multiplies them, so a pass loads eight 32-byte slots, transposes their fields into lanes, hashes all eight and writes the keys back, packs eight NULL draws into one validity byte by one unsigned compare, or stores eight draws for the value loop to pick from; list items are gathered unhashed and hashed in one pass at the end; without AVX-512 (and under valgrind, which hides it) the passes run the scalar hashes; map items keep hashing as they come, since the deduplication reads each key",
        study: None,
    },
    /// A spec map's items deduplicated a chunk of maps at a time, from draws computed in passes.
    46 adds SpecMapKeyChunks "spec-map-key-chunks" on any_workload {
        summary: "a spec map's items (the otel-logs preset's resource and log attributes, any map whose key has a vocabulary) gathered a chunk of maps at a time, hashed and their keys drawn in passes over the chunk (eight at a time with 45), then deduplicated by a loop that reads those draws, with the marks of a vocabulary of at most 128 keys in registers (identical data)",
        mechanism: "a map keeps a key's first entry only, so 45 left map items hashing as they came: each item's address, NULL and value keys and its key's draw, four scalar hashes, three of them one after another, then a guide-table read and a load and store of the map's marks, which lived in memory, and a new map cleared its keys one by one; now about 512 items at a time (16 KiB of slots, in the first-level cache where a batch's items were not) are gathered unhashed, made whole and drawn by the eight-lane passes, and the loop that keeps the first of each key reads a draw, a guide entry and a bit of a 128-bit mark held in registers, cleared by one assignment per map; larger vocabularies keep their marks in memory",
        study: None,
    },
    /// A spec's strings of one vocabulary list laid out in passes, not appended one by one.
    47 adds SpecLaidVocabulary "spec-laid-vocabulary" on any_workload {
        summary: "a spec's string and binary values of one vocabulary list (the otel-logs preset's bodies, attribute keys and resource attribute values, the contacts spec's phone types, lineitem's flags, instructions and modes, any `values`, `cardinality` or one-word-list column not cut to a width) made in passes: every value's pick, where each value ends summed from its entry's length, then each entry copied to its place (identical data)",
        mechanism: "a value appended to the batch's buffer reads the buffer's length, copies the entry and writes the length back, and the compiler keeps that length in memory (the vector's address escapes into its growth path), so each copy waited for the store of the one before; now the picks are drawn in one loop, the offsets summed from the entries' lengths in a second, kept in a register, and the bytes copied in a third, each copy to a place already known, into a buffer sized exactly plus one block of slack, so the copies no longer depend on each other; short entries still move as one 32-byte block (38)",
        study: None,
    },
}
