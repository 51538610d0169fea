//! `pipeline`: generate contacts and write them as Parquet under one numbered experiment.

use std::process::ExitCode;

use clap::Parser;
use shredlab_experiments::catalog::CATALOG;
use shredlab_experiments::cli::Cli;
use shredlab_experiments::output::OutputDir;
use shredlab_experiments::run::{execute, progress_bar};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.list {
        print!("{}", catalog_table());
        return ExitCode::SUCCESS;
    }
    let result = OutputDir::prepare(&cli.output_dir, cli.overwrite)
        .and_then(|output| execute(&cli.request(), &output, &progress_bar(cli.rows, cli.quiet)));
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
