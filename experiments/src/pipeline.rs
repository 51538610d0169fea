//! The pipeline: P producer threads make batches, a channel per writer carries batch `i` to writer
//! `i mod W` (in arrival order, or in index order through the ordered hand-off of
//! [`crate::reorder`]), and each writer encodes its own Parquet stream. Any failure, and SIGINT,
//! SIGTERM or SIGHUP, stops every thread. The finished sinks go back to the caller, which checks and commits them.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use indicatif::ProgressBar;
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;

use crate::catalog::Optimization;
use crate::channel::{batch_channel, BatchReceiver, BatchSender, Returns};
use crate::config::PipelineConfig;
use crate::counters::{EncoderObserver, PhaseCounters, Role, RunCounters};
use crate::encoder::{EncoderKind, FileEncoder};
use crate::error::{panic_message, PipelineError};
use crate::fused;
use crate::gate::Digest;
use crate::joined::{
    arrow_bytes, started_or_stop, Joined, Produced, ProducerResult, StopOnPanic, WriterResult,
    Written,
};
use crate::milestones::Milestones;
use crate::output::{SinkFactory, SinkKind};
use crate::properties::writer_properties;
use crate::reorder::ReorderWindow;
use crate::signals;
use crate::source::BatchSource;
use crate::usage::UsageMark;

/// What a finished pipeline did: the sinks it wrote, finished but not committed.
#[derive(Debug)]
pub struct PipelineOutcome<W> {
    /// Wall time from the first thread's start to the last sink's finish.
    pub elapsed: Duration,
    /// The process's CPU time and allocation counters when the pipeline started.
    pub started: UsageMark,
    /// Rows written.
    pub rows: u64,
    /// Batches written.
    pub batches: u64,
    /// Encoder threads the parallel writers started, summed (0 when every row group was
    /// encoded on its writer's own thread, or without the parallel writer).
    pub pool_threads: usize,
    /// Bytes of Arrow data produced (the used part of every buffer).
    pub arrow_bytes: u64,
    /// The finished sinks, one per writer, in writer order.
    pub sinks: Vec<W>,
    /// Digest of the batches as produced, when the gate is on.
    pub produced: Option<Digest>,
    /// With `--counters`: every thread's counts so far, the main thread's still counting.
    pub counters: Option<RunCounters>,
}

impl<W> PipelineOutcome<W> {
    /// The same outcome with every sink passed through `f` (to unwrap a sink adapter).
    pub fn map_sinks<V>(self, f: impl FnMut(W) -> V) -> PipelineOutcome<V> {
        PipelineOutcome {
            elapsed: self.elapsed,
            started: self.started,
            rows: self.rows,
            batches: self.batches,
            pool_threads: self.pool_threads,
            arrow_bytes: self.arrow_bytes,
            sinks: self.sinks.into_iter().map(f).collect(),
            produced: self.produced,
            counters: self.counters,
        }
    }
}

/// Hands out batch indices: claimed from a shared counter, or in fixed strides per producer.
enum BatchClaims<'a> {
    Shared { next: &'a AtomicU64, count: u64 },
    Strided { next: u64, step: u64, count: u64 },
}

impl Iterator for BatchClaims<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let (index, count) = match self {
            BatchClaims::Shared { next, count } => (next.fetch_add(1, Ordering::Relaxed), *count),
            BatchClaims::Strided { next, step, count } => {
                let index = *next;
                *next += *step;
                (index, *count)
            }
        };
        (index < count).then_some(index)
    }
}

struct ProducerContext<'a, S: ?Sized> {
    config: &'a PipelineConfig,
    source: &'a S,
    stop: &'a AtomicBool,
    next_batch: &'a AtomicU64,
    returns: Option<&'a Returns>,
    /// With the ordered hand-off: where finished batches wait for the ones before them.
    reorder: Option<&'a ReorderWindow>,
    /// With `--counters`: where each producer adds its counts.
    counters: Option<&'a Arc<PhaseCounters>>,
}

/// What writer threads share.
struct WriterContext<'a> {
    config: &'a PipelineConfig,
    stop: &'a AtomicBool,
    progress: &'a ProgressBar,
    milestones: Option<&'a Milestones>,
    returns: Option<&'a Returns>,
    /// With `--counters`: where each writer and encoder adds its counts.
    counters: Option<&'a Arc<PhaseCounters>>,
}

