//! `writer-bench`: ParallelArrowWriter against parquet's ArrowWriter, or against itself with
//! arrow-rs's column encoder, cell by cell.

use std::path::PathBuf;

#[global_allocator]
static ALLOCATOR: SwitchableAllocator = SwitchableAllocator;

use anyhow::{Context, Result};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use clap::builder::RangedU64ValueParser;
use clap::{Parser, ValueEnum};
use parquet::file::properties::WriterProperties;
use shredlab_bench::writer_bench::cells::{markdown, CellResult};
use shredlab_bench::writer_bench::{compare, spec_table, table, Contender, Shape};
use shredlab_experiments::alloc::{self, Allocator, SwitchableAllocator};
use shredlab_experiments::build_info::BUILD;
use shredlab_experiments::compression::CompressionSpec;
use shredlab_experiments::optimizations::Optimizations;
use shredlab_experiments::run::available_cores;
use shredlab_experiments::source::{BatchSource, ContactSource};
use shredlab_experiments::workload::SpecWorkload;
use shredlab_generator::SkewConfig;
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

fn cell(
    (shape, columns, rows, compression): (&str, usize, usize, CompressionSpec),
    (schema, batches): &(SchemaRef, Vec<RecordBatch>),
    args: &Args,
    threads: usize,
) -> Result<CellResult> {
    let baseline = args.baseline.contender(threads);
    let contenders = [
        baseline,
        Contender::Parallel(threads, ColumnEncoder::Native),
    ];
    let (baseline_stats, parallel) = compare(
        schema,
        batches,
        &properties(compression),
        contenders,
        args.reps,
    )?;
    let result = CellResult {
        shape: shape.to_string(),
        columns,
        rows,
        compression: compression.to_string(),
        arrow_bytes: arrow_bytes(batches),
        threads,
        speedup: baseline_stats.median_s / parallel.median_s,
        baseline: baseline_stats,
        parallel,
    };
    eprintln!(
        "{shape:>8} {columns:>3} cols {rows:>8} rows {compression:<8} {} {:.4} s, parallel {:.4} s: {:.2}x (CPU s {:.2} vs {:.2})",
        baseline.name(),
        result.baseline.median_s,
        result.parallel.median_s,
        result.speedup,
        result.baseline.median_cpu_s.unwrap_or(f64::NAN),
        result.parallel.median_cpu_s.unwrap_or(f64::NAN),
    );
    Ok(result)
}

fn contacts(rows: usize) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let optimizations = Optimizations::for_experiment(14)?;
    let source = ContactSource::try_new(42, SkewConfig::default(), optimizations)?;
    let mut maker = source.maker();
    let batches = (0..rows as u64)
        .step_by(4096)
        .map(|start| maker.make(start..(start + 4096).min(rows as u64)))
        .collect();
    Ok((source.schema(), batches))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let allocator = allocator(&args.allocator)?;
    alloc::ensure(allocator, false).context("cannot restart on the chosen allocator")?;
    let threads = args.threads.unwrap_or_else(available_cores);
    let mut cells = matrix_cells(&args, threads)?;
    cells.extend(spec_cells(&args, threads)?);
    if args.contacts_rows > 0 {
        let data = contacts(args.contacts_rows)?;
        cells.push(cell(
            ("contacts", 2, args.contacts_rows, CompressionSpec::None),
            &data,
            &args,
            threads,
        )?);
    }
    write_results(&args, allocator, threads, &cells)?;
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

/// The matrix's cells: every row count, column count and shape, under every compression.
fn matrix_cells(args: &Args, threads: usize) -> Result<Vec<CellResult>> {
    let mut cells = Vec::new();
    for &rows in &args.rows {
        for &columns in &args.columns {
            for shape in [Shape::Simple, Shape::Complex] {
                let data = table(shape, columns, rows, 7);
                for &compression in &args.compressions {
                    cells.push(cell(
                        (shape.name(), columns, rows, compression),
                        &data,
                        args,
                        threads,
                    )?);
                }
            }
        }
    }
    Ok(cells)
}

/// Each `--spec` workload's cells, one per compression, named by the spec file's stem.
fn spec_cells(args: &Args, threads: usize) -> Result<Vec<CellResult>> {
    let mut cells = Vec::new();
    for path in &args.spec {
        // Written digit by digit, as the newest experiment writes them: the same rows.
        let workload = SpecWorkload::load(path, 42, true)?;
        let data = spec_table(workload.generator(), args.spec_rows, 4096)
            .map_err(|e| anyhow::anyhow!("spec file {}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .map_or_else(|| "spec".into(), |s| s.to_string_lossy());
        let columns = data.0.fields().len();
        for &compression in &args.compressions {
            cells.push(cell(
                (&name, columns, args.spec_rows, compression),
                &data,
                args,
                threads,
            )?);
        }
    }
    Ok(cells)
}

/// Writes `writer-bench-<allocator>.json` and `.md` into `--output`.
fn write_results(
    args: &Args,
    allocator: Allocator,
    threads: usize,
    cells: &[CellResult],
) -> Result<()> {
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create {}", args.output.display()))?;
    let stem = format!("writer-bench-{}", allocator.name());
    let baseline = args.baseline.contender(threads).name();
    std::fs::write(
        args.output.join(format!("{stem}.json")),
        serde_json::to_string_pretty(cells)?,
    )?;
    let header = format!(
        "# ParallelArrowWriter vs {baseline} ({} allocator)\n\nBaseline: {baseline}; parallel: \
         ParallelArrowWriter with shredlab's column encoder. Medians of at least {} alternating repetitions per \
         writer (a cell shorter than 0.25 s repeats until each writer has run that long; the JSON lists \
         every repetition), {threads} encoder workers, batches of 100-10,000 rows (contacts and spec workloads: 4,096) written to a \
         byte-counting sink. CPU s: median user + system time of the whole process during one \
         write. Held: the largest `memory_size()` each writer reported after a `write` \
         (encoded pages buffered, plus Arrow data queued for workers). RSS: growth of the \
         process's peak RSS during one write (memory the allocator kept from earlier repetitions \
         is not counted again, so it understates). \
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
