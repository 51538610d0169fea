//! `pipeline`: generate contacts and write them as Parquet under one numbered experiment.

use std::process::ExitCode;

use clap::Parser;
use shredlab_experiments::alloc::{self, SwitchableAllocator};
use shredlab_experiments::catalog;
use shredlab_experiments::cli::{Cli, ListFormat};
use shredlab_experiments::error::PipelineError;
use shredlab_experiments::output::OutputDir;
use shredlab_experiments::run::{execute, progress_bar, resolve};

#[global_allocator]
static ALLOCATOR: SwitchableAllocator = SwitchableAllocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(format) = cli.list {
        print!(
            "{}",
            match format {
                ListFormat::Text => catalog::text_table(),
                ListFormat::Markdown => catalog::markdown_table(),
            }
        );
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
