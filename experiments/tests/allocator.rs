//! The allocator experiment: the binary restarts itself on the allocator its experiment needs,
//! and the data stays the same.

mod common;

use common::pipeline_command;

fn report(args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = pipeline_command()
        .args([
            "-n",
            "20000",
            "--json",
            "--verify",
            "-o",
            dir.path().to_str().unwrap(),
        ])
        .args(args)
        .env_remove("SHREDLAB_ALLOCATOR")
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
