//! The read side of the peers README: whether three independent readers read every file back
//! as it was handed over, what each file offers its readers, and what each write choice costs
//! them in scan time. Each section only when the run has its lines.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::analysis::{scan_medians, ScanMedians, PARALLEL_WRITER};
use super::layout::{ColumnLayout, FileLayout};
use super::readme::opt;
use super::records::{Cell, LayoutLine, PeersResults, ReadbackLine};
use crate::markdown::{Align, Table};

/// The columns every table of this side starts with: the file's cell.
const CELL_COLUMNS: [(&str, Align); 3] = [
    ("file", Align::Left),
    ("settings", Align::Left),
    ("compression", Align::Left),
];

/// The cells of `cell`'s columns.
fn cell_cells(cell: &Cell) -> [String; 3] {
    [
        cell.writer.clone(),
        cell.settings.clone(),
        cell.compression.clone(),
    ]
}

/// What the read-back table says of one reader's read-back of one file.
fn readback_mark(readback: Option<&&ReadbackLine>) -> String {
    match readback {
        None => "not run".to_string(),
        Some(r) if r.digest_matches && r.schema_matches => "same digest".to_string(),
        Some(r) => format!(
            "**differs**: {}",
            r.error
                .as_deref()
                .or(r.digest.as_deref())
                .unwrap_or("no digest")
        ),
    }
}

fn readback_table(results: &PeersResults, out: &mut String) {
    let readers = ["duckdb", "pyarrow", "polars"];
    let mut cells: BTreeMap<&Cell, BTreeMap<&str, &ReadbackLine>> = BTreeMap::new();
    for line in &results.readback {
        cells
            .entry(&line.cell)
            .or_default()
            .insert(line.reader.as_str(), line);
    }
    let ok = results
        .readback
        .iter()
        .filter(|r| r.digest_matches && r.schema_matches)
        .count();
    let _ = writeln!(
        out,
        "{ok} of {} read-backs match the hand-over data's digest `{}` and schema `{}`.\n",
        results.readback.len(),
        results.metadata.digest,
        results.metadata.schema,
    );
    let mut table = Table::new(CELL_COLUMNS.into_iter().chain([
        ("DuckDB", Align::Left),
        ("pyarrow", Align::Left),
        ("polars", Align::Left),
    ]));
    for (cell, by_reader) in cells {
        table.row(
            cell_cells(cell).into_iter().chain(
                readers
                    .iter()
                    .map(|reader| readback_mark(by_reader.get(reader))),
            ),
        );
    }
    let _ = write!(out, "{table}");
}

/// Which of `layout`'s columns `has` holds for: `none`, `all columns`, or their names.
fn columns_with(layout: &FileLayout, has: fn(&ColumnLayout) -> bool) -> String {
    let count = layout.columns.iter().filter(|c| has(c)).count();
    match count {
        0 => "none".to_string(),
        n if n == layout.columns.len() => "all columns".to_string(),
        n => {
            layout
                .columns
                .iter()
                .filter(|c| has(c))
                .map(|c| c.path.rsplit('.').next().unwrap_or(&c.path).to_string())
                .collect::<Vec<_>>()
                .join(", ")
                + &format!(" ({n} of {})", layout.columns.len())
        }
    }
}

fn layout_table(results: &PeersResults, out: &mut String) {
    let mut table = Table::new(CELL_COLUMNS.into_iter().chain([
        ("MB", Align::Right),
        ("row groups", Align::Right),
        ("data pages per leaf column", Align::Left),
        ("dictionary pages", Align::Right),
        ("statistics", Align::Left),
        ("column index", Align::Left),
        ("offset index", Align::Left),
        ("bloom filters", Align::Left),
        ("created by", Align::Left),
    ]));
    let mut lines: Vec<&LayoutLine> = results.layouts.iter().collect();
    lines.sort_by(|a, b| {
        (&a.cell.compression, &a.cell.settings, &a.cell.writer).cmp(&(
            &b.cell.compression,
            &b.cell.settings,
            &b.cell.writer,
        ))
    });
    for line in lines {
        let l = &line.layout;
        let pages: Vec<String> = l.columns.iter().map(|c| c.data_pages.to_string()).collect();
        let dictionary: u64 = l.columns.iter().map(|c| c.dictionary_pages).sum();
        table.row(cell_cells(&line.cell).into_iter().chain([
            format!("{:.1}", l.bytes as f64 / 1e6),
            l.row_groups.to_string(),
            pages.join(" / "),
            dictionary.to_string(),
            columns_with(l, |c| c.statistics),
            columns_with(l, |c| c.column_index),
            columns_with(l, |c| c.offset_index),
            columns_with(l, |c| c.bloom_filter),
            l.created_by.as_deref().unwrap_or("?").to_string(),
        ]));
    }
    let _ = write!(out, "{table}");
}

