//! `pipeline --counters` by phase and `--timeline FILE`: each thread that does more than one
//! thing splits its counts by phase, and the phases add up to the thread's role; the timeline
//! holds every thread's intervals, back to back from its start to its end.

mod common;

use std::collections::BTreeMap;

use common::{json_report, run_pipeline};
use serde_json::Value;

/// The `--json` report of `pipeline ARGS --counters --timeline DIR/timeline.csv --json`, and
/// the timeline's rows.
fn observed(args: &[&str]) -> (Value, Vec<Vec<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let timeline = dir.path().join("timeline.csv");
    let report = json_report(
        &[
            args,
            &["--counters", "--timeline", timeline.to_str().unwrap()],
        ]
        .concat(),
        &dir.path().join("out"),
    );
    let text = std::fs::read_to_string(&timeline).expect("the timeline was written");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("thread,role,phase,start_ns,end_ns,rows"));
    let rows = lines
        .map(|line| line.split(',').map(str::to_string).collect())
        .collect();
    (report, rows)
}

/// Per role, the CPU seconds of its phases, summed.
fn phase_cpu_by_role(report: &Value) -> BTreeMap<String, f64> {
    let mut sums = BTreeMap::new();
    for phase in report["counters"]["phases"].as_array().unwrap() {
        let role = phase["role"].as_str().unwrap().to_string();
        *sums.entry(role).or_insert(0.0) += phase["cpu_s"].as_f64().unwrap();
    }
    sums
}

fn role_cpu(report: &Value, role: &str) -> f64 {
    let roles = report["counters"]["roles"].as_array().unwrap();
    let entry = roles.iter().find(|r| r["role"] == role).unwrap();
    entry["cpu_s"].as_f64().unwrap()
}

fn phases_of(report: &Value, role: &str) -> Vec<String> {
    let phases = report["counters"]["phases"].as_array().unwrap();
    phases
        .iter()
        .filter(|p| p["role"] == role)
        .map(|p| p["phase"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_role_s_phases_add_up_to_its_cpu_time() {
    for (experiment, roles) in [("36", &["fused"][..]), ("27", &["producers", "writers"])] {
        let (report, _) = observed(&["-e", experiment, "-n", "1000000"]);
        let sums = phase_cpu_by_role(&report);
        for role in roles {
            let (phases, total) = (sums[*role], role_cpu(&report, role));
            assert!(
                (phases - total).abs() <= 0.03 * total,
                "-e {experiment} {role}: phases {phases} s, role {total} s"
            );
        }
        let reads = &report["counters"]["boundary_reads"];
        assert!(reads["reads"].as_u64().unwrap() > 0, "{reads}");
    }
}

#[test]
fn fused_workers_and_channel_threads_report_their_phases() {
    let (fused, _) = observed(&["-e", "36", "-n", "500000", "--row-group-rows", "100000"]);
    let phases = phases_of(&fused, "fused");
    for phase in ["generate", "encode", "append", "wait", "tail"] {
        assert!(phases.contains(&phase.to_string()), "fused: {phases:?}");
    }
    let (channels, _) = observed(&["-e", "27", "-n", "500000"]);
    assert!(phases_of(&channels, "producers").contains(&"generate".to_string()));
    assert!(phases_of(&channels, "producers").contains(&"send".to_string()));
    let writers = phases_of(&channels, "writers");
    for phase in ["receive", "encode", "append"] {
        assert!(writers.contains(&phase.to_string()), "writers: {writers:?}");
    }
}

#[test]
fn the_timeline_covers_every_thread_back_to_back() {
    let rows = 600_000u64;
    let (report, timeline) = observed(&["-e", "36", "-n", &rows.to_string()]);
    let mut lanes: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    let mut generated = 0;
    for row in &timeline {
        let [thread, role, phase, start, end, made] = &row[..] else {
            panic!("a timeline row has six fields: {row:?}");
        };
        let (start, end): (u64, u64) = (start.parse().unwrap(), end.parse().unwrap());
        assert!(start <= end, "{row:?}");
        if (role.as_str(), phase.as_str()) == ("fused", "generate") {
            generated += made.parse::<u64>().unwrap();
        }
        lanes.entry(thread.clone()).or_default().push((start, end));
    }
    assert_eq!(generated, rows, "the generate intervals hold every row");
    let threads: Vec<&String> = lanes.keys().collect();
    assert_eq!(threads, ["fused-0", "fused-1", "main"], "{report}");
    for (thread, intervals) in &lanes {
        for pair in intervals.windows(2) {
            assert_eq!(pair[0].1, pair[1].0, "{thread}: a gap or overlap");
        }
    }
}

#[test]
fn a_timeline_without_counters_and_a_bad_timeline_path() {
    let dir = tempfile::tempdir().unwrap();
    let timeline = dir.path().join("t.csv");
    let out = run_pipeline(&[
        "-n",
        "100000",
        "--sink",
        "null",
        "--timeline",
        timeline.to_str().unwrap(),
        "--json",
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report.get("counters").is_none(), "{report}");
    assert!(std::fs::read_to_string(&timeline).unwrap().lines().count() > 2);
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&timeline, &link).unwrap();
    for (path, problem) in [
        (
            dir.path().join("missing").join("t.csv"),
            "its directory does not exist",
        ),
        (dir.path().to_path_buf(), "is a directory"),
        ("/dev/null".into(), "is not a regular file"),
        (link, "is a symbolic link"),
    ] {
        let out = run_pipeline(&["-n", "1000", "--timeline", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains(problem), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // The output directory, which the run would make before the timeline is written.
    let output = dir.path().join("not-yet");
    let output = output.to_str().unwrap();
    let out = run_pipeline(&["-n", "1000", "-q", "-o", output, "--timeline", output]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is the output directory"), "{stderr}");
    assert!(!dir.path().join("not-yet").exists());
    // A committed run's part file or manifest, which the timeline would replace; a directory
    // no file can be created in, found before the run rather than after its commit.
    let earlier = dir.path().join("earlier");
    let earlier_dir = earlier.to_str().unwrap();
    assert!(run_pipeline(&["-n", "1000", "-q", "-o", earlier_dir])
        .status
        .success());
    let fresh = dir.path().join("fresh");
    let fresh = fresh.to_str().unwrap();
    let part = earlier.join("part-00000.parquet");
    let before = std::fs::read(&part).unwrap();
    for (output, timeline, problem) in [
        (
            earlier_dir,
            part.clone(),
            "takes a name of the run's own files in the output directory",
        ),
        (
            earlier_dir,
            earlier.join("part-manifest.json"),
            "takes a name of the run's own files",
        ),
        (
            fresh,
            "/proc/timeline.csv".into(),
            "its directory cannot take a new file",
        ),
    ] {
        let args = [
            "-n",
            "1000",
            "-q",
            "--overwrite",
            "-o",
            output,
            "--timeline",
            timeline.to_str().unwrap(),
        ];
        let out = run_pipeline(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(problem), "{stderr}");
    }
    assert_eq!(std::fs::read(&part).unwrap(), before);
}
