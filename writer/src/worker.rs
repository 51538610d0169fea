//! The persistent pool of encoding workers. Each worker owns the column writers of the leaves
//! placed on it and takes jobs from its own FIFO queue, so a leaf's batches are encoded in order
//! without locks. Workers compute the levels of the fields they encode themselves, so level
//! computation is spread across the pool too.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arrow_array::ArrayRef;
use arrow_schema::SchemaRef;
use crossbeam_channel::{unbounded, Receiver, Sender};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowColumnWriter};
use parquet::errors::ParquetError;

use crate::budget::{Budget, Permit};

/// A column writer placed on a worker.
pub(crate) struct PlacedLeaf {
    /// Index of the leaf among all leaves of the schema.
    pub leaf: usize,
    /// The top-level field the leaf belongs to.
    pub field: usize,
    /// Position of the leaf among its field's leaves.
    pub index_in_field: usize,
    /// The writer.
    pub writer: ArrowColumnWriter,
}

/// A leaf's finished chunk and the time spent encoding it.
pub(crate) struct ClosedLeaf {
    pub leaf: usize,
    pub chunk: ArrowColumnChunk,
    pub cost: Duration,
}

/// Sizes of a worker's column writers for one row group.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Sizes {
    /// Estimated encoded bytes, as `ArrowColumnWriter::get_estimated_total_bytes`.
    pub estimated: usize,
    /// Memory held, as `ArrowColumnWriter::memory_size`.
    pub memory: usize,
}

pub(crate) type CloseReply = Result<Vec<ClosedLeaf>, ParquetError>;

/// Work for one worker.
pub(crate) enum Job {
    /// Take ownership of these writers for row group `row_group`.
    Start {
        row_group: usize,
        leaves: Vec<PlacedLeaf>,
    },
    /// Encode one batch's `(field index, column)` pairs into this worker's leaves of them.
    Write {
        row_group: usize,
        columns: Vec<(usize, ArrayRef)>,
        permit: Permit,
        /// The writer's estimate of the work, in nanoseconds, added to the worker's
        /// [`WorkerStatus::done`] once encoded.
        cost: u64,
    },
    /// Report the sizes of this worker's writers for `row_group`.
    Measure {
        row_group: usize,
        reply: Sender<Sizes>,
    },
    /// Close this worker's writers for `row_group` and send back their chunks.
    Close {
        row_group: usize,
        reply: Sender<CloseReply>,
    },
}

/// One worker's part of a row group.
struct WorkerRowGroup {
    leaves: Vec<(PlacedLeaf, Duration)>,
    error: Option<ParquetError>,
}

impl WorkerRowGroup {
    fn write(
        &mut self,
        schema: &SchemaRef,
        field: usize,
        column: &ArrayRef,
    ) -> Result<(), ParquetError> {
        let started = Instant::now();
        let leaves = compute_leaves(schema.field(field), column)?;
        let mine = self
            .leaves
            .iter()
            .filter(|(l, _)| l.field == field)
            .count()
            .max(1);
        let level_share = started.elapsed() / mine as u32;
        for (placed, cost) in self.leaves.iter_mut().filter(|(l, _)| l.field == field) {
            let started = Instant::now();
            placed.writer.write(&leaves[placed.index_in_field])?;
            *cost += started.elapsed() + level_share;
        }
        Ok(())
    }

    fn sizes(&self) -> Sizes {
        self.leaves
            .iter()
            .fold(Sizes::default(), |sizes, (l, _)| Sizes {
                estimated: sizes.estimated + l.writer.get_estimated_total_bytes(),
                memory: sizes.memory + l.writer.memory_size(),
            })
    }

    fn close(self) -> CloseReply {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.leaves
            .into_iter()
            .map(|(placed, cost)| {
                let started = Instant::now();
                let chunk = placed.writer.close()?;
                Ok(ClosedLeaf {
                    leaf: placed.leaf,
                    chunk,
                    cost: cost + started.elapsed(),
                })
            })
            .collect()
    }
}

