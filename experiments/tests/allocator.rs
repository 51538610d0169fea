//! The allocator experiment: the binary restarts itself on the allocator its experiment needs,
//! and the data stays the same.

mod common;

use common::pipeline_command;

fn report(args: &[&str]) -> serde_json::Value {
    report_with_variable(args, None)
}

/// The report of a run of `args` started with `SHREDLAB_ALLOCATOR` set to `variable` (or unset).
fn report_with_variable(args: &[&str], variable: Option<&str>) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let mut command = pipeline_command();
    match variable {
        Some(value) => command.env("SHREDLAB_ALLOCATOR", value),
        None => command.env_remove("SHREDLAB_ALLOCATOR"),
    };
    let out = command
        .args([
            "-n",
            "20000",
            "--json",
            "--verify",
            "-o",
            dir.path().to_str().unwrap(),
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn each_experiment_runs_on_its_allocator_with_the_same_data() {
    let system = report(&["-e", "15"]);
    let mimalloc = report(&["-e", "16"]);
    let disabled = report(&["-e", "16", "--disable", "mimalloc"]);
    let jemalloc = report(&["-e", "23"]);
    let jemalloc_over_mimalloc = report(&["-e", "16", "--enable", "jemalloc"]);
    assert_eq!(system["allocator"], "system");
    assert_eq!(mimalloc["allocator"], "mimalloc");
    assert_eq!(disabled["allocator"], "system");
    assert_eq!(jemalloc["allocator"], "jemalloc");
    assert_eq!(jemalloc_over_mimalloc["allocator"], "jemalloc");
    assert_eq!(system["digest"], mimalloc["digest"]);
    assert_eq!(system["digest"], jemalloc["digest"]);
}

/// An allocator enabled replaces the experiment's: a process runs on one.
#[test]
fn an_enabled_allocator_replaces_the_experiment_s() {
    assert_eq!(
        report(&["-e", "23", "--enable", "mimalloc"])["allocator"],
        "mimalloc"
    );
    assert_eq!(
        report(&["-e", "23", "--disable", "jemalloc"])["allocator"],
        "system"
    );
}

/// The variable takes the documented names, `glibc` as another name of `system`; the
/// experiment's allocator wins over it.
#[test]
fn the_variable_takes_the_documented_names() {
    for (variable, experiment, runs_on) in [
        ("glibc", "0", "system"),
        ("system", "16", "mimalloc"),
        ("glibc", "16", "mimalloc"),
        ("jemalloc", "0", "system"),
        ("", "23", "jemalloc"),
    ] {
        let report = report_with_variable(&["-e", experiment], Some(variable));
        assert_eq!(
            report["allocator"], runs_on,
            "{variable} at -e {experiment}"
        );
    }
}

/// A warning about the command line is printed once, by the process that runs after the
/// restart on the experiment's allocator, not also by the one it replaces.
#[test]
fn a_restart_on_another_allocator_warns_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = pipeline_command()
        .env_remove("SHREDLAB_ALLOCATOR")
        .args([
            "-e",
            "33",
            "--disable",
            "bit-guided-ranks",
            "-n",
            "1000",
            "--quiet",
        ])
        .args(["-o", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warning = "warning: scalar-row-seeds changes nothing without";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
}
