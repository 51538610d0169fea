//! Where one experiment's memory goes (`make memory`): each setting's peak RSS next to its peak
//! of live heap bytes, from `scripts/memory.sh`'s `runs.jsonl`, as a Markdown table.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;
use serde_json::Value;

use crate::markdown::{Align, Table};

/// One setting: its timed run (under `/usr/bin/time`) and its counted run.
#[derive(Debug, Clone, Deserialize)]
pub struct SettingRun {
    /// What the setting is, e.g. "1 row group in flight".
    pub label: String,
    /// The options it adds to the experiment's command line.
    pub args: String,
    /// Peak RSS of the timed run, KiB.
    pub peak_rss_kb: Option<u64>,
    /// The `--json` report of the timed run.
    pub timed: Value,
    /// The `--json --count-allocations` report of the counted run.
    pub counted: Value,
}

impl SettingRun {
    /// Peak live heap bytes of the counted run.
    fn peak_heap(&self) -> Option<u64> {
        self.counted["heap"]["peak_live_bytes"].as_u64()
    }
}

/// Reads `dir/runs.jsonl`.
pub fn load(dir: &Path) -> Result<Vec<SettingRun>> {
    let path = dir.join("runs.jsonl");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).with_context(|| format!("bad run: {line}")))
        .collect()
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or("-".to_string(), |b| format!("{:.1}", b as f64 / 1048576.0))
}

fn number(value: &Value, decimals: usize) -> String {
    value
        .as_f64()
        .map_or("-".to_string(), |v| format!("{v:.decimals$}"))
}

/// The table, under a header naming the experiment and the row count.
pub fn markdown(runs: &[SettingRun]) -> String {
    let first = runs.first().map(|r| &r.timed);
    let text = format!(
        "# Where the memory goes: experiment {:02}-{}, {} rows\n\n\
         One setting changed at a time, each run twice: once under `/usr/bin/time` (peak RSS, \
         and the run's own wall and CPU time, one run: indicative only), once with \
         `--count-allocations` (the peak of live heap bytes as requested, and the bytes \
         allocated per row). RSS minus peak heap is memory the process holds beyond its live \
         heap: what the allocator keeps for reuse, plus code and stacks. Made by `make memory`; \
         metadata.json says where and from which commit.\n\n",
        first.and_then(|t| t["experiment"].as_u64()).unwrap_or(0),
        first.and_then(|t| t["slug"].as_str()).unwrap_or("?"),
        first.and_then(|t| t["rows"].as_u64()).unwrap_or(0),
    );
    let mut table = Table::new(
        [("setting", Align::Left), ("options", Align::Left)]
            .into_iter()
            .chain(
                [
                    "row group rows",
                    "in flight",
                    "writer queue MiB",
                    "wall s",
                    "CPU s",
                    "peak RSS MiB",
                    "peak heap MiB",
                    "RSS - heap MiB",
                    "bytes allocated / row",
                ]
                .map(|name| (name, Align::Right)),
            ),
    );
    for run in runs {
        let rss = run.peak_rss_kb.map(|kb| kb * 1024);
        let retained = rss.zip(run.peak_heap()).map(|(r, h)| r.saturating_sub(h));
        let options = if run.args.is_empty() {
            "-".to_string()
        } else {
            format!("`{}`", run.args)
        };
        table.row([
            run.label.clone(),
            options,
            number(&run.timed["row_group_rows"], 0),
            number(&run.timed["row_groups_in_flight"], 0),
            run.timed["writer_budget_bytes"]
                .as_u64()
                .map_or("-".to_string(), |b| format!("{}", b >> 20)),
            number(&run.timed["elapsed_s"], 3),
            number(&run.timed["cpu_s"], 2),
            mib(rss),
            mib(run.peak_heap()),
            mib(retained),
            number(&run.counted["bytes_allocated_per_row"], 0),
        ]);
    }
    text + &table.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_gets_its_rss_heap_and_what_the_allocator_keeps() {
        let line = r#"{"label":"1 row group in flight","args":"--row-groups-in-flight 1","peak_rss_kb":102400,"timed":{"experiment":22,"slug":"system-allocator","rows":1000,"row_group_rows":262144,"row_groups_in_flight":1,"writer_budget_bytes":8388608,"elapsed_s":1.5,"cpu_s":2.75},"counted":{"heap":{"peak_live_bytes":31457280},"bytes_allocated_per_row":250.4}}"#;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("runs.jsonl"), format!("{line}\n\n{line}\n")).unwrap();
        let runs = load(dir.path()).unwrap();
        assert_eq!(runs.len(), 2);
        let text = markdown(&runs);
        assert!(
            text.starts_with("# Where the memory goes: experiment 22-system-allocator, 1000 rows")
        );
        assert!(
            text.contains("| 1 row group in flight | `--row-groups-in-flight 1` | 262144 | 1 | 8 | 1.500 | 2.75 | 100.0 | 30.0 | 70.0 | 250 |"),
            "{text}"
        );
    }
}
