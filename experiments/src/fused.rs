//! Fused row-group workers (experiment 28): each of `--producers` workers claims the next row
//! group, builds its batches and encodes each one into that row group's column writers at once,
//! while its Arrow data is still in the worker's caches, then recycles the batch's buffers into
//! the next. Row group `g` of the shard goes to file `g mod W` (`--writers`), as its `g / W`-th
//! row group; each file is an [`OrderedRowGroupWriter`], which appends its row groups in order
//! from whichever worker completes the run: no channel, no writer thread, no encoder pool.
//!
//! The threads' results take the shapes of the channel pipeline's, one writer result per file
//! and one producer result per worker ([`crate::joined`]), so `pipeline.rs` collects both
//! alike.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

use indicatif::ProgressBar;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::errors::ParquetError;
use shredlab_writer::OrderedRowGroupWriter;

use crate::batches::BatchRanges;
use crate::config::PipelineConfig;
use crate::counters::{Observed, Phase, PhaseCounters, Role};
use crate::error::PipelineError;
use crate::generation::Generation;
use crate::joined::{join_started, Joined, Produced, Spawner, StopOnPanic, Written};
use crate::leaf_encoders::column_encoder;
use crate::milestones::Milestones;
use crate::output::SinkKind;
use crate::signals;
use crate::source::BatchSource;

/// What the workers share.
struct FusedContext<'a, S: ?Sized, W: Write + Send> {
    config: &'a PipelineConfig,
    source: &'a S,
    batches: BatchRanges,
    /// The files; empty with `--sink null`, where batches are dropped unencoded.
    files: &'a [OrderedRowGroupWriter<W>],
    next_group: AtomicU64,
    /// Per file: rows and batches encoded (with `--sink null`, in one entry: made).
    counts: Vec<(AtomicU64, AtomicU64)>,
    stop: &'a AtomicBool,
    progress: &'a ProgressBar,
    milestones: Option<&'a Milestones>,
    counters: Option<&'a Arc<PhaseCounters>>,
}

/// Runs the workers on `sinks`, one file each, and waits for them; the results have the channel
/// pipeline's shapes (see the module documentation). If a worker panicked, the files are
/// dropped unfinished and there are no writer results: the panic is the root cause.
pub(crate) fn spawn_and_join<S, W>(
    config: &PipelineConfig,
    source: &S,
    sinks: Vec<W>,
    progress: &ProgressBar,
    counters: Option<&Arc<PhaseCounters>>,
) -> Joined<W>
where
    S: BatchSource + ?Sized,
    W: Write + Send,
{
    let workers = config.producers;
    let (files, discarded) = if config.sink == SinkKind::Null {
        (Vec::new(), sinks)
    } else {
        match open_files(config, source, sinks) {
            Ok(files) => (files, Vec::new()),
            Err(error) => return Ok((vec![Ok(Err(error))], Vec::new())),
        }
    };
    let stop = AtomicBool::new(false);
    let milestones = config.milestones.map(Milestones::new);
    let context = FusedContext {
        config,
        source,
        batches: config.batches(),
        files: &files,
        next_group: AtomicU64::new(0),
        counts: (0..files.len().max(discarded.len()))
            .map(|_| (AtomicU64::new(0), AtomicU64::new(0)))
            .collect(),
        stop: &stop,
        progress,
        milestones: milestones.as_ref(),
        counters,
    };
    let mut spawner = Spawner::new(&stop);
    let worker_results = thread::scope(|scope| {
        let handles = (0..workers)
            .map(|w| spawner.spawn(scope, format!("fused-{w}"), || work(&context)))
            .collect();
        join_started(handles)
    });
    spawner.finish()?;
    if worker_results.iter().any(Result::is_err) {
        return Ok((Vec::new(), worker_results));
    }
    let counts = context.counts;
    let finished = files
        .into_iter()
        .map(OrderedRowGroupWriter::into_inner)
        .chain(discarded.into_iter().map(Ok));
    let writer_results = finished
        .zip(counts)
        .map(|(sink, (rows, batches))| {
            Ok(sink.map(|sink| Written {
                sink,
                rows: rows.into_inner(),
                batches: batches.into_inner(),
                pool_threads: 0,
            }))
        })
        .collect();
    Ok((writer_results, worker_results))
}