fn produce<S: BatchSource + ?Sized>(
    context: &ProducerContext<'_, S>,
    index: usize,
    senders: Vec<BatchSender>,
) -> Result<Produced, PipelineError> {
    let _stop_on_panic = StopOnPanic(context.stop);
    let _counted = context.counters.map(|c| c.track(Role::Producers));
    let config = context.config;
    let claims = if config
        .optimizations
        .has(Optimization::StaticBatchAssignment)
    {
        BatchClaims::Strided {
            next: index as u64,
            step: config.producers as u64,
            count: config.batch_count(),
        }
    } else {
        BatchClaims::Shared {
            next: context.next_batch,
            count: config.batch_count(),
        }
    };
    let mut maker = context.source.maker();
    let mut produced = Produced {
        digest: config.verify.then(Digest::default),
        ..Produced::default()
    };
    for batch_index in claims {
        if context.stop.load(Ordering::Relaxed) || signals::received().is_some() {
            break;
        }
        if let Some(window) = context.reorder {
            if !window.wait_for_room(batch_index, context.stop) {
                break;
            }
        }
        if let Some(spent) = context.returns.and_then(Returns::take) {
            maker.recycle(spent);
        }
        let batch = maker.make(config.batch_rows(batch_index));
        produced.arrow_bytes += arrow_bytes(&batch);
        if let Some(digest) = produced.digest.as_mut() {
            *digest += Digest::of_batch(&batch)?;
        }
        match context.reorder {
            None => hand_over(context, &senders, batch_index, batch)?,
            Some(window) => window.hand_over(batch_index, batch, |index, batch| {
                hand_over(context, &senders, index, batch)
            })?,
        }
    }
    Ok(produced)
}

/// Sends batch `index` to its writer, `index mod W`; raises `stop` if that writer is gone.
fn hand_over<S: ?Sized>(
    context: &ProducerContext<'_, S>,
    senders: &[BatchSender],
    index: u64,
    batch: RecordBatch,
) -> Result<(), PipelineError> {
    let writer = (index % senders.len() as u64) as usize;
    senders[writer].send(batch).map_err(|_| {
        context.stop.store(true, Ordering::SeqCst);
        PipelineError::WriterGone(writer)
    })
}

/// The encoder `config` asks for, its parallel writer told about encoder threads when counting.
fn encoder_kind(config: &PipelineConfig, counters: Option<&Arc<PhaseCounters>>) -> EncoderKind {
    if config.sink == SinkKind::Null {
        return EncoderKind::Discard;
    }
    if !config.optimizations.has(Optimization::ParallelWriter) {
        return EncoderKind::Upstream;
    }
    let parallel = config
        .writer_memory
        .parallel_options(config.encoder_threads);
    EncoderKind::Parallel(match counters {
        Some(counters) => {
            parallel.with_worker_observer(Arc::new(EncoderObserver(Arc::clone(counters))))
        }
        None => parallel,
    })
}

/// Encodes every batch from `batches` into one Parquet stream and returns the finished sink.
fn write_stream<W: Write + Send>(
    sink: W,
    schema: SchemaRef,
    properties: WriterProperties,
    batches: BatchReceiver,
    context: &WriterContext<'_>,
) -> Result<Written<W>, ParquetError> {
    let _stop_on_panic = StopOnPanic(context.stop);
    let _counted = context.counters.map(|c| c.track(Role::Writers));
    let kind = encoder_kind(context.config, context.counters);
    let mut writer = FileEncoder::try_new(sink, schema, properties, kind)?;
    let (mut rows, mut count) = (0, 0);
    for batch in batches {
        writer.write(&batch)?;
        rows += batch.num_rows() as u64;
        count += 1;
        context.progress.inc(batch.num_rows() as u64);
        if let Some(milestones) = context.milestones {
            milestones.add(batch.num_rows() as u64);
        }
        if let Some(returns) = context.returns {
            returns.give(batch);
        }
    }
    let pool_threads = writer.pool_threads();
    Ok(Written {
        sink: writer.into_inner()?,
        rows,
        batches: count,
        pool_threads,
    })
}

/// Generates every batch of `config` from `source` and writes them to sinks from `sinks`: one
/// writer thread per sink and `config.producers` producer threads; with fused row groups,
/// `config.producers` workers that generate and encode into the sinks ([`crate::fused`]). Returns the finished sinks,
/// uncommitted. On any failure, or SIGINT / SIGTERM / SIGHUP, every thread stops, the sinks are dropped,
/// and the root cause is returned (a writer's error rather than the producers' "writer gone"
/// that follows from it).
pub fn generate_and_write<S, F>(
    config: &PipelineConfig,
    source: &S,
    sinks: &F,
    progress: &ProgressBar,
) -> Result<PipelineOutcome<F::Sink>, PipelineError>
where
    S: BatchSource + ?Sized,
    F: SinkFactory,
{
    let counters = match config.counters {
        true => Some(RunCounters::start().map_err(PipelineError::Counters)?),
        false => None,
    };
    let started = Instant::now();
    let usage_at_start = UsageMark::now();
    let created: Vec<F::Sink> = (0..config.writers)
        .map(|w| sinks.create(w))
        .collect::<Result<_, _>>()?;
    let registry = counters.as_ref().map(RunCounters::registry);
    let joined = if config.optimizations.has(Optimization::FusedRowGroups) {
        fused::spawn_and_join(config, source, created, progress, registry)
    } else {
        spawn_and_join(config, source, created, progress, registry)
    };
    if let Some(signal) = signals::received() {
        return Err(PipelineError::Interrupted { signal });
    }
    let (writer_results, producer_results) =
        joined.map_err(|source| PipelineError::Spawn { source })?;
    let (sinks, rows, batches, pool_threads) = collect_writers(writer_results)?;
    let (arrow_bytes, produced) = collect_producers(producer_results, config.verify)?;
    Ok(PipelineOutcome {
        elapsed: started.elapsed(),
        started: usage_at_start,
        rows,
        batches,
        pool_threads,
        arrow_bytes,
        sinks,
        produced,
        counters,
    })
}

