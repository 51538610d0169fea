//! `leaf-costs`: arrow-rs's encoding CPU per leaf column and stage (`measure`, JSON on stdout),
//! and the README of `make leaf-costs` (`render`).

use std::path::PathBuf;

#[global_allocator]
static ALLOCATOR: SwitchableAllocator = SwitchableAllocator;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use shredlab_bench::leaf_costs::measure::measure;
use shredlab_bench::leaf_costs::readme::{markdown, LeafCostsResults};
use shredlab_bench::leaf_costs::Workload;
use shredlab_bench::writer_bench::{spec_table, table, Shape};
use shredlab_experiments::alloc::{self, SwitchableAllocator};
use shredlab_experiments::config::{default_batch_rows, PipelineConfig, RunRequest, DEFAULT_SEED};
use shredlab_experiments::properties::writer_properties;
use shredlab_experiments::run::available_cores;
use shredlab_experiments::source::{BatchSource, ContactSource};
use shredlab_generator::spec::{parse, SpecGenerator};
use shredlab_generator::SkewConfig;

#[derive(Debug, Parser)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print, as JSON, the map of the contacts, the given specs and the writer matrix's two
    /// shapes, each leaf encoded alone under each stage's properties.
    Measure {
        /// Rows of each workload.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
        rows: u64,
        /// Rounds each figure is the median of.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
        rounds: u64,
        /// Spec files (see SPEC.md) to map too.
        #[arg(long, value_delimiter = ',')]
        spec: Vec<PathBuf>,
        /// Columns of the writer matrix's tables (0 leaves them out).
        #[arg(long, default_value_t = 10)]
        matrix_columns: usize,
    },
    /// Write DIR/README.md from costs.json and metadata.json in DIR.
    Render {
        /// The results folder, e.g. results/vm/leaf-costs.
        dir: PathBuf,
    },
}

/// A workload to map.
enum Source {
    Contacts,
    Spec(PathBuf),
    Matrix(Shape, usize),
}

/// The rows of `source` in the newest experiment's batches, with its writer properties.
fn build(source: &Source, rows: u64, config: &PipelineConfig) -> Result<Workload> {
    let properties = writer_properties(
        config.optimizations,
        config.compression,
        &config.writer_memory,
    );
    let batch_rows = default_batch_rows(config.optimizations);
    let (name, schema, batches) = match source {
        Source::Contacts => {
            let contacts =
                ContactSource::try_new(DEFAULT_SEED, SkewConfig::default(), config.optimizations)?;
            let mut maker = contacts.maker();
            let step = batch_rows as u64;
            let batches = (0..rows)
                .step_by(batch_rows)
                .map(|start| maker.make(start..(start + step).min(rows)))
                .collect();
            ("contacts".to_string(), contacts.schema(), batches)
        }
        Source::Spec(path) => {
            let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
            let generator = SpecGenerator::new(&parse(&text)?, DEFAULT_SEED)?;
            let (schema, batches) = spec_table(&generator, rows as usize, batch_rows)?;
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            (format!("spec {stem}"), schema, batches)
        }
        Source::Matrix(shape, columns) => {
            let (schema, batches) = table(*shape, *columns, rows as usize, DEFAULT_SEED);
            (
                format!("matrix {} x{columns}", shape.name()),
                schema,
                batches,
            )
        }
    };
    Ok(Workload {
        name,
        schema,
        batches,
        properties,
    })
}

fn main() -> Result<()> {
    match Args::parse().command {
        Command::Measure {
            rows,
            rounds,
            spec,
            matrix_columns,
        } => {
            let config = PipelineConfig::resolve(&RunRequest::default(), available_cores())?;
            // The newest experiment's allocator, as the pipeline would run on (one re-exec).
            alloc::ensure(config.allocator(), false)
                .context("cannot restart on the newest experiment's allocator")?;
            let mut sources = vec![Source::Contacts];
            sources.extend(spec.into_iter().map(Source::Spec));
            if matrix_columns > 0 {
                sources.push(Source::Matrix(Shape::Simple, matrix_columns));
                sources.push(Source::Matrix(Shape::Complex, matrix_columns));
            }
            let mut maps = Vec::new();
            for source in &sources {
                // One workload in memory at a time.
                let workload = build(source, rows, &config)?;
                eprintln!("{}: measuring", workload.name);
                maps.push(measure(&workload, rounds as usize)?);
            }
            println!("{}", serde_json::to_string_pretty(&maps)?);
        }
        Command::Render { dir } => {
            let results = LeafCostsResults::load(&dir)?;
            std::fs::write(dir.join("README.md"), markdown(&results))?;
            eprintln!("{}", dir.join("README.md").display());
        }
    }
    Ok(())
}
