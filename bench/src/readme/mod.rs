//! `results/<host>/README.md`: the table of every experiment with its change from the previous
//! one and whether that change is significant (Wilcoxon signed-rank for experiments timed in
//! the same rounds, Mann-Whitney otherwise, Holm-corrected over every comparison in the table),
//! the floor and memory table (`floor_table`), the CPU by role (`cpu_by_role`), and the
//! charts.

mod cpu_by_role;
mod floor_table;
mod thread_time;

use std::fmt::Write as _;

use crate::markdown::{Align, Table};
use crate::stats::{holm, mann_whitney_p, median, wilcoxon_signed_rank_p};
use crate::summary::Summary;

/// Significance level of the run-to-run comparison.
pub const ALPHA: f64 = 0.05;

fn metadata(summary: &Summary, key: &str) -> String {
    match &summary.metadata[key] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "?".to_string(),
        other => other.to_string(),
    }
}

/// How `current` compares with `previous`: the relative change of wall time and the raw p of
/// the test that fits how they were timed.
struct Comparison {
    change: f64,
    p: Option<f64>,
}

impl Comparison {
    /// Timed in the same rounds: the median of the rounds' ratios, tested by the Wilcoxon
    /// signed-rank test on their logarithms, so that the machine's drift from round to round,
    /// which hits both alike, cancels. Otherwise the ratio of the medians, tested by
    /// Mann-Whitney U.
    fn of(previous: &Summary, current: &Summary) -> Self {
        let paired = previous.rounds.is_some()
            && previous.rounds == current.rounds
            && previous.times.len() == current.times.len();
        if paired {
            let ratios: Vec<f64> = current
                .times
                .iter()
                .zip(&previous.times)
                .map(|(c, p)| c / p)
                .collect();
            let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
            Self {
                change: median(&ratios) - 1.0,
                p: wilcoxon_signed_rank_p(&logs),
            }
        } else {
            Self {
                change: current.median_s / previous.median_s - 1.0,
                p: mann_whitney_p(&previous.times, &current.times),
            }
        }
    }
}

/// Each summary's change against the one before it (see [`Comparison::of`]) and the verdict of
/// its test, the p-value adjusted by Holm's method over all the comparisons that have one, so
/// that testing twenty neighbours does not make one look significant by chance.
fn changes(summaries: &[Summary]) -> Vec<String> {
    let comparisons: Vec<Option<Comparison>> = summaries
        .iter()
        .enumerate()
        .map(|(i, s)| Some(Comparison::of(&summaries[i.checked_sub(1)?], s)))
        .collect();
    let tested: Vec<f64> = comparisons.iter().flatten().filter_map(|c| c.p).collect();
    let mut adjusted = holm(&tested).into_iter();
    comparisons
        .iter()
        .map(|comparison| {
            let Some(Comparison { change, p }) = comparison else {
                return "-".to_string();
            };
            let delta = change * 100.0;
            match p.map(|raw| (raw, adjusted.next().expect("one adjusted p per test"))) {
                Some((_, p)) if p < ALPHA => {
                    let verdict = if delta > 0.0 { "slower" } else { "faster" };
                    format!("{delta:+.1}% ({verdict}, Holm p={p:.4})")
                }
                Some((raw, p)) => {
                    format!("{delta:+.1}% (not significant, Holm p={p:.2}, raw p={raw:.2})")
                }
                None => format!("{delta:+.1}%"),
            }
        })
        .collect()
}

fn counter_figure(summary: &Summary) -> String {
    match (&summary.counters.ipc, &summary.counters.simulated) {
        (Some(ipc), _) => format!("IPC {ipc:.2}"),
        (None, Some(sim)) => format!("{:.0} instr/row (sim)", sim.instructions_per_row),
        (None, None) => "-".to_string(),
    }
}

fn optional(value: Option<f64>, decimals: usize) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
}

/// The commits the summaries were measured at, with their dirty flags: one line when they all
/// agree, otherwise each with the experiments measured at it.
fn builds(summaries: &[Summary]) -> String {
    let builds = grouped(summaries.iter().map(|s| {
        let build = format!(
            "`{}`{}",
            metadata(s, "commit"),
            if s.metadata["dirty"] == true {
                " (with uncommitted changes)"
            } else {
                ""
            }
        );
        (build, s.experiment)
    }));
    if let [(build, _)] = builds.as_slice() {
        return format!("Commit {build}");
    }
    let parts: Vec<String> = builds
        .iter()
        .map(|(build, experiments)| format!("{build} for {}", numbers(experiments)))
        .collect();
    format!("Measured at several commits: {}", parts.join("; "))
}

/// The experiments of each distinct key, keys in order of first appearance.
fn grouped(keyed: impl Iterator<Item = (String, u32)>) -> Vec<(String, Vec<u32>)> {
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for (key, experiment) in keyed {
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, experiments)) => experiments.push(experiment),
            None => groups.push((key, vec![experiment])),
        }
    }
    groups
}

/// Experiment numbers as the tables print them: `00, 26, 28`.
fn numbers(experiments: &[u32]) -> String {
    let numbers: Vec<String> = experiments.iter().map(|n| format!("{n:02}")).collect();
    numbers.join(", ")
}

