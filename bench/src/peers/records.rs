//! The raw files of `make peers` as Rust types: one type per JSON-lines file (`writes.jsonl`,
//! `readback.jsonl`, `layout.jsonl`, `scans.jsonl`), the run's `metadata.json`, and
//! [`PeersResults`], everything one folder holds.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

use super::layout::FileLayout;
use super::timed_write::WriteRecord;
use crate::parse::json_lines;

/// Which file a line of the raw files is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub struct Cell {
    /// Writer name, or `experiment NN` for a catalog experiment's file.
    pub writer: String,
    /// `default`, `aligned` or `catalog`.
    pub settings: String,
    /// Compression spec, e.g. `zstd(1)`.
    pub compression: String,
}

/// One line of `writes.jsonl`: one timed write.
#[derive(Debug, Clone, Deserialize)]
pub struct WriteLine {
    /// The file it wrote.
    #[serde(flatten)]
    pub cell: Cell,
    /// What it cost.
    #[serde(flatten)]
    pub record: WriteRecord,
}

/// One line of `readback.jsonl`: one reader's read-back of one file.
#[derive(Debug, Clone, Deserialize)]
pub struct ReadbackLine {
    /// The file.
    #[serde(flatten)]
    pub cell: Cell,
    /// `duckdb`, `pyarrow` or `polars`.
    pub reader: String,
    /// The digest it computed, if it could read the file.
    #[serde(default)]
    pub digest: Option<String>,
    /// Whether the digest is the hand-over data's.
    pub digest_matches: bool,
    /// Whether the normalised schema is the hand-over data's.
    pub schema_matches: bool,
    /// Why it could not read the file.
    #[serde(default)]
    pub error: Option<String>,
}

/// One line of `layout.jsonl`: one file's layout.
#[derive(Debug, Clone, Deserialize)]
pub struct LayoutLine {
    /// The file.
    #[serde(flatten)]
    pub cell: Cell,
    /// What is in it.
    pub layout: FileLayout,
}

/// One line of `scans.jsonl`: one reader's three queries on one file, once.
#[derive(Debug, Clone, Deserialize)]
pub struct ScanLine {
    /// The file.
    #[serde(flatten)]
    pub cell: Cell,
    /// `duckdb` or `pyarrow`.
    pub reader: String,
    /// Every row, every column.
    pub full_s: f64,
    /// `name = <a name that occurs once>`.
    pub name_s: f64,
    /// Rows with a phone of the rarest type.
    pub phone_type_s: f64,
    /// Rows the name filter returned.
    pub name_rows: u64,
    /// Rows the phone-type filter returned.
    pub phone_type_rows: u64,
}

/// What `make peers` records about the run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Metadata {
    /// The command that ran.
    pub command: String,
    /// Host label.
    pub host: String,
    /// CPU model.
    pub cpu: String,
    /// Logical CPUs.
    pub cores: Option<u32>,
    /// When it ran (UTC).
    pub date: String,
    /// The commit the Rust binaries were built from.
    pub commit: Option<String>,
    /// Whether that tree had uncommitted changes.
    pub dirty: Option<bool>,
    /// Python and peer versions.
    pub versions: BTreeMap<String, String>,
    /// The run's parameters.
    pub plan: BTreeMap<String, serde_json::Value>,
    /// The hand-over data's digest (Rust).
    pub digest: String,
    /// The same by the Python digest.
    pub python_digest: String,
    /// The normalised schema every reader must return.
    pub schema: String,
    /// What was written: `contacts`, or a spec file.
    pub workload: String,
    /// The name the name filter looks for.
    pub name_filter: String,
    /// The phone type the list filter looks for.
    pub phone_type_filter: String,
    /// What each writer is.
    pub writers: BTreeMap<String, String>,
    /// Peers that could not be imported, with why.
    pub missing: BTreeMap<String, String>,
    /// Writes or scans that failed.
    pub failures: Vec<String>,
    /// Read-backs that did not match.
    pub mismatches: Vec<String>,
}

/// Everything one `make peers` run left in its folder.
#[derive(Debug, Clone, Default)]
pub struct PeersResults {
    /// metadata.json.
    pub metadata: Metadata,
    /// writes.jsonl.
    pub writes: Vec<WriteLine>,
    /// readback.jsonl.
    pub readback: Vec<ReadbackLine>,
    /// layout.jsonl.
    pub layouts: Vec<LayoutLine>,
    /// scans.jsonl.
    pub scans: Vec<ScanLine>,
}

impl PeersResults {
    /// Reads the raw files of `dir`; the JSON-lines files may be missing (a run without Python
    /// has no read-back, layouts or scans).
    pub fn load(dir: &Path) -> Result<Self> {
        let metadata_path = dir.join("metadata.json");
        let metadata =
            serde_json::from_str(&std::fs::read_to_string(&metadata_path).with_context(|| {
                format!("cannot read {} (run `make peers`)", metadata_path.display())
            })?)
            .with_context(|| format!("{} is not valid", metadata_path.display()))?;
        Ok(Self {
            metadata,
            writes: json_lines(&dir.join("writes.jsonl"))?,
            readback: json_lines(&dir.join("readback.jsonl"))?,
            layouts: json_lines(&dir.join("layout.jsonl"))?,
            scans: json_lines(&dir.join("scans.jsonl"))?,
        })
    }

    /// The compressions of the timed writes, in the order they first appear.
    pub fn compressions(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for line in &self.writes {
            if !seen.contains(&line.cell.compression) {
                seen.push(line.cell.compression.clone());
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_metadata_says_what_to_run() {
        let dir = tempfile::tempdir().unwrap();
        let error = PeersResults::load(dir.path()).unwrap_err();
        assert!(format!("{error:#}").contains("make peers"), "{error:#}");
    }
}
