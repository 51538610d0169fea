//! Random spec files and random command lines through the `pipeline` binary, as a hostile user
//! would run it. Every run either fails with a clear error, exit status 1 or 2 and no file that
//! looks complete, or writes exactly the rows asked for: the same bytes for another producer
//! count (from the ordered hand-off on), the same rows for another batch size and no shards,
//! and files that pyarrow reads back with the data gate's digest.
//!
//! pyarrow's read-back runs where `SHREDLAB_PYTHON` names a Python with pyarrow (`make test`
//! sets it to the project's venv); without it the test says that it skipped that check.
//! `make test` runs 64 cases; a longer search:
//! `PROPTEST_CASES=500 cargo test --release -p shredlab-experiments --test random_runs`.

#[path = "../common/mod.rs"]
mod common;
mod spec;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::Once;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use shredlab_experiments::catalog::CATALOG;
use shredlab_experiments::gate::Digest;
use spec::{spec_text, SpecText};

/// Cases `make test` runs unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 64;

/// The longest one run may take before the case fails as hung.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// What a case generates: the contacts, or a spec file.
#[derive(Debug, Clone)]
enum Workload {
    Contacts { zipf_exponent: Option<f64> },
    Spec(SpecText),
}

/// One random command line, run once per shard and producer count.
#[derive(Debug, Clone)]
struct Case {
    workload: Workload,
    /// `-e`; `None` runs the default.
    experiment: Option<u32>,
    rows: u64,
    batch_size: Option<u32>,
    /// The producer counts of the two runs whose bytes are compared.
    producers: (u32, u32),
    writers: Option<u32>,
    /// `--parts`: every shard is run into the same folder.
    parts: u64,
    verify: bool,
    seed: u64,
    compression: Option<&'static str>,
    row_group_rows: Option<u32>,
    /// Arguments a careless or hostile user adds.
    hostile: Vec<&'static str>,
}

