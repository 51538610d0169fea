//! Sharding: the parts of a run, written into one directory, hold exactly the run's data, say
//! which run and part they are, and do not mix with another run's unnoticed.

mod common;

use common::{pipeline_command, run_ok};
use indicatif::ProgressBar;
use shredlab_experiments::config::RunRequest;
use shredlab_experiments::gate::Digest;
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::output::Manifest;
use shredlab_experiments::run::{execute, resolve};
use shredlab_experiments::shard::Shard;

const ROWS: u64 = 30_001;

fn run(dir: &std::path::Path, part: u64, parts: u64, experiment: u32) -> Digest {
    let request = RunRequest {
        experiment,
        rows: ROWS,
        part,
        parts,
        verify: true,
        ..RunRequest::default()
    };
    let config = resolve(&request).unwrap();
    let output = OutputDir::prepare(dir, false, config.shard).unwrap();
    execute(&config, &output, &ProgressBar::hidden())
        .unwrap()
        .digest
        .unwrap()
}

#[test]
fn parts_compose_into_the_whole_run() {
    let whole_dir = tempfile::tempdir().unwrap();
    let whole = run(whole_dir.path(), 0, 1, 0);
    assert_eq!(whole.rows, ROWS);
    for (parts, experiment) in [(3, 0), (4, 13), (7, 17)] {
        let dir = tempfile::tempdir().unwrap();
        let mut sum = Digest::default();
        for part in 0..parts {
            sum += run(dir.path(), part, parts, experiment);
        }
        assert_eq!(sum, whole, "{parts} parts of experiment {experiment}");
        // Readers find each shard's files through its manifest.
        let mut files = Vec::new();
        for part in 0..parts {
            let shard = Shard::try_new(part, parts).unwrap();
            let manifest = Manifest::read(dir.path(), shard).unwrap().unwrap();
            files.extend(manifest.paths(dir.path()));
            let run = &manifest.run;
            assert_eq!(
                (run.seed, run.rows, run.part, run.parts),
                (42, ROWS, part, parts)
            );
            assert!(manifest.verified);
        }
        let mut on_disk: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect();
        on_disk.sort();
        let mut listed = files.clone();
        listed.sort();
        assert_eq!(listed, on_disk, "the manifests list every part file");
        assert_eq!(
            Digest::of_parquet_files(&files).unwrap(),
            whole,
            "files of {parts} parts"
        );
    }
}

#[test]
fn bad_parts_are_rejected_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let out = pipeline_command()
        .args(["-n", "100", "--part", "2", "--parts", "2", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--part 2 is out of range for --parts 2: parts are numbered 0 to 1"),
        "{stderr}"
    );
    let out = pipeline_command()
        .args(["-n", "100", "--parts", "0", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--parts must be at least 1"));
}

#[test]
fn a_shard_of_another_run_is_refused_or_with_overwrite_named() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |part: &'static str, extra: &[&'static str]| {
        let mut args = vec!["-n", "3000", "-q", "--parts", "2", "--part", part];
        args.extend_from_slice(extra);
        args
    };
    run_ok(&shard("0", &[]), dir.path());
    run_ok(&shard("1", &[]), dir.path());
    let first = "shard-00000-of-00002-part-manifest.json";
    for (extra, says) in [
        (&["--seed", "7", "--overwrite"][..], "--seed 42, this run 7"),
        (
            &["-n", "4000", "--overwrite"][..],
            "--rows 3000, this run 4000",
        ),
        (
            &["--zipf-exponent", "0.5", "--overwrite"][..],
            "other contacts settings such as --zipf-exponent",
        ),
    ] {
        // Shard 1 rerun unlike shard 0: refused without --overwrite (here: its own files are
        // there, so drop it and put them in a fresh directory with shard 0's manifest).
        let fresh = tempfile::tempdir().unwrap();
        std::fs::copy(dir.path().join(first), fresh.path().join(first)).unwrap();
        let plain: Vec<_> = shard("1", extra)
            .into_iter()
            .filter(|a| *a != "--overwrite")
            .collect();
        let out = pipeline_command()
            .args(&plain)
            .arg("-o")
            .arg(fresh.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(first)
                && stderr.contains("belongs to another run")
                && stderr.contains(says)
                && stderr.contains("write this run to another --output"),
            "{stderr}"
        );
        assert_eq!(common::entries(fresh.path()), [first], "it wrote nothing");
        // With --overwrite (replacing the shards one by one) it runs, and warns.
        let out = run_ok(&shard("1", extra), dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("warning")
                && stderr.contains(says)
                && stderr.contains("mixes two runs"),
            "{stderr}"
        );
    }
}
