//! `pipeline`: generate contacts and write them as Parquet under one numbered experiment.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use shredlab_experiments::alloc::{self, SwitchableAllocator};
use shredlab_experiments::cli::{Cli, ListFormat};
use shredlab_experiments::config;
use shredlab_experiments::error::PipelineError;
use shredlab_experiments::listing;
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::output::store::StoreOutput;
use shredlab_experiments::output::{Destination, SinkKind};
use shredlab_experiments::report::RunReport;
use shredlab_experiments::run::{execute, execute_without_files, progress_bar, resolve};
use shredlab_experiments::signals;

#[global_allocator]
static ALLOCATOR: SwitchableAllocator = SwitchableAllocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(format) = cli.list {
        let table = match format {
            ListFormat::Text => listing::text_table(),
            ListFormat::Markdown => listing::markdown_table(),
            ListFormat::Details => listing::markdown_details(),
            ListFormat::Page => listing::catalog_page(),
        };
        return print(&table, "");
    }
    match run(&cli) {
        Ok(report) => {
            let text = if cli.json {
                format!(
                    "{}\n",
                    serde_json::to_string(&report).expect("a report serializes")
                )
            } else {
                report.human()
            };
            print(
                &text,
                " (the run itself succeeded: its files are committed)",
            )
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// The run the command line asks for, from checking its settings to the report.
fn run(cli: &Cli) -> Result<RunReport, PipelineError> {
    alloc::check_variable()?;
    let config = resolve(&cli.run)?;
    let allocator = config.allocator();
    alloc::ensure(allocator, config.count_allocations).map_err(|source| {
        PipelineError::Restart {
            allocator: allocator.name(),
            source,
        }
    })?;
    // Warned after the restart on another allocator, so that the user reads it once.
    let on = config.optimizations;
    for inert in on.inert() {
        let missing: Vec<_> = inert
            .needs()
            .iter()
            .filter(|o| !on.has(**o))
            .map(|o| o.slug())
            .collect();
        let rivals: Vec<_> = inert
            .yields_to()
            .iter()
            .filter(|o| on.has(**o))
            .map(|o| o.slug())
            .collect();
        if missing.is_empty() {
            eprintln!(
                "warning: {inert} changes nothing while {} is on: disable one of them",
                rivals.join(", ")
            );
        } else {
            eprintln!(
                "warning: {inert} changes nothing without {}: enable it too",
                missing.join(", ")
            );
        }
    }
    signals::install().map_err(|source| PipelineError::SignalHandlers { source })?;
    let progress = progress_bar(cli.run.rows, cli.quiet);
    match config.sink {
        SinkKind::File => match Destination::parse(&cli.output)? {
            Destination::Dir(dir) => {
                config::refuse_timeline_at_output(config.timeline.as_deref(), &dir)?;
                let output = OutputDir::prepare(dir, cli.overwrite, config.shard)?
                    .with_file_options(config.file_options())?
                    .with_sync(config.sync);
                execute(&config, &output, &progress)
            }
            Destination::Store(url) => {
                let output =
                    StoreOutput::prepare(url, &[], cli.overwrite, config.shard, config.verify)?;
                execute(&config, &output, &progress)
            }
        },
        SinkKind::Null | SinkKind::Count => execute_without_files(&config, &progress),
    }
}

/// Writes `text` to stdout; a closed or full stdout is an error message (ending in `note`) and a
/// failure exit, not a panic.
fn print(text: &str, note: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write to stdout: {error}{note}");
            ExitCode::FAILURE
        }
    }
}
