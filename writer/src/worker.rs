//! The persistent pool of encoding workers: threads that claim lanes from the board
//! (`board.rs`), encode or close them outside the lock, and hand them back. The crate
//! documentation's "Design" section describes how the pieces fit.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use arrow_array::ArrayRef;
use parquet::errors::ParquetError;

use crate::board::{Board, Claim, Done, FieldWriters, Sizes, Task};
use crate::budget::{Budget, Permit};
use crate::encode::{EncodePlan, LeafChunk};
use crate::options::WorkerObserver;
use crate::sync::{lock, wait_counted};

impl Claim {
    /// Runs the task, encoding as `plan` says; a panic becomes an error.
    pub(crate) fn run(self, plan: &EncodePlan) -> Result<Done, ParquetError> {
        let Self {
            mut leaves,
            task,
            field,
            ..
        } = self;
        let outcome = catch_unwind(AssertUnwindSafe(|| match task {
            Task::Encode(columns, permits) => {
                for column in &columns {
                    plan.write_field(field, &mut leaves.writers, column)?;
                }
                // The batches are encoded: their budget goes back before the lane does.
                drop(permits);
                let sizes = Sizes::of(&leaves.writers);
                Ok(Done::Encoded(leaves, sizes))
            }
            Task::Close => (leaves.first_leaf..)
                .zip(leaves.writers)
                .map(|(leaf, writer)| Ok((leaf, writer.close()?)))
                .collect::<Result<_, ParquetError>>()
                .map(Done::Closed),
        }));
        outcome.unwrap_or_else(|payload| Err(panic_error(payload)))
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

fn run_worker(worker: usize, plan: Arc<EncodePlan>, shared: Arc<Shared>, budget: Arc<Budget>) {
    let mut board = shared.lock();
    let mut told_budget = false;
    while !board.shutdown {
        match board.claim(worker) {
            Some(claim) => {
                drop(board);
                let (index, field) = (claim.row_group, claim.field);
                let done = claim.run(&plan);
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
    /// Starts `size` workers encoding columns as `plan` says, fed by a writer bounded by
    /// `budget`; `observer` is told on each worker's thread as it starts.
    pub(crate) fn new(
        size: usize,
        plan: &Arc<EncodePlan>,
        budget: &Arc<Budget>,
        observer: Option<Arc<dyn WorkerObserver>>,
    ) -> Result<Self, ParquetError> {
        let mut pool = Self {
            shared: Arc::default(),
            threads: Vec::with_capacity(size),
        };
        for worker in 0..size {
            let (plan, shared, budget, observer) = (
                Arc::clone(plan),
                Arc::clone(&pool.shared),
                Arc::clone(budget),
                observer.clone(),
            );
            let thread = std::thread::Builder::new()
                .name(format!("parquet-encoder-{worker}"))
                .spawn(move || {
                    // Dropped on this thread once the worker is done.
                    let _watch = observer.map(|o| o.worker_started());
                    run_worker(worker, plan, shared, budget);
                })
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
    pub(crate) fn start(&self, index: usize, lanes: Vec<FieldWriters>) {
        self.shared.lock().start(index, lanes);
    }

    /// Queues each field's column of one batch (`columns[f]`, with the budget it holds) on
    /// row group `index`.
    pub(crate) fn write(
        &self,
        index: usize,
        columns: impl IntoIterator<Item = (ArrayRef, Permit)>,
    ) -> Result<(), ParquetError> {
        let mut board = self.shared.lock();
        board.queue(index, columns)?;
        self.shared.wake_workers(&board);
        Ok(())
    }

    /// Sizes of row group `index`'s writers once every batch queued so far is encoded.
    pub(crate) fn sizes(&self, index: usize) -> Result<Sizes, ParquetError> {
        let mut board = self.shared.lock_when(|board| board.quiet(index));
        board.sizes(index)
    }

    /// No more batches for row group `index`: its lanes close as their queues empty.
    pub(crate) fn close(&self, index: usize) -> Result<(), ParquetError> {
        let mut board = self.shared.lock();
        board.close(index)?;
        self.shared.wake_workers(&board);
        Ok(())
    }

    /// Waits for the chunk of leaf `next` of the oldest row group, `index`, and returns it with
    /// the chunks after it already closed, in leaf order (or the row group's first error): the
    /// writer appends each run while the workers still close the later leaves, rather than the
    /// whole row group once its last chunk is closed. Empty once every chunk has been returned.
    pub(crate) fn next_chunks(
        &self,
        index: usize,
        next: usize,
    ) -> Result<Vec<LeafChunk>, ParquetError> {
        let mut board = self.shared.lock_when(|board| board.has_next(index, next));
        board.take_chunks(index, next)
    }

    /// Memory the column writers on the pool hold, as of each lane's last hand-back.
    pub(crate) fn held_memory(&self) -> usize {
        self.shared.lock().held_memory()
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
    use arrow_schema::DataType;

    use super::*;
    use crate::board::fixtures::{column, lanes, plan, schema};

    /// A byte-array column writer handed Int32 values hits an `unreachable!` in parquet: a real
    /// panic inside the encoding code, on a worker thread.
    #[test]
    fn a_panic_while_encoding_becomes_an_error_and_the_pool_goes_on() {
        let budget = Budget::new(1 << 20);
        let arrow_schema = schema(&[DataType::Int32]);
        let pool = WorkerPool::new(2, &plan(&arrow_schema), &budget, None).unwrap();

        pool.start(0, lanes(&schema(&[DataType::Utf8])));
        pool.write(0, [(column(1), budget.acquire(4))]).unwrap();
        pool.close(0).unwrap();
        let Err(error) = pool.next_chunks(0, 0) else {
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
        let chunks = pool.next_chunks(1, 0).unwrap();
        assert_eq!(chunks.len(), 1);
        assert_eq!(pool.held_memory(), 0);
        assert!(
            pool.next_chunks(1, 1).unwrap().is_empty(),
            "every chunk was taken"
        );
        assert!(
            pool.next_chunks(1, 1).is_err(),
            "a finished row group is gone"
        );
        drop(pool);
    }
}
