//! `spec-bench`: the contacts preset's data against the hand-written generator's (`compare`),
//! and the README of `make spec-bench` (`render`).

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};
use shredlab_bench::spec_bench::closeness::{compare, ContactStats};
use shredlab_bench::spec_bench::readme::{markdown, SpecBenchResults};
use shredlab_experiments::optimizations::Optimizations;
use shredlab_experiments::source::{BatchSource, ContactSource};
use shredlab_experiments::workload::SpecWorkload;
use shredlab_generator::spec::SpecPaths;
use shredlab_generator::SkewConfig;

#[derive(Debug, Parser)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print, as JSON, the distributions of both contact tables side by side.
    Compare {
        /// Rows of each table.
        #[arg(long, default_value_t = 2_000_000)]
        rows: u64,
        /// The contacts preset.
        #[arg(long, default_value = "specs/contacts.json")]
        spec: PathBuf,
    },
    /// Write DIR/README.md from the runs, the comparison and the metadata in DIR.
    Render {
        /// The results folder, e.g. results/vm/spec.
        dir: PathBuf,
    },
}

fn stats(source: &dyn BatchSource, rows: u64) -> Result<ContactStats> {
    const BATCH: u64 = 16_384;
    let mut maker = source.maker();
    let mut stats = ContactStats::default();
    for start in (0..rows).step_by(BATCH as usize) {
        stats.add(&maker.make(start..(start + BATCH).min(rows)))?;
    }
    Ok(stats)
}

fn main() -> Result<()> {
    match Args::parse().command {
        Command::Compare { rows, spec } => {
            let fast = Optimizations::for_experiment(20)?;
            let contacts = |seed| ContactSource::try_new(seed, SkewConfig::default(), fast);
            let workload = SpecWorkload::load(&spec, 42, SpecPaths::ALL)?;
            let comparison = compare(
                &stats(&contacts(42)?, rows)?,
                &stats(&workload.source(), rows)?,
                &stats(&contacts(43)?, rows)?,
            );
            println!("{}", serde_json::to_string_pretty(&comparison)?);
        }
        Command::Render { dir } => {
            let results = SpecBenchResults::load(&dir)?;
            std::fs::write(dir.join("README.md"), markdown(&results))?;
            eprintln!("{}", dir.join("README.md").display());
        }
    }
    Ok(())
}
