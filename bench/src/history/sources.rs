//! The history records of one run's folder, by the kind of run that left it.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Record;
use crate::ab::AbComparison;
use crate::stats::median;
use crate::summary::Summary;

/// The kind of run a folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `make experiment` / `make experiments`: one catalog entry (`summary.json`).
    Experiment,
    /// `make ab`: two command lines (`ab.json`).
    Ab,
    /// `make compare`: a base commit's binary against this tree's (`ab.json`).
    Compare,
    /// `make designs`: the pipeline's topologies (`designs.json`).
    Designs,
    /// `make peers`: the writers (`writes.jsonl`).
    Peers,
    /// `make writer-bench`: the writer matrix (`writer-bench-<allocator>.json`).
    WriterBench,
}

impl Kind {
    /// The kind of run `dir` holds, by its files; `None` for any other folder.
    pub fn of_dir(dir: &Path) -> Option<Self> {
        let has = |name: &str| dir.join(name).is_file();
        let name = dir.file_name()?.to_string_lossy();
        if has("summary.json") {
            Some(Kind::Experiment)
        } else if has("ab.json") {
            Some(match name.starts_with("compare-") {
                true => Kind::Compare,
                false => Kind::Ab,
            })
        } else if has("designs.json") {
            Some(Kind::Designs)
        } else if has("writes.jsonl") {
            Some(Kind::Peers)
        } else if has("writer-bench-system.json") || has("writer-bench-mimalloc.json") {
            Some(Kind::WriterBench)
        } else {
            None
        }
    }
}

/// The fields every record of one run shares, from its metadata.
struct Run {
    host: String,
    commit: String,
    dirty: Option<bool>,
    date: String,
    command: String,
}

impl Run {
    fn of(metadata: &Value) -> Self {
        let text = |key: &str| metadata[key].as_str().unwrap_or("unknown").to_string();
        Self {
            host: text("host"),
            commit: text("commit"),
            dirty: metadata["dirty"].as_bool(),
            date: text("date"),
            command: text("command"),
        }
    }

    fn record(&self, kind: Kind, name: String, median_s: f64, rounds: usize) -> Record {
        Record {
            host: self.host.clone(),
            commit: self.commit.clone(),
            dirty: self.dirty,
            date: self.date.clone(),
            command: self.command.clone(),
            kind,
            name,
            median_s,
            cpu_s: None,
            cores_busy: None,
            rss_bytes: None,
            rows_per_s: None,
            rounds,
        }
    }
}

fn json(dir: &Path, name: &str) -> Result<Value> {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}

/// The records of the run of `kind` in `dir`, their names under `label` (the folder's path in
/// the host's results, such as `36-native-encoder` or `designs`).
///
/// # Errors
///
/// Its files cannot be read or are not what that kind of run leaves.
pub fn records_of(kind: Kind, dir: &Path, label: &str) -> Result<Vec<Record>> {
    match kind {
        Kind::Experiment => experiment(dir, label),
        Kind::Ab | Kind::Compare => ab(kind, dir, label),
        Kind::Designs => designs(dir, label),
        Kind::Peers => peers(dir, label),
        Kind::WriterBench => writer_bench(dir, label),
    }
}

fn experiment(dir: &Path, label: &str) -> Result<Vec<Record>> {
    let summary: Summary = serde_json::from_value(json(dir, "summary.json")?)
        .context("summary.json is not a summary")?;
    let run = Run::of(&json(dir, "metadata.json")?);
    let rounds = summary.times.len();
    let mut record = run.record(
        Kind::Experiment,
        label.to_string(),
        summary.median_s,
        rounds,
    );
    record.cpu_s = Some(summary.user_s + summary.system_s);
    record.cores_busy = summary.cores_busy;
    record.rss_bytes = summary.peak_rss_bytes;
    record.rows_per_s = Some(summary.rows_per_s);
    Ok(vec![record])
}

