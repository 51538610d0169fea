//! Where one experiment's CPU goes (`make profile`): perf's samples, folded by inferno
//! (`stacks.folded`: one `root;...;leaf count` line per distinct stack), sorted into the parts of
//! the pipeline by the frames on each stack, as a Markdown table.
//!
//! A sample inside the kernel (a page fault or a system call anywhere on its stack) is the
//! kernel's. Any other belongs to the first part, scanning its stack from the leaf towards the
//! root, one of whose patterns a frame contains: a `memmove` inside a reallocation counts as the
//! allocator, the same `memmove` inside the column writer as the column writer.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::markdown::{Align, Table};

/// Which side of the pipeline a part belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// Producers: drawing rows into Arrow arrays (shredlab's generator).
    Generation,
    /// Writer and encoders: Arrow arrays to Parquet bytes (arrow-rs's `parquet` crate).
    Encoding,
    /// Both, or neither: the allocator, the kernel, start-up.
    Shared,
}

impl Side {
    fn label(self) -> &'static str {
        match self {
            Side::Generation => "generation (shredlab)",
            Side::Encoding => "encoding (arrow-rs parquet)",
            Side::Shared => "allocator, kernel, rest",
        }
    }
}

/// One part of the pipeline and the frame names that mark it.
struct Part {
    side: Side,
    name: &'static str,
    patterns: &'static [&'static str],
}

impl Part {
    fn names(&self, frame: &str) -> bool {
        self.patterns.iter().any(|p| frame.contains(p))
    }
}

/// The kernel's parts, marked by their entry frame anywhere on the stack.
const KERNEL_PARTS: &[Part] = &[
    Part {
        side: Side::Shared,
        name: "kernel: page faults (zeroing fresh pages)",
        patterns: &["asm_exc_page_fault"],
    },
    Part {
        side: Side::Shared,
        name: "kernel: system calls (file writes, futexes, syncs)",
        patterns: &["entry_SYSCALL_64"],
    },
];

/// The other parts, in the order a frame is tested against them.
const PARTS: &[Part] = &[
    Part {
        side: Side::Shared,
        name: "allocator (incl. the copies of growing buffers)",
        patterns: &[
            "_rjem_",
            "je_",
            "do_rallocx",
            "malloc",
            "cfree",
            "realloc",
            "__rust_alloc",
            "__rust_dealloc",
            "mi_",
        ],
    },
    Part {
        side: Side::Encoding,
        name: "dictionary interning (hash and compare each value)",
        patterns: &["Interner", "DictEncoder", "ahash"],
    },
    Part {
        side: Side::Encoding,
        name: "repetition/definition levels from the Arrow nesting",
        patterns: &[
            "levels::",
            "compute_leaves",
            "bit_chunk_iterator",
            "bit_iterator",
        ],
    },
    Part {
        side: Side::Encoding,
        name: "RLE and bit-packing of levels and keys",
        patterns: &["rle::", "bit_util", "bit_pack", "LevelEncoder"],
    },
    Part {
        side: Side::Encoding,
        name: "byte-array value encoding",
        patterns: &["byte_array::", "ByteArrayEncoder"],
    },
    Part {
        side: Side::Encoding,
        name: "column writer: mini-batches with their inlined level RLE, pages, statistics",
        patterns: &["parquet::"],
    },
    Part {
        side: Side::Encoding,
        name: "shredlab's writer and pool (hand-off, file)",
        patterns: &["shredlab_writer::", "pipeline::write_stream"],
    },
    Part {
        side: Side::Generation,
        name: "Zipf name ranks",
        patterns: &["RankTable", "GuidedIndex", "WeightedIndex<f64>"],
    },
    Part {
        side: Side::Generation,
        name: "small-weight draws (NULLs, counts, shapes, types)",
        patterns: &["SmallWeights", "WeightedIndex<u32>"],
    },
    Part {
        side: Side::Generation,
        name: "rows into column buffers (seeding, the draws inlined there, text, offsets)",
        patterns: &[
            "shredlab_generator::",
            "arrow_array::builder",
            "NullBufferBuilder",
            "pipeline::produce",
            // The batch source a fused worker (28) calls, where the generator is inlined.
            "shredlab_experiments::source::",
        ],
    },
];

/// The CPU samples of one profile, by part.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shares {
    /// Sample weight per (side, part name); parts no sample reached are absent. inferno weighs
    /// a sample by its period: nanoseconds of CPU for `cpu-clock`, cycles for `cycles`.
    pub samples: BTreeMap<(Side, &'static str), u64>,
    /// Weight of the samples no part claims.
    pub unclaimed: u64,
}

impl Shares {
    /// Sorts the stacks of inferno's folded format.
    pub fn from_folded(folded: &str) -> Result<Self> {
        let mut shares = Shares::default();
        for (number, line) in folded.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (stack, count) = line
                .rsplit_once(' ')
                .and_then(|(stack, count)| Some((stack, count.parse::<u64>().ok()?)))
                .with_context(|| format!("line {}: no sample count", number + 1))?;
            match part_of(stack) {
                Some(part) => *shares.samples.entry((part.side, part.name)).or_default() += count,
                None => shares.unclaimed += count,
            }
        }
        Ok(shares)
    }

    /// Weight of all samples.
    pub fn total(&self) -> u64 {
        self.samples.values().sum::<u64>() + self.unclaimed
    }

    /// Weight of one side's samples.
    pub fn side_total(&self, side: Side) -> u64 {
        self.samples
            .iter()
            .filter(|((s, _), _)| *s == side)
            .map(|(_, n)| n)
            .sum()
    }

    /// The Markdown table: each side's total, then its parts, largest first.
    pub fn markdown(&self) -> String {
        let total = self.total().max(1) as f64;
        let percent = |n: u64| 100.0 * n as f64 / total;
        let mut table = Table::new([
            ("side", Align::Left),
            ("part", Align::Left),
            ("share of CPU", Align::Right),
        ]);
        for side in [Side::Generation, Side::Encoding, Side::Shared] {
            table.row([
                format!("**{}**", side.label()),
                "all".to_string(),
                format!("**{:.1}%**", percent(self.side_total(side))),
            ]);
            let mut parts: Vec<_> = self
                .samples
                .iter()
                .filter(|((s, _), _)| *s == side)
                .collect();
            parts.sort_by(|a, b| b.1.cmp(a.1));
            for ((_, name), samples) in parts {
                table.row([
                    String::new(),
                    (*name).to_string(),
                    format!("{:.1}%", percent(*samples)),
                ]);
            }
        }
        table.row([
            "other".to_string(),
            "frames no part names".to_string(),
            format!("{:.1}%", percent(self.unclaimed)),
        ]);
        table.to_string()
    }
}

