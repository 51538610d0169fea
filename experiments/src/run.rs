//! One `pipeline` invocation from request to report: resolve, generate and write, gate.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::{PipelineConfig, RunRequest};
use crate::counters::{timeline, RunCounters};
use crate::error::PipelineError;
use crate::gate::{Digest, ReadBack};
use crate::output::counting::CountingSinks;
use crate::output::{Output, RunIdentity};
use crate::pipeline::{generate_and_write, PipelineOutcome};
use crate::prebuilt::PrebuiltSource;
use crate::report::{RunReport, Totals};
use crate::signals;
use crate::source::{BatchSource, ContactSource};
use crate::usage::Usage;

/// The machine's CPU count.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A progress bar on stderr when it is a terminal and `quiet` is off; hidden otherwise, so it
/// never disturbs timings or logs.
pub fn progress_bar(rows: u64, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(rows), ProgressDrawTarget::stderr());
    if quiet || bar.is_hidden() {
        return ProgressBar::hidden();
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {human_pos}/{human_len} rows {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Resolves `request` on this machine.
pub fn resolve(request: &RunRequest) -> Result<PipelineConfig, PipelineError> {
    PipelineConfig::resolve(request, available_cores())
}

/// Generates and writes the run `config` into `output`: first the check that the manifests
/// already there belong to the same run, then the pipeline, then its checks on the files still
/// under their temporary names (row and batch counts always, the data gate when asked), then
/// the commit. Nothing appears under a final name unless every step succeeded.
pub fn execute<O: Output>(
    config: &PipelineConfig,
    output: &O,
    progress: &ProgressBar,
) -> Result<RunReport, PipelineError> {
    output.check_neighbours(&RunIdentity::of(config))?;
    let outcome = with_source(config, |source| {
        generate_and_write(config, source, output, progress)
    })?;
    progress.finish_and_clear();
    finish(config, output, outcome)
}

/// Runs `config` with no files (`--sink null`: batches dropped unencoded, the cost of
/// generation alone; `--sink count`: encoded into a byte-counting sink, no disk).
pub fn execute_without_files(
    config: &PipelineConfig,
    progress: &ProgressBar,
) -> Result<RunReport, PipelineError> {
    let outcome = with_source(config, |source| {
        generate_and_write(config, source, &CountingSinks, progress)
    })?;
    progress.finish_and_clear();
    check_counts(config, &outcome)?;
    let output_bytes = outcome.sinks.iter().map(|sink| sink.bytes).sum();
    let totals = Totals {
        elapsed: outcome.elapsed,
        usage: outcome.started.usage(),
        rows: outcome.rows,
        arrow_bytes: outcome.arrow_bytes,
        output_bytes,
        pool_threads: outcome.pool_threads,
    };
    let mut report = RunReport::new(config, &totals, &[], None);
    report.leaf_encoders = outcome.leaf_encoders;
    observed(config, report, outcome.counters)
}

/// `report` with the figures of `counters`, when the run counted, after writing the run's
/// timeline where `config` asks for one.
fn observed(
    config: &PipelineConfig,
    mut report: RunReport,
    counters: Option<RunCounters>,
) -> Result<RunReport, PipelineError> {
    let Some(counters) = counters else {
        return Ok(report);
    };
    let process = Usage {
        cpu_s: report.cpu_s,
        stolen_s: report.stolen_s,
        heap: report.heap,
    };
    let observations = counters.finish(report.rows, process);
    report.counters = observations.counters;
    if let (Some(path), Some(lanes)) = (&config.timeline, &observations.lanes) {
        timeline::write(path, lanes).map_err(|source| PipelineError::Timeline {
            path: path.clone(),
            source,
        })?;
    }
    Ok(report)
}

/// Calls `run` with the run's batch source (the spec workload's, or the contacts'), or with its
/// batches built up front when `config.prebuilt` (before `run` starts any clock).
fn with_source<T>(
    config: &PipelineConfig,
    run: impl FnOnce(&dyn BatchSource) -> Result<T, PipelineError>,
) -> Result<T, PipelineError> {
    let contacts;
    let spec;
    let source: &dyn BatchSource = match &config.spec {
        Some(workload) => {
            spec = workload.source();
            &spec
        }
        None => {
            contacts =
                ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations)?;
            &contacts
        }
    };
    if config.prebuilt {
        run(&PrebuiltSource::build(source, config))
    } else {
        run(source)
    }
}

/// The end of a run whose pipeline succeeded: its checks on the files still under their
/// temporary names (row and batch counts always, the data gate when `config.verify`), then the
/// commit into `output`, then the report. On any failure the uncommitted files are removed.
pub fn finish<O: Output>(
    config: &PipelineConfig,
    output: &O,
    mut outcome: PipelineOutcome<O::Sink>,
) -> Result<RunReport, PipelineError> {
    check_counts(config, &outcome)?;
    let read_back = match outcome.produced {
        Some(produced) => Some(gate(produced, output.read_back(&mut outcome.sinks)?)?),
        None => None,
    };
    if let Some(signal) = signals::received() {
        return Err(PipelineError::Interrupted { signal });
    }
    let commit_started = Instant::now();
    let digest = read_back.map(|r| r.digest);
    let run = RunIdentity::of(config);
    let files = output.commit(outcome.sinks, &run, outcome.rows, digest)?;
    let elapsed = outcome.elapsed + commit_started.elapsed();
    let totals = Totals {
        elapsed,
        usage: outcome.started.usage(),
        rows: outcome.rows,
        arrow_bytes: outcome.arrow_bytes,
        output_bytes: files.iter().map(|f| f.bytes).sum(),
        pool_threads: outcome.pool_threads,
    };
    let mut report = RunReport::new(config, &totals, &files, read_back);
    report.leaf_encoders = outcome.leaf_encoders.take();
    observed(config, report, outcome.counters)
}

/// The rows and batches written must be the ones asked for: a run that silently wrote less
/// must never look like a success.
fn check_counts<W>(
    config: &PipelineConfig,
    outcome: &PipelineOutcome<W>,
) -> Result<(), PipelineError> {
    let rows = config.shard_rows();
    let (expected_rows, expected_batches) = (rows.end - rows.start, config.batch_count());
    if (outcome.rows, outcome.batches) != (expected_rows, expected_batches) {
        return Err(PipelineError::CountMismatch {
            rows: outcome.rows,
            batches: outcome.batches,
            expected_rows,
            expected_batches,
        });
    }
    Ok(())
}

/// The data gate: the digest of the files read back must equal the digest of what was produced.
fn gate(produced: Digest, read_back: ReadBack) -> Result<ReadBack, PipelineError> {
    if read_back.digest != produced {
        return Err(PipelineError::GateMismatch {
            produced,
            read_back: read_back.digest,
        });
    }
    Ok(read_back)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use parquet::arrow::ArrowWriter;

    use super::*;
    use crate::config::RunRequest;
    use crate::output::dir::OutputDir;
    use crate::output::SinkFactory;
    use crate::shard::Shard;
    use crate::source::BatchSource;
    use crate::usage::UsageMark;

    fn config(rows: u64, batch_size: usize) -> PipelineConfig {
        let request = RunRequest {
            rows,
            batch_size: Some(batch_size),
            ..RunRequest::default()
        };
        PipelineConfig::resolve(&request, 2).unwrap()
    }

    fn outcome(rows: u64, batches: u64) -> PipelineOutcome<()> {
        PipelineOutcome {
            elapsed: Duration::ZERO,
            started: UsageMark::default(),
            rows,
            batches,
            pool_threads: 0,
            arrow_bytes: 0,
            sinks: Vec::new(),
            produced: None,
            counters: None,
            leaf_encoders: None,
        }
    }

    #[test]
    fn fewer_rows_or_batches_than_asked_fail_the_run() {
        let config = config(10, 4);
        assert!(check_counts(&config, &outcome(10, 3)).is_ok());
        for (rows, batches) in [(0, 0), (9, 3), (10, 2), (11, 3)] {
            let err = check_counts(&config, &outcome(rows, batches)).unwrap_err();
            assert!(
                err.to_string()
                    .contains("10 rows in 3 batches were asked for"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_gate_mismatch_fails_before_anything_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let output = OutputDir::prepare(dir.path(), false, Shard::WHOLE).unwrap();
        let config = config(1000, 1000);
        let source =
            ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations).unwrap();
        let batch = source.maker().make(0..1000);
        let mut writer =
            ArrowWriter::try_new(output.create(0).unwrap(), batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        let sink = writer.into_inner().unwrap();
        let right = Digest::of_batch(&batch).unwrap();
        let wrong = Digest::of_batch(&source.maker().make(1..1001)).unwrap();
        let mut files = vec![sink];
        let read_back = output.read_back(&mut files).unwrap();
        assert_eq!(gate(right, read_back).unwrap().digest, right);
        let err = gate(wrong, read_back).unwrap_err().to_string();
        assert!(err.contains("data gate FAILED") && err.contains("nothing was committed"));
        drop(files);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
