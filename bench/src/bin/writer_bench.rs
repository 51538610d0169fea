//! `writer-bench`: ParallelArrowWriter against parquet's ArrowWriter, or against itself with
//! arrow-rs's column encoder, cell by cell.

use std::path::PathBuf;

#[global_allocator]
static ALLOCATOR: SwitchableAllocator = SwitchableAllocator;

use anyhow::{Context, Result};
use arrow_array::RecordBatch;
use clap::builder::RangedU64ValueParser;
use clap::{Parser, ValueEnum};
use parquet::file::properties::WriterProperties;
use shredlab_bench::writer_bench::cells::{markdown, paired_speedup, CellResult};
use shredlab_bench::writer_bench::isolate::in_fresh_process;
use shredlab_bench::writer_bench::plan::{plan, CellTable, PlannedCell};
use shredlab_bench::writer_bench::{compare, Contender};
use shredlab_experiments::alloc::{self, Allocator, SwitchableAllocator};
use shredlab_experiments::build_info::BUILD;
use shredlab_experiments::compression::CompressionSpec;
use shredlab_experiments::run::available_cores;
use shredlab_writer::encode::ColumnEncoder;

/// Compare ParallelArrowWriter with a baseline on in-memory batches written to a byte-counting
/// sink; both writers alternate within each cell.
#[derive(Debug, Parser)]
struct Args {
    /// The writer ParallelArrowWriter (with shredlab's column encoder) is compared with.
    #[arg(long, value_enum, default_value_t = Baseline::ArrowWriter)]
    baseline: Baseline,
    /// Repetitions per writer and cell (at least; short cells repeat until each writer has run
    /// for 0.25 s).
    #[arg(long, default_value_t = 5, value_parser = count(1_000))]
    reps: usize,
    /// Row counts of the matrix.
    #[arg(long, value_delimiter = ',', default_value = "1000,100000,1000000", value_parser = count(MAX_ROWS))]
    rows: Vec<usize>,
    /// Column counts of the matrix.
    #[arg(long, value_delimiter = ',', default_value = "10,30", value_parser = count(1_000))]
    columns: Vec<usize>,
    /// Compressions of the matrix.
    #[arg(long, value_delimiter = ';', default_value = "none;zstd(1);zstd(3)")]
    compressions: Vec<CompressionSpec>,
    /// Contacts from the generator to write as the last cell (0 skips it).
    #[arg(long, default_value_t = 10_000_000, value_parser = RangedU64ValueParser::<usize>::new().range(..=MAX_ROWS))]
    contacts_rows: usize,
    /// Spec workloads (see SPEC.md) to write as cells too, under every compression of the matrix.
    #[arg(long, value_delimiter = ',')]
    spec: Vec<PathBuf>,
    /// Rows of each spec workload.
    #[arg(long, default_value_t = 1_000_000, value_parser = count(MAX_ROWS))]
    spec_rows: usize,
    /// Encoder workers of the parallel writer [default: available CPUs].
    #[arg(long, value_parser = count(1_024))]
    threads: Option<usize>,
    /// Allocator of the process (both writers use it): system, mimalloc or jemalloc.
    #[arg(long, default_value = "system")]
    allocator: String,
    /// Directory for writer-bench-<allocator>.json and .md.
    #[arg(long, default_value = "results/local/writer")]
    output: PathBuf,
    /// Measure only the cell at this index of the run and print it as JSON (how the run starts
    /// each cell in a process of its own).
    #[arg(long, hide = true)]
    cell: Option<usize>,
}

/// What `--baseline` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Baseline {
    /// parquet's `ArrowWriter`.
    ArrowWriter,
    /// `ParallelArrowWriter` with arrow-rs's column encoder: what shredlab's own encoder gains.
    ArrowRsEncoder,
}

impl Baseline {
    fn contender(self, threads: usize) -> Contender {
        match self {
            Self::ArrowWriter => Contender::ArrowWriter,
            Self::ArrowRsEncoder => Contender::Parallel(threads, ColumnEncoder::ArrowRs),
        }
    }
}

/// The most rows one cell may hold: every cell is generated in memory before it is timed.
const MAX_ROWS: u64 = 100_000_000;

/// A count option: at least 1, at most `max`.
fn count(max: u64) -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=max)
}

fn properties(compression: CompressionSpec) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(compression.codec())
        .build()
}

fn arrow_bytes(batches: &[RecordBatch]) -> u64 {
    batches
        .iter()
        .map(|b| b.get_array_memory_size() as u64)
        .sum()
}