fn panic_error(payload: Box<dyn std::any::Any + Send>) -> ParquetError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    ParquetError::General(format!("an encoding worker panicked: {message}"))
}

/// Batches queued for one row group, encoded together: each field through all of them before
/// the next field, so a column's encoder state (dictionary, hash table, page buffers) stays in
/// this core's caches across batches instead of being evicted by the other columns after each.
struct Writes {
    row_group: usize,
    batches: Vec<Vec<(usize, ArrayRef)>>,
    /// Budget taken by the batches, given back when they are encoded (or dropped).
    permits: Vec<Permit>,
    /// The writer's estimates of the batches' work, summed.
    cost: u64,
}

impl Writes {
    /// Most batches encoded together; the memory budget bounds them anyway.
    const MAX_BATCHES: usize = 64;

    /// A first write, and every write of the same row group queued right behind it. A job of
    /// another kind (or row group) found while draining goes to `next`, to run after these.
    fn gather(first: Job, jobs: &Receiver<Job>, next: &mut Option<Job>) -> Self {
        let mut writes = Self {
            row_group: 0,
            batches: Vec::new(),
            permits: Vec::new(),
            cost: 0,
        };
        let mut candidate = Some(first);
        while let Some(job) = candidate.take() {
            match job {
                Job::Write {
                    row_group,
                    columns,
                    permit,
                    cost,
                } if writes.batches.is_empty() || row_group == writes.row_group => {
                    writes.row_group = row_group;
                    writes.batches.push(columns);
                    writes.permits.push(permit);
                    writes.cost += cost;
                    if writes.batches.len() < Self::MAX_BATCHES {
                        candidate = jobs.try_recv().ok();
                    }
                }
                other => *next = Some(other),
            }
        }
        writes
    }

    /// Encodes every batch into `group`, field by field. A panic becomes the group's error.
    fn encode_into(self, group: &mut WorkerRowGroup, schema: &SchemaRef) {
        if group.error.is_some() {
            return;
        }
        let fields = self.batches.iter().map(Vec::len).max().unwrap_or(0);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            for position in 0..fields {
                for columns in &self.batches {
                    if let Some((field, column)) = columns.get(position) {
                        group.write(schema, *field, column)?;
                    }
                }
            }
            Ok(())
        }));
        group.error = match outcome {
            Ok(result) => result.err(),
            Err(payload) => Some(panic_error(payload)),
        };
    }
}

/// The next job: one put aside while gathering, else the queue's, telling the budget first
/// when the queue is empty so a writer waiting on it refills this worker.
fn next_job(next: &mut Option<Job>, jobs: &Receiver<Job>, budget: &Budget) -> Option<Job> {
    next.take().or_else(|| {
        jobs.try_recv().ok().or_else(|| {
            budget.starving();
            jobs.recv().ok()
        })
    })
}

/// What a worker publishes for the writer, read without a barrier.
#[derive(Debug, Default)]
pub(crate) struct WorkerStatus {
    /// Memory the worker's column writers hold, as of its last job.
    held: AtomicUsize,
    /// Sum of the cost estimates of the writes encoded so far (see [`Job::Write`]): against
    /// what the writer sent, the work still queued on this worker.
    done: AtomicU64,
}

