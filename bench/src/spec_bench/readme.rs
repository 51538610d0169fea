//! The README of `make spec-bench`: medians per cell over interleaved rounds, the targets'
//! ratios, the closeness table.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

use super::closeness::Comparison;
use super::paired::paired_ratio;
use crate::markdown::{Align, Table};
use crate::parse::json_lines;
use crate::stats::median;

/// One timed process, as `scripts/spec-bench.sh` records it.
#[derive(Debug, Clone, Deserialize)]
pub struct TimedRun {
    /// The interleaved round the process ran in: every cell runs once per round.
    pub round: i64,
    /// Which command: `contacts-generate`, `spec-generate`, `contacts-write`, `spec-write`,
    /// `lineitem-spec`, `tpchgen-cli`, `preset-<name>`; a base commit's `base-<name>`.
    pub cell: String,
    /// Wall seconds of the process.
    pub wall_s: f64,
    /// User + system CPU seconds.
    pub cpu_s: f64,
    /// Peak RSS in KiB.
    pub max_rss_kb: u64,
    /// Rows generated.
    pub rows: u64,
    /// Parquet bytes written (0 without files).
    pub bytes: u64,
}

/// Medians of one cell.
#[derive(Debug, Clone, Copy)]
struct Medians {
    wall_s: f64,
    cpu_s: f64,
    rss_mib: f64,
    rows: u64,
    bytes: u64,
    runs: usize,
}

fn medians(runs: &[TimedRun]) -> BTreeMap<String, Medians> {
    let mut cells: BTreeMap<String, Vec<&TimedRun>> = BTreeMap::new();
    for run in runs {
        cells.entry(run.cell.clone()).or_default().push(run);
    }
    cells
        .into_iter()
        .map(|(cell, runs)| {
            let of =
                |f: fn(&TimedRun) -> f64| median(&runs.iter().map(|r| f(r)).collect::<Vec<_>>());
            let m = Medians {
                wall_s: of(|r| r.wall_s),
                cpu_s: of(|r| r.cpu_s),
                rss_mib: of(|r| r.max_rss_kb as f64 / 1024.0),
                rows: runs[0].rows,
                bytes: of(|r| r.bytes as f64) as u64,
                runs: runs.len(),
            };
            (cell, m)
        })
        .collect()
}

fn verdict(ratio: f64, limit: f64) -> &'static str {
    if ratio <= limit {
        "met"
    } else {
        "missed"
    }
}

/// Everything `make spec-bench` left in its folder.
#[derive(Debug, Clone)]
pub struct SpecBenchResults {
    /// runs.jsonl: every timed process.
    pub runs: Vec<TimedRun>,
    /// closeness.json: the preset's data against the generator's.
    pub closeness: Vec<Comparison>,
    /// metadata.json: host, commit, command of each cell.
    pub metadata: serde_json::Value,
}

impl SpecBenchResults {
    /// Reads `runs.jsonl` (which must hold a run), `closeness.json` and `metadata.json` of `dir`.
    pub fn load(dir: &Path) -> Result<Self> {
        let runs: Vec<TimedRun> = json_lines(&dir.join("runs.jsonl"))?;
        anyhow::ensure!(
            !runs.is_empty(),
            "{} holds no runs: run `make spec-bench`",
            dir.join("runs.jsonl").display()
        );
        let closeness: Vec<Comparison> = serde_json::from_str(
            &std::fs::read_to_string(dir.join("closeness.json")).context("closeness.json")?,
        )?;
        let metadata: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("metadata.json")).context("metadata.json")?,
        )?;
        Ok(Self {
            runs,
            closeness,
            metadata,
        })
    }
}

