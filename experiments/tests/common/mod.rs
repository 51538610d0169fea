//! Helpers shared by the integration tests that run the `pipeline` binary.

#![allow(dead_code)] // each test binary uses its own subset

pub mod s3;

use std::path::Path;
use std::process::{Command, Output};

/// A command for the `pipeline` binary cargo built for these tests, to add arguments to.
pub fn pipeline_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pipeline"))
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
    let out = pipeline_command()
        .args(args)
        .arg("-o")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pipeline {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
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