/// Starts one writer thread per sink and the producer threads, and waits for all of them. If a
/// thread cannot be started, the others are stopped and joined, and the error is returned.
fn spawn_and_join<S, W>(
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
    let schema = source.schema();
    let properties = writer_properties(
        config.optimizations,
        config.compression,
        &config.writer_memory,
    );
    let stop = AtomicBool::new(false);
    let next_batch = AtomicU64::new(0);
    // Bounded channels keep memory bounded: a producer blocks once its writer is 2 batches behind
    // per producer.
    let capacity = 2 * config.producers;
    let recycling = config.optimizations.has(Optimization::RecyclingChannel);
    let returns = recycling.then(|| Returns::new(capacity + config.writers));
    // As many finished batches may wait for an earlier one as the channels hold per writer.
    let reorder = config
        .optimizations
        .has(Optimization::OrderedHandOff)
        .then(|| ReorderWindow::new(capacity as u64));
    let context = ProducerContext {
        config,
        source,
        stop: &stop,
        next_batch: &next_batch,
        returns: returns.as_ref(),
        reorder: reorder.as_ref(),
        counters,
    };
    let milestones = config.milestones.map(Milestones::new);
    let writer_context = WriterContext {
        config,
        stop: &stop,
        progress,
        milestones: milestones.as_ref(),
        returns: returns.as_ref(),
        counters,
    };
    thread::scope(|scope| {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..config.writers)
            .map(|_| batch_channel(recycling, capacity))
            .unzip();
        let mut spawn_error = None;
        let writers: Vec<_> = sinks
            .into_iter()
            .zip(receivers)
            .enumerate()
            .map(|(w, (sink, batches))| {
                let (schema, properties) = (Arc::clone(&schema), properties.clone());
                let writer_context = &writer_context;
                let name = format!("writer-{w}");
                let thread = thread::Builder::new().name(name.clone());
                let started = thread.spawn_scoped(scope, move || {
                    write_stream(sink, schema, properties, batches, writer_context)
                });
                started_or_stop(started, &name, &stop, &mut spawn_error)
            })
            .collect();
        let producers: Vec<_> = (0..config.producers)
            .map(|p| {
                let senders = senders.clone();
                let context = &context;
                let name = format!("producer-{p}");
                let thread = thread::Builder::new().name(name.clone());
                let started = thread.spawn_scoped(scope, move || produce(context, p, senders));
                started_or_stop(started, &name, &stop, &mut spawn_error)
            })
            .collect();
        drop(senders);
        // Every started thread is joined here, so none of their panics escapes the scope.
        let producer_results: Vec<_> = producers.into_iter().flatten().map(|h| h.join()).collect();
        let writer_results: Vec<_> = writers.into_iter().flatten().map(|h| h.join()).collect();
        match spawn_error {
            Some(error) => Err(error),
            None => Ok((writer_results, producer_results)),
        }
    })
}

/// The finished sinks, rows and batches written and encoder threads started, or the first
/// writer's error or panic.
fn collect_writers<W>(
    results: Vec<WriterResult<W>>,
) -> Result<(Vec<W>, u64, u64, usize), PipelineError> {
    let mut finished = Vec::with_capacity(results.len());
    let (mut rows, mut batches, mut pool_threads) = (0, 0, 0);
    for (writer, result) in results.into_iter().enumerate() {
        match result {
            Ok(Ok(written)) => {
                finished.push(written.sink);
                rows += written.rows;
                batches += written.batches;
                pool_threads += written.pool_threads;
            }
            Ok(Err(source)) => return Err(PipelineError::Writer { writer, source }),
            Err(payload) => {
                return Err(PipelineError::WriterPanicked {
                    writer,
                    message: panic_message(payload.as_ref()),
                })
            }
        }
    }
    Ok((finished, rows, batches, pool_threads))
}

/// The Arrow bytes produced and, when `verify` is on, the digest of every batch; or the first
/// producer's error or panic.
fn collect_producers(
    results: Vec<ProducerResult>,
    verify: bool,
) -> Result<(u64, Option<Digest>), PipelineError> {
    let mut arrow_bytes = 0;
    let mut produced = verify.then(Digest::default);
    for (producer, result) in results.into_iter().enumerate() {
        let made = match result {
            Ok(made) => made?,
            Err(payload) => {
                return Err(PipelineError::ProducerPanicked {
                    producer,
                    message: panic_message(payload.as_ref()),
                })
            }
        };
        arrow_bytes += made.arrow_bytes;
        if let (Some(total), Some(part)) = (produced.as_mut(), made.digest) {
            *total += part;
        }
    }
    Ok((arrow_bytes, produced))
}
