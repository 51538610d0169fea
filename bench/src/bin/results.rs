//! `results`: turns the raw files the measurement scripts leave behind (`make experiment`,
//! `make designs`, `make peers`, ...) into summaries, charts and READMEs, and reads values out of
//! JSON for those scripts.
//!
//! Every subcommand is documented in one place, its clap help below: `results --help` lists
//! them, `results SUBCOMMAND --help` gives one's arguments. `main` hands each to its function.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use clap::{Parser, Subcommand};
use shredlab_bench::ab::AbComparison;
use shredlab_bench::charts;
use shredlab_bench::designs::Designs;
use shredlab_bench::parse::hyperfine::{self, HyperfineResult};
use shredlab_bench::scaling::analysis::ScalingAnalysis;
use shredlab_bench::summary::{load_host, Summary};
use shredlab_bench::timeline::Timeline;
use shredlab_bench::{history, index_page, long_run, memory, peers, readme};

#[derive(Debug, Parser)]
#[command(about = "Summaries, charts and README of shredlab's measurements")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse one experiment folder's raw files into summary.json.
    Summarize {
        /// The experiment folder, e.g. results/vm/07-sized-thread-pools.
        dir: PathBuf,
    },
    /// Redraw a host's charts and README.md from its summaries.
    Render {
        /// The host folder, e.g. results/vm.
        host_dir: PathBuf,
    },
    /// Merge interleaved hyperfine rounds (each timing every experiment once, with
    /// `--command-name NN-slug`) into `HOST_DIR/NN-slug/hyperfine.json`, one per experiment.
    MergeRounds {
        /// The host folder, e.g. results/vm; each experiment's folder must exist.
        host_dir: PathBuf,
        /// The rounds' hyperfine JSON files, in order.
        #[arg(required = true)]
        rounds: Vec<PathBuf>,
    },
    /// Compare B with A, timed in interleaved rounds (each timing A then B once): writes
    /// `DIR/hyperfine.json`, `DIR/ab.json` and `DIR/README.md`.
    Ab {
        /// The output folder, e.g. results/vm/ab-counters.
        dir: PathBuf,
        /// The README's title.
        #[arg(long)]
        title: String,
        /// The command line that ran the A/B, for the README.
        #[arg(long)]
        command: String,
        /// What side A runs, for the README (hyperfine records only the command's name).
        #[arg(long)]
        a: String,
        /// What side B runs.
        #[arg(long)]
        b: String,
        /// The hypervisor's steal over each round (`time_rounds`' `steal.tsv`), when recorded.
        #[arg(long)]
        steal: Option<PathBuf>,
        /// The rounds' hyperfine JSON files, in order.
        #[arg(required = true)]
        rounds: Vec<PathBuf>,
    },
    /// Writes HOST_DIR/index.html: one static page of the host's tables and charts.
    Index {
        /// The host's results folder, e.g. results/vm.
        host_dir: PathBuf,
    },
    /// Appends the figures of the run in DIR to the host's history (`--history`), once.
    HistoryAppend {
        /// The run's folder, e.g. results/vm/36-native-encoder.
        dir: PathBuf,
        /// The host's history file, e.g. results/vm/history.jsonl; records are named by DIR's
        /// path from this file's folder.
        #[arg(long)]
        history: PathBuf,
    },
    /// Seeds HOST_DIR/history.jsonl from every run already in HOST_DIR (records already there
    /// are kept once).
    HistoryImport {
        /// The host's results folder, e.g. results/vm.
        host_dir: PathBuf,
    },
    /// `make history`'s page and charts: HOST_DIR/history.md and history-<kind>.png from
    /// HOST_DIR/history.jsonl and the detector's change points.
    History {
        /// The host's results folder, e.g. results/vm.
        host_dir: PathBuf,
        /// The change points of scripts/history/changes.py.
        #[arg(long)]
        changes: PathBuf,
    },
    /// Prints the verdict of an A/B (`ab.json`): B faster, slower or no different from A;
    /// exits 0 in every case.
    Verdict {
        /// The A/B's `ab.json`.
        ab_json: PathBuf,
    },
    /// Compare `make designs`' designs (DIR/designs.tsv, each folder summarized) with the
    /// first: writes `DIR/designs.json`, `DIR/README.md` and the charts.
    Designs {
        /// The designs folder, e.g. results/vm/designs.
        dir: PathBuf,
        /// The command line that measured them, for the README.
        #[arg(long)]
        command: String,
    },
    /// Merges a sweep's interleaved rounds, whose commands are named `NAME=VALUE ...` by their
    /// settings, into one hyperfine JSON with those settings as parameters (for `heatmap`).
    MergeSweep {
        /// The merged JSON to write, e.g. results/vm/sweep-28/sweep.json.
        out: PathBuf,
        /// The rounds' hyperfine JSON files, in order.
        #[arg(required = true)]
        rounds: Vec<PathBuf>,
    },
    /// Heatmaps of a writers x batch-size sweep (hyperfine JSON with parameters).
    Heatmap {
        /// The sweep's hyperfine JSON.
        json: PathBuf,
        /// Rows per run, for rows/s.
        #[arg(long)]
        rows: u64,
        /// Chart title suffix.
        #[arg(long, default_value = "")]
        title: String,
    },
    /// The multi-process scaling report, charts and model from `make scaling`'s folder.
    Scaling {
        /// The scaling folder, e.g. results/vm/scaling.
        dir: PathBuf,
    },
    /// The long-run memory table (README.md) from `make billion`'s milestones.jsonl.
    LongRun {
        /// The folder, e.g. results/vm/billion.
        dir: PathBuf,
        /// The command that was measured, for the header.
        #[arg(long)]
        command: String,
    },
    /// The memory table (README.md) from `make memory`'s runs.jsonl.
    Memory {
        /// The folder, e.g. results/vm/memory-22.
        dir: PathBuf,
    },
    /// The README and charts of `make peers` from its raw files.
    Peers {
        /// The folder, e.g. results/vm/peers.
        dir: PathBuf,
    },
    /// Where a profile's CPU goes (README.md) from `make profile`'s stacks.folded.
    Profile {
        /// The folder, e.g. results/vm/profile/26-bit-guided-ranks.
        dir: PathBuf,
        /// The README's header: what was profiled, how.
        #[arg(long)]
        header: String,
    },
    /// The thread sweep beside the single-CPU pinned run.
    Threads {
        /// The sweep's hyperfine JSON (parameter `threads`).
        sweep: PathBuf,
        /// The pinned run's hyperfine JSON.
        pinned: PathBuf,
        /// Rows per run.
        #[arg(long)]
        rows: u64,
    },
    /// Print the value at a JSON pointer (RFC 6901, e.g. /build/commit) of a JSON file: a
    /// string as it is, anything else as JSON. Fails when the file is not JSON or holds no
    /// value there.
    JsonGet {
        /// The JSON file; `-` reads standard input.
        file: PathBuf,
        /// The JSON pointer, e.g. /allocator.
        pointer: String,
    },
}