/// Measures one cell in this process: both writers, alternating, on the cell's rows.
fn measure(planned: &PlannedCell, args: &Args, threads: usize) -> Result<CellResult> {
    let CellTable {
        name,
        columns,
        rows,
        data: (schema, batches),
    } = planned.data.make()?;
    let compression = planned.compression;
    let baseline = args.baseline.contender(threads);
    let contenders = [
        baseline,
        Contender::Parallel(threads, ColumnEncoder::Native),
    ];
    let (baseline_stats, parallel) = compare(
        &schema,
        &batches,
        &properties(compression),
        contenders,
        args.reps,
    )?;
    let result = CellResult {
        shape: name,
        columns,
        rows,
        compression: compression.to_string(),
        arrow_bytes: arrow_bytes(&batches),
        threads,
        speedup: paired_speedup(&baseline_stats.seconds, &parallel.seconds),
        baseline: baseline_stats,
        parallel,
    };
    eprintln!(
        "{:>8} {columns:>3} cols {rows:>8} rows {compression:<8} {} {:.4} s, parallel {:.4} s: {:.2}x (CPU s {:.2} vs {:.2})",
        result.shape,
        baseline.name(),
        result.baseline.median_s,
        result.parallel.median_s,
        result.speedup,
        result.baseline.median_cpu_s.unwrap_or(f64::NAN),
        result.parallel.median_cpu_s.unwrap_or(f64::NAN),
    );
    Ok(result)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let allocator = allocator(&args.allocator)?;
    alloc::ensure(allocator, false).context("cannot restart on the chosen allocator")?;
    let threads = args.threads.unwrap_or_else(available_cores);
    let cells = plan(
        (&args.rows, &args.columns),
        (&args.spec, args.spec_rows),
        args.contacts_rows,
        &args.compressions,
    );
    if let Some(index) = args.cell {
        let planned = cells
            .get(index)
            .with_context(|| format!("--cell {index}: the run has {} cells", cells.len()))?;
        println!(
            "{}",
            serde_json::to_string(&measure(planned, &args, threads)?)?
        );
        return Ok(());
    }
    // Made before the cells run, so that a path where no results can go fails at once.
    std::fs::create_dir_all(&args.output).with_context(|| {
        format!(
            "cannot create --output {}: give a directory",
            args.output.display()
        )
    })?;
    let results = (0..cells.len())
        .map(in_fresh_process)
        .collect::<Result<Vec<_>>>()?;
    write_results(&args, allocator, threads, &results)?;
    eprintln!("results in {}", args.output.display());
    Ok(())
}

/// The allocator `--allocator` names.
fn allocator(name: &str) -> Result<Allocator> {
    Ok(match name {
        "system" => Allocator::System,
        "mimalloc" => Allocator::Mimalloc,
        "jemalloc" => Allocator::Jemalloc,
        other => anyhow::bail!("unknown allocator '{other}': use system, mimalloc or jemalloc"),
    })
}

/// Writes `writer-bench-<allocator>.json` and `.md` into `--output` (made before the run).
fn write_results(
    args: &Args,
    allocator: Allocator,
    threads: usize,
    cells: &[CellResult],
) -> Result<()> {
    let stem = format!("writer-bench-{}", allocator.name());
    let baseline = args.baseline.contender(threads).name();
    std::fs::write(
        args.output.join(format!("{stem}.json")),
        serde_json::to_string_pretty(cells)?,
    )?;
    let header = format!(
        "# ParallelArrowWriter vs {baseline} ({} allocator)\n\nBaseline: {baseline}; parallel: \
         ParallelArrowWriter with shredlab's column encoder. Each cell runs in a process of its own, \
         which makes its data and then times both writers: medians of at least {} alternating repetitions per \
         writer (a cell shorter than 0.25 s repeats until each writer has run that long; the JSON lists \
         every repetition); speedup: the median over the repetitions of the baseline's time over the \
         parallel writer's, the two run back to back within a repetition; {threads} encoder workers, batches of 100-10,000 rows (contacts and spec workloads: 4,096) written to a \
         byte-counting sink. CPU s: median user + system time of the whole process during one \
         write. Held: the largest `memory_size()` each writer reported after a `write` \
         (encoded pages buffered, plus Arrow data queued for workers). RSS: growth of the \
         process's peak RSS during one write (memory the allocator kept from the cell's earlier \
         repetitions is not counted again, so it understates). \
         Command: `make writer-bench{}`, built from commit {} (dirty: {}).",
        allocator.name(),
        args.reps,
        match args.baseline {
            Baseline::ArrowWriter => "",
            Baseline::ArrowRsEncoder => " BASELINE=arrow-rs-encoder",
        },
        BUILD.commit,
        BUILD.dirty_text(),
    );
    std::fs::write(
        args.output.join(format!("{stem}.md")),
        markdown(cells, &header),
    )?;
    Ok(())
}
