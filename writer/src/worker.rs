//! The persistent pool of encoding workers.
//!
//! The column writers of a row group are grouped by top-level field into lanes, and each batch's
//! column for a field queues on that field's lane. A worker with nothing to do claims a lane
//! with queued batches (one it encoded last time first, so a column's encoder state tends to
//! stay in one core's caches), encodes every queued batch into it, and hands it back. A lane is
//! held by one worker at a time, so a field's batches are encoded in order without locking the
//! column writers; and no worker sits idle while a lane it does not hold has work, so the load
//! balances itself whatever each column costs, with no estimate to get wrong. Workers compute
//! the levels of the fields they encode, which spreads level computation across the pool too.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use arrow_array::ArrayRef;
use arrow_schema::{FieldRef, SchemaRef};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowColumnWriter};
use parquet::errors::ParquetError;

use crate::budget::{Budget, Permit};
use crate::sync::{lock, wait_counted};

/// A column writer and where its leaf sits in the schema.
pub(crate) struct PlacedLeaf {
    /// Index of the leaf among all leaves of the schema.
    pub leaf: usize,
    /// Position of the leaf among its field's leaves.
    pub index_in_field: usize,
    /// The writer.
    pub writer: ArrowColumnWriter,
}

/// Sizes of column writers.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Sizes {
    /// Estimated encoded bytes, as `ArrowColumnWriter::get_estimated_total_bytes`.
    pub estimated: usize,
    /// Memory held, as `ArrowColumnWriter::memory_size`.
    pub memory: usize,
}

impl Sizes {
    fn of(leaves: &[PlacedLeaf]) -> Self {
        leaves.iter().fold(Self::default(), |sizes, l| Self {
            estimated: sizes.estimated + l.writer.get_estimated_total_bytes(),
            memory: sizes.memory + l.writer.memory_size(),
        })
    }

    fn add(self, other: Self) -> Self {
        Self {
            estimated: self.estimated + other.estimated,
            memory: self.memory + other.memory,
        }
    }
}

/// One field's column writers for one row group, with the batches waiting for them.
struct Lane {
    /// The writers; `None` while a worker holds them, and once they are closed.
    leaves: Option<Vec<PlacedLeaf>>,
    /// The field's column of each batch not yet encoded, oldest first, with the budget it holds.
    queued: VecDeque<(ArrayRef, Permit)>,
    /// The worker that last held the lane.
    owner: Option<usize>,
    /// Sizes of the writers when last handed back.
    sizes: Sizes,
}

/// A row group on the pool.
struct RowGroupWork {
    index: usize,
    lanes: Vec<Lane>,
    /// No more batches will come: each lane is closed once its queue is empty.
    closing: bool,
    /// Lanes held by a worker.
    held: usize,
    /// Lanes not closed yet.
    open: usize,
    /// Closed chunks with their leaf index.
    chunks: Vec<(usize, ArrowColumnChunk)>,
    /// The first encoding error; the row group's remaining work is then dropped.
    error: Option<ParquetError>,
}

impl RowGroupWork {
    /// Whether every queued batch is encoded and no worker holds a lane.
    fn quiet(&self) -> bool {
        self.held == 0 && self.lanes.iter().all(|lane| lane.queued.is_empty())
    }

    fn fail(&mut self, error: ParquetError) {
        self.error.get_or_insert(error);
        for lane in &mut self.lanes {
            lane.queued.clear();
        }
    }
}

/// What a worker does with a lane it claimed.
enum Task {
    /// Encode these batches, oldest first.
    Encode(Vec<ArrayRef>, Vec<Permit>),
    /// Close the writers.
    Close,
}

/// A lane taken by a worker.
struct Claim {
    row_group: usize,
    field: usize,
    leaves: Vec<PlacedLeaf>,
    task: Task,
}

/// What a claim produced.
enum Done {
    /// The writers, to hand back, and their sizes now.
    Encoded(Vec<PlacedLeaf>, Sizes),
    /// The lane's chunks.
    Closed(Vec<(usize, ArrowColumnChunk)>),
}

impl Claim {
    /// Most batches encoded in one claim; the memory budget bounds them anyway.
    const MAX_BATCHES: usize = 64;