/// Every round's hyperfine export, in order.
fn hyperfine_rounds(paths: &[PathBuf]) -> Result<Vec<Vec<HyperfineResult>>> {
    paths.iter().map(|path| hyperfine_file(path)).collect()
}

fn hyperfine_file(path: &Path) -> Result<Vec<HyperfineResult>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    hyperfine::parse(&text).with_context(|| format!("{} is not hyperfine JSON", path.display()))
}

/// The value at `pointer` in the JSON of `file` (`-`: stdin): a string bare, anything else as
/// JSON text.
fn json_get(file: &Path, pointer: &str) -> Result<String> {
    let (name, text) = if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read standard input")?;
        ("standard input".to_string(), text)
    } else {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        (file.display().to_string(), text)
    };
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{name} is not JSON"))?;
    let value = json
        .pointer(pointer)
        .ok_or_else(|| anyhow!("{name} has no value at the JSON pointer '{pointer}'"))?;
    Ok(match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    })
}

fn main() -> Result<()> {
    match Args::parse().command {
        Command::Summarize { dir } => summarize(&dir),
        Command::Render { host_dir } => render(&host_dir),
        Command::MergeRounds { host_dir, rounds } => merge_rounds(&host_dir, &rounds),
        Command::Ab {
            dir,
            title,
            command,
            a,
            b,
            steal,
            rounds,
        } => ab(&dir, &title, &command, (a, b), (&rounds, steal.as_deref())),
        Command::Index { host_dir } => {
            eprintln!("{}", index_page::write(&host_dir)?.display());
            Ok(())
        }
        Command::HistoryAppend { dir, history } => history::append_run(&dir, &history),
        Command::HistoryImport { host_dir } => history::import_into(&host_dir),
        Command::History { host_dir, changes } => history::report::write_page(&host_dir, &changes),
        Command::Verdict { ab_json } => {
            println!("{}", AbComparison::read(&ab_json)?.verdict_line());
            Ok(())
        }
        Command::Designs { dir, command } => designs(&dir, &command),
        Command::MergeSweep { out, rounds } => merge_sweep(&out, &rounds),
        Command::Heatmap { json, rows, title } => heatmap(&json, rows, &title),
        Command::Scaling { dir } => scaling(&dir),
        Command::LongRun { dir, command } => long_run(&dir, &command),
        Command::Memory { dir } => memory(&dir),
        Command::Peers { dir } => peers::readme::write_readme_and_charts(&dir),
        Command::Profile { dir, header } => profile(&dir, &header),
        Command::Threads {
            sweep,
            pinned,
            rows,
        } => threads(&sweep, &pinned, rows),
        Command::JsonGet { file, pointer } => {
            println!("{}", json_get(&file, &pointer)?);
            Ok(())
        }
    }
}