/// One [`OrderedRowGroupWriter`] per sink. Each worker holds one row group; finished ones may
/// wait for an earlier one of their file, up to the configured number in flight.
fn open_files<S, W>(
    config: &PipelineConfig,
    source: &S,
    sinks: Vec<W>,
) -> Result<Vec<OrderedRowGroupWriter<W>>, ParquetError>
where
    S: BatchSource + ?Sized,
    W: Write + Send,
{
    let window = config.producers + config.writer_memory.row_groups_in_flight;
    let properties = config.writer_properties();
    let encoder = column_encoder(config);
    sinks
        .into_iter()
        .map(|sink| {
            let options = ArrowWriterOptions::new().with_properties(properties.clone());
            OrderedRowGroupWriter::try_new_with_encoder(
                sink,
                source.schema(),
                options,
                window,
                encoder,
            )
        })
        .collect()
}

/// Sets `stop` once a termination signal has come, and says whether one has: workers waiting
/// for room (for a row group this one will now never append) wake on the flag.
fn stop_on_signal(stop: &AtomicBool) -> bool {
    let received = signals::received().is_some();
    if received {
        stop.store(true, Ordering::SeqCst);
    }
    received
}

/// One worker: claims row groups until none is left, the run stops, or a file fails. A file's
/// failure is recorded in it (so it refuses to finish, naming the cause) and returned as that
/// file's writer's.
fn work<S, W>(context: &FusedContext<'_, S, W>) -> Result<Produced, PipelineError>
where
    S: BatchSource + ?Sized,
    W: Write + Send,
{
    let _stop_on_panic = StopOnPanic(context.stop);
    let mut counted = context.counters.map(|c| c.track(Role::Fused, Phase::Start));
    let mut generation = Generation::new(context.source.maker(), context.config.verify);
    let slots = context.counts.len() as u64;
    loop {
        let group = context.next_group.fetch_add(1, Ordering::Relaxed);
        let stopped = stop_on_signal(context.stop) || context.stop.load(Ordering::Relaxed);
        if group >= context.batches.group_count() || stopped {
            counted.enter(Phase::Tail);
            return Ok(Produced::from(generation));
        }
        // Row group `group` is file `writer`'s `index`-th.
        let (writer, index) = ((group % slots) as usize, (group / slots) as usize);
        let file = context.files.get(writer);
        let failed = |error: ParquetError| {
            context.stop.store(true, Ordering::SeqCst);
            // The file refuses to finish; the others stop at their next row group, and the
            // run fails on this file's error before any is committed.
            let source = match file {
                Some(file) => file.fail(error),
                None => error,
            };
            PipelineError::FileFailed {
                file: writer,
                source,
            }
        };
        let mut encoder = match file {
            Some(file) => {
                counted.enter(Phase::Wait);
                if !file.wait_for_room(index, context.stop).map_err(failed)? {
                    counted.enter(Phase::Tail);
                    return Ok(Produced::from(generation));
                }
                counted.enter(Phase::Encode);
                Some(file.encoder(index).map_err(failed)?)
            }
            None => None,
        };
        let (rows_written, batches_written) = &context.counts[writer];
        for batch_index in context.batches.batches_of_group(group) {
            // Checked per batch too: a row group of millions of rows takes seconds.
            if stop_on_signal(context.stop) {
                counted.enter(Phase::Tail);
                return Ok(Produced::from(generation));
            }
            counted.enter(Phase::Generate);
            let batch = generation.make(context.batches.rows_of(batch_index))?;
            let rows = batch.num_rows() as u64;
            counted.add_rows(rows);
            if let Some(encoder) = encoder.as_mut() {
                counted.enter(Phase::Encode);
                encoder.write(&batch).map_err(failed)?;
                counted.add_rows(rows);
            }
            rows_written.fetch_add(rows, Ordering::Relaxed);
            batches_written.fetch_add(1, Ordering::Relaxed);
            context.progress.inc(rows);
            if let Some(milestones) = context.milestones {
                milestones.add(rows);
            }
            // Encoded: the builders take its buffers back for the next batch.
            counted.enter(Phase::Generate);
            generation.recycle(batch);
        }
        if let (Some(file), Some(encoder)) = (file, encoder) {
            counted.enter(Phase::Append);
            file.append(encoder).map_err(failed)?;
        }
    }
}