fn hostile_arguments() -> impl Strategy<Value = Vec<&'static str>> {
    let sets: &[&[&'static str]] = &[
        &["--batch-size", "0"],
        &["--producers", "0"],
        &["--writers", "0"],
        &["--parts", "0"],
        &["--part", "3"],
        &["-n", "18446744073709551616"],
        &["-n", "-5"],
        &["--row-group-rows", "0"],
        &["--compression", "zstd(99)"],
        &["--compression", "gzip(-1)"],
        &["--seed", "-1"],
        &["--batch-size", "99999999999"],
        &["--writer-budget-mib", "0"],
        &["--row-groups-in-flight", "0"],
        &["--zipf-exponent", "-1"],
        &["--zipf-exponent", "NaN"],
        &["-e", "999"],
        &["--enable", "no-such-step"],
        &["--milestones", "0"],
    ];
    prop_oneof![
        6 => Just(Vec::new()),
        1 => proptest::sample::select(sets.to_vec()).prop_map(<[&str]>::to_vec),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let newest = CATALOG.len() as u32 - 1;
    let workload = prop_oneof![
        1 => prop_oneof![Just(None), Just(Some(0.7)), Just(Some(1.3))]
            .prop_map(|zipf_exponent| Workload::Contacts { zipf_exponent }),
        3 => spec_text().prop_map(Workload::Spec),
    ];
    let threads = (
        prop_oneof![Just(None), Just(Some(newest)), (0..=newest).prop_map(Some)],
        (1u32..=4, 1u32..=4),
        prop_oneof![Just(None), (1u32..=3).prop_map(Some)],
        1u64..=3,
    );
    let sizes = (
        prop_oneof![1 => Just(1u64), 1 => 2u64..100, 4 => 100u64..12_000],
        prop_oneof![Just(None), (1u32..5000).prop_map(Some)],
        prop_oneof![Just(None), (1u32..20_000).prop_map(Some)],
    );
    let settings = (
        any::<bool>(),
        any::<u64>(),
        prop_oneof![Just(None), Just(Some("snappy")), Just(Some("zstd(1)"))],
        hostile_arguments(),
    );
    (workload, threads, sizes, settings).prop_map(
        |(
            workload,
            (experiment, producers, writers, parts),
            (rows, batch_size, row_group_rows),
            (verify, seed, compression, hostile),
        )| Case {
            workload,
            experiment,
            rows,
            batch_size,
            producers,
            writers,
            parts,
            verify,
            seed,
            compression,
            row_group_rows,
            hostile,
        },
    )
}

impl Case {
    /// Whether files must not depend on the producer count: from the ordered hand-off on.
    fn reproducible(&self) -> bool {
        let ordered = CATALOG
            .iter()
            .position(|e| e.slug == "ordered-hand-off")
            .expect("the catalog has the ordered hand-off") as u32;
        self.experiment.is_none_or(|e| e >= ordered)
    }

    /// The arguments every run of this case shares: workload, experiment, seed and the rest.
    fn common_args(&self, spec_file: &Path) -> Vec<String> {
        let mut args: Vec<String> = vec!["-n".into(), self.rows.to_string()];
        args.extend(["--seed".into(), self.seed.to_string(), "-q".into()]);
        match &self.workload {
            Workload::Contacts { zipf_exponent } => {
                if let Some(s) = zipf_exponent {
                    args.extend(["--zipf-exponent".into(), s.to_string()]);
                }
            }
            Workload::Spec(_) => args.extend(["--spec".into(), spec_file.display().to_string()]),
        }
        if let Some(e) = self.experiment {
            args.extend(["-e".into(), e.to_string()]);
        }
        if let Some(codec) = self.compression {
            args.extend(["--compression".into(), codec.into()]);
        }
        args
    }

    /// `args` with the hostile arguments last, where they override any given before them.
    fn with_hostile(&self, mut args: Vec<String>) -> Vec<String> {
        args.extend(self.hostile.iter().map(|a| a.to_string()));
        args
    }

    /// The arguments of shard `part` with `producers` producers.
    fn shard_args(&self, spec_file: &Path, producers: u32, part: u64) -> Vec<String> {
        let mut args = self.common_args(spec_file);
        args.extend(["--producers".into(), producers.to_string(), "--json".into()]);
        if let Some(rows) = self.batch_size {
            args.extend(["--batch-size".into(), rows.to_string()]);
        }
        if let Some(writers) = self.writers {
            args.extend(["--writers".into(), writers.to_string()]);
        }
        if let Some(rows) = self.row_group_rows {
            args.extend(["--row-group-rows".into(), rows.to_string()]);
        }
        if self.parts > 1 {
            args.extend(["--part".into(), part.to_string()]);
            args.extend(["--parts".into(), self.parts.to_string()]);
        }
        if self.verify {
            args.push("--verify".into());
        }
        self.with_hostile(args)
    }
}

/// Runs `pipeline ARGS -o DIR`, failing the case if it runs longer than [`RUN_LIMIT`].
fn run(args: &[String], dir: &Path) -> Result<Output, TestCaseError> {
    let mut child = common::pipeline_command()
        .args(args)
        .arg("-o")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the pipeline binary starts");
    let started = Instant::now();
    while child.try_wait().expect("waiting for pipeline").is_none() {
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            return Err(TestCaseError::fail(format!(
                "{args:?} ran beyond {RUN_LIMIT:?}"
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(child.wait_with_output().expect("reading pipeline's output"))
}

/// A failed run: a non-zero exit other than a panic's or a signal's, an error message naming
/// the problem, and no file in `dir` that looks like a finished part.
fn check_refusal(args: &[String], out: &Output, dir: &Path) -> Result<(), TestCaseError> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    prop_assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{args:?} exited with {:?}: {stderr}",
        out.status
    );
    prop_assert!(
        stderr.contains("error")
            && !stderr.contains("panicked")
            && !stderr.contains("RUST_BACKTRACE"),
        "{args:?}: unclear error: {stderr}"
    );
    let left = common::entries(dir);
    prop_assert!(
        left.iter()
            .all(|name| !name.ends_with(".parquet") && !name.ends_with(".tmp")),
        "{args:?} failed ({stderr}) but left {left:?}"
    );
    Ok(())
}

/// Every shard of the case with `producers` producers into `dir`; `None` if the first was
/// refused (which is then checked), else the reports' digests (with `--verify`).
fn run_shards(
    case: &Case,
    spec_file: &Path,
    producers: u32,
    dir: &Path,
) -> Result<Option<Vec<Option<Digest>>>, TestCaseError> {
    let mut digests = Vec::new();
    for part in 0..case.parts {
        let args = case.shard_args(spec_file, producers, part);
        let out = run(&args, dir)?;
        if !out.status.success() {
            prop_assert!(
                part == 0,
                "{args:?} failed after shard 0 succeeded: {out:?}"
            );
            check_refusal(&args, &out, dir)?;
            return Ok(None);
        }
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| TestCaseError::fail(format!("{args:?}: --json printed no report: {e}")))?;
        digests.push(serde_json::from_value(report["digest"].clone()).ok());
    }
    Ok(Some(digests))
}

/// The `.parquet` files in `dir` with their bytes, in name order.
fn parquet_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    common::entries(dir)
        .into_iter()
        .filter(|name| name.ends_with(".parquet"))
        .map(|name| {
            let path = dir.join(name);
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

/// pyarrow's digest of `files`, by `python -m shredlab_peers digest`, if `SHREDLAB_PYTHON` is set.
fn pyarrow_digest(files: &[PathBuf]) -> Option<String> {
    static SKIPPED: Once = Once::new();
    let Some(python) = std::env::var_os("SHREDLAB_PYTHON").filter(|p| !p.is_empty()) else {
        SKIPPED.call_once(|| {
            eprintln!("random_runs: SHREDLAB_PYTHON is not set, so pyarrow's read-back is not checked (make test sets it)");
        });
        return None;
    };
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/peers");
    let out = std::process::Command::new(python)
        .env("PYTHONPATH", peers)
        .args(["-m", "shredlab_peers", "digest"])
        .args(files)
        .output()
        .expect("SHREDLAB_PYTHON starts");
    assert!(
        out.status.success(),
        "pyarrow could not read {files:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The digest of the `.parquet` files in `dir`, read back by the parquet crate.
fn files_digest(dir: &Path) -> Result<Digest, TestCaseError> {
    let paths: Vec<PathBuf> = parquet_files(dir).into_iter().map(|(p, _)| p).collect();
    Digest::of_parquet_files(&paths).map_err(|e| TestCaseError::fail(e.to_string()))
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    let scratch = tempfile::tempdir().unwrap();
    let spec_file = scratch.path().join("spec.json");
    if let Workload::Spec(spec) = &case.workload {
        std::fs::write(&spec_file, &spec.text).unwrap();
    }
    let first = scratch.path().join("first");
    let outcome = run_shards(case, &spec_file, case.producers.0, &first)?;
    if let Workload::Spec(spec) = &case.workload {
        prop_assert!(
            !(spec.must_be_refused() && outcome.is_some()),
            "a spec with {:?} was accepted",
            spec.hostile
        );
    }
    let Some(reported) = outcome else {
        return Ok(());
    };
    let digest = files_digest(&first)?;
    prop_assert_eq!(digest.rows, case.rows, "rows of {}", first.display());
    if case.verify {
        let mut sum = Digest::default();
        for part in &reported {
            sum += part.expect("--verify reports a digest");
        }
        prop_assert_eq!(sum, digest, "the gate's digest against the files'");
    }
    check_other_producers(case, &spec_file, &first, &scratch.path().join("second"))?;
    check_whole(case, &spec_file, &scratch.path().join("whole"), digest)?;
    check_pyarrow(case, &first, digest)
}

/// The run with the case's other producer count succeeds too and, from the ordered hand-off
/// on, writes the bytes of the first run (in `first`).
fn check_other_producers(
    case: &Case,
    spec_file: &Path,
    first: &Path,
    second: &Path,
) -> Result<(), TestCaseError> {
    let again = run_shards(case, spec_file, case.producers.1, second)?;
    let producers = case.producers.1;
    prop_assert!(again.is_some(), "refused with {producers} producers only");
    if case.reproducible() {
        let (files, other) = (parquet_files(first), parquet_files(second));
        prop_assert_eq!(other.len(), files.len());
        for ((path, bytes), (_, other)) in files.iter().zip(&other) {
            let path = path.display();
            prop_assert!(bytes == other, "{path} differs with {producers} producers");
        }
    }
    Ok(())
}

/// The same rows whatever the batch size and the split into shards: one unsharded run with
/// 777-row batches on one producer has the first run's `digest`.
fn check_whole(
    case: &Case,
    spec_file: &Path,
    whole: &Path,
    digest: Digest,
) -> Result<(), TestCaseError> {
    let mut args = case.common_args(spec_file);
    args.extend(["--producers", "1", "--batch-size", "777"].map(String::from));
    let args = case.with_hostile(args);
    let out = run(&args, whole)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    prop_assert!(out.status.success(), "{args:?}: {stderr}");
    prop_assert_eq!(files_digest(whole)?, digest, "unsharded, 777-row batches");
    Ok(())
}

/// pyarrow reads the first run's files back with the gate's `digest`, where it can read them
/// and `SHREDLAB_PYTHON` names it.
fn check_pyarrow(case: &Case, first: &Path, digest: Digest) -> Result<(), TestCaseError> {
    let readable = match &case.workload {
        Workload::Spec(spec) => spec.pyarrow_reads,
        Workload::Contacts { .. } => true,
    };
    let paths: Vec<PathBuf> = parquet_files(first).into_iter().map(|(p, _)| p).collect();
    if let Some(by_pyarrow) = readable.then(|| pyarrow_digest(&paths)).flatten() {
        prop_assert_eq!(
            by_pyarrow,
            digest.to_string(),
            "pyarrow's digest of {:?}",
            paths
        );
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_runs_give_a_clear_error_or_exact_reproducible_rows(case in case()) {
        check(&case)?;
    }
}