/// The header and the table of every cell's medians.
fn cell_table(metadata: &serde_json::Value, cells: &BTreeMap<String, Medians>, out: &mut String) {
    let text = |key: &str| metadata[key].as_str().unwrap_or("?").to_string();
    let _ = writeln!(
        out,
        "Command: `{}`. Host `{}` ({}, {} CPUs), {}. Built from commit {} (dirty: {}). Each cell is one process timed by `/usr/bin/time` (wall, user + system CPU, peak RSS); the cells run in interleaved rounds, their order rotated each round, after {} warm-up round(s) not kept. Medians over the rounds.\n",
        text("command"), text("host"), text("cpu"), metadata["cores"], text("date"), text("commit"), metadata["dirty"], metadata["warmup"],
    );
    let mut table = Table::new(
        [("cell", Align::Left), ("command", Align::Left)]
            .into_iter()
            .chain(
                [
                    "runs",
                    "rows",
                    "median wall s",
                    "median CPU s",
                    "M rows/s",
                    "M rows per CPU s",
                    "peak RSS MiB",
                    "Parquet MB",
                ]
                .map(|name| (name, Align::Right)),
            ),
    );
    let commands = metadata["commands"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (cell, m) in cells {
        table.row([
            cell.clone(),
            format!(
                "`{}`",
                commands.get(cell).and_then(|c| c.as_str()).unwrap_or("?")
            ),
            m.runs.to_string(),
            m.rows.to_string(),
            format!("{:.3}", m.wall_s),
            format!("{:.3}", m.cpu_s),
            format!("{:.2}", m.rows as f64 / m.wall_s / 1e6),
            format!("{:.2}", m.rows as f64 / m.cpu_s / 1e6),
            format!("{:.0}", m.rss_mib),
            format!("{:.1}", m.bytes as f64 / 1e6),
        ]);
    }
    let _ = write!(out, "{table}");
}

/// The targets' ratios (issue 47's): the contacts preset against the hand-written contacts at
/// the same experiment, lineitem against `tpchgen-cli`, and every preset's generation CPU per
/// row, the figure later runs are held to.
fn targets(results: &SpecBenchResults, cells: &BTreeMap<String, Medians>, out: &mut String) {
    let (metadata, runs) = (&results.metadata, &results.runs);
    out.push_str("\n## Targets\n\n");
    out.push_str("Each ratio is the median of the ratios within a round (every cell runs once per round): the two runs of a pair meet the machine in the same state.\n\n");
    let experiment = metadata["experiment"]
        .as_u64()
        .map_or("the same experiment".to_string(), |e| {
            format!("experiment {e}")
        });
    let ratio = |a: &str, b: &str, f: fn(&TimedRun) -> f64| paired_ratio(runs, a, b, f);
    if let Some(r) = ratio("spec-generate", "contacts-generate", |m| m.cpu_s) {
        let _ = writeln!(out, "- Generating the contacts preset costs {:.2}x the CPU of the hand-written contacts, its rounds from {:.2}x to {:.2}x (target <= 1.15x: {}). Both: {experiment}, `--sink null`, so the batches are built and dropped.", r.median, r.lowest, r.highest, r.verdict(1.15));
    }
    if let Some(r) = ratio("spec-write", "contacts-write", |m| m.cpu_s) {
        let _ = writeln!(out, "- The whole `pipeline --spec specs/contacts.json` run takes {:.2}x the CPU of the hand-written contacts', its rounds from {:.2}x to {:.2}x (target <= 1.15x: {}), {experiment} both.", r.median, r.lowest, r.highest, r.verdict(1.15));
    }
    if let (Some(ours), Some(theirs)) = (cells.get("lineitem-spec"), cells.get("tpchgen-cli")) {
        let per_cpu = |m: &Medians| m.rows as f64 / m.cpu_s;
        let per_wall = |m: &Medians| m.rows as f64 / m.wall_s;
        let per_run_cpu = |r: &TimedRun| r.rows as f64 / r.cpu_s;
        let r = ratio("lineitem-spec", "tpchgen-cli", per_run_cpu).map_or(f64::NAN, |r| r.median);
        let _ = writeln!(
            out,
            "- Lineitem: the preset through `pipeline` writes {:.2} M rows/s ({:.2} M rows per CPU second), `tpchgen-cli` {:.2} M rows/s ({:.2} M per CPU second): {r:.2}x per CPU second (target >= 2x: {}), {:.2}x in wall time. The data differs: tpchgen-cli computes dbgen's exact rows (prices from parts, comments from a text grammar), the preset draws from the same columns' ranges; files {:.0} MB against {:.0} MB.",
            per_wall(ours) / 1e6, per_cpu(ours) / 1e6, per_wall(theirs) / 1e6, per_cpu(theirs) / 1e6,
            verdict(2.0, r), per_wall(ours) / per_wall(theirs),
            ours.bytes as f64 / 1e6, theirs.bytes as f64 / 1e6,
        );
    }
    generation_table(results, &experiment, cells, out);
}

/// A workload's generation: its name, its cell and medians, the base's cell and medians of the
/// same preset.
type GenerationRow<'a> = (&'a str, &'a str, &'a Medians, Option<(String, &'a Medians)>);

/// The workloads generated alone (`--sink null`): the hand-written contacts, the contacts
/// preset and every other preset, each with its base commit's cell where it has one.
fn generation_rows(cells: &BTreeMap<String, Medians>) -> Vec<GenerationRow<'_>> {
    cells
        .iter()
        .filter_map(|(cell, m)| {
            let (workload, base) = match cell.as_str() {
                "contacts-generate" => ("contacts, hand-written", None),
                "spec-generate" => ("contacts", Some("base-contacts".to_string())),
                other => {
                    let preset = other.strip_prefix("preset-")?;
                    (preset, Some(format!("base-{preset}")))
                }
            };
            let base = base.and_then(|b| cells.get(&b).map(|m| (b, m)));
            Some((workload, cell.as_str(), m, base))
        })
        .collect()
}

/// Generation alone per workload, CPU per million rows: the figure issue 47 holds each preset
/// to (at most half its first run's). With a base commit's cells (`base-<preset>`, the contacts
/// preset's `base-contacts`), each preset's ratio to the base's in the same rounds.
fn generation_table(
    results: &SpecBenchResults,
    experiment: &str,
    cells: &BTreeMap<String, Medians>,
    out: &mut String,
) {
    let metadata = &results.metadata;
    let per_million = |m: &Medians| m.cpu_s / (m.rows as f64 / 1e6);
    let generation = generation_rows(cells);
    if generation.is_empty() {
        return;
    }
    let base = metadata["base"]
        .as_str()
        .filter(|_| cells.contains_key("base-contacts"));
    let mut header = vec![
        ("workload", Align::Left),
        ("rows", Align::Right),
        ("median CPU s", Align::Right),
        ("CPU s per M rows", Align::Right),
    ];
    match base {
        Some(base) => {
            let base_experiment = metadata["base_experiment"].as_u64().unwrap_or(0);
            let _ = writeln!(out, "\nGeneration alone (`--sink null`, {experiment}), CPU per million rows, beside the pipeline of commit {base} at its experiment {base_experiment} generating its own preset files in the same rounds. Each preset's target: at most 0.5x its figure in the first run of this table (issue 47), measured here as the ratio to that run's commit.\n");
            header.extend([
                ("base CPU s per M rows", Align::Right),
                ("ratio to the base", Align::Right),
                ("target <= 0.5x", Align::Left),
            ]);
        }
        None => {
            let _ = writeln!(out, "\nGeneration alone (`--sink null`, {experiment}), CPU per million rows. Each preset's target: at most 0.5x its figure in the first run of this table (issue 47).\n");
        }
    }
    let mut table = Table::new(header);
    let mut other_data = Vec::new();
    for (workload, cell, m, of_base) in generation {
        let mut row = vec![
            workload.to_string(),
            m.rows.to_string(),
            format!("{:.3}", m.cpu_s),
            format!("{:.3}", per_million(m)),
        ];
        if base.is_some() {
            let per_run = |r: &TimedRun| r.cpu_s / r.rows as f64;
            let ratio = of_base
                .as_ref()
                .and_then(|(base, _)| paired_ratio(&results.runs, cell, base, per_run))
                .map(|r| r.median);
            let same_data = metadata["base_same_data"][workload].as_bool();
            if same_data == Some(false) {
                other_data.push(workload);
            }
            let judged = |r: f64| match same_data {
                Some(false) => "not counted: other data".to_string(),
                _ => verdict(r, 0.5).to_string(),
            };
            row.extend([
                of_base.map_or(String::new(), |(_, b)| format!("{:.3}", per_million(b))),
                ratio.map_or(String::new(), |r| format!("{r:.2}x")),
                ratio.map_or(String::new(), judged),
            ]);
        }
        table.row(row);
    }
    let _ = write!(out, "{table}");
    if !other_data.is_empty() {
        let _ = writeln!(out, "\nThe base commit makes other data for {} (the digests of their first {} rows differ: a data version lies between the two, see SPEC.md). Their ratios include what that change saves or costs, so they are not counted for the targets, which hold the data fixed.", other_data.join(", "), metadata["digest_rows"]);
    }
}

/// How close the contacts preset's data is to the hand-written generator's.
fn closeness_table(closeness: &[Comparison], out: &mut String) {
    out.push_str("\n## How close the contacts preset's data is to the generator's\n\n");
    let _ = writeln!(out, "Both tables generated in memory ({} rows, seed 42 for both; different random streams, so the rows differ). TVD: total variation distance between the two empirical distributions, half the sum of the absolute differences of the shares (0: the same shares).\n", closeness.first().map_or(0.0, |c| c.generator));
    out.push_str("The last column is the hand-written generator again with seed 43: how far two samples of the same distributions fall apart, the yardstick for the preset's differences.\n\n");
    let mut table = Table::new([
        ("figure", Align::Left),
        ("hand-written generator", Align::Right),
        ("contacts preset", Align::Right),
        ("generator, seed 43", Align::Right),
    ]);
    for c in closeness {
        if c.metric.starts_with("TVD") {
            table.row([
                format!("{} from the generator's", c.metric),
                String::new(),
                format!("{:.4}", c.spec),
                format!("{:.4}", c.other_seed),
            ]);
        } else {
            table.row([
                c.metric.clone(),
                number(c.generator),
                number(c.spec),
                number(c.other_seed),
            ]);
        }
    }
    let _ = write!(out, "{table}");
    out.push_str("\nThe phone-level NULLs differ by design: the generator draws a phone's number and type NULLs jointly (90/5/4/1 %), the spec independently (5 % and 6 %), so both-NULL is rarer in the preset (SPEC.md).\n");
}

/// The README of `make spec-bench`: medians per cell, the targets, the closeness table.
pub fn markdown(results: &SpecBenchResults) -> String {
    let cells = medians(&results.runs);
    let mut out = String::from("# The spec generator, measured\n\n");
    cell_table(&results.metadata, &cells, &mut out);
    targets(results, &cells, &mut out);
    closeness_table(&results.closeness, &mut out);
    out
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() >= 1.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cell: &str, wall_s: f64, cpu_s: f64) -> TimedRun {
        TimedRun {
            round: 0,
            cell: cell.into(),
            wall_s,
            cpu_s,
            max_rss_kb: 1024,
            rows: 100,
            bytes: 0,
        }
    }

    #[test]
    fn medians_are_per_cell() {
        let cells = medians(&[
            run("a", 1.0, 2.0),
            run("a", 3.0, 4.0),
            run("a", 2.0, 9.0),
            run("b", 5.0, 5.0),
        ]);
        assert_eq!(cells["a"].wall_s, 2.0);
        assert_eq!(cells["a"].cpu_s, 4.0);
        assert_eq!(cells["a"].runs, 3);
        assert_eq!(cells["b"].wall_s, 5.0);
    }

    #[test]
    fn presets_are_set_against_the_base_commit_s_in_the_same_rounds() {
        let results = |runs: Vec<TimedRun>| SpecBenchResults {
            runs,
            closeness: Vec::new(),
            metadata: serde_json::json!({
                "experiment": 43, "base": "97698c0ba1ab", "base_experiment": 36, "commands": {}
            }),
        };
        let ours = [run("spec-generate", 1.0, 3.0), run("preset-deep", 1.0, 1.0)];
        let with_base = markdown(&results(
            ours.iter()
                .cloned()
                .chain([run("base-contacts", 1.0, 4.0), run("base-deep", 1.0, 4.0)])
                .collect(),
        ));
        assert!(
            with_base.contains("commit 97698c0ba1ab at its experiment 36"),
            "{with_base}"
        );
        assert!(with_base.contains("| 0.25x | met"), "{with_base}");
        assert!(with_base.contains("| 0.75x | missed"), "{with_base}");
        let mut other = results(
            ours.iter()
                .cloned()
                .chain([run("base-contacts", 1.0, 4.0), run("base-deep", 1.0, 4.0)])
                .collect(),
        );
        other.metadata["base_same_data"] = serde_json::json!({"contacts": true, "deep": false});
        other.metadata["digest_rows"] = 20000.into();
        let other = markdown(&other);
        assert!(other.contains("| 0.75x | missed"), "{other}");
        assert!(
            other.contains("| 0.25x | not counted: other data")
                && other.contains("other data for deep (the digests of their first 20000 rows"),
            "{other}"
        );
        let alone = markdown(&results(ours.to_vec()));
        assert!(!alone.contains("ratio to the base"), "{alone}");
        assert!(alone.contains("| deep "), "{alone}");
    }
}