fn ab(kind: Kind, dir: &Path, label: &str) -> Result<Vec<Record>> {
    let comparison: AbComparison =
        serde_json::from_value(json(dir, "ab.json")?).context("ab.json is not an A/B")?;
    let run = Run::of(&json(dir, "metadata.json")?);
    let sides = [("a", &comparison.a), ("b", &comparison.b)];
    Ok(sides
        .into_iter()
        .map(|(side, figures)| {
            let name = format!("{label}/{side}: {}", figures.command);
            let mut record = run.record(kind, name, figures.median_s, comparison.rounds);
            record.cpu_s = Some(figures.cpu_s);
            record
        })
        .collect())
}

fn designs(dir: &Path, label: &str) -> Result<Vec<Record>> {
    let designs = json(dir, "designs.json")?;
    let run = Run::of(&designs["metadata"]);
    let rounds = designs["rounds"].as_u64().unwrap_or(0) as usize;
    let list = designs["designs"]
        .as_array()
        .context("designs.json has no designs")?;
    list.iter()
        .map(|design| {
            let folder = design["folder"]
                .as_str()
                .context("a design without a folder")?;
            let median_s = design["median_s"]
                .as_f64()
                .context("a design without a median")?;
            let name = format!("{label}/{folder}");
            let mut record = run.record(Kind::Designs, name, median_s, rounds);
            record.cpu_s = design["cpu_s"].as_f64();
            record.cores_busy = design["cores_busy"].as_f64();
            record.rss_bytes = design["peak_rss_bytes"].as_u64();
            Ok(record)
        })
        .collect()
}

fn peers(dir: &Path, label: &str) -> Result<Vec<Record>> {
    let run = Run::of(&json(dir, "metadata.json")?);
    let path = dir.join("writes.jsonl");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut groups: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let write: Value = serde_json::from_str(line).context("writes.jsonl: not JSON")?;
        let figure = ["writer", "settings", "compression"]
            .map(|key| write[key].as_str().unwrap_or("-").to_string())
            .join("/");
        let name = format!("{label}/{figure}");
        groups.entry(name).or_default().push(write);
    }
    Ok(groups
        .into_iter()
        .filter_map(|(name, writes)| {
            let figures =
                |key: &str| -> Vec<f64> { writes.iter().filter_map(|w| w[key].as_f64()).collect() };
            let walls = figures("wall_s");
            let median_s = (!walls.is_empty()).then(|| median(&walls))?;
            let mut record = run.record(Kind::Peers, name, median_s, walls.len());
            let cpu = figures("cpu_s");
            record.cpu_s = (!cpu.is_empty()).then(|| median(&cpu));
            let rss = figures("peak_rss_bytes");
            record.rss_bytes = (!rss.is_empty()).then(|| median(&rss) as u64);
            Some(record)
        })
        .collect())
}

fn writer_bench(dir: &Path, label: &str) -> Result<Vec<Record>> {
    let run = Run::of(&json(dir, "metadata.json")?);
    let mut records = Vec::new();
    for allocator in ["system", "mimalloc"] {
        let file = format!("writer-bench-{allocator}.json");
        if !dir.join(&file).is_file() {
            continue;
        }
        let cells = json(dir, &file)?;
        for cell in cells
            .as_array()
            .context("a writer-bench file holds a list of cells")?
        {
            let cell_name = format!(
                "{label}/{allocator}/{}-{}x{}-{}",
                cell["shape"].as_str().unwrap_or("-"),
                cell["columns"],
                cell["rows"],
                cell["compression"].as_str().unwrap_or("-")
            );
            for side in ["baseline", "parallel"] {
                let figures = &cell[side];
                let Some(median_s) = figures["median_s"].as_f64() else {
                    continue;
                };
                let rounds = figures["seconds"].as_array().map_or(0, Vec::len);
                let name = format!("{cell_name}/{side}");
                let mut record = run.record(Kind::WriterBench, name, median_s, rounds);
                record.cpu_s = figures["median_cpu_s"].as_f64();
                records.push(record);
            }
        }
    }
    Ok(records)
}
