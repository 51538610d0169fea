//! `--output s3://...` against a real S3-compatible server (Garage, started per test on
//! 127.0.0.1): the objects are the bytes a local run writes, appear only when a run succeeds,
//! and a failed, interrupted or refused run leaves no object and no unfinished upload.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::run_ok;
use common::s3::{LocalS3, BUCKET};
use shredlab_experiments::config::{PipelineConfig, RunRequest};
use shredlab_experiments::gate::Digest;
use shredlab_experiments::output::store::{StoreOutput, PART_BYTES};
use shredlab_experiments::output::{Manifest, Output as _, SinkFactory, StoreUrl};
use shredlab_experiments::shard::Shard;
use shredlab_experiments::source::{BatchSource, ContactSource};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn run_to_store(server: &LocalS3, args: &[&str], prefix: &str) -> Output {
    server
        .pipeline_command()
        .args(args)
        .args(["-q", "-o", &format!("s3://{BUCKET}/{prefix}")])
        .output()
        .unwrap()
}

#[test]
fn objects_are_the_bytes_of_a_local_run_and_appear_with_their_manifest() {
    let server = LocalS3::start();
    let local = tempfile::tempdir().unwrap();
    // 1 M rows in 2 files of about 14 MB: several 8 MiB parts each.
    let args = [
        "-e",
        "20",
        "-n",
        "1000000",
        "--writers",
        "2",
        "--verify",
        "--json",
    ];
    let out = run_to_store(&server, &args, "runs/one");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["gate"], "pass");
    assert_eq!(
        report["files"],
        serde_json::json!([
            format!("s3://{BUCKET}/runs/one/part-00000.parquet"),
            format!("s3://{BUCKET}/runs/one/part-00001.parquet"),
        ])
    );
    assert_eq!(
        server.keys("runs/one"),
        [
            "part-00000.parquet",
            "part-00001.parquet",
            "part-manifest.json"
        ]
    );
    run_ok(&args, local.path());
    for name in ["part-00000.parquet", "part-00001.parquet"] {
        let stored = server.get(&format!("runs/one/{name}"));
        assert!(stored.len() > PART_BYTES, "{name} fits in one part");
        assert!(
            stored == std::fs::read(local.path().join(name)).unwrap(),
            "{name} differs from the local run's"
        );
    }
    let manifest: Manifest =
        serde_json::from_slice(&server.get("runs/one/part-manifest.json")).unwrap();
    assert!(manifest.verified && manifest.digest.is_some());
    assert_eq!(
        manifest,
        Manifest::read(local.path(), Shard::WHOLE).unwrap().unwrap()
    );
    assert_eq!(server.unfinished_uploads(), 0);
}

#[test]
fn a_prefix_in_use_needs_overwrite_and_old_parts_go_at_the_commit() {
    let server = LocalS3::start();
    let out = run_to_store(&server, &["-n", "30000", "--writers", "3"], "p");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run_to_store(&server, &["-n", "30000"], "p");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is not empty") && stderr(&out).contains("--overwrite"),
        "{}",
        stderr(&out)
    );
    let out = run_to_store(
        &server,
        &["-n", "30000", "--writers", "1", "--overwrite", "--verify"],
        "p",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        server.keys("p"),
        ["part-00000.parquet", "part-manifest.json"]
    );
}

