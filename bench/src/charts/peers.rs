//! The peers' charts (`results peers DIR`): write time and file size per writer and compression,
//! and each file's full-scan time per reader, as horizontal bars.

use std::path::Path;

use super::bars::{save as save_bars, Bar};
use super::{register_font, PlotResult};
use crate::peers::analysis::{scan_medians, writer_medians, WriterMedians};
use crate::peers::records::{PeersResults, ScanLine};

/// One bar per writer and compression (writers in the first compression's order, fastest first).
fn writer_bars(
    results: &PeersResults,
    compressions: &[String],
    value: fn(&WriterMedians) -> f64,
) -> Vec<Bar> {
    let tables: Vec<Vec<WriterMedians>> = compressions
        .iter()
        .map(|c| writer_medians(&results.writes, "default", c))
        .collect();
    let Some(first) = tables.first() else {
        return Vec::new();
    };
    first
        .iter()
        .flat_map(|leader| {
            tables.iter().enumerate().filter_map(|(series, table)| {
                let medians = table.iter().find(|s| s.writer == leader.writer)?;
                Some(Bar {
                    label: leader.writer.clone(),
                    series,
                    value: value(medians),
                })
            })
        })
        .collect()
}

/// One bar per file and reader: the median full scan, aligned files left out.
fn read_bars(scans: &[ScanLine], readers: &[&str]) -> Vec<Bar> {
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

/// Draws `write_time` and `file_size`, and `read_time` when the run has scans, into `dir`.
pub fn draw_all(dir: &Path, results: &PeersResults) -> PlotResult {
    register_font();
    let compressions = results.compressions();
    let series: Vec<String> = compressions
        .iter()
        .map(|c| format!("compression {c}"))
        .collect();
    let times = writer_bars(results, &compressions, |s| s.wall_s);
    save_bars(
        dir,
        "write_time",
        ("Write time, default settings (median)", "seconds"),
        &series,
        &times,
    )?;
    let sizes = writer_bars(results, &compressions, |s| s.file_bytes as f64 / 1e6);
    save_bars(
        dir,
        "file_size",
        ("File size, default settings", "MB"),
        &series,
        &sizes,
    )?;
    if !results.scans.is_empty() {
        let readers = ["duckdb", "pyarrow"];
        let names: Vec<String> = readers.iter().map(|r| format!("{r}, full scan")).collect();
        let reads = read_bars(&results.scans, &readers);
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