fn run_worker(
    schema: SchemaRef,
    jobs: Receiver<Job>,
    status: Arc<WorkerStatus>,
    budget: Arc<Budget>,
) {
    let mut row_groups: HashMap<usize, WorkerRowGroup> = HashMap::new();
    let mut next = None;
    while let Some(job) = next_job(&mut next, &jobs, &budget) {
        let changes_memory = !matches!(job, Job::Measure { .. });
        match job {
            Job::Start { row_group, leaves } => {
                let leaves = leaves.into_iter().map(|l| (l, Duration::ZERO)).collect();
                row_groups.insert(
                    row_group,
                    WorkerRowGroup {
                        leaves,
                        error: None,
                    },
                );
            }
            write @ Job::Write { .. } => {
                let writes = Writes::gather(write, &jobs, &mut next);
                let cost = writes.cost;
                if let Some(group) = row_groups.get_mut(&writes.row_group) {
                    writes.encode_into(group, &schema);
                }
                status.done.fetch_add(cost, Ordering::Relaxed);
            }
            Job::Measure { row_group, reply } => {
                let sizes = row_groups.get(&row_group).map(WorkerRowGroup::sizes);
                let _ = reply.send(sizes.unwrap_or_default());
            }
            Job::Close { row_group, reply } => {
                let Some(group) = row_groups.remove(&row_group) else {
                    continue;
                };
                let outcome = catch_unwind(AssertUnwindSafe(|| group.close()));
                let _ = reply.send(outcome.unwrap_or_else(|payload| Err(panic_error(payload))));
            }
        }
        if changes_memory {
            let memory = row_groups.values().map(|g| g.sizes().memory).sum();
            status.held.store(memory, Ordering::Relaxed);
        }
    }
    status.held.store(0, Ordering::Relaxed);
}

/// Worker threads, spawned once per writer and kept for its lifetime.
pub(crate) struct WorkerPool {
    queues: Vec<Sender<Job>>,
    threads: Vec<JoinHandle<()>>,
    status: Vec<Arc<WorkerStatus>>,
}

impl WorkerPool {
    /// Starts `size` workers encoding columns of `schema`, fed by a writer bounded by `budget`.
    pub(crate) fn new(
        size: usize,
        schema: &SchemaRef,
        budget: &Arc<Budget>,
    ) -> Result<Self, ParquetError> {
        let mut pool = Self {
            queues: Vec::with_capacity(size),
            threads: Vec::with_capacity(size),
            status: Vec::with_capacity(size),
        };
        for index in 0..size {
            let (queue, jobs) = unbounded();
            let schema = SchemaRef::clone(schema);
            let status = Arc::new(WorkerStatus::default());
            let worker_status = Arc::clone(&status);
            let budget = Arc::clone(budget);
            let thread = std::thread::Builder::new()
                .name(format!("parquet-encoder-{index}"))
                .spawn(move || run_worker(schema, jobs, worker_status, budget))
                .map_err(|e| ParquetError::External(Box::new(e)))?;
            pool.queues.push(queue);
            pool.threads.push(thread);
            pool.status.push(status);
        }
        Ok(pool)
    }

    /// Memory the workers' column writers hold (encoded pages of every row group they encode).
    pub(crate) fn held_memory(&self) -> usize {
        self.status
            .iter()
            .map(|s| s.held.load(Ordering::Relaxed))
            .sum()
    }

    /// Cost estimates of the writes each worker has encoded so far.
    pub(crate) fn done(&self) -> Vec<u64> {
        self.status
            .iter()
            .map(|s| s.done.load(Ordering::Relaxed))
            .collect()
    }

    /// Number of workers.
    pub(crate) fn size(&self) -> usize {
        self.queues.len()
    }

