//! `writer-bench` refuses sizes it cannot run with a clear message, never a panic or an
//! out-of-memory kill.

#[test]
fn writer_bench_refuses_sizes_it_cannot_run() {
    for (flag, value) in [
        ("--columns", "0"),
        ("--rows", "0"),
        ("--rows", "10,1000000000"),
        ("--reps", "0"),
        ("--threads", "0"),
        ("--contacts-rows", "3000000000"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_writer-bench"))
            .args([flag, value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// Each cell runs in a process of its own, and the run collects every cell in order.
#[test]
fn every_cell_is_measured_in_its_own_process() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_writer-bench"))
        .args([
            "--rows",
            "300",
            "--columns",
            "3",
            "--compressions",
            "none;snappy",
        ])
        .args([
            "--contacts-rows",
            "0",
            "--reps",
            "1",
            "--threads",
            "2",
            "--output",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json = std::fs::read_to_string(dir.path().join("writer-bench-system.json")).unwrap();
    let cells: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<String> = cells
        .as_array()
        .unwrap()
        .iter()
        .map(|cell| format!("{} {}", cell["shape"], cell["compression"]))
        .collect();
    let expected = [
        r#""simple" "none""#,
        r#""simple" "snappy""#,
        r#""complex" "none""#,
        r#""complex" "snappy""#,
    ];
    assert_eq!(names, expected);
    // One progress line per cell, each printed by the cell's own process.
    assert_eq!(stderr.matches(" rows ").count(), 4, "{stderr}");
    let md = std::fs::read_to_string(dir.path().join("writer-bench-system.md")).unwrap();
    assert!(md.contains("process of its own"), "{md}");
}

#[test]
fn a_cell_outside_the_run_is_refused() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_writer-bench"))
        .args(["--rows", "300", "--columns", "3", "--compressions", "none"])
        .args(["--contacts-rows", "0", "--cell", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--cell 2: the run has 2 cells"), "{stderr}");
}
