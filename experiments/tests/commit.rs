//! What a run leaves on disk: every part or none under final names, a manifest written last,
//! nothing after a signal, an earlier run whole until a new one is committed, no empty files,
//! and no panic when stdout is gone.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    assert_empty, assert_unchanged, contents, entries, pipeline_command, run_ok, run_pipeline,
};
use shredlab_experiments::config::{PipelineConfig, RunRequest};
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::output::{Output, RunIdentity, SinkFactory};
use shredlab_experiments::shard::Shard;

/// The identity of a whole run of `rows` rows with the defaults.
fn identity(rows: u64) -> RunIdentity {
    let request = RunRequest {
        rows,
        ..RunRequest::default()
    };
    RunIdentity::of(&PipelineConfig::resolve(&request, 2).unwrap())
}

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
            // Row groups small enough for fused workers (the default) to fill three files.
            "--row-group-rows",
            "4096",
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
    // prepare(overwrite) leaves the finished run whole: only a commit replaces it.
    let manifest = output.manifest().unwrap().expect("the manifest stays");
    assert_eq!(manifest.files.len(), 3);
    assert_eq!(output.part_files().unwrap().len(), 3);
}

#[test]
fn the_manifest_lists_the_files_rows_and_digest() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok(
        &[
            "-n",
            "20000",
            "--writers",
            "2",
            "--row-group-rows",
            "4096",
            "--verify",
            "-q",
            "--json",
        ],
        dir.path(),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("part-manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["rows"], 20000);
    assert_eq!(manifest["verified"], true);
    assert_eq!(manifest["digest"], report["digest"]);
    assert!(manifest["build"]["dirty"].is_boolean(), "{manifest}");
    assert_eq!(manifest["build"], report["build"]);
    let run = &manifest["run"];
    assert_eq!(
        (&run["workload"], &run["seed"], &run["rows"]),
        (&"contacts".into(), &42.into(), &20000.into())
    );
    assert_eq!((&run["part"], &run["parts"]), (&0.into(), &1.into()));
    assert_eq!(run["definition"].as_str().unwrap().len(), 32);
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
fn an_unverified_manifest_says_so_and_has_no_digest() {
    let dir = tempfile::tempdir().unwrap();
    run_ok(&["-n", "2000", "-q"], dir.path());
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("part-manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["verified"], false);
    assert!(manifest.get("digest").is_none(), "{manifest}");
}

/// Commits three files into `output`, the temporary file of writer 1 gone before the commit,
/// so that its rename fails.
fn commit_with_a_failing_rename(output: &OutputDir) -> String {
    let sinks: Vec<_> = (0..3)
        .map(|w| {
            let mut sink = output.create(w).unwrap();
            sink.write_all(b"bytes").unwrap();
            sink
        })
        .collect();
    std::fs::remove_file(sinks[1].temp_path()).unwrap();
    output
        .commit(sinks, &identity(3), 3, None)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_failed_rename_leaves_no_part_under_a_final_name() {
    let dir = tempfile::tempdir().unwrap();
    let output = OutputDir::prepare(dir.path(), true, Shard::WHOLE).unwrap();
    let err = commit_with_a_failing_rename(&output);
    assert!(err.contains("part-00001.parquet"), "{err}");
    assert_empty(dir.path());
}

#[test]
fn a_failed_rename_puts_the_earlier_run_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    run_ok(
        &[
            "-n",
            "20000",
            "--writers",
            "2",
            "--row-group-rows",
            "4096",
            "-q",
        ],
        dir.path(),
    );
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    let before = contents(dir.path());
    let output = OutputDir::prepare(dir.path(), true, Shard::WHOLE).unwrap();
    let err = commit_with_a_failing_rename(&output);
    assert!(err.contains("part-00001.parquet"), "{err}");
    assert_unchanged(dir.path(), &before);
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

/// Starts a long run of `experiment` (with `extra` arguments), waits until its temporary files
/// exist, and sends it `signal`.
fn interrupt(dir: &Path, experiment: &str, signal: &str, extra: &[&str]) -> std::process::Output {
    let child: Child = pipeline_command()
        .args(["-e", experiment, "-n", "2000000000", "-q"])
        .args(extra)
        .arg("-o")
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
fn sigint_sigterm_and_sighup_stop_the_run_and_remove_its_files() {
    // The channel pipeline, and fused row-group workers (some waiting for room) with 3 files.
    for (experiment, extra) in [
        ("8", &[][..]),
        ("28", &["--producers", "4", "--writers", "3"]),
    ] {
        for (signal, code) in [("-INT", 130), ("-TERM", 143), ("-HUP", 129)] {
            let dir = tempfile::tempdir().unwrap();
            let out = interrupt(dir.path(), experiment, signal, extra);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(code),
                "-e {experiment} {signal}: {stderr}"
            );
            assert!(stderr.contains("nothing was committed"), "{stderr}");
            assert_empty(dir.path());
        }
    }
}

#[test]
fn a_second_signal_ends_the_run_at_once_and_says_what_may_remain() {
    let dir = tempfile::tempdir().unwrap();
    let child: Child = pipeline_command()
        .args(["-n", "2000000000", "-q", "-o"])
        .arg(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !entries(dir.path()).iter().any(|n| n.ends_with(".tmp")) {
        assert!(Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Two different signals (two of one kind merge into one) sent while the process is
    // stopped, so that both are pending when it continues: the second is handled before the
    // first's clean stop can end the run.
    let pid = child.id().to_string();
    let status = Command::new("sh")
        .args([
            "-c",
            "for s in STOP INT TERM CONT; do kill -$s \"$0\"; done",
            &pid,
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The kernel picks which of the two pending signals is handled first.
    assert!(matches!(out.status.code(), Some(130 | 143)), "{stderr}");
    assert!(
        stderr.contains("a second signal ended the run at once, before it had cleaned up: the output may hold its temporary files; the next run into it names them"),
        "{stderr}"
    );
}

#[test]
fn an_interrupted_overwrite_leaves_the_earlier_run_whole() {
    let dir = tempfile::tempdir().unwrap();
    run_ok(
        &[
            "-n",
            "100000",
            "--writers",
            "2",
            "--row-group-rows",
            "16384",
            "-q",
        ],
        dir.path(),
    );
    let before = contents(dir.path());
    let out = interrupt(dir.path(), "8", "-INT", &["--overwrite"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("nothing was committed"), "{stderr}");
    assert_unchanged(dir.path(), &before);
}

#[test]
fn what_a_killed_run_left_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let temporary = ".part-00000.parquet.a1b2c3.tmp";
    std::fs::write(dir.path().join(temporary), b"half").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    let refused = |dir: &Path| {
        let out = pipeline_command()
            .args(["-n", "1000", "-q", "-o"])
            .arg(dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = refused(dir.path());
    assert!(
        stderr.contains(&format!(
            "it holds {temporary}, a temporary file of a run that was killed, or of one still writing here): if no other run is writing to this directory, pass --overwrite to remove it"
        )),
        "{stderr}"
    );
    let set_aside = ".part-manifest.json.f00.old.tmp";
    std::fs::write(dir.path().join(set_aside), b"{}").unwrap();
    let stderr = refused(dir.path());
    assert!(
        stderr.contains(set_aside)
            && stderr.contains("set aside by a run killed while it committed")
            && stderr.contains("rename every .NAME.XXXX.old.tmp file back to NAME"),
        "{stderr}"
    );
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
    // Nor is a directory named like one of ours: it stays, its contents with it (removing it
    // as a file failed, and no run could start).
    let folder = ".part-00000.parquet.mine.tmp";
    std::fs::create_dir_all(dir.path().join(folder).join("inside")).unwrap();
    run_ok(&["-n", "1000", "-q", "--overwrite"], dir.path());
    assert!(dir.path().join(folder).join("inside").is_dir());
    assert_eq!(
        entries(dir.path()),
        [
            folder,
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
        assert!(
            report["stolen_s"].as_f64().unwrap() >= 0.0,
            "steal from /proc/stat"
        );
        assert!(!out_dir.exists());
    }
}

/// Runs `pipeline ARGS --overwrite -o MOUNT` on a tmpfs of `bytes` bytes mounted at MOUNT in a
/// private mount namespace, after the same run without `--overwrite` when `earlier`; returns its
/// exit code, its stderr and what it left on the tmpfs, or `None` where this system cannot
/// mount one (no user namespaces).
fn on_a_small_tmpfs(
    bytes: u64,
    earlier: bool,
    args: &[&str],
) -> Option<(i32, String, BTreeMap<String, Vec<u8>>)> {
    const SCRIPT: &str = r#"
        bytes=$1 mount=$2 left=$3 earlier=$4 bin=$5; shift 5
        mount -t tmpfs -o size="$bytes" tmpfs "$mount" || exit 99
        if [ "$earlier" = true ]; then "$bin" "$@" -o "$mount" > /dev/null || exit 98; fi
        code=0
        "$bin" "$@" --overwrite -o "$mount" > /dev/null 2> "$left/../stderr" || code=$?
        cp -a "$mount/." "$left/"
        exit $code
    "#;
    let scratch = tempfile::tempdir().unwrap();
    let (mount, left) = (scratch.path().join("mount"), scratch.path().join("left"));
    std::fs::create_dir(&mount).unwrap();
    std::fs::create_dir(&left).unwrap();
    let out = Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            SCRIPT,
            "sh",
        ])
        .arg(bytes.to_string())
        .args([&mount, &left])
        .arg(earlier.to_string())
        .arg(env!("CARGO_BIN_EXE_pipeline"))
        .args(args)
        .output()
        .ok()?;
    match out.status.code() {
        Some(99) | None => {
            eprintln!(
                "skipped: cannot mount a tmpfs here: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            None
        }
        Some(98) => panic!("the earlier run did not fit"),
        Some(code) => {
            let stderr = std::fs::read_to_string(scratch.path().join("stderr")).unwrap();
            Some((code, stderr, contents(&left)))
        }
    }
}

#[test]
fn a_disk_full_at_the_manifest_leaves_no_run_or_the_earlier_one_whole() {
    // One producer: every run writes the same bytes, so the sizes below are exact.
    let args = [
        "-n",
        "30000",
        "--producers",
        "1",
        "--writers",
        "2",
        "--row-group-rows",
        "4096",
        "-q",
    ];
    let reference = tempfile::tempdir().unwrap();
    run_ok(&args, reference.path());
    let page: u64 = String::from_utf8(
        Command::new("getconf")
            .arg("PAGESIZE")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap();
    let part_pages: u64 = (0..2)
        .map(|w| {
            let path = reference.path().join(format!("part-0000{w}.parquet"));
            std::fs::metadata(path).unwrap().len().div_ceil(page)
        })
        .sum();
    // Room for the new parts and nothing more: the manifest cannot be written.
    let Some((code, stderr, left)) = on_a_small_tmpfs(part_pages * page, false, &args) else {
        return;
    };
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("No space left"), "{stderr}");
    assert!(left.is_empty(), "left {:?}", left.keys());
    // The same with an earlier run (its parts and manifest) on the disk too.
    let room = (2 * part_pages + 1) * page;
    let (code, stderr, left) = on_a_small_tmpfs(room, true, &args).unwrap();
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("No space left"), "{stderr}");
    assert!(left == contents(reference.path()), "left {:?}", left.keys());
}

/// A directory where a part would go is not a run to replace: even with `--overwrite` the run
/// stops before writing, naming it, and leaves it as it was.
#[test]
fn a_directory_at_a_part_path_is_named_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let taken = dir.path().join("part-00000.parquet");
    std::fs::create_dir(&taken).unwrap();
    std::fs::write(taken.join("inside"), b"kept").unwrap();
    let output = dir.path().to_str().unwrap();
    let out = run_pipeline(&["-n", "1000", "-q", "--overwrite", "-o", output]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("is a directory, not a regular file"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(taken.join("inside")).unwrap(), b"kept");
    assert_eq!(entries(dir.path()), ["part-00000.parquet"]);
}
