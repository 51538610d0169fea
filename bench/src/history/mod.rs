//! The history of every measurement (`results/<host>/history.jsonl`): one record per figure of
//! a run (an experiment, one side of an A/B or a comparison, a design, a peer, a writer-bench
//! cell), with the host, commit, dirty flag, date and command of the run that measured it.
//! The scripts append each run's records when it ends; `results history-import` seeds the file
//! from the results already committed; `make history` finds the change points (Apache Otava, in
//! `scripts/history/changes.py`) and draws and lists them ([`report`]).

pub mod report;
mod sources;

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub use sources::{records_of, Kind};

/// The file's name in a host's results folder.
pub const FILE: &str = "history.jsonl";

/// One figure of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The host's results folder name.
    pub host: String,
    /// The commit the binaries were built from (12 hex digits), or `unknown`.
    pub commit: String,
    /// Whether the tree differed from the commit; `None` where git could not tell.
    pub dirty: Option<bool>,
    /// When the run ended (UTC, RFC 3339).
    pub date: String,
    /// The command that measured it.
    pub command: String,
    /// What kind of run.
    pub kind: Kind,
    /// The figure within the run: the experiment, side, design, writer or cell.
    pub name: String,
    /// Median wall time, seconds.
    pub median_s: f64,
    /// CPU seconds (user + system) of one run, where measured.
    pub cpu_s: Option<f64>,
    /// Cores kept busy on average, where measured.
    pub cores_busy: Option<f64>,
    /// Peak resident memory, bytes, where measured.
    pub rss_bytes: Option<u64>,
    /// Rows per second at the median, where the rows are known.
    pub rows_per_s: Option<f64>,
    /// Timed runs (rounds) behind the median.
    pub rounds: usize,
}

impl Record {
    /// What tells records apart: a run of one figure at one date.
    fn key(&self) -> (Kind, String, String, String) {
        (
            self.kind,
            self.name.clone(),
            self.commit.clone(),
            self.date.clone(),
        )
    }
}

/// The records of `path` (none if it does not exist yet).
///
/// # Errors
///
/// The file cannot be read, or a line is not a record.
pub fn load(path: &Path) -> Result<Vec<Record>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            serde_json::from_str(line).with_context(|| {
                format!(
                    "{} line {}: not a history record",
                    path.display(),
                    number + 1
                )
            })
        })
        .collect()
}

/// Appends the `records` that `path` does not hold yet; returns how many were new.
///
/// # Errors
///
/// The file cannot be read or written.
pub fn append(path: &Path, records: &[Record]) -> Result<usize> {
    let known: BTreeSet<_> = load(path)?.iter().map(Record::key).collect();
    let new: Vec<&Record> = records
        .iter()
        .filter(|r| !known.contains(&r.key()))
        .collect();
    if new.is_empty() {
        return Ok(0);
    }
    let mut lines = String::new();
    for record in &new {
        lines.push_str(&serde_json::to_string(record)?);
        lines.push('\n');
    }
    // One write of whole lines: an interrupted append leaves the earlier lines as they were.
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.write_all(lines.as_bytes())
        .with_context(|| format!("cannot append to {}", path.display()))?;
    Ok(new.len())
}

/// The records of every run already in `host_dir` (each folder one level down, and in the
/// spec catalogs two levels down, that holds a run's files), oldest first, for a first
/// `history.jsonl`.
///
/// # Errors
///
/// A run's files are there but cannot be read.
pub fn import(host_dir: &Path) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    let mut dirs = subfolders(host_dir)?;
    for spec in dirs
        .clone()
        .iter()
        .filter(|d| name_of(d).starts_with("spec"))
    {
        dirs.extend(subfolders(spec)?);
    }
    dirs.sort();
    for dir in dirs {
        if let Some(kind) = Kind::of_dir(&dir) {
            let label = dir
                .strip_prefix(host_dir)
                .unwrap_or(&dir)
                .to_string_lossy()
                .into_owned();
            records.extend(records_of(kind, &dir, &label).with_context(|| label.clone())?);
        }
    }
    records.sort_by(|a, b| a.date.cmp(&b.date));
    Ok(records)
}

/// `results history-import`: seeds `host_dir`'s history with every run already there.
///
/// # Errors
///
/// As [`import`] and [`append`].
pub fn import_into(host_dir: &Path) -> Result<()> {
    let records = import(host_dir)?;
    let path = host_dir.join(FILE);
    let new = append(&path, &records)?;
    eprintln!(
        "{}: {new} records imported ({} found)",
        path.display(),
        records.len()
    );
    Ok(())
}

/// `results history-append`: the records of the run in `dir`, appended to `history` and named
/// by `dir`'s path from `history`'s folder.
///
/// # Errors
///
/// `dir` holds no run this history records, or as [`records_of`] and [`append`].
pub fn append_run(dir: &Path, history: &Path) -> Result<()> {
    let kind = Kind::of_dir(dir)
        .with_context(|| format!("{} holds no run this history records", dir.display()))?;
    let base = history.parent().unwrap_or(Path::new("."));
    let label = dir
        .strip_prefix(base)
        .unwrap_or(dir)
        .to_string_lossy()
        .into_owned();
    let new = append(history, &records_of(kind, dir, &label)?)?;
    eprintln!("{}: {new} records added", history.display());
    Ok(())
}

fn subfolders(dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir())
        .collect())
}

fn name_of(dir: &Path) -> String {
    dir.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, date: &str) -> Record {
        Record {
            host: "vm".to_string(),
            commit: "0123456789ab".to_string(),
            dirty: Some(false),
            date: date.to_string(),
            command: "make experiment N=1".to_string(),
            kind: Kind::Experiment,
            name: name.to_string(),
            median_s: 1.0,
            cpu_s: Some(1.5),
            cores_busy: Some(1.5),
            rss_bytes: None,
            rows_per_s: Some(1e7),
            rounds: 10,
        }
    }

    #[test]
    fn appending_keeps_one_record_per_run_and_figure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let first = [record("01-a", "2026-11-01T00:00:00Z")];
        assert_eq!(append(&path, &first).unwrap(), 1);
        let again = [first[0].clone(), record("01-a", "2026-11-02T00:00:00Z")];
        assert_eq!(
            append(&path, &again).unwrap(),
            1,
            "the first is already there"
        );
        let all = load(&path).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].date, "2026-11-02T00:00:00Z");
        std::fs::write(&path, "{\"not\": \"a record\"}\n").unwrap();
        let error = load(&path).unwrap_err().to_string();
        assert!(error.contains("line 1: not a history record"), "{error}");
    }
}