    /// Runs the task; a panic becomes an error.
    fn run(self, field: &FieldRef) -> Result<Done, ParquetError> {
        let Self {
            mut leaves, task, ..
        } = self;
        let outcome = catch_unwind(AssertUnwindSafe(|| match task {
            Task::Encode(columns, permits) => {
                for column in &columns {
                    let computed = compute_leaves(field, column)?;
                    for placed in &mut leaves {
                        placed.writer.write(&computed[placed.index_in_field])?;
                    }
                }
                // The batches are encoded: their budget goes back before the lane does.
                drop(permits);
                let sizes = Sizes::of(&leaves);
                Ok(Done::Encoded(leaves, sizes))
            }
            Task::Close => leaves
                .into_iter()
                .map(|placed| Ok((placed.leaf, placed.writer.close()?)))
                .collect::<Result<_, ParquetError>>()
                .map(Done::Closed),
        }));
        outcome.unwrap_or_else(|payload| Err(panic_error(payload)))
    }
}

fn not_encoding(index: usize) -> ParquetError {
    ParquetError::General(format!("row group {index} is not on the encoding pool"))
}

fn panic_error(payload: Box<dyn std::any::Any + Send>) -> ParquetError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    ParquetError::General(format!("an encoding worker panicked: {message}"))
}

/// Every row group on the pool, shared by the writer and the workers.
#[derive(Default)]
struct Board {
    /// Oldest first.
    row_groups: VecDeque<RowGroupWork>,
    /// Workers waiting for work.
    idle: usize,
    /// Writer threads waiting for progress.
    watchers: usize,
    shutdown: bool,
}

impl Board {
    fn row_group(&mut self, index: usize) -> Result<&mut RowGroupWork, ParquetError> {
        self.row_groups
            .iter_mut()
            .find(|rg| rg.index == index)
            .ok_or_else(|| not_encoding(index))
    }

    /// The work `worker` should do next: in the oldest row group that has any, a lane it held
    /// last time before one nobody held before one another worker held.
    fn claim(&mut self, worker: usize) -> Option<Claim> {
        for rg in &mut self.row_groups {
            if rg.error.is_some() {
                continue;
            }
            let closing = rg.closing;
            let ready =
                rg.lanes.iter().enumerate().filter(|(_, lane)| {
                    lane.leaves.is_some() && (closing || !lane.queued.is_empty())
                });
            let preference = |lane: &Lane| match lane.owner {
                Some(owner) if owner == worker => 0,
                None => 1,
                Some(_) => 2,
            };
            let Some((field, _)) = ready.min_by_key(|(field, lane)| (preference(lane), *field))
            else {
                continue;
            };
            let lane = &mut rg.lanes[field];
            let leaves = lane.leaves.take().expect("a ready lane has its writers");
            lane.owner = Some(worker);
            rg.held += 1;
            let task = if lane.queued.is_empty() {
                Task::Close
            } else {
                let take = lane.queued.len().min(Claim::MAX_BATCHES);
                let (columns, permits) = lane.queued.drain(..take).unzip();
                Task::Encode(columns, permits)
            };
            return Some(Claim {
                row_group: rg.index,
                field,
                leaves,
                task,
            });
        }
        None
    }

    /// Takes back what a claim on lane `field` of row group `index` produced.
    fn hand_back(&mut self, index: usize, field: usize, done: Result<Done, ParquetError>) {
        let Ok(rg) = self.row_group(index) else {
            return;
        };
        rg.held -= 1;
        match done {
            Ok(Done::Encoded(leaves, sizes)) => {
                let lane = &mut rg.lanes[field];
                lane.leaves = Some(leaves);
                lane.sizes = sizes;
            }
            Ok(Done::Closed(chunks)) => {
                rg.lanes[field].sizes = Sizes::default();
                rg.chunks.extend(chunks);
                rg.open -= 1;
            }
            Err(error) => rg.fail(error),
        }
    }
}

/// The board and the two things threads wait for on it.
#[derive(Default)]
struct Shared {
    board: Mutex<Board>,
    /// Signalled when lanes get work, or at shutdown.
    work: Condvar,
    /// Signalled when a worker hands a lane back.
    progress: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Board> {
        lock(&self.board)
    }

