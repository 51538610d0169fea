//! The figures the peers README and charts show: each writer's medians per settings and
//! compression, their significance against shredlab's writer, and each reader's median scan
//! times per file.

use std::collections::BTreeMap;

use super::records::{Cell, ScanLine, WriteLine};
use super::timed_write::WriteRecord;
use crate::stats::{holm, mann_whitney_p, median};

/// shredlab's writer as the raw files name it: every other writer is compared with it.
pub const PARALLEL_WRITER: &str = "ParallelArrowWriter";

/// The same writer driven from Python by the `shredlab` package's `write_parquet`.
pub const PYTHON_WRITER: &str = "shredlab-python";

/// Medians of one writer in one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct WriterMedians {
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
    /// itself held, without the loaded data and the runtime (a Python process starts well above
    /// a Rust one: `loaded_rss_bytes` in `results/vm/peers/writes.jsonl`).
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

impl WriterMedians {
    /// The medians of `writer`'s `records`; `own` says whether they were measured with the
    /// settings of the table they are shown in.
    fn of(writer: &str, own: bool, records: &[&WriteRecord]) -> Self {
        Self {
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
        }
    }
}

/// Every writer's medians for `settings` and `compression`, fastest first. In the aligned table a
/// writer without an aligned measurement shows its default one (its settings are the same).
pub fn writer_medians(
    writes: &[WriteLine],
    settings: &str,
    compression: &str,
) -> Vec<WriterMedians> {
    let mut by_writer: BTreeMap<&str, (bool, Vec<&WriteRecord>)> = BTreeMap::new();
    for line in writes.iter().filter(|l| l.cell.compression == compression) {
        let own = line.cell.settings == settings;
        // The aligned table falls back on a writer's default runs when it has no aligned ones.
        let fallback = settings == "aligned" && line.cell.settings == "default";
        if !(own || fallback) {
            continue;
        }
        let entry = by_writer
            .entry(line.cell.writer.as_str())
            .or_insert((own, Vec::new()));
        if own && !entry.0 {
            *entry = (true, Vec::new());
        }
        if own == entry.0 {
            entry.1.push(&line.record);
        }
    }
    let mut table: Vec<WriterMedians> = by_writer
        .into_iter()
        .map(|(writer, (own, records))| WriterMedians::of(writer, own, &records))
        .collect();
    table.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
    table
}

/// For each row of `table`, the p-value of its wall times against [`PARALLEL_WRITER`]'s
/// (two-sided Mann-Whitney U), Holm-corrected over all the table's comparisons; `None` for
/// [`PARALLEL_WRITER`] itself or without it.
pub fn significance(table: &[WriterMedians]) -> Vec<Option<f64>> {
    let Some(parallel) = table.iter().find(|s| s.writer == PARALLEL_WRITER) else {
        return vec![None; table.len()];
    };
    let raw: Vec<Option<f64>> = table
        .iter()
        .map(|s| {
            (s.writer != PARALLEL_WRITER)
                .then(|| mann_whitney_p(&s.seconds, &parallel.seconds))
                .flatten()
        })
        .collect();
    let tested: Vec<f64> = raw.iter().flatten().copied().collect();
    let mut adjusted = holm(&tested).into_iter();
    raw.iter()
        .map(|p| p.and_then(|_| adjusted.next()))
        .collect()
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
pub fn scan_medians(scans: &[ScanLine]) -> BTreeMap<(Cell, String), ScanMedians> {
    let mut grouped: BTreeMap<(Cell, String), Vec<&ScanLine>> = BTreeMap::new();
    for line in scans {
        grouped
            .entry((line.cell.clone(), line.reader.clone()))
            .or_default()
            .push(line);
    }
    grouped
        .into_iter()
        .map(|(key, lines)| {
            let of = |field: fn(&ScanLine) -> f64| {
                median(&lines.iter().map(|l| field(l)).collect::<Vec<_>>())
            };
            let medians = ScanMedians {
                full_s: of(|l| l.full_s),
                name_s: of(|l| l.name_s),
                phone_type_s: of(|l| l.phone_type_s),
            };
            (key, medians)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::super::records::PeersResults;
    use super::*;

    #[test]
    fn tables_take_medians_and_the_aligned_one_falls_back_on_defaults() {
        let results = PeersResults::load(fixture::results_dir().path()).unwrap();
        let default = writer_medians(&results.writes, "default", "none");
        let order: Vec<&str> = default.iter().map(|s| s.writer.as_str()).collect();
        assert_eq!(
            order,
            [PARALLEL_WRITER, "shredlab-python", "datafusion", "pyarrow"]
        );
        assert_eq!((default[0].runs, default[0].wall_s), (2, 1.1));
        assert_eq!(default[0].above_loaded_bytes, Some(25 << 20));
        let aligned = writer_medians(&results.writes, "aligned", "none");
        let pyarrow = aligned.iter().find(|s| s.writer == "pyarrow").unwrap();
        assert!(pyarrow.shared);
        let ours = aligned
            .iter()
            .find(|s| s.writer == PARALLEL_WRITER)
            .unwrap();
        assert!(!ours.shared);
        assert_eq!((ours.runs, ours.wall_s), (1, 0.9));
    }

    #[test]
    fn separated_runs_are_significant_after_holm_and_overlapping_ones_are_not() {
        let medians = |writer: &str, seconds: &[f64]| WriterMedians {
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
            medians(
                PARALLEL_WRITER,
                &[1.00, 1.01, 0.99, 1.02, 1.00, 0.98, 1.01, 1.00],
            ),
            medians("slow", &[2.00, 2.10, 1.90, 2.05, 2.00, 1.95, 2.02, 2.01]),
            medians("same", &[1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99]),
        ];
        let p = significance(&table);
        assert_eq!(p[0], None);
        assert!(p[1].unwrap() < 0.01, "{p:?}");
        assert!(p[2].unwrap() > 0.5, "{p:?}");
        // Holm: the smaller raw p is doubled when two comparisons are made.
        let raw = mann_whitney_p(&table[1].seconds, &table[0].seconds).unwrap();
        assert!((p[1].unwrap() - 2.0 * raw).abs() < 1e-12);
    }
}