/// Runs a small write to `url` with `env` on top of the server's variables; asserts that it
/// exits 1 saying `says`.
fn refused(server: &LocalS3, env: &[(&str, &str)], url: &str, says: &str) {
    let out = server
        .pipeline_command()
        .envs(env.iter().copied())
        .args(["-n", "1000", "-q", "-o", url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(says), "{}", stderr(&out));
}

#[test]
fn refused_credentials_a_missing_bucket_and_no_server_are_named() {
    let server = LocalS3::start();
    let earlier = run_to_store(&server, &["-n", "1000"], "x");
    assert!(earlier.status.success(), "{}", stderr(&earlier));
    let wrong_secret = "0".repeat(64);
    let url = format!("s3://{BUCKET}/x");
    refused(
        &server,
        &[("AWS_SECRET_ACCESS_KEY", &wrong_secret)],
        &url,
        "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    );
    refused(&server, &[], "s3://no-such-bucket/x", "does not exist");
    let started = Instant::now();
    // Port 9 (discard): nothing listens.
    let unreachable = [("AWS_ENDPOINT", "http://127.0.0.1:9")];
    refused(&server, &unreachable, &url, "cannot reach the endpoint");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "retries must be bounded"
    );
    // None of them touched what was there.
    assert_eq!(
        server.keys("x"),
        ["part-00000.parquet", "part-manifest.json"]
    );
    assert_eq!(server.unfinished_uploads(), 0);
}

/// Starts a run (with `extra` arguments) long enough to be stopped mid-upload, and waits until
/// its upload has begun.
fn start_long_run(server: &LocalS3, prefix: &str, extra: &[&str]) -> std::process::Child {
    let child = server
        .pipeline_command()
        .args([
            "-e",
            "20",
            "-n",
            "40000000",
            "-q",
            "-o",
            &format!("s3://{BUCKET}/{prefix}"),
        ])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.unfinished_uploads() == 0 {
        assert!(Instant::now() < deadline, "the upload never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    child
}

/// Starts a long run (see [`start_long_run`]), sends it `signal` mid-upload, and waits for it.
fn interrupt(server: &LocalS3, prefix: &str, extra: &[&str], signal: &str) -> Output {
    let child = start_long_run(server, prefix, extra);
    std::thread::sleep(Duration::from_millis(300));
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait_with_output().unwrap()
}

#[test]
fn a_signal_mid_upload_aborts_the_upload() {
    let server = LocalS3::start();
    let out = interrupt(&server, "sig", &[], "-TERM");
    assert_eq!(out.status.code(), Some(143), "{}", stderr(&out));
    assert!(server.keys("sig").is_empty());
    assert_eq!(server.unfinished_uploads(), 0);
}

#[test]
fn a_server_killed_mid_upload_fails_the_run_and_its_upload_is_aborted_when_it_returns() {
    let server = LocalS3::start();
    let mut child = start_long_run(&server, "killed", &[]);
    server.kill();
    // The run fails its part uploads after bounded retries, then retries the abort until the
    // server answers: restart it then, as a supervisor would.
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let retrying = line.contains("cannot abort the upload") && line.contains("retrying");
        said.push(line);
        if retrying {
            break;
        }
    }
    server.restart();
    said.extend(lines.map(Result::unwrap));
    let status = child.wait().unwrap();
    let said = said.join("\n");
    assert_eq!(status.code(), Some(1), "{said}");
    assert!(
        said.contains("upload of") && said.contains("failed"),
        "{said}"
    );
    assert!(server.keys("killed").is_empty());
    assert_eq!(server.unfinished_uploads(), 0, "{said}");
}

#[test]
fn a_gate_mismatch_deletes_the_read_back_objects() {
    let server = LocalS3::start();
    let url = StoreUrl::parse(&format!("s3://{BUCKET}/gate"))
        .unwrap()
        .unwrap();
    let output = StoreOutput::prepare(url, &server.settings(), false, Shard::WHOLE, true).unwrap();
    let request = RunRequest {
        rows: 5000,
        verify: true,
        ..RunRequest::default()
    };
    let config = PipelineConfig::resolve(&request, 2).unwrap();
    let source =
        ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations).unwrap();
    let batch = source.maker().make(0..5000);
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(output.create(0).unwrap(), batch.schema(), None)
            .unwrap();
    writer.write(&batch).unwrap();
    let mut sinks = vec![writer.into_inner().unwrap()];
    let read_back = output.read_back(&mut sinks).unwrap();
    assert_eq!(read_back.digest, Digest::of_batch(&batch).unwrap());
    // Staged under a temporary name: nothing final yet.
    let staged = server.keys("gate");
    assert!(
        staged.len() == 1 && staged[0].starts_with(".part-00000.parquet."),
        "{staged:?}"
    );
    drop(sinks); // what a failed gate does
    assert!(server.keys("gate").is_empty());
    assert_eq!(server.unfinished_uploads(), 0);
}

/// Every object under `prefix` with its bytes.
fn objects(server: &LocalS3, prefix: &str) -> Vec<(String, Vec<u8>)> {
    server
        .keys(prefix)
        .into_iter()
        .map(|key| {
            let bytes = server.get(&format!("{prefix}/{key}"));
            (key, bytes)
        })
        .collect()
}

#[test]
fn an_interrupted_overwrite_leaves_the_earlier_run_whole() {
    let server = LocalS3::start();
    let out = run_to_store(&server, &["-n", "30000", "--writers", "2"], "keep");
    assert!(out.status.success(), "{}", stderr(&out));
    let before = objects(&server, "keep");
    for extra in [&["--overwrite"][..], &["--overwrite", "--verify"]] {
        let out = interrupt(&server, "keep", extra, "-INT");
        assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
        assert!(
            objects(&server, "keep") == before,
            "{:?}",
            server.keys("keep")
        );
        assert_eq!(server.unfinished_uploads(), 0);
    }
    // A finished overwrite replaces it, and removes what it set aside.
    let out = run_to_store(
        &server,
        &["-n", "20000", "--writers", "1", "--overwrite"],
        "keep",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        server.keys("keep"),
        ["part-00000.parquet", "part-manifest.json"]
    );
    let manifest: Manifest =
        serde_json::from_slice(&server.get("keep/part-manifest.json")).unwrap();
    assert_eq!((manifest.rows, manifest.verified), (20000, false));
}

#[test]
fn a_shard_of_another_run_in_the_prefix_is_refused() {
    let server = LocalS3::start();
    let shard = |part: &'static str, seed: &'static str| {
        ["-n", "3000", "--parts", "2", "--part", part, "--seed", seed]
    };
    let out = run_to_store(&server, &shard("0", "42"), "mixed");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run_to_store(&server, &shard("1", "7"), "mixed");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("belongs to another run")
            && stderr(&out).contains("--seed 42, this run 7"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.keys("mixed").len(), 2, "{:?}", server.keys("mixed"));
}

#[test]
fn counters_count_the_object_store_s_threads_as_io() {
    let server = LocalS3::start();
    let out = run_to_store(
        &server,
        &["-n", "1000000", "--counters", "--json"],
        "counted",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counters = &report["counters"];
    let io = counters["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["role"] == "io")
        .expect("the client's runtime threads are counted");
    assert!(io["threads"].as_u64().unwrap() >= 1, "{io}");
    assert!(io["cpu_s"].as_f64().unwrap() > 0.0, "{io}");
    let counted = counters["counted_cpu_s"].as_f64().unwrap();
    let process = counters["process_cpu_s"].as_f64().unwrap();
    // The process's figure is the difference of two readings of /proc in 10 ms ticks, and the
    // kernel samples it per tick: at a quarter second of CPU that alone is off by 20-30 ms. Five
    // ticks is the floor below which the report itself calls a gap resolution, not uncounted.
    let tolerance = (0.1 * process).max(0.05);
    assert!(
        (counted - process).abs() <= tolerance,
        "counted {counted} CPU s of the process's {process}"
    );
}