    /// Queues `job` on `worker`.
    pub(crate) fn send(&self, worker: usize, job: Job) -> Result<(), ParquetError> {
        self.queues[worker]
            .send(job)
            .map_err(|_| ParquetError::General(format!("encoding worker {worker} has stopped")))
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.queues.clear();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::Int32Array;
    use arrow_schema::{DataType, Field, Schema};
    use crossbeam_channel::{bounded, unbounded};
    use parquet::arrow::ArrowWriter;

    use super::*;
    use crate::budget::Budget;

    fn write_job(row_group: usize, budget: &Arc<Budget>, value: i32) -> Job {
        let column: ArrayRef = Arc::new(Int32Array::from(vec![value]));
        Job::Write {
            row_group,
            columns: vec![(0, column)],
            permit: budget.acquire(4),
            cost: 10,
        }
    }

    #[test]
    fn queued_writes_of_a_row_group_are_taken_together_in_order() {
        let budget = Budget::new(1 << 20);
        let (queue, jobs) = unbounded();
        for value in 1..3 {
            queue.send(write_job(0, &budget, value)).unwrap();
        }
        let (reply, _replies) = bounded(1);
        queue
            .send(Job::Measure {
                row_group: 0,
                reply,
            })
            .unwrap();
        queue.send(write_job(0, &budget, 3)).unwrap();
        drop(queue);

        let gather = |first: Job, next: &mut Option<Job>| Writes::gather(first, &jobs, next);
        let values = |writes: &Writes| -> Vec<i32> {
            let first_values = writes.batches.iter().map(|columns| {
                let column = columns[0].1.as_any().downcast_ref::<Int32Array>().unwrap();
                column.value(0)
            });
            first_values.collect()
        };
        let mut next = None;
        let writes = gather(write_job(0, &budget, 0), &mut next);
        assert_eq!((writes.row_group, values(&writes)), (0, vec![0, 1, 2]));
        assert_eq!((writes.permits.len(), writes.cost), (3, 30));
        assert!(
            matches!(next, Some(Job::Measure { .. })),
            "stops at another kind"
        );
        drop(writes);
        assert_eq!(budget.used(), 4, "only the write still queued holds budget");

        let mut next = None;
        let writes = gather(write_job(1, &budget, 7), &mut next);
        assert_eq!(
            values(&writes),
            vec![7],
            "another row group's writes are not taken"
        );
        assert!(matches!(next, Some(Job::Write { row_group: 0, .. })));
    }

    fn single_column_schema(data_type: DataType) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("a", data_type, true)]))
    }

    /// A byte-array column writer handed Int32 values hits an `unreachable!` in parquet: a real
    /// panic inside the encoding code, on the worker thread.
    #[test]
    fn a_panic_while_encoding_becomes_an_error_and_the_worker_survives() {
        let (_, factory) =
            ArrowWriter::try_new(Vec::new(), single_column_schema(DataType::Utf8), None)
                .unwrap()
                .into_serialized_writer()
                .unwrap();
        let writer = factory.create_column_writers(0).unwrap().remove(0);
        let budget = Budget::new(1 << 20);
        let pool = WorkerPool::new(1, &single_column_schema(DataType::Int32), &budget).unwrap();
        let leaves = vec![PlacedLeaf {
            leaf: 0,
            field: 0,
            index_in_field: 0,
            writer,
        }];
        pool.send(
            0,
            Job::Start {
                row_group: 0,
                leaves,
            },
        )
        .unwrap();
        let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
        pool.send(
            0,
            Job::Write {
                row_group: 0,
                columns: vec![(0, column)],
                permit: budget.acquire(12),
                cost: 5,
            },
        )
        .unwrap();
        let (reply, replies) = bounded(1);
        pool.send(
            0,
            Job::Close {
                row_group: 0,
                reply,
            },
        )
        .unwrap();
        let error = replies
            .recv()
            .unwrap()
            .err()
            .expect("the panic is reported");
        assert!(
            error.to_string().contains("an encoding worker panicked")
                && error.to_string().contains("unreachable"),
            "{error}"
        );
        assert_eq!(budget.used(), 0, "the permit is returned despite the panic");

        // The worker keeps serving jobs after the panic, and the pool shuts down on drop.
        let (reply, replies) = bounded(1);
        pool.send(
            0,
            Job::Measure {
                row_group: 1,
                reply,
            },
        )
        .unwrap();
        assert_eq!(replies.recv().unwrap().memory, 0);
        assert_eq!(pool.done(), [5], "a failed write is no longer queued work");
        drop(pool);
    }
}
