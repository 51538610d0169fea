//! `pipeline`: generate contacts and write them as Parquet under one numbered experiment.

use std::process::ExitCode;

use clap::Parser;
use shredlab_experiments::alloc::{self, SwitchableAllocator};
use shredlab_experiments::catalog::CATALOG;
use shredlab_experiments::cli::Cli;
use shredlab_experiments::error::PipelineError;
use shredlab_experiments::output::OutputDir;
use shredlab_experiments::run::{execute, progress_bar, resolve};

#[global_allocator]
static ALLOCATOR: SwitchableAllocator = SwitchableAllocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.list {
        print!("{}", catalog_table());
        return ExitCode::SUCCESS;
    }
    let result = resolve(&cli.request()).and_then(|config| {
        let allocator = config.allocator();
        alloc::ensure(allocator).map_err(|source| PipelineError::Restart {
            allocator: allocator.name(),
            source,
        })?;
        let output = OutputDir::prepare(&cli.output_dir, cli.overwrite, config.shard)?;
        execute(&config, &output, &progress_bar(cli.rows, cli.quiet))
    });
    match result {
        Ok(report) if cli.json => {
            println!(
                "{}",
                serde_json::to_string(&report).expect("report serializes")
            );
            ExitCode::SUCCESS
        }
        Ok(report) => {
            print!("{}", report.human());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The catalog as a text table: number, slug, study figure, summary.
fn catalog_table() -> String {
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
