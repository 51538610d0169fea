//! `stream`: the memory bandwidth this machine sustains (copy, scale, add, triad), as JSON.

use anyhow::{Context, Result};
use clap::builder::RangedU64ValueParser;
use clap::Parser;
use shredlab_bench::stream;
use shredlab_experiments::run::available_cores;

/// STREAM-style bandwidth probe: arrays at least 4x the last-level cache, best of several runs.
#[derive(Debug, Parser)]
struct Args {
    /// Elements per array [default: four times the last-level cache, at least 8 Mi].
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    elements: Option<usize>,
    /// Threads [default: available CPUs].
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1024))]
    threads: Option<usize>,
    /// Repetitions per kernel (the best counts).
    #[arg(long, default_value_t = 10, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    reps: usize,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let llc = stream::last_level_cache_bytes().unwrap_or(32 << 20);
    let elements = args
        .elements
        .unwrap_or_else(|| stream::elements_for_cache(llc).max(8 << 20));
    let threads = args.threads.unwrap_or_else(available_cores);
    let result = stream::measure(elements, threads, args.reps)
        .context("STREAM validation failed: the arrays do not hold the expected values")?;
    let mut json = serde_json::to_value(&result)?;
    json["best_bytes_per_s"] = result.best_bytes_per_s().into();
    json["last_level_cache_bytes"] = llc.into();
    println!("{}", serde_json::to_string_pretty(&json)?);
    for (name, k) in [
        ("copy", result.copy),
        ("scale", result.scale),
        ("add", result.add),
        ("triad", result.triad),
    ] {
        eprintln!(
            "{name:>5}: {:6.2} GB/s (best of {})",
            k.bytes_per_s / 1e9,
            result.reps
        );
    }
    Ok(())
}