fn scan_table(results: &PeersResults, out: &mut String) {
    let medians = scan_medians(&results.scans);
    let parallel = |compression: &str, reader: &str| {
        medians
            .iter()
            .find(|((cell, r), _)| {
                cell.writer == PARALLEL_WRITER
                    && cell.settings == "default"
                    && cell.compression == compression
                    && r == reader
            })
            .map(|(_, v)| *v)
    };
    let mut table = Table::new(
        CELL_COLUMNS
            .into_iter()
            .chain([("reader", Align::Left)])
            .chain(
                [
                    "full scan s",
                    "name filter s",
                    "phone_type filter s",
                    "full / ParallelArrowWriter's file",
                    "name / ref",
                    "phone_type / ref",
                ]
                .map(|name| (name, Align::Right)),
            ),
    );
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
        let base = parallel(&cell.compression, reader);
        let ratio = |pick: fn(&ScanMedians) -> f64| opt(base.map(|b| pick(&own) / pick(&b)), 2);
        table.row(cell_cells(cell).into_iter().chain([
            reader.clone(),
            format!("{:.3}", own.full_s),
            format!("{:.3}", own.name_s),
            format!("{:.3}", own.phone_type_s),
            ratio(|m| m.full_s),
            ratio(|m| m.name_s),
            ratio(|m| m.phone_type_s),
        ]));
    }
    let _ = write!(out, "{table}");
}

/// The read-back, layout and scan sections, each only when the run has its lines.
pub(super) fn reader_sections(results: &PeersResults, out: &mut String) {
    let m = &results.metadata;
    if !results.readback.is_empty() {
        out.push_str("## Read-back by three independent readers\n\nEach reader decodes the file with its own Parquet reader; the rows it returns (as Arrow) go through the one Python implementation of the data gate's digest (`scripts/peers/shredlab_peers/digest.py`, tested against the Rust gate), which ignores row order and every name. Schemas are compared after normalisation (`schema.py`): the list element's name (`item` in arrow-rs and polars, `element` in pyarrow, `l` in DuckDB) and nullability are dropped, and `large_string`, `string_view` and dictionaries of strings count as `string`, `large_list` as `list`. The catalog experiments' files are written by `pipeline --experiment N --writers 1` (one file, that experiment's writer properties).\n\n");
        readback_table(results, out);
        out.push('\n');
    }
    if !results.layouts.is_empty() {
        out.push_str("## What each file offers its readers\n\nFrom the footer and every page header (`peers inspect`): statistics means min/max in every column chunk, column index the page-level min/max, offset index the page locations.\n\n");
        layout_table(results, out);
        out.push('\n');
    }
    if !results.scans.is_empty() {
        let _ = writeln!(
            out,
            "## The read side of each write choice\n\nMedian seconds over the scan runs, each query in a fresh process per file and reader. `full`: every column of every row into an Arrow table. `name`: `name = '{}'` (a name that occurs once, in the middle of the sort order, so min/max statistics cannot rule any row group out). `phone_type`: rows with a phone of type `{}` (the rarest type; a predicate inside the list: DuckDB evaluates it in SQL, pyarrow cannot push it down and filters in memory after reading). The ratios compare each file with ParallelArrowWriter's default file of the same compression, read by the same reader: above 1 means the write choice costs that reader time.\n",
            m.name_filter, m.phone_type_filter
        );
        if let Some(first) = results.scans.first() {
            let _ = writeln!(
                out,
                "The name filter returns {} row(s), the phone_type filter {} rows.\n",
                first.name_rows, first.phone_type_rows
            );
        }
        scan_table(results, out);
        out.push_str("\n![read time](read_time.png)\n");
    }
}
