//! The same command writes the same bytes: from the ordered hand-off (27) on, a run's files do
//! not depend on the producer count, the batch-claiming strategy or the threads' schedule; fused
//! row-group workers (28) write 27's files, preallocated files (35) 34's, and shredlab's column
//! encoder (36) 35's.

mod common;

use std::path::Path;

use common::{run_ok, run_ok_under};
use shredlab_experiments::catalog::CATALOG;

/// The bytes of every file `pipeline ARGS` writes into a fresh folder, in name order.
fn files_of(args: &[&str]) -> Vec<(String, Vec<u8>)> {
    files_under(&[], args)
}

/// [`files_of`], the pipeline started with the environment variables `env` added.
fn files_under(env: &[(&str, &str)], args: &[&str]) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    run_ok_under(env, args, &out);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".parquet"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{args:?} wrote no file");
    names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(out.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

/// Runs `base` with every thread setting of `variants` and asserts identical files.
fn assert_same_bytes(base: &[&str], variants: &[&[&str]]) {
    let reference = files_of(&[base, variants[0]].concat());
    for variant in &variants[1..] {
        let args = [base, variant].concat();
        let files = files_of(&args);
        assert_eq!(
            files.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            reference.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            "{args:?}"
        );
        for ((name, bytes), (_, expected)) in files.iter().zip(&reference) {
            assert!(bytes == expected, "{args:?}: {name} differs");
        }
    }
}

const THREADS: &[&[&str]] = &[
    &["--producers", "1"],
    &["--producers", "2"],
    &["--producers", "3", "--disable", "static-batch-assignment"],
    &["--producers", "4"],
];

#[test]
fn the_default_experiment_is_the_newest() {
    let out = common::run_pipeline(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    let newest = CATALOG.len() - 1;
    assert!(help.contains(&format!("[default: {newest}]")), "{help}");
}

#[test]
fn contacts_files_do_not_depend_on_the_threads() {
    let rows = ["-n", "150000", "--batch-size", "2048"];
    assert_same_bytes(&[&rows[..], &["-e", "27"]].concat(), THREADS);
    // Several writers: each file holds its own batches in order.
    assert_same_bytes(
        &[&rows[..], &["-e", "27", "--writers", "3"]].concat(),
        THREADS,
    );
    // Without naming an experiment: the default has the ordered hand-off.
    assert_same_bytes(&rows, THREADS);
}

#[test]
fn spec_files_do_not_depend_on_the_threads() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/otel-logs.json");
    let spec = spec.to_str().unwrap();
    let base = ["--spec", spec, "-n", "40000", "--batch-size", "1024"];
    assert_same_bytes(&base, THREADS);
}

#[test]
fn a_shard_s_files_do_not_depend_on_the_threads() {
    let base = [
        "-n",
        "90000",
        "--batch-size",
        "1000",
        "--part",
        "1",
        "--parts",
        "3",
    ];
    assert_same_bytes(&base, THREADS);
}

#[test]
fn fused_row_groups_write_the_ordered_hand_off_s_files() {
    // Row groups of whole batches: 28 builds 27's batches and cuts 27's row groups.
    let rows = [
        "-n",
        "150000",
        "--batch-size",
        "2048",
        "--row-group-rows",
        "16384",
    ];
    let expected = files_of(&[&rows[..], &["-e", "27"]].concat());
    for workers in ["1", "2", "3"] {
        let args = [&rows[..], &["-e", "28", "--producers", workers]].concat();
        assert!(files_of(&args) == expected, "{args:?}");
    }
}

#[test]
fn fused_row_groups_cut_batches_at_row_group_ends_for_any_worker_count() {
    let base = [
        "-e",
        "28",
        "-n",
        "50000",
        "--batch-size",
        "2048",
        "--row-group-rows",
        "5000",
        "--verify",
    ];
    assert_same_bytes(&base, THREADS);
    // Several files: row group g goes to file g mod 3.
    assert_same_bytes(&[&base[..], &["--writers", "3"]].concat(), THREADS);
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/otel-logs.json");
    let spec = spec.to_str().unwrap();
    let base = [
        "-e",
        "28",
        "--spec",
        spec,
        "-n",
        "30000",
        "--batch-size",
        "1024",
        "--row-group-rows",
        "7000",
        "--verify",
    ];
    assert_same_bytes(&base, THREADS);
}

#[cfg(unix)]
#[test]
fn preallocated_files_are_34_s_and_hold_no_blocks_past_their_end() {
    let rows = ["-n", "300000", "--writers", "2"];
    let expected = files_of(&[&rows[..], &["-e", "34"]].concat());
    assert!(files_of(&[&rows[..], &["-e", "35"]].concat()) == expected);
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/otel-logs.json");
    let spec = ["--spec", spec.to_str().unwrap(), "-n", "20000"];
    let expected = files_of(&[&spec[..], &["-e", "34"]].concat());
    assert!(files_of(&[&spec[..], &["-e", "35"]].concat()) == expected);

    // Each file reserved 64 MiB ahead; the commit gave back what the file did not fill. Under
    // the build's directory, a user's kind of file system, not a tmpfs /tmp.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = dir.path().join("out");
    run_ok(&[&rows[..], &["-e", "35"]].concat(), &out);
    for entry in std::fs::read_dir(&out).unwrap() {
        let metadata = entry.unwrap().metadata().unwrap();
        let held = std::os::unix::fs::MetadataExt::blocks(&metadata) * 512;
        assert!(
            held < metadata.len() + 64 * 1024,
            "{held} bytes of disk held for a {}-byte file",
            metadata.len()
        );
    }
}

/// glibc picks its `log`, `cos` and `pow` by the CPU at start: variants for FMA, AVX or SSE2,
/// which round a few results in 10,000 differently. The spec generator's normal draws and Zipf
/// weights use the `libm` crate's (the same arithmetic everywhere), so a file does not depend on
/// the machine's math extensions (spec data version 2). `GLIBC_TUNABLES` makes glibc pick the
/// variants of a CPU without FMA or AVX2; with another C library both runs agree trivially.
/// The wide preset's normal doubles showed it: with glibc's functions, its files differed.
#[test]
fn spec_files_do_not_depend_on_the_cpu_s_math_extensions() {
    let without_fma = [(
        "GLIBC_TUNABLES",
        "glibc.cpu.hwcaps=-AVX2_Usable,-FMA_Usable,-AVX2,-FMA",
    )];
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/wide.json");
    let run = ["--spec", path.to_str().unwrap(), "-n", "20000"];
    assert!(files_of(&run) == files_under(&without_fma, &run));
}

/// shredlab's column encoder (36) writes 35's files: the contacts (whose list leaves it takes,
/// with their dictionary), their spec, and every preset with lists, at two row-group sizes.
#[test]
fn the_native_encoder_writes_35_s_files() {
    let contacts = ["-n", "200000", "--writers", "2"];
    let expected = files_of(&[&contacts[..], &["-e", "35"]].concat());
    assert!(files_of(&[&contacts[..], &["-e", "36"]].concat()) == expected);
    for spec in ["contacts", "deep", "otel-logs"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../specs/{spec}.json"));
        for row_group in ["3000", "50000"] {
            let run = [
                "--spec",
                path.to_str().unwrap(),
                "-n",
                "20000",
                "--row-group-rows",
                row_group,
            ];
            let expected = files_of(&[&run[..], &["-e", "35"]].concat());
            let actual = files_of(&[&run[..], &["-e", "36"]].concat());
            assert!(actual == expected, "{spec} at {row_group} rows per group");
        }
    }
}
