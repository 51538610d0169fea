//! `peers`: the Rust side of `make peers`.
//!
//! - `peers export --rows N OUT.arrow`: the contacts as an uncompressed Arrow IPC file; prints
//!   their digest.
//! - `peers write --writer arrow|parallel IN.arrow OUT.parquet`: one timed write; prints its
//!   record as JSON.
//! - `peers inspect FILE...`: each file's layout (row groups, pages, statistics, page index,
//!   bloom filters) as JSON lines.
//! - `peers digest FILE...`: the data gate's digest of Parquet files read back by arrow-rs.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use parquet::file::properties::{
    EnabledStatistics, WriterProperties, DEFAULT_MAX_ROW_GROUP_ROW_COUNT,
};
use serde_json::json;
use shredlab_bench::peers::{ipc, layout, timed_write};
use shredlab_bench::writer_bench::Contender;
use shredlab_experiments::compression::CompressionSpec;
use shredlab_experiments::config::newest_file_options;
use shredlab_experiments::gate::Digest;
use shredlab_experiments::run::available_cores;
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::FileOptions;

#[derive(Debug, Parser)]
#[command(about = "The Rust side of `make peers`: hand-over file, Rust writers, layouts, digests")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write contacts (or a spec workload) from the generator to an uncompressed Arrow IPC file.
    Export {
        /// Rows to generate.
        #[arg(long, default_value_t = 10_000_000)]
        rows: u64,
        /// Generator seed.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Generate this spec file's workload instead of the contacts.
        #[arg(long, value_name = "FILE")]
        spec: Option<PathBuf>,
        /// The IPC file to write.
        output: PathBuf,
    },
    /// Load an IPC file into memory, then write it to Parquet with a Rust writer, timed.
    Write {
        /// parquet's `ArrowWriter` or shredlab's `ParallelArrowWriter`.
        #[arg(long, value_enum)]
        writer: RustWriter,
        /// Compression: none, snappy, lz4 or zstd(LEVEL).
        #[arg(long, default_value = "none")]
        compression: CompressionSpec,
        /// Rows per row group.
        #[arg(long, default_value_t = DEFAULT_MAX_ROW_GROUP_ROW_COUNT)]
        row_group_rows: usize,
        /// Encoder workers of the parallel writer [default: available CPUs].
        #[arg(long)]
        threads: Option<usize>,
        /// Statistics: `page` (arrow-rs's default: chunk min/max plus the page index) or `chunk`
        /// (chunk min/max only, what every peer can write).
        #[arg(long, value_enum, default_value = "page")]
        statistics: StatisticsLevel,
        /// How the file reaches the disk: `newest`, the file options of the catalog's newest
        /// experiment (early writeback, preallocation: what `pipeline` and `write_parquet` use),
        /// or `plain`, a file synced at the end as the other writers write theirs.
        #[arg(long, value_enum, default_value = "plain")]
        file_options: FileHandling,
        /// The hand-over IPC file.
        input: PathBuf,
        /// The Parquet file to write.
        output: PathBuf,
    },
    /// Print the layout of Parquet files, one JSON object per line.
    Inspect {
        /// The files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print the data gate's digest of Parquet files (all files together), as `rows:sum`.
    Digest {
        /// The files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// How `peers write` puts its file on disk.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum FileHandling {
    /// The file options of the catalog's newest experiment.
    Newest,
    /// A plain file, synced at the end.
    Plain,
}

/// How much min/max statistics the Rust writers keep.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum StatisticsLevel {
    /// Per column chunk.
    Chunk,
    /// Per column chunk and per page (the column index).
    Page,
}

/// The Rust writers of the comparison.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum RustWriter {
    /// parquet's `ArrowWriter`.
    Arrow,
    /// `shredlab_writer::ParallelArrowWriter`.
    Parallel,
}

fn main() -> Result<()> {
    match Args::parse().command {
        Command::Export {
            rows,
            seed,
            spec,
            output,
        } => {
            let digest = ipc::export(&output, rows, seed, spec.as_deref())?;
            println!(
                "{}",
                json!({ "rows": rows, "seed": seed, "digest": digest.to_string() })
            );
        }
        Command::Write {
            writer,
            compression,
            row_group_rows,
            threads,
            statistics,
            file_options,
            input,
            output,
        } => {
            if row_group_rows == 0 {
                anyhow::bail!("--row-group-rows must be at least 1");
            }
            let same = |a: &std::path::Path, b: &std::path::Path| {
                std::fs::canonicalize(a)
                    .ok()
                    .is_some_and(|a| std::fs::canonicalize(b).ok() == Some(a))
            };
            if same(&input, &output) {
                anyhow::bail!(
                    "the output {} is the input: name another file",
                    output.display()
                );
            }
            let (schema, batches) = ipc::load(&input)?;
            let contender = match writer {
                RustWriter::Arrow => Contender::ArrowWriter,
                RustWriter::Parallel => {
                    let threads = threads.unwrap_or_else(available_cores).max(1);
                    Contender::Parallel(threads, ColumnEncoder::default())
                }
            };
            let props = WriterProperties::builder()
                .set_compression(compression.codec())
                .set_max_row_group_row_count(Some(row_group_rows))
                .set_statistics_enabled(match statistics {
                    StatisticsLevel::Chunk => EnabledStatistics::Chunk,
                    StatisticsLevel::Page => EnabledStatistics::Page,
                })
                .build();
            let files = match file_options {
                FileHandling::Newest => newest_file_options(),
                FileHandling::Plain => FileOptions::default(),
            };
            let record =
                timed_write::timed_write(contender, &output, &schema, &batches, &props, &files)
                    .with_context(|| format!("cannot write {}", output.display()))?;
            println!("{}", serde_json::to_string(&record)?);
        }
        Command::Inspect { files } => {
            for file in files {
                let layout = layout::inspect(&file)?;
                println!("{}", json!({ "file": file, "layout": layout }));
            }
        }
        Command::Digest { files } => {
            println!("{}", Digest::of_parquet_files(&files)?);
        }
    }
    Ok(())
}
