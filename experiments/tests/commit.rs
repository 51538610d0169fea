//! What a run leaves on disk: every part or none under final names, a manifest written last,
//! nothing after a signal, no empty files, and no panic when stdout is gone.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{entries, pipeline_command, run_ok};
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::output::{Output, SinkFactory};
use shredlab_experiments::shard::Shard;

#[test]
fn a_run_commits_every_part_and_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    run_ok(
        &[
            "-n",
            "20000",
            "--batch-size",
            "1024",
            "--writers",
            "3",
            "--verify",
            "-q",
        ],
        dir.path(),
    );
    let names = entries(dir.path());
    assert_eq!(
        names,
        [
            "part-00000.parquet",
            "part-00001.parquet",
            "part-00002.parquet",
            "part-manifest.json"
        ]
    );
    let output = OutputDir::prepare(dir.path(), true, Shard::WHOLE).unwrap();
    // prepare(overwrite) withdraws the manifest: the old parts are no longer vouched for.
    assert_eq!(output.manifest().unwrap(), None);
}

#[test]
fn the_manifest_lists_the_files_rows_and_digest() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok(
        &["-n", "20000", "--writers", "2", "--verify", "-q", "--json"],
        dir.path(),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("part-manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["rows"], 20000);
    assert_eq!(manifest["digest"], report["digest"]);
    let names: Vec<_> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["part-00000.parquet", "part-00001.parquet"]);
    for file in manifest["files"].as_array().unwrap() {
        let on_disk = std::fs::metadata(dir.path().join(file["name"].as_str().unwrap()))
            .unwrap()
            .len();
        assert_eq!(file["bytes"], on_disk);
    }
}

#[test]
fn a_failed_rename_leaves_no_part_under_a_final_name() {
    let dir = tempfile::tempdir().unwrap();
    let output = OutputDir::prepare(dir.path(), true, Shard::WHOLE).unwrap();
    // A non-empty directory where writer 1's file should go: its rename must fail.
    let blocker = output.part_path(1);
    std::fs::create_dir(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), b"x").unwrap();
    let sinks: Vec<_> = (0..3)
        .map(|w| {
            let mut sink = output.create(w).unwrap();
            sink.write_all(b"bytes").unwrap();
            sink
        })
        .collect();
    let err = output.commit(sinks, 3, None).unwrap_err();
    assert!(err.to_string().contains("part-00001.parquet"), "{err}");
    assert_eq!(
        entries(dir.path()),
        ["part-00001.parquet"],
        "only the blocker is left"
    );
    assert!(blocker.is_dir());
}

#[test]
fn more_writers_than_batches_write_no_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok(
        &["-n", "100", "--writers", "200", "--verify", "-q", "--json"],
        dir.path(),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["writers"], 1);
    assert_eq!(report["rows"], 100);
    assert_eq!(
        entries(dir.path()),
        ["part-00000.parquet", "part-manifest.json"]
    );
}

/// Starts a long run, waits until its temporary files exist, and sends it `signal`.
fn interrupt(dir: &Path, signal: &str) -> std::process::Output {
    let child: Child = pipeline_command()
        .args(["-e", "8", "-n", "2000000000", "-q", "-o"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !entries(dir).iter().any(|n| n.ends_with(".tmp")) {
        assert!(Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait_with_output().unwrap()
}

#[test]
fn sigint_and_sigterm_stop_the_run_and_remove_its_files() {
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        let dir = tempfile::tempdir().unwrap();
        let out = interrupt(dir.path(), signal);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{signal}: {stderr}");
        assert!(stderr.contains("nothing was committed"), "{stderr}");
        assert!(
            entries(dir.path()).is_empty(),
            "left {:?}",
            entries(dir.path())
        );
    }
}

#[test]
fn overwrite_clears_what_a_killed_run_left() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        ".part-00000.parquet.a1b2c3.tmp",
        ".part-manifest.json.x.tmp",
    ] {
        std::fs::write(dir.path().join(name), vec![0u8; 1000]).unwrap();
    }
    std::fs::write(dir.path().join("part-manifest.json"), b"{}").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    // Another shard's temporary file is not ours to remove.
    let other = "shard-00000-of-00002-part-00000.parquet";
    std::fs::write(dir.path().join(format!(".{other}.z.tmp")), b"").unwrap();
    run_ok(&["-n", "1000", "-q", "--overwrite"], dir.path());
    assert_eq!(
        entries(dir.path()),
        [
            format!(".{other}.z.tmp").as_str(),
            "notes.txt",
            "part-00000.parquet",
            "part-manifest.json"
        ]
    );
}

#[test]
fn a_closed_or_full_stdout_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = pipeline_command()
        .args(["-n", "1000", "-q", "-o"])
        .arg(dir.path())
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write to stdout"), "{stderr}");
    assert!(stderr.contains("its files are committed"), "{stderr}");

    let mut child = pipeline_command()
        .args(["--list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn sync_none_commits_the_same_files_and_says_so() {
    let reports: Vec<serde_json::Value> = ["end", "none"]
        .iter()
        .map(|sync| {
            let dir = tempfile::tempdir().unwrap();
            let out = run_ok(
                &["-n", "20000", "--verify", "-q", "--json", "--sync", sync],
                dir.path(),
            );
            assert_eq!(
                entries(dir.path()),
                ["part-00000.parquet", "part-manifest.json"]
            );
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    assert_eq!(reports[0]["sync"], "end");
    assert_eq!(reports[1]["sync"], "none");
    assert_eq!(reports[0]["digest"], reports[1]["digest"]);
}

#[test]
fn sink_null_generates_every_row_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("never-created");
    let out = run_ok(
        &["-e", "20", "-n", "50000", "--json", "--sink", "null"],
        &out_dir,
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["sink"], "null");
    assert_eq!(report["rows"], 50000);
    assert!(report["arrow_bytes"].as_u64().unwrap() > 0);
    assert_eq!(report["files"].as_array().unwrap().len(), 0);
    assert!(
        !out_dir.exists(),
        "--sink null created the output directory"
    );
    for sink in ["null", "count"] {
        let refused = pipeline_command()
            .args(["--sink", sink, "--verify", "-n", "10"])
            .output()
            .unwrap();
        assert!(!refused.status.success());
        assert!(String::from_utf8_lossy(&refused.stderr).contains("--sink count write none"));
    }
}

#[test]
fn sink_count_encodes_and_counts_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let written = run_ok(&["-e", "20", "-n", "50000", "--json", "-q"], dir.path());
    let written: serde_json::Value = serde_json::from_slice(&written.stdout).unwrap();
    let out_dir = dir.path().join("never-created");
    for extra in [&[][..], &["--prebuilt"][..]] {
        let mut args = vec!["-e", "20", "-n", "50000", "--json", "--sink", "count"];
        args.extend_from_slice(extra);
        let out = run_ok(&args, &out_dir);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["sink"], "count");
        assert_eq!(report["prebuilt"], !extra.is_empty());
        assert_eq!(report["rows"], 50000);
        // Same data, same writer: within a few bytes of the file (batch order may differ).
        let counted = report["output_bytes"].as_f64().unwrap();
        let on_disk = written["output_bytes"].as_f64().unwrap();
        assert!(
            (counted / on_disk - 1.0).abs() < 0.01,
            "{counted} vs {on_disk}"
        );
        // Reported; /proc counts CPU in 10 ms ticks, so a run this short may read 0.
        assert!(report["cores_busy"].as_f64().unwrap() >= 0.0);
        assert!(!out_dir.exists());
    }
}
