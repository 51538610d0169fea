//! `make history`'s page (`history.md`): the change points Otava found in the host's history,
//! and every series with its runs, clean and dirty.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use serde::Deserialize;

use super::{Kind, Record};
use crate::markdown::{Align, Table};

/// One change point, as `scripts/history/changes.py` writes it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChangePoint {
    /// The series' kind.
    pub kind: Kind,
    /// The series' name.
    pub name: String,
    /// The first run after the change: its commit.
    pub commit: String,
    /// Its date.
    pub date: String,
    /// Mean median wall time before, seconds.
    pub before_s: f64,
    /// Mean median wall time from this run on, seconds.
    pub after_s: f64,
    /// The change, percent.
    pub change_percent: f64,
    /// Otava's p-value.
    pub pvalue: f64,
}

/// What the detector found, with its settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Changes {
    /// Clean runs a series needs before it is searched.
    pub min_points: usize,
    /// The detector's p-value threshold.
    pub max_pvalue: f64,
    /// The detector, in words.
    pub detector: String,
    /// Every change point found.
    pub change_points: Vec<ChangePoint>,
}

impl Changes {
    /// Parses the detector's JSON.
    ///
    /// # Errors
    ///
    /// It is not what `scripts/history/changes.py` writes.
    pub fn parse(text: &str) -> Result<Self> {
        serde_json::from_str(text).context("not the change points of scripts/history/changes.py")
    }
}

/// The series of `records`: per kind and name, its runs oldest first.
pub fn series(records: &[Record]) -> Series<'_> {
    let mut series: Series<'_> = BTreeMap::new();
    for record in records {
        series
            .entry((record.kind, record.name.clone()))
            .or_default()
            .push(record);
    }
    for runs in series.values_mut() {
        runs.sort_by(|a, b| a.date.cmp(&b.date));
    }
    series
}

/// `results history`: `host_dir`'s `history.md` and charts, from its `history.jsonl` and the
/// detector's `changes` file.
///
/// # Errors
///
/// A file cannot be read or written, or a chart cannot be drawn.
pub fn write_page(host_dir: &Path, changes: &Path) -> Result<()> {
    let records = super::load(&host_dir.join(super::FILE))?;
    let text = std::fs::read_to_string(changes)
        .with_context(|| format!("cannot read {}", changes.display()))?;
    let changes = Changes::parse(&text)?;
    let charts = crate::charts::history::draw_all(host_dir, &records, &changes.change_points)
        .map_err(|e| anyhow!("drawing the history: {e}"))?;
    let host = host_dir
        .file_name()
        .map_or_else(|| "host".to_string(), |n| n.to_string_lossy().into_owned());
    let page = markdown(&host, &records, &changes, &charts);
    let path = host_dir.join("history.md");
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "{}: {} records, {} change points",
        path.display(),
        records.len(),
        changes.change_points.len()
    );
    Ok(())
}

/// The page for `host`, from its `records` and the detector's `changes`; `charts` are the
/// chart files drawn beside it.
pub fn markdown(host: &str, records: &[Record], changes: &Changes, charts: &[String]) -> String {
    let series = series(records);
    let dirty = records.iter().filter(|r| r.dirty != Some(false)).count();
    let mut text = format!(
        "# Measurement history on `{host}`\n\n\
         {} records of {} figures in `history.jsonl` ({} from dirty or unknown trees, drawn \
         hollow and never used to find a change). Change points: {}, on each figure's clean \
         runs oldest first, searched where a figure has at least {} of them, p < {}. \
         Regenerate with `make history`.\n\n",
        records.len(),
        series.len(),
        dirty,
        changes.detector,
        changes.min_points,
        changes.max_pvalue
    );
    change_points_section(&mut text, &series, changes);
    for chart in charts {
        let _ = writeln!(text, "![{chart}]({chart})\n");
    }
    figures_section(&mut text, &series);
    text
}

/// Each figure's runs, oldest first, by kind and name.
pub type Series<'a> = BTreeMap<(Kind, String), Vec<&'a Record>>;

fn clean_runs(runs: &[&Record]) -> usize {
    runs.iter().filter(|r| r.dirty == Some(false)).count()
}

/// The change points, or how many figures were searched for none.
fn change_points_section(text: &mut String, series: &Series<'_>, changes: &Changes) {
    text.push_str("## Change points\n\n");
    if changes.change_points.is_empty() {
        let searched = series
            .values()
            .filter(|runs| clean_runs(runs) >= changes.min_points)
            .count();
        let _ = writeln!(
            text,
            "None found in the {searched} figures with enough clean runs.\n"
        );
        return;
    }
    let mut table = Table::new([
        ("kind", Align::Left),
        ("figure", Align::Left),
        ("commit", Align::Left),
        ("date", Align::Left),
        ("change", Align::Right),
        ("before s", Align::Right),
        ("after s", Align::Right),
        ("p", Align::Right),
    ]);
    for point in &changes.change_points {
        table.row([
            kind_name(point.kind),
            point.name.clone(),
            format!("`{}`", point.commit),
            point.date.clone(),
            format!("{:+.1}%", point.change_percent),
            format!("{:.3}", point.before_s),
            format!("{:.3}", point.after_s),
            format!("{:.1e}", point.pvalue),
        ]);
    }
    let _ = writeln!(text, "{table}");
}

/// Every figure: its clean and other runs, first and last, and its last median.
fn figures_section(text: &mut String, series: &Series<'_>) {
    text.push_str("## Figures\n\n");
    let mut table = Table::new([
        ("kind", Align::Left),
        ("figure", Align::Left),
        ("clean runs", Align::Right),
        ("other runs", Align::Right),
        ("first", Align::Left),
        ("last", Align::Left),
        ("last median s", Align::Right),
    ]);
    let day = |r: &Record| format!("{} `{}`", &r.date[..r.date.len().min(10)], r.commit);
    for ((kind, name), runs) in series {
        let clean = clean_runs(runs);
        table.row([
            kind_name(*kind),
            name.clone(),
            clean.to_string(),
            (runs.len() - clean).to_string(),
            day(runs[0]),
            day(runs[runs.len() - 1]),
            format!("{:.3}", runs[runs.len() - 1].median_s),
        ]);
    }
    let _ = write!(text, "{table}");
}

/// The kind's name in the page, as in the records.
pub fn kind_name(kind: Kind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
