//! A small peers results folder for the tests: metadata and timed writes only, as a run without
//! Python's readers leaves it, with polars missing.

use super::analysis::PARALLEL_WRITER;

fn writes_jsonl_line(
    writer: &str,
    settings: &str,
    wall_s: f64,
    peak_mib: u64,
    loaded_mib: u64,
) -> String {
    serde_json::json!({
        "writer": writer, "settings": settings, "compression": "none", "round": 0,
        "wall_s": wall_s, "cpu_s": wall_s * 1.5, "peak_rss_bytes": peak_mib << 20,
        "loaded_rss_bytes": loaded_mib << 20, "file_bytes": 1_000_000,
    })
    .to_string()
}

/// The folder, in a temporary directory removed on drop.
pub(crate) fn results_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let metadata = serde_json::json!({
        "command": "make peers ROWS=1000", "host": "test", "commit": "abc", "dirty": false,
        "plan": {"rows": 1000, "runs": 2, "scan_runs": 1}, "digest": "1000:00",
        "missing": {"polars": "ModuleNotFoundError"},
    });
    std::fs::write(dir.path().join("metadata.json"), metadata.to_string()).unwrap();
    let lines = [
        writes_jsonl_line(PARALLEL_WRITER, "default", 1.0, 300, 280),
        writes_jsonl_line(PARALLEL_WRITER, "default", 1.2, 310, 280),
        writes_jsonl_line(PARALLEL_WRITER, "aligned", 0.9, 300, 280),
        writes_jsonl_line("pyarrow", "default", 2.5, 500, 400),
        writes_jsonl_line("shredlab-python", "default", 1.25, 400, 300),
        writes_jsonl_line("datafusion", "default", 1.3, 450, 400),
        writes_jsonl_line("datafusion", "aligned", 1.2, 450, 400),
    ];
    std::fs::write(dir.path().join("writes.jsonl"), lines.join("\n") + "\n").unwrap();
    dir
}
