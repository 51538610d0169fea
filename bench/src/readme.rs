//! `results/<host>/README.md`: the table of every experiment with its change from the previous
//! one and whether that change is significant, and the charts.

use std::fmt::Write as _;

use crate::stats::mann_whitney_p;
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

/// Change of `current` against `previous`: relative median change and Mann-Whitney verdict.
fn change(previous: Option<&Summary>, current: &Summary) -> String {
    let Some(previous) = previous else {
        return "-".to_string();
    };
    let delta = (current.median_s / previous.median_s - 1.0) * 100.0;
    match mann_whitney_p(&previous.times, &current.times) {
        Some(p) if p < ALPHA => {
            let verdict = if delta > 0.0 { "slower" } else { "faster" };
            format!("{delta:+.1}% ({verdict}, p={p:.4})")
        }
        Some(p) => format!("{delta:+.1}% (not significant, p={p:.2})"),
        None => format!("{delta:+.1}%"),
    }
}

fn counter_cell(summary: &Summary) -> String {
    match (&summary.counters.ipc, &summary.counters.simulated) {
        (Some(ipc), _) => format!("IPC {ipc:.2}"),
        (None, Some(sim)) => format!("{:.0} instr/row (sim)", sim.instructions_per_row),
        (None, None) => "-".to_string(),
    }
}

/// The README for a host's summaries (sorted by experiment).
pub fn render(host: &str, summaries: &[Summary]) -> String {
    let mut text = format!("# Results on `{host}`\n\n");
    let Some(first) = summaries.first() else {
        text.push_str("No experiment has been measured yet: run `make experiment N=0`.\n");
        return text;
    };
    let _ = writeln!(
        text,
        "Machine: {} ({} cores), kernel {}, {}. Commit `{}`{}, measured {}.\n",
        metadata(first, "cpu"),
        metadata(first, "cores"),
        metadata(first, "kernel"),
        metadata(first, "rustc"),
        metadata(first, "commit"),
        if first.metadata["dirty"] == true {
            " (with uncommitted changes)"
        } else {
            ""
        },
        metadata(first, "date"),
    );
    let _ = writeln!(
        text,
        "Each experiment: hyperfine, {} rows, {} runs after {} warm-up, output removed between \
         runs, files synced at the end: {}; the same release binary for every experiment. Change: median against the previous \
         experiment, significant when the two-sided Mann-Whitney U test gives p < {ALPHA}.\n\n\
         Counters: {}.\n",
        first.rows,
        first.times.len(),
        metadata(first, "warmup"),
        match first.metadata.get("sync").and_then(|s| s.as_str()) {
            Some("none") => "no (`--sync none`)",
            Some(_) => "yes (`--sync end`)",
            // Runs recorded before the option existed always synced.
            None => "yes",
        },
        first.counters.source,
    );
    text.push_str("![trend](trend.png)\n\n");
    text.push_str("| N | experiment | median s | min s | max s | M rows/s | change vs previous | counters | peak RSS MiB | gate |\n");
    text.push_str("|---:|---|---:|---:|---:|---:|---|---|---:|---|\n");
    let mut previous: Option<&Summary> = None;
    for s in summaries {
        let _ = writeln!(
            text,
            "| {:02} | [{}]({:02}-{}/summary.json) | {:.3} | {:.3} | {:.3} | {:.2} | {} | {} | {} | {} |",
            s.experiment,
            s.slug,
            s.experiment,
            s.slug,
            s.median_s,
            s.min_s,
            s.max_s,
            s.rows_per_s / 1e6,
            change(previous, s),
            counter_cell(s),
            s.peak_rss_bytes.map_or("-".to_string(), |b| format!("{:.0}", b as f64 / 1048576.0)),
            if s.gate_passed { "pass" } else { "FAIL" },
        );
        previous = Some(s);
    }
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
    text.push_str("![ipc](ipc.png)\n\n![counters](counters.png)\n\n![boxplot](boxplot.png)\n\n");
    text.push_str("Raw files per experiment: `hyperfine.json`, `perf-stat.csv`, `cachegrind.txt` (where hardware counters are missing), `gate.json`, `metadata.json`; parsed into `summary.json`. Regenerate the charts and this page with `make trend`.\n");
    text
}