/// `results summarize`: `DIR/summary.json` from the experiment folder's raw files.
fn summarize(dir: &Path) -> Result<()> {
    let summary = Summary::from_dir(dir)?;
    summary.write(dir)?;
    if let Ok(csv) = std::fs::read_to_string(dir.join("timeline.csv")) {
        let title = format!(
            "{:02}-{}: every thread's phases (one --timeline run)",
            summary.experiment, summary.slug
        );
        charts::timeline::draw(dir, &title, &Timeline::parse(&csv)?)
            .map_err(|e| anyhow!("drawing the timeline: {e}"))?;
    }
    eprintln!(
        "{}: median {:.3} s, counters: {}",
        dir.display(),
        summary.median_s,
        summary.counters.source
    );
    Ok(())
}

/// `results render`: the host's charts and `README.md` from every summary in it.
fn render(host_dir: &Path) -> Result<()> {
    let summaries = load_host(host_dir)?;
    let host = host_dir
        .file_name()
        .map_or_else(|| "host".to_string(), |n| n.to_string_lossy().into_owned());
    if !summaries.is_empty() {
        charts::catalog::draw_all(host_dir, &summaries)
            .map_err(|e| anyhow!("drawing charts: {e}"))?;
    }
    std::fs::write(
        host_dir.join("README.md"),
        readme::markdown(&host, &summaries),
    )
    .context("writing README.md")?;
    index_page::write(host_dir)?;
    eprintln!(
        "{}: {} experiments rendered",
        host_dir.display(),
        summaries.len()
    );
    Ok(())
}

/// `results merge-rounds`: each experiment's runs of the rounds into its own `hyperfine.json`.
fn merge_rounds(host_dir: &Path, rounds: &[PathBuf]) -> Result<()> {
    let rounds = hyperfine_rounds(rounds)?;
    for result in hyperfine::merge_rounds(&rounds)? {
        let dir = host_dir.join(&result.command);
        anyhow::ensure!(
            dir.is_dir(),
            "{} does not exist: measure the experiment first (scripts/experiment.sh)",
            dir.display()
        );
        eprintln!(
            "{}: {} interleaved runs, median {:.3} s",
            result.command,
            result.times.len(),
            result.median
        );
        std::fs::write(dir.join("hyperfine.json"), hyperfine::export(vec![result]))?;
    }
    Ok(())
}

/// `results ab`: B against A round by round, into `DIR/hyperfine.json`, `DIR/ab.json` and
/// `DIR/README.md` (also printed); `sides` are what A and B run, then the rounds and steal.
fn ab(
    dir: &Path,
    title: &str,
    command: &str,
    sides: (String, String),
    (rounds, steal): (&[PathBuf], Option<&Path>),
) -> Result<()> {
    let rounds = hyperfine_rounds(rounds)?;
    let mut comparison = AbComparison::from_rounds(&rounds)?;
    (comparison.a.command, comparison.b.command) = sides;
    if let Some(path) = steal {
        comparison.read_steal(path)?;
    }
    std::fs::create_dir_all(dir)?;
    let merged = hyperfine::merge_rounds(&rounds)?;
    std::fs::write(dir.join("hyperfine.json"), hyperfine::export(merged))?;
    std::fs::write(
        dir.join("ab.json"),
        serde_json::to_string_pretty(&comparison)?,
    )?;
    let text = comparison.markdown(title, command);
    std::fs::write(dir.join("README.md"), &text)?;
    print!("{text}");
    Ok(())
}

