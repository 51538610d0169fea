//! `--count-allocations` and the writer's memory settings: the counts are reported on either
//! allocator without changing the data, and the settings that bound the writer's memory do
//! bound it.

mod common;

use common::run_ok;
use serde_json::Value;

fn report(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["-n", "300000", "--json", "--verify", "-q"];
    all.extend_from_slice(args);
    serde_json::from_slice(&run_ok(&all, dir.path()).stdout).unwrap()
}

fn heap(report: &Value, key: &str) -> u64 {
    report["heap"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("no heap.{key} in {report}"))
}

#[test]
fn allocations_are_counted_on_either_allocator_without_changing_the_data() {
    let plain = report(&["-e", "20"]);
    assert!(plain["heap"].is_null(), "counting is off by default");
    for allocator in [
        ["--enable", "mimalloc"],
        ["--disable", "mimalloc"],
        ["--enable", "jemalloc"],
    ] {
        let mut args = vec!["-e", "20", "--count-allocations"];
        args.extend_from_slice(&allocator);
        let counted = report(&args);
        assert_eq!(counted["digest"], plain["digest"]);
        let (allocations, bytes) = (
            heap(&counted, "allocations"),
            heap(&counted, "bytes_requested"),
        );
        // Every batch allocates its Arrow buffers: at least one allocation per 16,384 rows.
        assert!(allocations >= 300_000 / 16_384, "{counted}");
        // The Arrow data alone is about 34 bytes per row.
        assert!(bytes >= 300_000 * 30, "{counted}");
        let peak = heap(&counted, "peak_live_bytes");
        assert!(peak > 0 && (peak as u64) <= bytes + heap(&counted, "live_bytes_at_start"));
        let per_row = counted["bytes_allocated_per_row"].as_f64().unwrap();
        assert!((per_row - bytes as f64 / 300_000.0).abs() < 1e-6);
    }
}

/// Row groups in the files of `report`.
fn row_groups(report: &Value) -> usize {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| {
            let file = std::fs::File::open(path.as_str().unwrap()).unwrap();
            SerializedFileReader::new(file).unwrap().num_row_groups()
        })
        .sum()
}

#[test]
fn smaller_row_groups_hold_less_heap_and_split_the_file() {
    let run_with = |row_group_rows: &str| {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "-e",
            "20",
            "-n",
            "1000000",
            "--json",
            "-q",
            "--count-allocations",
            "--row-group-rows",
            row_group_rows,
            "--writer-budget-mib",
            "1",
            "--row-groups-in-flight",
            "1",
        ];
        let counted: Value = serde_json::from_slice(&run_ok(&args, dir.path()).stdout).unwrap();
        assert_eq!(
            counted["row_group_rows"],
            row_group_rows.parse::<u64>().unwrap()
        );
        assert_eq!(counted["row_groups_in_flight"], 1);
        assert_eq!(counted["writer_budget_bytes"], 1 << 20);
        (heap(&counted, "peak_live_bytes"), row_groups(&counted))
    };
    // One 1,000,000-row group (about 28 MB encoded) against 16,384-row groups (under 0.5 MB
    // each); both also hold the batches in the channels, a few MiB.
    let (whole, small) = (run_with("1000000"), run_with("16384"));
    assert_eq!((whole.1, small.1), (1, 1_000_000_usize.div_ceil(16_384)));
    assert!(
        small.0 * 2 < whole.0,
        "peak heap {} KiB with 16,384-row groups, {} KiB with one row group",
        small.0 >> 10,
        whole.0 >> 10
    );
}
