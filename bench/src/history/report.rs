//! `make history`'s page (`history.md`): the change points Otava found in the host's history,
//! and every series with its runs, clean and dirty.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Context, Result};
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
pub fn series(records: &[Record]) -> BTreeMap<(Kind, String), Vec<&Record>> {
    let mut series: BTreeMap<(Kind, String), Vec<&Record>> = BTreeMap::new();
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
    text.push_str("## Change points\n\n");
    if changes.change_points.is_empty() {
        let searched = series
            .values()
            .filter(|runs| {
                runs.iter().filter(|r| r.dirty == Some(false)).count() >= changes.min_points
            })
            .count();
        let _ = writeln!(
            text,
            "None found in the {searched} figures with enough clean runs.\n"
        );
    } else {
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
    for chart in charts {
        let _ = writeln!(text, "![{chart}]({chart})\n");
    }
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
    for ((kind, name), runs) in &series {
        let clean = runs.iter().filter(|r| r.dirty == Some(false)).count();
        let (first, last) = (runs[0], runs[runs.len() - 1]);
        table.row([
            kind_name(*kind),
            name.clone(),
            clean.to_string(),
            (runs.len() - clean).to_string(),
            format!(
                "{} `{}`",
                &first.date[..first.date.len().min(10)],
                first.commit
            ),
            format!(
                "{} `{}`",
                &last.date[..last.date.len().min(10)],
                last.commit
            ),
            format!("{:.3}", last.median_s),
        ]);
    }
    let _ = write!(text, "{table}");
    text
}

/// The kind's name in the page, as in the records.
pub fn kind_name(kind: Kind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
