//! Helpers shared by the integration tests that run the `pipeline` binary or its library.

#![allow(dead_code)] // each test binary uses its own subset

pub mod s3;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use indicatif::ProgressBar;
use shredlab_experiments::config::RunRequest;
use shredlab_experiments::gate::OrderedDigest;
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::report::RunReport;
use shredlab_experiments::run::{execute, resolve};

/// A command for the `pipeline` binary cargo built for these tests, to add arguments to. It
/// never asks a cloud's instance metadata service for credentials, whatever the environment the
/// tests run in says.
pub fn pipeline_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pipeline"));
    command.env("AWS_EC2_METADATA_DISABLED", "true");
    command
}

/// Runs `pipeline ARGS` to its end, whatever its exit status, and returns its output.
pub fn run_pipeline(args: &[&str]) -> Output {
    pipeline_command()
        .args(args)
        .output()
        .expect("the pipeline binary starts")
}

/// Runs `pipeline ARGS -o DIR`, asserts that it succeeded, and returns its output.
pub fn run_ok(args: &[&str], dir: &Path) -> Output {
    run_ok_under(&[], args, dir)
}

/// [`run_ok`], the pipeline started with the environment variables `env` added.
pub fn run_ok_under(env: &[(&str, &str)], args: &[&str], dir: &Path) -> Output {
    let out = pipeline_command()
        .envs(env.iter().copied())
        .args(args)
        .arg("-o")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{env:?} pipeline {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The `--json` report of `pipeline ARGS --json -q -o DIR`, which must succeed.
pub fn json_report(args: &[&str], dir: &Path) -> serde_json::Value {
    let out = run_ok(&[args, &["--json", "-q"]].concat(), dir);
    serde_json::from_slice(&out.stdout).expect("one JSON report")
}

/// The names in `dir`, sorted (none if it does not exist).
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Runs `request` with `--verify` through the library into a fresh directory and returns its
/// report, after checking that the gate passed, that each writer committed one file, and that
/// the report's ordered digest is the committed files'.
pub fn verified_run(request: RunRequest) -> RunReport {
    let dir = tempfile::tempdir().unwrap();
    let config = resolve(&RunRequest {
        verify: true,
        ..request
    })
    .unwrap();
    let output = OutputDir::prepare(dir.path(), false, config.shard).unwrap();
    let report = execute(&config, &output, &ProgressBar::hidden()).unwrap();
    assert_eq!(report.gate, Some("pass"));
    assert_eq!(report.files.len(), report.writers);
    assert_eq!(
        report.file_order_digest,
        Some(OrderedDigest::of_parquet_files(&report.files).unwrap())
    );
    report
}

/// Every file in `dir` with its bytes.
pub fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    entries(dir)
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

/// Asserts that `dir` holds nothing (or does not exist).
pub fn assert_empty(dir: &Path) {
    let left = entries(dir);
    assert!(left.is_empty(), "left {left:?}");
}

/// Asserts that `dir` holds exactly `before`, as [`contents`] read it.
pub fn assert_unchanged(dir: &Path, before: &BTreeMap<String, Vec<u8>>) {
    assert!(contents(dir) == *before, "left {:?}", entries(dir));
}