    /// Locks the board once `ready` holds for it, waiting for workers' progress until then.
    fn lock_when(&self, mut ready: impl FnMut(&mut Board) -> bool) -> MutexGuard<'_, Board> {
        let mut board = self.lock();
        while !ready(&mut board) {
            board = wait_counted(board, &self.progress, |b| &mut b.watchers);
        }
        board
    }

    /// Wakes idle workers, if any, after lanes got work.
    fn wake_workers(&self, board: &Board) {
        if board.idle > 0 {
            self.work.notify_all();
        }
    }
}

fn run_worker(worker: usize, schema: SchemaRef, shared: Arc<Shared>, budget: Arc<Budget>) {
    let mut board = shared.lock();
    let mut told_budget = false;
    while !board.shutdown {
        match board.claim(worker) {
            Some(claim) => {
                drop(board);
                let (index, field) = (claim.row_group, claim.field);
                let done = claim.run(&schema.fields()[field]);
                board = shared.lock();
                board.hand_back(index, field, done);
                if board.watchers > 0 {
                    shared.progress.notify_all();
                }
                told_budget = false;
            }
            // Out of work: a writer waiting for budget may send more as soon as it fits.
            None if !told_budget => {
                drop(board);
                budget.starving();
                told_budget = true;
                board = shared.lock();
            }
            None => board = wait_counted(board, &shared.work, |b| &mut b.idle),
        }
    }
}

/// Worker threads, spawned once per writer and kept for its lifetime.
pub(crate) struct WorkerPool {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl WorkerPool {
    /// Starts `size` workers encoding columns of `schema`, fed by a writer bounded by `budget`.
    pub(crate) fn new(
        size: usize,
        schema: &SchemaRef,
        budget: &Arc<Budget>,
    ) -> Result<Self, ParquetError> {
        let mut pool = Self {
            shared: Arc::default(),
            threads: Vec::with_capacity(size),
        };
        for worker in 0..size {
            let (schema, shared, budget) = (
                SchemaRef::clone(schema),
                Arc::clone(&pool.shared),
                Arc::clone(budget),
            );
            let thread = std::thread::Builder::new()
                .name(format!("parquet-encoder-{worker}"))
                .spawn(move || run_worker(worker, schema, shared, budget))
                .map_err(|e| ParquetError::External(Box::new(e)))?;
            pool.threads.push(thread);
        }
        Ok(pool)
    }

    /// Number of workers.
    pub(crate) fn size(&self) -> usize {
        self.threads.len()
    }

    /// Hands the pool row group `index`'s writers, grouped by field (`lanes[f]`: field `f`'s).
    /// Each lane starts out preferring the worker that last held the same field.
    pub(crate) fn start(&self, index: usize, lanes: Vec<Vec<PlacedLeaf>>) {
        let mut board = self.shared.lock();
        let owners: Vec<Option<usize>> = match board.row_groups.back() {
            Some(previous) => previous.lanes.iter().map(|l| l.owner).collect(),
            None => vec![None; lanes.len()],
        };
        let open = lanes.len();
        let lanes = lanes.into_iter().zip(owners).map(|(leaves, owner)| Lane {
            sizes: Sizes::of(&leaves),
            leaves: Some(leaves),
            queued: VecDeque::new(),
            owner,
        });
        board.row_groups.push_back(RowGroupWork {
            index,
            lanes: lanes.collect(),
            closing: false,
            held: 0,
            open,
            chunks: Vec::new(),
            error: None,
        });
    }

    /// Queues each field's column of one batch (`columns[f]`, with the budget it holds) on
    /// row group `index`.
    pub(crate) fn write(
        &self,
        index: usize,
        columns: impl IntoIterator<Item = (ArrayRef, Permit)>,
    ) -> Result<(), ParquetError> {
        let mut board = self.shared.lock();
        let rg = board.row_group(index)?;
        if rg.error.is_none() {
            for (lane, column) in rg.lanes.iter_mut().zip(columns) {
                lane.queued.push_back(column);
            }
        }
        self.shared.wake_workers(&board);
        Ok(())
    }

