//! `pipeline --counters`: every thread the run starts is counted once, under its role, and the
//! roles' CPU time adds up to the process's; the hardware figures are there where the PMU
//! allows, and their absence is explained where it does not.

mod common;

use common::{json_report, run_ok, run_pipeline};
use serde_json::Value;

/// The `--json` report of `pipeline ARGS --counters --json` into a fresh folder.
fn counted(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    json_report(&[args, &["--counters"]].concat(), &dir.path().join("out"))
}

/// Each role's thread count, by name.
fn threads(report: &Value) -> Vec<(String, u64)> {
    report["counters"]["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["role"].as_str().unwrap().to_string(),
                r["threads"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_thread_is_counted_once_under_its_role() {
    let report = counted(&[
        "-e",
        "27",
        "-n",
        "2000000",
        "--producers",
        "3",
        "--writers",
        "2",
        "--batch-size",
        "8192",
    ]);
    let pool = report["pool_threads"].as_u64().unwrap();
    assert!(pool > 0, "the parallel writers started their pools");
    let expected = vec![
        ("producers".to_string(), 3),
        ("encoders".to_string(), pool),
        ("writers".to_string(), 2),
        ("main".to_string(), 1),
    ];
    assert_eq!(threads(&report), expected);
    let counters = &report["counters"];
    assert_eq!(counters["thread_failure"], Value::Null);
    for role in counters["roles"].as_array().unwrap() {
        assert_eq!(role["failed_threads"], 0, "{role}");
    }
}

#[test]
fn fused_workers_are_counted_under_their_own_role() {
    let args = [
        "-e",
        "28",
        "-n",
        "2000000",
        "--producers",
        "3",
        "--writers",
        "2",
    ];
    let report = counted(&[&args[..], &["--row-group-rows", "100000"]].concat());
    assert_eq!(report["pool_threads"], 0, "no encoder pool");
    let expected = vec![("main".to_string(), 1), ("fused".to_string(), 3)];
    assert_eq!(threads(&report), expected);
}

#[test]
fn the_roles_cpu_time_adds_up_to_the_process_s() {
    // Enough rows for a second of CPU, against the 10 ms resolution of the process's figure.
    let report = counted(&["-n", "6000000"]);
    let counters = &report["counters"];
    let counted = counters["counted_cpu_s"].as_f64().unwrap();
    let process = counters["process_cpu_s"].as_f64().unwrap();
    let stolen = counters["stolen_s"]
        .as_f64()
        .expect("the machine's steal, from /proc/stat");
    assert_eq!(counters["stolen_s"], report["stolen_s"]);
    // Under a hypervisor, perf's task-clock counts the time stolen from a running thread and
    // the kernel's CPU times do not: the roles may count up to the steal of the run more.
    assert!(
        counted >= 0.95 * process && counted <= 1.05 * process + stolen,
        "the roles counted {counted} CPU s, the process used {process}, {stolen} s were stolen"
    );
    let shares: f64 = counters["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["share"].as_f64().unwrap())
        .sum();
    assert!((shares - 1.0).abs() < 1e-9, "shares sum to {shares}");
}

#[test]
fn parquet_s_own_writer_has_no_encoders() {
    let report = counted(&["-e", "0", "-n", "100000"]);
    let roles: Vec<String> = threads(&report).into_iter().map(|(r, _)| r).collect();
    assert_eq!(roles, ["producers", "writers", "main"]);
}

#[test]
fn hardware_figures_are_given_or_their_absence_explained() {
    let report = counted(&["-e", "27", "-n", "500000"]);
    let counters = &report["counters"];
    let producers = &counters["roles"][0];
    match counters["hardware_missing"].as_str() {
        None => {
            let ipc = producers["ipc"].as_f64().expect("IPC with hardware events");
            assert!(ipc > 0.0 && ipc < 10.0, "IPC {ipc}");
            assert!(producers["instructions_per_row"].as_f64().unwrap() > 100.0);
        }
        Some(why) => {
            eprintln!("hardware path skipped on this machine: {why}");
            assert!(why.contains("hardware events"), "{why}");
            assert_eq!(producers["ipc"], Value::Null);
            let source = counters["source"].as_str().unwrap();
            assert!(
                source.contains(why),
                "the source names the reason: {source}"
            );
        }
    }
}

#[test]
fn the_text_report_has_the_table_and_the_json_only_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    for (experiment, role) in [("27", "  producers "), ("28", "  fused ")] {
        let out = run_ok(
            &["-e", experiment, "-n", "100000", "--counters"],
            &dir.path().join(experiment),
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("counters: perf_event_open per thread"),
            "{text}"
        );
        assert!(text.contains(role), "{text}");
    }
    let plain = run_pipeline(&["-n", "1000", "--sink", "null", "--json"]);
    let report: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(report.get("counters").is_none(), "{report}");
}

#[test]
fn generation_alone_is_counted_too() {
    for (experiment, role) in [("27", "producers"), ("28", "fused")] {
        let out = run_pipeline(&[
            "-e",
            experiment,
            "-n",
            "200000",
            "--producers",
            "2",
            "--sink",
            "null",
            "--counters",
            "--json",
            "-q",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let roles: Vec<(String, u64)> = threads(&report);
        assert!(
            roles.contains(&(role.to_string(), 2)),
            "-e {experiment}: {roles:?}"
        );
    }
}
