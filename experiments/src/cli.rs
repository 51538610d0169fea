//! The `pipeline` command line: the run's settings ([`RunRequest`], flattened) plus what only
//! the command line decides: the listing, the output location and how the report is printed.

use clap::{Parser, ValueEnum};

use crate::build_info::VERSION;
use crate::config::RunRequest;

/// Generate nested, Zipf-skewed records (the contacts, or a spec file's table) and write them as
/// Parquet, one numbered optimization experiment at a time.
///
/// The default experiment, the catalog's newest, runs fused workers: each generates a row group and encodes it where it
/// was generated; the earlier entries' designs (producer and writer threads over channels) run
/// with `-e N`.
#[derive(Debug, Parser)]
#[command(name = "pipeline", version = VERSION, args_override_self = true)]
pub struct Cli {
    /// Print the experiment catalog and exit: as text, as a Markdown table, entry by entry
    /// with how each works, or as the whole catalog page.
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, default_missing_value = "text")]
    pub list: Option<ListFormat>,
    /// The run's settings.
    #[command(flatten)]
    pub run: RunRequest,
    /// Where the part-NNNNN.parquet files go: a directory (or file:///path), or an
    /// S3-compatible object store, s3://BUCKET/PREFIX, configured by the AWS_* variables
    /// (AWS_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ALLOW_HTTP).
    #[arg(long, short = 'o', visible_alias = "output-dir", default_value = "out")]
    pub output: String,
    /// Replace the part files of an earlier run in --output.
    #[arg(long)]
    pub overwrite: bool,
    /// Print one JSON line of metrics instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// How `--list` prints the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// Aligned columns: number, slug, the study's figure, summary.
    Text,
    /// A Markdown table: number, slug, summary.
    Markdown,
    /// Markdown, entry by entry: how each works, the workloads it acts on and the
    /// optimizations it needs.
    Details,
    /// The catalog page, `docs/catalog.md`: the Markdown table, then every entry in detail.
    Page,
}