    /// Sizes of row group `index`'s writers once every batch queued so far is encoded.
    pub(crate) fn sizes(&self, index: usize) -> Result<Sizes, ParquetError> {
        let mut board = self
            .shared
            .lock_when(|board| board.row_group(index).map_or(true, |rg| rg.quiet()));
        let rg = board.row_group(index)?;
        Ok(rg
            .lanes
            .iter()
            .fold(Sizes::default(), |s, l| s.add(l.sizes)))
    }

    /// No more batches for row group `index`: its lanes close as their queues empty.
    pub(crate) fn close(&self, index: usize) -> Result<(), ParquetError> {
        let mut board = self.shared.lock();
        board.row_group(index)?.closing = true;
        self.shared.wake_workers(&board);
        Ok(())
    }

    /// Waits for the oldest row group, `index`, to be closed, and returns its chunks in leaf
    /// order (or its first error).
    pub(crate) fn finish(&self, index: usize) -> Result<Vec<ArrowColumnChunk>, ParquetError> {
        let mut board = self.shared.lock_when(|board| {
            board.row_group(index).map_or(true, |rg| {
                rg.open == 0 || (rg.error.is_some() && rg.held == 0)
            })
        });
        let position = board.row_groups.iter().position(|rg| rg.index == index);
        let rg = position
            .and_then(|position| board.row_groups.remove(position))
            .ok_or_else(|| not_encoding(index))?;
        drop(board);
        if let Some(error) = rg.error {
            return Err(error);
        }
        let mut chunks = rg.chunks;
        chunks.sort_unstable_by_key(|(leaf, _)| *leaf);
        Ok(chunks.into_iter().map(|(_, chunk)| chunk).collect())
    }

    /// Memory the column writers on the pool hold, as of each lane's last hand-back.
    pub(crate) fn held_memory(&self) -> usize {
        let board = self.shared.lock();
        let lanes = board.row_groups.iter().flat_map(|rg| &rg.lanes);
        lanes.map(|lane| lane.sizes.memory).sum()
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.work.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Array, Int32Array};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;

    use super::*;

