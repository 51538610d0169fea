//! The measurement history: records imported from the results committed in this repository,
//! appended once per run, and the page and charts of `make history` with a planted change.

use std::path::Path;

use shredlab_bench::charts;
use shredlab_bench::history::report::{self, Changes};
use shredlab_bench::history::{self, Kind, Record};

/// The committed results of this VM.
fn committed() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results/vm"))
}

#[test]
fn the_committed_results_import_as_records_of_every_kind() {
    let records = history::import(committed()).unwrap();
    for kind in [
        Kind::Experiment,
        Kind::Ab,
        Kind::Designs,
        Kind::Peers,
        Kind::WriterBench,
    ] {
        assert!(
            records.iter().any(|r| r.kind == kind),
            "no {kind:?} record among {}",
            records.len()
        );
    }
    assert!(
        records.windows(2).all(|w| w[0].date <= w[1].date),
        "oldest first"
    );
    let experiment = records
        .iter()
        .find(|r| r.name == "36-native-encoder")
        .expect("experiment 36's record");
    assert_eq!(experiment.host, "vm");
    assert_eq!(experiment.dirty, Some(false));
    assert_eq!(experiment.commit.len(), 12);
    assert!(experiment.median_s > 0.0 && experiment.cpu_s.unwrap() > experiment.median_s);
    assert_eq!(experiment.rounds, 10);
    // The spec catalogs' experiments are named by their folder.
    assert!(
        records.iter().any(|r| r.name.starts_with("spec")),
        "spec catalogs"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(history::FILE);
    assert_eq!(history::append(&path, &records).unwrap(), records.len());
    assert_eq!(
        history::append(&path, &records).unwrap(),
        0,
        "imported once"
    );
}

fn run(commit: usize, median_s: f64, dirty: bool) -> Record {
    Record {
        host: "test".to_string(),
        commit: format!("c{commit:02}"),
        dirty: Some(dirty),
        date: format!("2026-11-{:02}T00:00:00Z", commit + 1),
        command: "planted".to_string(),
        kind: Kind::Experiment,
        name: "36-planted".to_string(),
        median_s,
        cpu_s: None,
        cores_busy: None,
        rss_bytes: None,
        rows_per_s: None,
        rounds: 10,
    }
}

#[test]
fn the_page_lists_the_change_and_the_chart_rings_it() {
    let mut records: Vec<Record> = (0..20)
        .map(|i| run(i, if i < 12 { 1.0 } else { 1.3 }, false))
        .collect();
    records.push(run(20, 4.0, true));
    let changes = Changes::parse(
        r#"{"min_points": 6, "max_pvalue": 0.001, "detector": "Apache Otava",
            "change_points": [{"kind": "experiment", "name": "36-planted", "index": 12,
            "commit": "c12", "date": "2026-11-13T00:00:00Z", "before_s": 1.0,
            "after_s": 1.3, "change_percent": 30.0, "pvalue": 1e-9}]}"#,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let charts = charts::history::draw_all(dir.path(), &records, &changes.change_points).unwrap();
    assert_eq!(charts, ["history-experiment.png"]);
    let png = std::fs::read(dir.path().join("history-experiment.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let page = report::markdown("test", &records, &changes, &charts);
    assert!(
        page.contains("| experiment | 36-planted | `c12` | 2026-11-13T00:00:00Z | +30.0% | 1.000 | 1.300 | 1.0e-9 |"),
        "{page}"
    );
    assert!(page.contains("21 records of 1 figures"), "{page}");
    assert!(page.contains("(1 from dirty or unknown trees"), "{page}");
    assert!(
        page.contains("| experiment | 36-planted | 20 | 1 |"),
        "{page}"
    );
    let none = Changes {
        change_points: Vec::new(),
        ..changes
    };
    let quiet = report::markdown("test", &records, &none, &charts);
    assert!(
        quiet.contains("None found in the 1 figures with enough clean runs."),
        "{quiet}"
    );
}