/// The part a folded stack (`root;...;leaf`) belongs to.
fn part_of(stack: &str) -> Option<&'static Part> {
    KERNEL_PARTS
        .iter()
        .find(|part| stack.split(';').any(|frame| part.names(frame)))
        .or_else(|| {
            stack
                .rsplit(';')
                .find_map(|frame| PARTS.iter().find(|part| part.names(frame)))
        })
}

/// Reads `dir/stacks.folded` and writes `dir/README.md`: `header`, then the table.
pub fn write_readme(dir: &Path, header: &str) -> Result<Shares> {
    let path = dir.join("stacks.folded");
    let folded = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let shares = Shares::from_folded(&folded)?;
    let text = format!(
        "{header}\n\n{}\nTotal sample weight {} (perf's period: nanoseconds of CPU for \
         cpu-clock, cycles for cycles). A sample in the kernel is the kernel's; any other goes \
         to the first part, from the leaf of its stack towards the root, that one of its frames \
         names (see `bench/src/profile.rs`). Code inlined into a frame counts as that frame's. \
         The flame graph is `flamegraph.svg`.\n",
        shares.markdown(),
        shares.total()
    );
    std::fs::write(dir.join("README.md"), text).context("writing README.md")?;
    Ok(shares)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOLDED: &str = "\
producer-0;start_thread;shredlab_experiments::pipeline::produce;shredlab_generator::batch::ContactBatchBuilder::build;<shredlab_generator::ranks::BitGuidedIndex as shredlab_generator::ranks::RankTable>::draw 30
producer-0;start_thread;shredlab_experiments::pipeline::produce;shredlab_generator::batch::ContactBatchBuilder::build 20
parquet-encoder;shredlab_writer::worker::run_worker;parquet::arrow::arrow_writer::compute_leaves;parquet::arrow::arrow_writer::levels::LevelInfoBuilder::write 25
parquet-encoder;shredlab_writer::worker::run_worker;parquet::column::writer::GenericColumnWriter::write_mini_batch;parquet::encodings::rle::RleEncoder::put 10
parquet-encoder;shredlab_writer::worker::run_worker;parquet::column::writer::GenericColumnWriter::write_mini_batch;<parquet::arrow::arrow_writer::byte_array::ByteArrayEncoder>::write_gather;__rust_realloc;do_rallocx;__memmove_avx512_unaligned_erms 5
parquet-encoder;shredlab_writer::worker::run_worker;parquet::column::writer::GenericColumnWriter::write_mini_batch;__memmove_avx512_unaligned_erms 4
writer-0;shredlab_experiments::pipeline::write_stream;write;entry_SYSCALL_64_after_hwframe;do_syscall_64;__kmalloc;copy_folio_from_iter_atomic 5
pipeline;[unknown] 1
";

    #[test]
    fn samples_go_to_the_part_nearest_the_leaf() {
        let shares = Shares::from_folded(FOLDED).unwrap();
        let get = |side, name: &str| {
            shares
                .samples
                .iter()
                .find(|((s, n), _)| *s == side && n.starts_with(name))
                .map(|(_, n)| *n)
        };
        assert_eq!(get(Side::Generation, "Zipf"), Some(30));
        assert_eq!(get(Side::Generation, "rows into column"), Some(20));
        assert_eq!(get(Side::Encoding, "repetition/definition"), Some(25));
        assert_eq!(get(Side::Encoding, "RLE"), Some(10));
        assert_eq!(get(Side::Shared, "allocator"), Some(5), "realloc's memmove");
        assert_eq!(
            get(Side::Encoding, "column writer"),
            Some(4),
            "the writer's memmove"
        );
        assert_eq!(
            get(Side::Shared, "kernel: system calls"),
            Some(5),
            "not kmalloc's"
        );
        assert_eq!(shares.unclaimed, 1);
        assert_eq!(shares.total(), 100);
        assert_eq!(shares.side_total(Side::Encoding), 39);
    }

    #[test]
    fn the_table_has_each_side_and_its_parts() {
        let table = Shares::from_folded(FOLDED).unwrap().markdown();
        assert!(
            table.contains("| **generation (shredlab)** | all | **50.0%** |"),
            "{table}"
        );
        assert!(table.contains("| **encoding (arrow-rs parquet)** | all | **39.0%** |"));
        assert!(table.contains("| | Zipf name ranks | 30.0% |"));
        assert!(table.contains("| other | frames no part names | 1.0% |"));
    }

    #[test]
    fn a_line_without_a_count_is_an_error() {
        assert!(Shares::from_folded("a;b;c x\n").is_err());
        assert!(Shares::from_folded("a;b;c\n").is_err(), "no count at all");
        assert!(
            Shares::from_folded("a;b 3\n\n").is_ok(),
            "blank lines are skipped"
        );
    }
}
