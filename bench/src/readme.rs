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

fn optional(value: Option<f64>, decimals: usize) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
}

/// The floor and memory table: how far each experiment is from keeping every core busy on the
/// work it needs, and what it holds. Only experiments measured with the floor or the heap run.
fn floor_table(text: &mut String, summaries: &[Summary]) {
    let measured: Vec<&Summary> = summaries
        .iter()
        .filter(|s| s.floor.is_some() || s.heap.is_some())
        .collect();
    let Some(first_floor) = measured.iter().find_map(|s| s.floor.as_ref()) else {
        return;
    };
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    let _ = writeln!(
        text,
        "## Floor and memory\n\n\
         The floor of each experiment is the CPU time its work needs, measured on the same binary \
         and settings in two parts ({} runs each, medians): generation alone (`--sink null`) and \
         encoding alone (`--prebuilt --sink count`, batches built before the clock starts, no \
         disk). Ideal = (generation + encoding CPU) / {} cores: the wall time if every core \
         stayed busy, nothing waited and the disk cost nothing. CPU s and cores busy are \
         hyperfine's mean user + system time of the timed runs. Peak heap and bytes allocated \
         come from one extra run with `--count-allocations` (not timed); peak RSS from \
         `/usr/bin/time`.\n\n![floor](floor.png)\n",
        first_floor.runs, first_floor.cores,
    );
    text.push_str("| N | experiment | median s | CPU s | cores busy | generation CPU s | encoding CPU s | ideal s | wall / ideal | peak RSS MiB | peak heap MiB | bytes allocated / row |\n");
    text.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for s in measured {
        let _ = writeln!(
            text,
            "| {:02} | {} | {:.3} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s.experiment,
            s.slug,
            s.median_s,
            s.user_s + s.system_s,
            optional(s.cores_busy, 2),
            optional(s.floor.as_ref().map(|f| f.generation_cpu_s), 2),
            optional(s.floor.as_ref().map(|f| f.encoding_cpu_s), 2),
            optional(s.floor.as_ref().map(|f| f.ideal_wall_s), 3),
            optional(s.wall_over_ideal, 2),
            optional(s.peak_rss_bytes.map(mib), 0),
            optional(s.heap.as_ref().map(|h| mib(h.peak_live_bytes)), 1),
            optional(s.heap.as_ref().map(|h| h.bytes_allocated_per_row), 0),
        );
    }
    text.push('\n');
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
    floor_table(&mut text, summaries);
    text.push_str("![ipc](ipc.png)\n\n![counters](counters.png)\n\n![boxplot](boxplot.png)\n\n");
    text.push_str("Raw files per experiment: `hyperfine.json`, `perf-stat.csv`, `cachegrind.txt` (where hardware counters are missing), `gate.json`, `floor-generation.jsonl` and `floor-encoding.jsonl` (the floor runs' reports), `heap.json` (the `--count-allocations` run), `metadata.json`; parsed into `summary.json`. Regenerate the charts and this page with `make trend`.\n");
    text
}
