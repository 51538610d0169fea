//! Memory stays bounded: in a long run of the best experiment, peak RSS stops growing once the
//! pipeline is full (row groups in flight, channels, allocator pools), whatever the row count.

mod common;

use common::run_ok;

#[test]
fn peak_rss_stops_growing_in_a_long_run() {
    let dir = tempfile::tempdir().unwrap();
    let last = shredlab_experiments::catalog::CATALOG.len() - 1;
    let last = last.to_string();
    let out = run_ok(
        &[
            "-e",
            &last,
            "-n",
            "12000000",
            "--milestones",
            "2000000",
            "-q",
        ],
        dir.path(),
    );
    let peaks: Vec<u64> = String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .map(|line| {
            let milestone: serde_json::Value = serde_json::from_str(line).unwrap();
            milestone["peak_rss_bytes"]
                .as_u64()
                .expect("/proc reports the peak RSS on Linux")
        })
        .collect();
    assert_eq!(peaks.len(), 6, "one milestone per 2 M rows");
    // The first half fills the pipeline; the second half must not need more than a little.
    let (half, end) = (peaks[2], peaks[5]);
    assert!(
        end <= half + (32 << 20),
        "peak RSS grew from {} MiB at 6 M rows to {} MiB at 12 M rows",
        half >> 20,
        end >> 20
    );
}