/// `results designs`: `DIR/designs.json`, `DIR/README.md` and the charts of the designs.
fn designs(dir: &Path, command: &str) -> Result<()> {
    let designs = Designs::from_dir(dir)?;
    std::fs::write(
        dir.join("designs.json"),
        serde_json::to_string_pretty(&designs)?,
    )?;
    std::fs::write(dir.join("README.md"), designs.markdown(command))?;
    charts::designs::draw_all(dir, &designs)
        .map_err(|e| anyhow!("drawing the designs' charts: {e}"))
}

/// `results merge-sweep`: a sweep's rounds into one hyperfine JSON at `out`.
fn merge_sweep(out: &Path, rounds: &[PathBuf]) -> Result<()> {
    let rounds = hyperfine_rounds(rounds)?;
    let merged = hyperfine::merge_sweep_rounds(&rounds)?;
    std::fs::write(out, hyperfine::export(merged))
        .with_context(|| format!("cannot write {}", out.display()))
}

/// `results heatmap`: the heatmaps of a sweep, beside its JSON.
fn heatmap(json: &Path, rows: u64, title: &str) -> Result<()> {
    let results = hyperfine_file(json)?;
    charts::sweeps::draw_heatmaps(json, &results, rows, title)
        .map_err(|e| anyhow!("drawing heatmaps: {e}"))
}

/// `results scaling`: `DIR/scaling.json`, `DIR/README.md` and the charts; each step's figures
/// on standard error.
fn scaling(dir: &Path) -> Result<()> {
    let report = ScalingAnalysis::from_dir(dir)?;
    std::fs::write(
        dir.join("scaling.json"),
        serde_json::to_string_pretty(&report)?,
    )?;
    std::fs::write(dir.join("README.md"), report.markdown())?;
    charts::scaling::draw(dir, &report).map_err(|e| anyhow!("drawing scaling charts: {e}"))?;
    for step in &report.steps {
        eprintln!(
            "{} process(es): {:.2} M rows/s, efficiency {:.1}%",
            step.procs,
            step.rows_per_s / 1e6,
            step.efficiency * 100.0
        );
    }
    Ok(())
}

/// `results long-run`: `DIR/README.md`, the table of the milestones of `command`.
fn long_run(dir: &Path, command: &str) -> Result<()> {
    let milestones = long_run::load(dir)?;
    let header = format!(
        "# Memory over a long run\n\n`{command}`: at each milestone (`--milestones`), \
         throughput since the previous one and overall, and the resident and peak \
         resident memory of the process (from /proc). Run by `make billion`; \
         metadata.json says where and from which commit."
    );
    std::fs::write(
        dir.join("README.md"),
        long_run::markdown(&milestones, &header),
    )
    .context("writing README.md")
}

/// `results memory`: `DIR/README.md`, the table of the settings' runs.
fn memory(dir: &Path) -> Result<()> {
    let runs = memory::load(dir)?;
    std::fs::write(dir.join("README.md"), memory::markdown(&runs)).context("writing README.md")
}

/// `results profile`: `DIR/README.md`, `header` above the table of where the CPU goes.
fn profile(dir: &Path, header: &str) -> Result<()> {
    let shares = shredlab_bench::profile::write_readme(dir, header)?;
    eprintln!("{}: sample weight {} sorted", dir.display(), shares.total());
    Ok(())
}

/// `results threads`: the chart of the thread sweep beside the pinned run, next to the sweep.
fn threads(sweep: &Path, pinned: &Path, rows: u64) -> Result<()> {
    let sweep_results = hyperfine_file(sweep)?;
    let pinned_results = hyperfine_file(pinned)?;
    let dir = sweep.parent().unwrap_or(Path::new("."));
    charts::sweeps::draw_threads(dir, &sweep_results, pinned_results.first(), rows)
        .map_err(|e| anyhow!("drawing the thread chart: {e}"))
}