/// How the timed runs were made: interleaved rounds or one experiment after another.
fn timing(first: &Summary) -> String {
    // Runs recorded before the rounds were rotated say "interleaved".
    let order = match first.metadata["timing"].as_str() {
        Some("rotated") => {
            Some("its order rotated each round so that every experiment goes first alike")
        }
        Some("interleaved") => Some("in catalog order"),
        _ => None,
    };
    if let Some(order) = order {
        format!(
            "{} interleaved rounds after {} warm-up round(s): each round is one hyperfine call \
             that times every experiment once, {order}, so the host's drift hits neighbours \
             alike",
            first.times.len(),
            metadata(first, "warmup"),
        )
    } else {
        format!(
            "{} runs after {} warm-up, one experiment after another",
            first.times.len(),
            metadata(first, "warmup"),
        )
    }
}

/// The paragraphs above the table: machine, commits, workload, how each experiment was timed.
fn header(text: &mut String, first: &Summary, summaries: &[Summary]) {
    let _ = writeln!(
        text,
        "Machine: {} ({} cores), kernel {}, {}. {}, measured {}.\n",
        metadata(first, "cpu"),
        metadata(first, "cores"),
        metadata(first, "kernel"),
        metadata(first, "rustc"),
        builds(summaries),
        metadata(first, "date"),
    );
    if let Some(spec) = first.metadata["workload"]
        .as_str()
        .filter(|w| *w != "contacts")
    {
        let _ = writeln!(
            text,
            "Workload: the spec file `{spec}` (`SPEC=` given; the experiments' contacts-only optimizations are left out, see SPEC.md).\n"
        );
    }
    let timing = timing(first);
    let _ = writeln!(
        text,
        "Each experiment: hyperfine, {} rows, {timing}; output removed between runs, files synced \
         at the end: {}; the same release binary for every experiment. Change against the \
         previous experiment: for two experiments timed in the same rounds, the median over the \
         rounds of the ratio of their times, tested by the two-sided Wilcoxon signed-rank test \
         on the rounds' log ratios (the machine's drift from round to round cancels); for two \
         timed apart, the ratio of their medians, tested by the two-sided Mann-Whitney U test. \
         Significant when that p, adjusted by Holm's method over the table's {} comparisons, is \
         below {ALPHA}.\n\n\
         Counters: {}.\n",
        first.rows,
        match first.metadata.get("sync").and_then(|s| s.as_str()) {
            Some("none") => "no (`--sync none`)",
            Some(_) => "yes (`--sync end`)",
            // Runs recorded before the option existed always synced.
            None => "yes",
        },
        summaries.len().saturating_sub(1),
        first.counters.source,
    );
}

/// The table of every experiment with its change from the previous one, and the data gate.
fn experiment_table(text: &mut String, summaries: &[Summary]) {
    text.push_str("![trend](trend.png)\n\n");
    let mut table = Table::new([
        ("N", Align::Right),
        ("experiment", Align::Left),
        ("median s", Align::Right),
        ("min s", Align::Right),
        ("max s", Align::Right),
        ("M rows/s", Align::Right),
        ("change vs previous", Align::Left),
        ("counters", Align::Left),
        ("peak RSS MiB", Align::Right),
        ("gate", Align::Left),
    ]);
    for (s, change) in summaries.iter().zip(changes(summaries)) {
        table.row([
            format!("{:02}", s.experiment),
            format!("[{}]({:02}-{}/summary.json)", s.slug, s.experiment, s.slug),
            format!("{:.3}", s.median_s),
            format!("{:.3}", s.min_s),
            format!("{:.3}", s.max_s),
            format!("{:.2}", s.rows_per_s / 1e6),
            change,
            counter_figure(s),
            s.peak_rss_bytes
                .map_or("-".to_string(), |b| format!("{:.0}", b as f64 / 1048576.0)),
            (if s.gate_passed { "pass" } else { "FAIL" }).to_string(),
        ]);
    }
    text.push_str(&table.to_string());
    let digests: std::collections::BTreeSet<_> = summaries
        .iter()
        .filter_map(|s| s.digest.as_deref())
        .collect();
    let _ = writeln!(
        text,
        "\nData gate: {} distinct digest(s) across {} experiments{}.\n",
        digests.len(),
        summaries.len(),
        if digests.len() == 1 {
            " (every experiment wrote the same data)"
        } else {
            " - MISMATCH"
        },
    );
}

/// The README for a host's summaries (sorted by experiment).
pub fn markdown(host: &str, summaries: &[Summary]) -> String {
    let mut text = format!("# Results on `{host}`\n\n");
    let Some(first) = summaries.first() else {
        text.push_str("No experiment has been measured yet: run `make experiment N=0`.\n");
        return text;
    };
    header(&mut text, first, summaries);
    experiment_table(&mut text, summaries);
    floor_table::floor_table(&mut text, summaries);
    cpu_by_role::phase_table(&mut text, summaries);
    thread_time::thread_time_table(&mut text, summaries);
    if let Some(targets) = crate::targets::section(summaries) {
        let _ = writeln!(text, "{targets}");
    }
    text.push_str("![ipc](ipc.png)\n\n![counters](counters.png)\n\n![boxplot](boxplot.png)\n\n");
    text.push_str("Raw files per experiment: `hyperfine.json`, `perf-stat.csv`, `cachegrind.txt` (where hardware counters are missing), `gate.json`, `floor-generation.jsonl` and `floor-encoding.jsonl` (the floor runs' reports; `floor-commands`, their command lines), `heap.json` (the `--count-allocations` run), `counters.json` (the `--counters` run), `timeline.csv` (its threads' phases, drawn in `timeline.png`) and `memory.csv` (memory-controller counts, where exposed), `metadata.json`; parsed into `summary.json`. Regenerate the charts and this page with `make trend`.\n");
    text
}