    fn schema(fields: &[DataType]) -> SchemaRef {
        let fields = fields
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("f{i}"), t.clone(), true));
        Arc::new(Schema::new(fields.collect::<Vec<_>>()))
    }

    /// One lane per field of `schema`, its writers made by parquet's own factory.
    fn lanes(schema: &SchemaRef) -> Vec<Vec<PlacedLeaf>> {
        let (_, factory) = ArrowWriter::try_new(Vec::new(), SchemaRef::clone(schema), None)
            .unwrap()
            .into_serialized_writer()
            .unwrap();
        let writers = factory.create_column_writers(0).unwrap();
        let placed = writers.into_iter().enumerate().map(|(leaf, writer)| {
            vec![PlacedLeaf {
                leaf,
                index_in_field: 0,
                writer,
            }]
        });
        placed.collect()
    }

    fn column(value: i32) -> ArrayRef {
        Arc::new(Int32Array::from(vec![value]))
    }

    fn board_with(schema: &SchemaRef, row_groups: usize, owners: &[usize]) -> Board {
        let mut board = Board::default();
        for index in 0..row_groups {
            let lanes = lanes(schema)
                .into_iter()
                .zip(owners)
                .map(|(leaves, &owner)| Lane {
                    sizes: Sizes::default(),
                    leaves: Some(leaves),
                    queued: VecDeque::new(),
                    owner: Some(owner),
                });
            board.row_groups.push_back(RowGroupWork {
                index,
                lanes: lanes.collect(),
                closing: false,
                held: 0,
                open: owners.len(),
                chunks: Vec::new(),
                error: None,
            });
        }
        board
    }

    fn queue(board: &mut Board, row_group: usize, field: usize, value: i32, budget: &Arc<Budget>) {
        let lane = &mut board.row_group(row_group).unwrap().lanes[field];
        lane.queued.push_back((column(value), budget.acquire(4)));
    }

    fn values(claim: &Claim) -> Vec<i32> {
        let Task::Encode(columns, _) = &claim.task else {
            panic!("expected an encode task");
        };
        let first = |c: &ArrayRef| c.as_any().downcast_ref::<Int32Array>().unwrap().value(0);
        columns.iter().map(first).collect()
    }

    #[test]
    fn a_worker_takes_its_own_lane_first_then_any_lane_with_work() {
        let budget = Budget::new(1 << 20);
        let schema = schema(&[DataType::Int32, DataType::Int32, DataType::Int32]);
        let mut board = board_with(&schema, 1, &[1, 0, 1]);
        for value in 0..3 {
            queue(&mut board, 0, 0, value, &budget);
            queue(&mut board, 0, 2, 10 + value, &budget);
        }

        let own = board.claim(1).expect("worker 1 has work");
        assert_eq!((own.field, values(&own)), (0, vec![0, 1, 2]), "in order");
        assert!(board.claim(1).is_some_and(|c| c.field == 2));
        assert!(
            board.claim(0).is_none(),
            "lanes held by another worker, or without work, are not claimed"
        );
        let held = board.row_group(0).unwrap();
        assert_eq!((held.held, held.lanes[0].queued.len()), (2, 0));

        let sizes = Sizes::of(&own.leaves);
        board.hand_back(0, 0, Ok(Done::Encoded(own.leaves, sizes)));
        queue(&mut board, 0, 0, 3, &budget);
        let stolen = board.claim(0).expect("worker 0 is out of work of its own");
        assert_eq!((stolen.field, values(&stolen)), (0, vec![3]));
        assert_eq!(board.row_group(0).unwrap().lanes[0].owner, Some(0));
    }

    #[test]
    fn the_oldest_row_group_goes_first_and_lanes_close_once_their_queue_is_empty() {
        let budget = Budget::new(1 << 20);
        let schema = schema(&[DataType::Int32, DataType::Int32]);
        let mut board = board_with(&schema, 2, &[0, 0]);
        queue(&mut board, 1, 0, 1, &budget);
        queue(&mut board, 0, 1, 0, &budget);
        board.row_group(0).unwrap().closing = true;

        let mut claims = Vec::new();
        while let Some(claim) = board.claim(0) {
            let kind = match claim.task {
                Task::Encode(..) => "encode",
                Task::Close => "close",
            };
            let (row_group, field) = (claim.row_group, claim.field);
            claims.push((row_group, field, kind));
            let done = claim.run(&schema.fields()[field]);
            board.hand_back(row_group, field, done);
        }
        assert_eq!(
            claims,
            [
                (0, 0, "close"),
                (0, 1, "encode"),
                (0, 1, "close"),
                (1, 0, "encode")
            ]
        );
        let closed = board.row_group(0).unwrap();
        assert_eq!((closed.open, closed.chunks.len()), (0, 2));
        assert_eq!(budget.used(), 0, "encoded batches give their budget back");
    }

    /// A byte-array column writer handed Int32 values hits an `unreachable!` in parquet: a real
    /// panic inside the encoding code, on a worker thread.
    #[test]
    fn a_panic_while_encoding_becomes_an_error_and_the_pool_goes_on() {
        let budget = Budget::new(1 << 20);
        let arrow_schema = schema(&[DataType::Int32]);
        let pool = WorkerPool::new(2, &arrow_schema, &budget).unwrap();

        pool.start(0, lanes(&schema(&[DataType::Utf8])));
        pool.write(0, [(column(1), budget.acquire(4))]).unwrap();
        pool.close(0).unwrap();
        let Err(error) = pool.finish(0) else {
            panic!("the panic is not reported");
        };
        assert!(
            error.to_string().contains("an encoding worker panicked")
                && error.to_string().contains("unreachable"),
            "{error}"
        );
        assert_eq!(
            budget.used(),
            0,
            "the budget is given back despite the panic"
        );

        pool.start(1, lanes(&arrow_schema));
        pool.write(1, [(column(7), budget.acquire(4))]).unwrap();
        assert!(pool.sizes(1).unwrap().estimated > 0);
        pool.close(1).unwrap();
        let chunks = pool.finish(1).unwrap();
        assert_eq!(chunks.len(), 1);
        assert_eq!(pool.held_memory(), 0);
        assert!(pool.finish(1).is_err(), "a finished row group is gone");
        drop(pool);
    }
}
