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
use crate::counters::{EncoderObserver, Observed, Phase, PhaseCounters, Role, RunCounters};
use crate::encoder::{EncoderKind, FileEncoder};
use crate::error::{panic_message, PipelineError};
use crate::fused;
use crate::gate::Digest;
use crate::generation::{generate_claimed, BatchClaims, Generation};
use crate::joined::{
    join_started, Joined, Produced, ProducerResult, Spawner, StopOnPanic, WriterResult, Written,
};
use crate::leaf_encoders::{column_encoder, LeafEncoders};
use crate::milestones::Milestones;
use crate::output::{SinkFactory, SinkKind};
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
    /// Which encoder wrote each leaf (`None` with `--sink null`: nothing was encoded).
    pub leaf_encoders: Option<LeafEncoders>,
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
            leaf_encoders: self.leaf_encoders,
        }
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
    let mut counted = context
        .counters
        .map(|c| c.track(Role::Producers, Phase::Start));
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
    let mut generation = Generation::new(context.source.maker(), config.verify);
    generate_claimed(
        &mut generation,
        claims.map(|index| (index, config.batch_rows(index))),
        context.stop,
        context.reorder,
        |index, batch| hand_over(context, &senders, index, batch),
        || context.returns.and_then(Returns::take),
        |phase, rows| {
            counted.add_rows(rows);
            counted.enter(phase);
        },
    )?;
    counted.enter(Phase::Tail);
    Ok(Produced::from(generation))
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
        .parallel_options(config.pool_threads)
        .with_encoder(column_encoder(config));
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
    let mut counted = context
        .counters
        .map(|c| c.track(Role::Writers, Phase::Start));
    let kind = encoder_kind(context.config, context.counters);
    let mut writer = FileEncoder::try_new(sink, schema, properties, kind)?;
    let (mut rows, mut count) = (0, 0);
    counted.enter(Phase::Receive);
    for batch in batches {
        counted.enter(Phase::Encode);
        writer.write(&batch)?;
        counted.add_rows(batch.num_rows() as u64);
        rows += batch.num_rows() as u64;
        count += 1;
        context.progress.inc(batch.num_rows() as u64);
        if let Some(milestones) = context.milestones {
            milestones.add(batch.num_rows() as u64);
        }
        if let Some(returns) = context.returns {
            returns.give(batch);
        }
        counted.enter(Phase::Receive);
    }
    counted.enter(Phase::Append);
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
    let mut counters = match config.counters || config.timeline.is_some() {
        true => Some(
            RunCounters::start(config.counters, config.timeline.is_some())
                .map_err(PipelineError::Counters)?,
        ),
        false => None,
    };
    let started = Instant::now();
    let usage_at_start = UsageMark::now();
    let created: Vec<F::Sink> = (0..config.writers)
        .map(|w| sinks.create(w))
        .collect::<Result<_, _>>()?;
    if let Some(counters) = counters.as_mut() {
        counters.main_enters(Phase::Wait);
    }
    let registry = counters.as_ref().map(|c| Arc::clone(c.registry()));
    let fused = config.optimizations.has(Optimization::FusedRowGroups);
    let joined = if fused {
        fused::spawn_and_join(config, source, created, progress, registry.as_ref())
    } else {
        spawn_and_join(config, source, created, progress, registry.as_ref())
    };
    if let Some(counters) = counters.as_mut() {
        counters.main_enters(Phase::Tail);
    }
    if let Some(signal) = signals::received() {
        return Err(PipelineError::Interrupted { signal });
    }
    let (writer_results, producer_results) =
        joined.map_err(|source| PipelineError::Spawn { source })?;
    let (sinks, rows, batches, pool_threads) = collect_writers(writer_results)?;
    let role = if fused { "fused" } else { "producer" };
    let (arrow_bytes, produced) = collect_producers(producer_results, role, config.verify)?;
    let elapsed = started.elapsed();
    // The files were opened with this schema and these properties: this only reads the plan.
    let leaf_encoders = match config.sink {
        SinkKind::Null => None,
        _ => Some(
            LeafEncoders::of_run(config, source.schema())
                .map_err(|source| PipelineError::FileFailed { file: 0, source })?,
        ),
    };
    Ok(PipelineOutcome {
        elapsed,
        started: usage_at_start,
        rows,
        batches,
        pool_threads,
        arrow_bytes,
        sinks,
        produced,
        counters,
        leaf_encoders,
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
    let properties = config.writer_properties();
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
    let mut spawner = Spawner::new(&stop);
    let (writer_results, producer_results) = thread::scope(|scope| {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..config.writers)
            .map(|_| batch_channel(recycling, capacity))
            .unzip();
        let writers = sinks
            .into_iter()
            .zip(receivers)
            .enumerate()
            .map(|(w, (sink, batches))| {
                let (schema, properties) = (Arc::clone(&schema), properties.clone());
                let writer_context = &writer_context;
                spawner.spawn(scope, format!("writer-{w}"), move || {
                    write_stream(sink, schema, properties, batches, writer_context)
                })
            })
            .collect();
        let producers = (0..config.producers)
            .map(|p| {
                let (senders, context) = (senders.clone(), &context);
                spawner.spawn(scope, format!("producer-{p}"), move || {
                    produce(context, p, senders)
                })
            })
            .collect();
        drop(senders);
        (join_started(writers), join_started(producers))
    });
    spawner.finish()?;
    Ok((writer_results, producer_results))
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
            Ok(Err(source)) => {
                return Err(PipelineError::FileFailed {
                    file: writer,
                    source,
                })
            }
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
/// generating thread's error or panic (threads named `{role}-N`).
fn collect_producers(
    results: Vec<ProducerResult>,
    role: &str,
    verify: bool,
) -> Result<(u64, Option<Digest>), PipelineError> {
    let mut arrow_bytes = 0;
    let mut produced = verify.then(Digest::default);
    for (producer, result) in results.into_iter().enumerate() {
        let made = match result {
            Ok(made) => made?,
            Err(payload) => {
                return Err(PipelineError::GeneratorPanicked {
                    thread: format!("{role}-{producer}"),
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
