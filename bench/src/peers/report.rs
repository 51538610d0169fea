//! `results peers DIR`: the peers README and charts from the raw files of `make peers`
//! (`writes.jsonl`, `readback.jsonl`, `layout.jsonl`, `scans.jsonl`, `metadata.json`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;
use serde::Deserialize;

use super::layout::FileLayout;
use super::timed_write::WriteRecord;
use crate::charts::bars::{draw as draw_bars, Bar};
use crate::charts::{register_font, save_both, PlotResult};
use crate::parse::json_lines;
use crate::stats::{holm, mann_whitney_p, median};

/// The writer every other is compared with.
pub const REFERENCE: &str = "ParallelArrowWriter";

/// Which file a row of the raw results is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub struct Cell {
    /// Writer name, or `experiment NN` for a catalog experiment's file.
    pub writer: String,
    /// `default`, `aligned` or `catalog`.
    pub settings: String,
    /// Compression spec, e.g. `zstd(1)`.
    pub compression: String,
}

/// One timed write.
#[derive(Debug, Clone, Deserialize)]
pub struct WriteRow {
    /// The file it wrote.
    #[serde(flatten)]
    pub cell: Cell,
    /// What it cost.
    #[serde(flatten)]
    pub record: WriteRecord,
}

/// One reader's read-back of one file.
#[derive(Debug, Clone, Deserialize)]
pub struct ReadbackRow {
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

/// One file's layout.
#[derive(Debug, Clone, Deserialize)]
pub struct LayoutRow {
    /// The file.
    #[serde(flatten)]
    pub cell: Cell,
    /// What is in it.
    pub layout: FileLayout,
}

/// One reader's three queries on one file, once.
#[derive(Debug, Clone, Deserialize)]
pub struct ScanRow {
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
pub struct PeersRun {
    /// metadata.json.
    pub metadata: Metadata,
    /// writes.jsonl.
    pub writes: Vec<WriteRow>,
    /// readback.jsonl.
    pub readback: Vec<ReadbackRow>,
    /// layout.jsonl.
    pub layouts: Vec<LayoutRow>,
    /// scans.jsonl.
    pub scans: Vec<ScanRow>,
}

impl PeersRun {
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
}

/// Medians of one writer in one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteSummary {
    /// Writer name.
    pub writer: String,
    /// Runs measured.
    pub runs: usize,
    /// Median wall seconds.
    pub wall_s: f64,
    /// Every run's wall seconds.
    pub seconds: Vec<f64>,
    /// Median CPU seconds, all threads.
    pub cpu_s: Option<f64>,
    /// Largest peak RSS of any run.
    pub peak_rss_bytes: Option<u64>,
    /// Median over the runs of peak RSS minus the RSS when the clock started: what the write
    /// itself held, without the loaded data and the runtime (a Python process starts about
    /// 100 MiB above a Rust one).
    pub above_loaded_bytes: Option<u64>,
    /// File size (of the last run).
    pub file_bytes: u64,
    /// Whether this measurement is the writer's `default` one, shown in the aligned table
    /// because the aligned settings do not change that writer.
    pub shared: bool,
}

fn median_of(values: impl Iterator<Item = f64>) -> Option<f64> {
    let values: Vec<f64> = values.collect();
    (!values.is_empty()).then(|| median(&values))
}

/// Every writer's medians for `settings` and `compression`, fastest first. In the aligned table a
/// writer without an aligned measurement shows its default one (its settings are the same).
pub fn write_table(writes: &[WriteRow], settings: &str, compression: &str) -> Vec<WriteSummary> {
    let mut by_writer: BTreeMap<&str, (bool, Vec<&WriteRecord>)> = BTreeMap::new();
    for row in writes.iter().filter(|r| r.cell.compression == compression) {
        let own = row.cell.settings == settings;
        // The aligned table falls back on a writer's default runs when it has no aligned ones.
        let fallback = settings == "aligned" && row.cell.settings == "default";
        if !(own || fallback) {
            continue;
        }
        let entry = by_writer
            .entry(row.cell.writer.as_str())
            .or_insert((own, Vec::new()));
        if own && !entry.0 {
            *entry = (true, Vec::new());
        }
        if own == entry.0 {
            entry.1.push(&row.record);
        }
    }
    let mut table: Vec<WriteSummary> = by_writer
        .into_iter()
        .map(|(writer, (own, records))| WriteSummary {
            writer: writer.to_string(),
            runs: records.len(),
            wall_s: median_of(records.iter().map(|r| r.wall_s)).unwrap_or(f64::NAN),
            seconds: records.iter().map(|r| r.wall_s).collect(),
            cpu_s: median_of(records.iter().filter_map(|r| r.cpu_s)),
            peak_rss_bytes: records.iter().filter_map(|r| r.peak_rss_bytes).max(),
            above_loaded_bytes: median_of(records.iter().filter_map(|r| {
                let (peak, loaded) = r.peak_rss_bytes.zip(r.loaded_rss_bytes)?;
                Some(peak.saturating_sub(loaded) as f64)
            }))
            .map(|bytes| bytes as u64),
            file_bytes: records.last().map_or(0, |r| r.file_bytes),
            shared: !own,
        })
        .collect();
    table.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
    table
}

/// For each row of `table`, the p-value of its wall times against [`REFERENCE`]'s (two-sided
/// Mann-Whitney U), Holm-corrected over all the table's comparisons; `None` for the reference
/// itself or without it.
pub fn significance(table: &[WriteSummary]) -> Vec<Option<f64>> {
    let Some(reference) = table.iter().find(|s| s.writer == REFERENCE) else {
        return vec![None; table.len()];
    };
    let raw: Vec<Option<f64>> = table
        .iter()
        .map(|s| {
            (s.writer != REFERENCE)
                .then(|| mann_whitney_p(&s.seconds, &reference.seconds))
                .flatten()
        })
        .collect();
    let tested: Vec<f64> = raw.iter().flatten().copied().collect();
    let mut adjusted = holm(&tested).into_iter();
    raw.iter()
        .map(|p| p.and_then(|_| adjusted.next()))
        .collect()
}

fn compressions(run: &PeersRun) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for row in &run.writes {
        if !seen.contains(&row.cell.compression) {
            seen.push(row.cell.compression.clone());
        }
    }
    seen
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn opt(value: Option<f64>, digits: usize) -> String {
    value.map_or_else(|| "n/a".to_string(), |v| format!("{v:.digits$}"))
}

fn write_markdown(table: &[WriteSummary], out: &mut String) {
    let reference = table
        .iter()
        .find(|s| s.writer == REFERENCE)
        .map(|s| s.wall_s);
    out.push_str("| writer | runs | median wall s | wall / ParallelArrowWriter's | p (Holm) | CPU s | cores busy | peak RSS MiB | RSS above loaded data MiB | file MB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (s, p) in table.iter().zip(significance(table)) {
        let above = s.above_loaded_bytes.map(mib);
        let _ = writeln!(
            out,
            "| {}{} | {} | {:.3} | {} | {} | {} | {} | {} | {} | {:.1} |",
            s.writer,
            if s.shared { " (same as default)" } else { "" },
            s.runs,
            s.wall_s,
            opt(reference.map(|r| s.wall_s / r), 2),
            opt(p, 3),
            opt(s.cpu_s, 2),
            opt(s.cpu_s.map(|c| c / s.wall_s), 2),
            opt(s.peak_rss_bytes.map(mib), 0),
            opt(above, 0),
            s.file_bytes as f64 / 1e6,
        );
    }
}

/// The verdict on the targets for one compression's default table.
fn targets(table: &[WriteSummary], compression: &str, out: &mut String) {
    let find = |name: &str| table.iter().find(|s| s.writer == name);
    let Some(reference) = find(REFERENCE) else {
        return;
    };
    // Its own variants (the plain-file row) are not its competitors. "Fastest" claims a win
    // over every rival, so each comparison must hold on its own: an intersection-union test,
    // which needs no multiplicity correction; the nearest rival's p is the one that decides.
    let rival = table.iter().find(|s| !s.writer.starts_with(REFERENCE));
    let verdict = match rival {
        Some(rival) if rival.wall_s <= reference.wall_s => format!(
            "**not** the fastest writer ({:.3} s; {} takes {:.3} s)",
            reference.wall_s, rival.writer, rival.wall_s
        ),
        Some(rival) => format!(
            "the fastest writer ({:.3} s; the next, {}, takes {:.3} s; {})",
            reference.wall_s,
            rival.writer,
            rival.wall_s,
            match mann_whitney_p(&rival.seconds, &reference.seconds) {
                Some(p) if p < 0.05 => format!("significant, Mann-Whitney p = {p:.3}"),
                Some(p) => format!("**not significant**, Mann-Whitney p = {p:.3}"),
                None => "no p-value".to_string(),
            }
        ),
        None => format!("the only writer measured ({:.3} s)", reference.wall_s),
    };
    let _ = writeln!(out, "- {compression}: ParallelArrowWriter is {verdict}.");
    if let Some(pyarrow) = find("pyarrow") {
        let ratio = pyarrow.wall_s / reference.wall_s;
        let _ = writeln!(
            out,
            "- {compression}: pyarrow / ParallelArrowWriter = {ratio:.2}x (target >= 2x: {}).",
            if ratio >= 2.0 { "met" } else { "**missed**" }
        );
    }
    let datafusion = ["datafusion", "datafusion-tuned"]
        .into_iter()
        .filter_map(find)
        .min_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
    if let Some(datafusion) = datafusion {
        let ratio = datafusion.wall_s / reference.wall_s;
        let memory = match (reference.above_loaded_bytes, datafusion.above_loaded_bytes) {
            (Some(ours), Some(theirs)) => format!(
                "; RSS above the loaded data {:.0} MiB against {:.0} MiB: {}",
                mib(ours),
                mib(theirs),
                if ours <= theirs {
                    "no more memory, met"
                } else {
                    "**more memory, missed**"
                }
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "- {compression}: DataFusion's faster sink ({}) / ParallelArrowWriter = {ratio:.2}x (target >= 1.2x: {}){memory}.",
            datafusion.writer,
            if ratio >= 1.2 { "met" } else { "**missed**" }
        );
    }
}

fn readback_markdown(run: &PeersRun, out: &mut String) {
    let readers = ["duckdb", "pyarrow", "polars"];
    let mut cells: BTreeMap<&Cell, BTreeMap<&str, &ReadbackRow>> = BTreeMap::new();
    for row in &run.readback {
        cells
            .entry(&row.cell)
            .or_default()
            .insert(row.reader.as_str(), row);
    }
    let ok = run
        .readback
        .iter()
        .filter(|r| r.digest_matches && r.schema_matches)
        .count();
    let _ = writeln!(
        out,
        "{ok} of {} read-backs match the hand-over data's digest `{}` and schema `{}`.\n",
        run.readback.len(),
        run.metadata.digest,
        run.metadata.schema,
    );
    out.push_str("| file | settings | compression | DuckDB | pyarrow | polars |\n|---|---|---|---|---|---|\n");
    for (cell, by_reader) in cells {
        let marks: Vec<String> = readers
            .iter()
            .map(|reader| match by_reader.get(reader) {
                None => "not run".to_string(),
                Some(r) if r.digest_matches && r.schema_matches => "same digest".to_string(),
                Some(r) => format!(
                    "**differs**: {}",
                    r.error
                        .as_deref()
                        .or(r.digest.as_deref())
                        .unwrap_or("no digest")
                ),
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell.writer,
            cell.settings,
            cell.compression,
            marks.join(" | ")
        );
    }
}

fn layout_markdown(run: &PeersRun, out: &mut String) {
    out.push_str("| file | settings | compression | MB | row groups | data pages per leaf column | dictionary pages | statistics | column index | offset index | bloom filters | created by |\n|---|---|---|---:|---:|---|---:|---|---|---|---|---|\n");
    let mut rows: Vec<&LayoutRow> = run.layouts.iter().collect();
    rows.sort_by(|a, b| {
        (&a.cell.compression, &a.cell.settings, &a.cell.writer).cmp(&(
            &b.cell.compression,
            &b.cell.settings,
            &b.cell.writer,
        ))
    });
    for row in rows {
        let l = &row.layout;
        let all = |f: fn(&super::layout::ColumnLayout) -> bool| {
            let count = l.columns.iter().filter(|c| f(c)).count();
            match count {
                0 => "none".to_string(),
                n if n == l.columns.len() => "all columns".to_string(),
                n => {
                    l.columns
                        .iter()
                        .filter(|c| f(c))
                        .map(|c| c.path.rsplit('.').next().unwrap_or(&c.path).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                        + &format!(" ({n} of {})", l.columns.len())
                }
            }
        };
        let pages: Vec<String> = l.columns.iter().map(|c| c.data_pages.to_string()).collect();
        let dictionary: u64 = l.columns.iter().map(|c| c.dictionary_pages).sum();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.1} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.cell.writer,
            row.cell.settings,
            row.cell.compression,
            l.bytes as f64 / 1e6,
            l.row_groups,
            pages.join(" / "),
            dictionary,
            all(|c| c.statistics),
            all(|c| c.column_index),
            all(|c| c.offset_index),
            all(|c| c.bloom_filter),
            l.created_by.as_deref().unwrap_or("?"),
        );
    }
}

/// Median seconds of one reader's queries on one file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScanMedians {
    /// Every row, every column.
    pub full_s: f64,
    /// The rare name.
    pub name_s: f64,
    /// The rarest phone type, inside the list.
    pub phone_type_s: f64,
}

/// Median scan seconds per (file, reader).
pub fn scan_medians(scans: &[ScanRow]) -> BTreeMap<(Cell, String), ScanMedians> {
    let mut grouped: BTreeMap<(Cell, String), Vec<&ScanRow>> = BTreeMap::new();
    for row in scans {
        grouped
            .entry((row.cell.clone(), row.reader.clone()))
            .or_default()
            .push(row);
    }
    grouped
        .into_iter()
        .map(|(key, rows)| {
            let of = |field: fn(&ScanRow) -> f64| {
                median(&rows.iter().map(|r| field(r)).collect::<Vec<_>>())
            };
            let medians = ScanMedians {
                full_s: of(|r| r.full_s),
                name_s: of(|r| r.name_s),
                phone_type_s: of(|r| r.phone_type_s),
            };
            (key, medians)
        })
        .collect()
}

fn scan_markdown(run: &PeersRun, out: &mut String) {
    let medians = scan_medians(&run.scans);
    let reference = |compression: &str, reader: &str| {
        medians
            .iter()
            .find(|((cell, r), _)| {
                cell.writer == REFERENCE
                    && cell.settings == "default"
                    && cell.compression == compression
                    && r == reader
            })
            .map(|(_, v)| *v)
    };
    out.push_str("| file | settings | compression | reader | full scan s | name filter s | phone_type filter s | full / ParallelArrowWriter's file | name / ref | phone_type / ref |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    let mut keys: Vec<_> = medians.keys().collect();
    keys.sort_by(|a, b| {
        (&a.0.compression, &a.1, &a.0.settings, &a.0.writer).cmp(&(
            &b.0.compression,
            &b.1,
            &b.0.settings,
            &b.0.writer,
        ))
    });
    for key in keys {
        let (cell, reader) = key;
        let own = medians[key];
        let base = reference(&cell.compression, reader);
        let ratio = |pick: fn(&ScanMedians) -> f64| opt(base.map(|b| pick(&own) / pick(&b)), 2);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {} | {} |",
            cell.writer,
            cell.settings,
            cell.compression,
            reader,
            own.full_s,
            own.name_s,
            own.phone_type_s,
            ratio(|m| m.full_s),
            ratio(|m| m.name_s),
            ratio(|m| m.phone_type_s),
        );
    }
}

/// The README of a peers run.
pub fn markdown(run: &PeersRun) -> String {
    let m = &run.metadata;
    let mut out = String::new();
    let plan = |key: &str| {
        m.plan
            .get(key)
            .map_or_else(|| "?".to_string(), |v| v.to_string())
    };
    let workload = match m.workload.as_str() {
        "" | "contacts" => "contacts".to_string(),
        spec => format!("rows of `{spec}`"),
    };
    let _ = writeln!(
        out,
        "# Peers: the same {workload} written by every writer, read back by three readers\n"
    );
    let _ = writeln!(
        out,
        "Command: `{}`. {} rows, {} timed runs per writer and cell after {} warm-up round(s) not kept, interleaved (each round runs every cell once, in an order rotated by one each round), {} scan runs. Host `{}` ({}, {} CPUs), {}. Rust binaries built from commit {} (dirty: {}). Versions: {}.\n",
        m.command,
        plan("rows"),
        plan("runs"),
        plan("warmup"),
        plan("scan_runs"),
        m.host,
        m.cpu,
        m.cores.map_or_else(|| "?".to_string(), |c| c.to_string()),
        m.date,
        m.commit.as_deref().unwrap_or("unknown"),
        m.dirty.map_or("unknown", |d| if d { "true" } else { "false" }),
        m.versions.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "),
    );
    out.push_str("Every writer gets the same rows from the generator, handed over as one uncompressed Arrow IPC file that each writer's process reads into memory (and, for polars, converts to a DataFrame) before its clock starts. The clock covers writing, closing the file and `fsync`, for every writer alike; the file is written under a temporary name and renamed when complete. Row groups: 1,048,576 rows where the writer takes a row count (DuckDB's `ROW_GROUP_SIZE` is a target; with two threads and no insertion order its row groups differ). CPU s is user + system time of the whole process during the write; cores busy = CPU s / wall s. Peak RSS is the largest, over the runs, of the process's high-water mark during the write (the loaded data and the runtime included: `/proc/self/clear_refs` resets it when the clock starts); the next column is the median over the runs of that peak minus the resident size when the clock started, what the write itself held (a Python process starts about 100 MiB above a Rust one).\n\n");
    out.push_str("Writers:\n\n");
    for (name, what) in &m.writers {
        let _ = writeln!(out, "- `{name}`: {what}");
    }
    out.push('\n');
    if !m.missing.is_empty() || !m.failures.is_empty() || !m.mismatches.is_empty() {
        out.push_str("## Problems of this run\n\n");
        for (module, why) in &m.missing {
            let _ = writeln!(
                out,
                "- missing peer `{module}` (its writers and reader were skipped): {why}"
            );
        }
        for problem in m.failures.iter().chain(&m.mismatches) {
            let _ = writeln!(out, "- {problem}");
        }
        out.push('\n');
    }
    let compressions = compressions(run);
    out.push_str("## Targets\n\n");
    for compression in &compressions {
        targets(
            &write_table(&run.writes, "default", compression),
            compression,
            &mut out,
        );
    }
    out.push('\n');
    for (settings, title) in [
        ("default", "## Write, each writer's default dictionary and statistics\n\n"),
        ("aligned", "## Write, aligned: dictionary on, chunk min/max statistics, no column index\n\nWhat every writer here can produce. The arrow-rs writers and DataFusion drop their page-level statistics (column index) for it; pyarrow's, DuckDB's and polars' defaults already are this (pyarrow's options are spelled out; DuckDB has none to set), so their default measurement is shown again.\n\n"),
    ] {
        out.push_str(title);
        for compression in &compressions {
            let _ = writeln!(out, "### Compression {compression}\n");
            write_markdown(&write_table(&run.writes, settings, compression), &mut out);
            out.push('\n');
        }
    }
    out.push_str("![write time](write_time.png)\n\n![file size](file_size.png)\n\n");
    if !run.readback.is_empty() {
        out.push_str("## Read-back by three independent readers\n\nEach reader decodes the file with its own Parquet reader; the rows it returns (as Arrow) go through the one Python implementation of the data gate's digest (`scripts/peers/shredlab_peers/digest.py`, tested against the Rust gate), which ignores row order and every name. Schemas are compared after normalisation (`schema.py`): the list element's name (`item` in arrow-rs and polars, `element` in pyarrow, `l` in DuckDB) and nullability are dropped, and `large_string`, `string_view` and dictionaries of strings count as `string`, `large_list` as `list`. The catalog experiments' files are written by `pipeline --experiment N --writers 1` (one file, that experiment's writer properties).\n\n");
        readback_markdown(run, &mut out);
        out.push('\n');
    }
    if !run.layouts.is_empty() {
        out.push_str("## What each file offers its readers\n\nFrom the footer and every page header (`peers inspect`): statistics means min/max in every column chunk, column index the page-level min/max, offset index the page locations.\n\n");
        layout_markdown(run, &mut out);
        out.push('\n');
    }
    if !run.scans.is_empty() {
        let _ = writeln!(
            out,
            "## The read side of each write choice\n\nMedian seconds over the scan runs, each query in a fresh process per file and reader. `full`: every column of every row into an Arrow table. `name`: `name = '{}'` (a name that occurs once, in the middle of the sort order, so min/max statistics cannot rule any row group out). `phone_type`: rows with a phone of type `{}` (the rarest type; a predicate inside the list: DuckDB evaluates it in SQL, pyarrow cannot push it down and filters in memory after reading). The ratios compare each file with ParallelArrowWriter's default file of the same compression, read by the same reader: above 1 means the write choice costs that reader time.\n",
            m.name_filter, m.phone_type_filter
        );
        if let Some(first) = run.scans.first() {
            let _ = writeln!(
                out,
                "The name filter returns {} row(s), the phone_type filter {} rows.\n",
                first.name_rows, first.phone_type_rows
            );
        }
        scan_markdown(run, &mut out);
        out.push_str("\n![read time](read_time.png)\n");
    }
    out
}

/// One bar per writer and compression (writers in the first compression's order, fastest first).
fn write_bars(
    run: &PeersRun,
    compressions: &[String],
    value: fn(&WriteSummary) -> f64,
) -> Vec<Bar> {
    let tables: Vec<Vec<WriteSummary>> = compressions
        .iter()
        .map(|c| write_table(&run.writes, "default", c))
        .collect();
    let Some(first) = tables.first() else {
        return Vec::new();
    };
    first
        .iter()
        .flat_map(|leader| {
            tables.iter().enumerate().filter_map(|(series, table)| {
                let summary = table.iter().find(|s| s.writer == leader.writer)?;
                Some(Bar {
                    label: leader.writer.clone(),
                    series,
                    value: value(summary),
                })
            })
        })
        .collect()
}

/// Draws `bars` as `<dir>/<name>.png` and `.svg`, tall enough for every row.
fn save_bars(
    dir: &Path,
    name: &str,
    (caption, axis): (&str, &str),
    series: &[String],
    bars: &[Bar],
) -> PlotResult {
    let size = (1100, 120 + 22 * bars.len() as u32);
    save_both!(dir, name, size, draw_bars, caption, axis, series, bars);
    Ok(())
}

fn read_bars(scans: &[ScanRow], readers: &[&str]) -> Vec<Bar> {
    let medians = scan_medians(scans);
    let mut keys: Vec<_> = medians
        .keys()
        .filter(|(cell, _)| cell.settings != "aligned")
        .collect();
    keys.sort_by(|a, b| {
        (&a.0.compression, &a.0.writer, &a.1).cmp(&(&b.0.compression, &b.0.writer, &b.1))
    });
    keys.into_iter()
        .map(|key| Bar {
            label: format!("{} · {}", key.0.writer, key.0.compression),
            series: readers.iter().position(|r| *r == key.1).unwrap_or(0),
            value: medians[key].full_s,
        })
        .collect()
}

fn charts(dir: &Path, run: &PeersRun) -> PlotResult {
    register_font();
    let compressions = compressions(run);
    let series: Vec<String> = compressions
        .iter()
        .map(|c| format!("compression {c}"))
        .collect();
    let times = write_bars(run, &compressions, |s| s.wall_s);
    save_bars(
        dir,
        "write_time",
        ("Write time, default settings (median)", "seconds"),
        &series,
        &times,
    )?;
    let sizes = write_bars(run, &compressions, |s| s.file_bytes as f64 / 1e6);
    save_bars(
        dir,
        "file_size",
        ("File size, default settings", "MB"),
        &series,
        &sizes,
    )?;
    if !run.scans.is_empty() {
        let readers = ["duckdb", "pyarrow"];
        let names: Vec<String> = readers.iter().map(|r| format!("{r}, full scan")).collect();
        let reads = read_bars(&run.scans, &readers);
        save_bars(
            dir,
            "read_time",
            ("Full scan per file and reader (median)", "seconds"),
            &names,
            &reads,
        )?;
    }
    Ok(())
}

/// Writes `README.md` and the charts `write_time`, `file_size` and `read_time` (PNG and SVG)
/// into `dir`.
pub fn render(dir: &Path) -> Result<()> {
    let run = PeersRun::load(dir)?;
    std::fs::write(dir.join("README.md"), markdown(&run))?;
    charts(dir, &run)
        .map_err(|e| anyhow::anyhow!("cannot draw the charts in {}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(writer: &str, settings: &str, wall_s: f64, peak_mib: u64, loaded_mib: u64) -> String {
        serde_json::json!({
            "writer": writer, "settings": settings, "compression": "none", "round": 0,
            "wall_s": wall_s, "cpu_s": wall_s * 1.5, "peak_rss_bytes": peak_mib << 20,
            "loaded_rss_bytes": loaded_mib << 20, "file_bytes": 1_000_000,
        })
        .to_string()
    }

    fn fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let metadata = serde_json::json!({
            "command": "make peers ROWS=1000", "host": "test", "commit": "abc", "dirty": false,
            "plan": {"rows": 1000, "runs": 2, "scan_runs": 1}, "digest": "1000:00",
            "missing": {"polars": "ModuleNotFoundError"},
        });
        std::fs::write(dir.path().join("metadata.json"), metadata.to_string()).unwrap();
        let lines = [
            write(REFERENCE, "default", 1.0, 300, 280),
            write(REFERENCE, "default", 1.2, 310, 280),
            write(REFERENCE, "aligned", 0.9, 300, 280),
            write("pyarrow", "default", 2.5, 500, 400),
            write("datafusion", "default", 1.3, 450, 400),
            write("datafusion", "aligned", 1.2, 450, 400),
        ];
        std::fs::write(dir.path().join("writes.jsonl"), lines.join("\n") + "\n").unwrap();
        dir
    }

    #[test]
    fn tables_take_medians_and_the_aligned_one_falls_back_on_defaults() {
        let run = PeersRun::load(fixture().path()).unwrap();
        let default = write_table(&run.writes, "default", "none");
        let order: Vec<&str> = default.iter().map(|s| s.writer.as_str()).collect();
        assert_eq!(order, [REFERENCE, "datafusion", "pyarrow"]);
        assert_eq!((default[0].runs, default[0].wall_s), (2, 1.1));
        assert_eq!(default[0].above_loaded_bytes, Some(25 << 20));
        let aligned = write_table(&run.writes, "aligned", "none");
        let pyarrow = aligned.iter().find(|s| s.writer == "pyarrow").unwrap();
        assert!(pyarrow.shared);
        let ours = aligned.iter().find(|s| s.writer == REFERENCE).unwrap();
        assert!(!ours.shared);
        assert_eq!((ours.runs, ours.wall_s), (1, 0.9));
    }

    #[test]
    fn the_readme_gives_each_target_its_verdict_and_names_missing_peers() {
        let dir = fixture();
        render(dir.path()).unwrap();
        let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
        assert!(
            readme.contains(
                "none: ParallelArrowWriter is the fastest writer (1.100 s; the next, datafusion, takes 1.300 s; **not significant**, Mann-Whitney p = 0.540)."
            ),
            "{readme}"
        );
        assert!(
            readme.contains("pyarrow / ParallelArrowWriter = 2.27x (target >= 2x: met)"),
            "{readme}"
        );
        assert!(readme.contains("(datafusion) / ParallelArrowWriter = 1.18x (target >= 1.2x: **missed**); RSS above the loaded data 25 MiB against 50 MiB: no more memory, met"), "{readme}");
        assert!(
            readme.contains("| pyarrow (same as default) | 1 | 2.500 |"),
            "{readme}"
        );
        assert!(readme.contains("missing peer `polars`"), "{readme}");
        assert!(
            !readme.contains("## Read-back"),
            "no read-back section without read-backs"
        );
        for chart in ["write_time.png", "write_time.svg", "file_size.png"] {
            assert!(dir.path().join(chart).exists(), "{chart}");
        }
        assert!(!dir.path().join("read_time.png").exists());
    }

    #[test]
    fn separated_runs_are_significant_after_holm_and_overlapping_ones_are_not() {
        let summary = |writer: &str, seconds: &[f64]| WriteSummary {
            writer: writer.to_string(),
            runs: seconds.len(),
            wall_s: median(seconds),
            seconds: seconds.to_vec(),
            cpu_s: None,
            peak_rss_bytes: None,
            above_loaded_bytes: None,
            file_bytes: 0,
            shared: false,
        };
        let table = [
            summary(REFERENCE, &[1.00, 1.01, 0.99, 1.02, 1.00, 0.98, 1.01, 1.00]),
            summary("slow", &[2.00, 2.10, 1.90, 2.05, 2.00, 1.95, 2.02, 2.01]),
            summary("same", &[1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99]),
        ];
        let p = significance(&table);
        assert_eq!(p[0], None);
        assert!(p[1].unwrap() < 0.01, "{p:?}");
        assert!(p[2].unwrap() > 0.5, "{p:?}");
        // Holm: the smaller raw p is doubled when two comparisons are made.
        let raw = mann_whitney_p(&table[1].seconds, &table[0].seconds).unwrap();
        assert!((p[1].unwrap() - 2.0 * raw).abs() < 1e-12);
    }

    #[test]
    fn a_folder_without_metadata_says_what_to_run() {
        let dir = tempfile::tempdir().unwrap();
        let error = PeersRun::load(dir.path()).unwrap_err();
        assert!(format!("{error:#}").contains("make peers"), "{error:#}");
    }
}
