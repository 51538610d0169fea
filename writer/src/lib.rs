//! Parquet output for Arrow data that knows nothing about what the data means.
//!
//! - [`ParallelArrowWriter`]: a drop-in replacement for parquet's
//!   [`ArrowWriter`](parquet::arrow::ArrowWriter) that encodes leaf columns on a persistent pool
//!   of workers, keeps several row groups in flight, bounds the memory it holds, and writes
//!   byte-for-byte the file `ArrowWriter` writes from the same batches and properties.
//! - `AsyncParallelArrowWriter` (feature `tokio`): the same for parquet's `AsyncArrowWriter`,
//!   encoding on tokio's blocking pool, never on the runtime's threads.
//! - [`PendingFile`]: crash-safe output files. Bytes go to a hidden temporary file in the
//!   destination directory, which takes the final name only after a successful commit, so a
//!   failed, panicking or interrupted run never leaves a file that looks complete.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
//! use shredlab_writer::{ParallelArrowWriter, PendingFile};
//!
//! let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..10_000));
//! let names = StringArray::from_iter_values((0..10_000).map(|i| format!("n{i}")));
//! let names: ArrayRef = Arc::new(names);
//! let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)])?;
//!
//! let dir = tempfile::tempdir()?;
//! let file = PendingFile::create(dir.path().join("contacts.parquet"))?;
//! // The constructor and methods of parquet's ArrowWriter.
//! let mut writer = ParallelArrowWriter::try_new(file, batch.schema(), None)?;
//! writer.write(&batch)?;
//! // `into_inner` writes the footer; only the commit gives the file its name.
//! let path = writer.into_inner()?.commit()?;
//! assert!(path.exists());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The writer's contract is documented on [`ParallelArrowWriter`]: what it holds in memory and
//! how to limit it ([Memory usage and limiting](ParallelArrowWriter#memory-usage-and-limiting)),
//! what it writes and refuses ([Type support](ParallelArrowWriter#type-support)), what each
//! constructor fails on (their `# Errors` sections) and what happens after an error
//! ([After an error](ParallelArrowWriter#after-an-error)).
//!
//! # Design
//!
//! The writer is built on parquet's low-level API, the same parts `ArrowWriter` is built from:
//! the file writer, the row-group writer factory, `compute_leaves`, one `ArrowColumnWriter` per
//! leaf column and `ArrowColumnChunk::append_to_row_group`; for the leaves it supports,
//! shredlab's column encoder ([`encode`]) takes the place of `compute_leaves` and
//! `ArrowColumnWriter` and writes the same column chunk. Only where and when those parts run
//! differs.
//!
//! ```text
//!  write(batch) --> budget: Arrow bytes queued for workers; write blocks while it is spent
//!       |  field f's column of the batch, queued on lane f of the row group being filled
//!       v
//!  board   row group k    [lane 0][lane 1] ... [lane F]   a lane: one field's column writers
//!          row group k+1  [lane 0][lane 1] ... [lane F]   and that field's queued columns
//!       ^  a worker claims one lane: encodes up to 64 queued batches, or closes it; hands it back
//!  workers 0..N-1, kept for the writer's lifetime
//!       |  the oldest row group's chunks in leaf order, each once those before it are closed
//!       v
//!  sink: row groups appended in order, then the footer
//! ```
//!
//! **Where a row group is encoded** (`writer/row_groups.rs`). Row groups are cut exactly where
//! `ArrowWriter` cuts them (`max_row_group_row_count`, `max_row_group_bytes`). Each starts on
//! the calling thread with its column writers, as in `ArrowWriter`. Once it holds
//! [`inline_threshold`](ParallelOptions::with_inline_threshold) leaf values (rows x leaf
//! columns), its column writers move to the worker pool, and every later row group starts
//! there. The pool starts at that moment, with as many threads as configured
//! ([`ParallelOptions::resolve_threads`]) but no more than there are leaf columns; with one
//! thread or fewer, or a schema of one leaf column, it never starts and every row group is
//! encoded on the calling thread.
//!
//! **The budget** (`budget.rs`). A `write` to a row group on the pool takes the bytes of the
//! batch's Arrow data (the used part of each column's buffers) from the budget
//! ([`with_memory_budget`](ParallelOptions::with_memory_budget)), waiting while they do not fit,
//! and queues each top-level field's column with its share of those bytes. A share is given
//! back once the claim that encodes that column is done. A waiting `write` resumes when its
//! bytes fit and either half the budget is free or a worker has run out of work: one wake-up
//! then admits many batches, instead of every release waking the writer. A batch larger than
//! the whole budget is admitted once no other bytes are taken, so it cannot deadlock the writer.
//!
//! **The board** (`board.rs`). The row groups on the pool, oldest first, behind one lock. Each
//! has one lane per top-level field: the field's column writers (all its leaves, so a column's
//! repetition and definition levels are computed once per batch), the field's columns queued
//! for them in batch order, and the worker that last held the lane.
//!
//! **Claims** (`board.rs`, `worker.rs`). A worker with nothing to do claims a lane in the oldest
//! row group that has one ready: no worker holds it, and it has queued columns, or its row group
//! is closing and its queue is empty. It prefers a lane it held last, then one no worker has
//! held, then one another worker held. It takes the lane's writers with up to 64 of its queued
//! columns (a bound per claim; the budget bounds them anyway), and outside the lock computes
//! their levels and encodes them in order, gives their budget back and hands the writers back
//! with their sizes; or, for a closing lane with nothing queued, closes the writers into column
//! chunks. One worker holds a lane at a time, so a field's batches are encoded in order without
//! locking its writers, and no worker sits idle while a lane no worker holds has work: the load
//! balances as it runs, whatever each column costs, with no cost estimate to get wrong. A new
//! row group's lanes start out preferring the worker that last held the same field in the
//! newest row group on the board, so a column's dictionary, hash table and page buffers tend to
//! stay in one core's caches (the CPU columns of `results/vm/writer/writer-bench-system.md` show
//! the parallel writer writing the same files in less CPU time than `ArrowWriter`). A worker
//! that runs out of work first tells the budget, so a waiting `write` goes on as soon as its
//! batch fits, then sleeps until a lane gets work.
//!
//! **Row groups in order** (`writer/row_groups.rs`, `worker.rs`). Ending a row group marks it
//! closing: each lane closes once its queue is empty. Closed row groups stay in flight while the
//! next one fills; once more than
//! [`row_groups_in_flight`](ParallelOptions::with_row_groups_in_flight) are, the writer waits for
//! the oldest's chunks in leaf order and appends each as soon as it and those before it are
//! closed, so that copying the first chunks into the file overlaps the closing of the last
//! (the whole copy was a serial tail at the end of a one-row-group file). Row groups thus reach
//! the sink in order while later ones encode. A row group that
//! never left the calling thread is closed and appended there. `flush` appends every row group;
//! `finish`, `close` and `into_inner` then write the footer through parquet's
//! `SerializedFileWriter`.
//!
//! **Waiting for the encoded size.** With `max_row_group_bytes` set, deciding where to cut a row
//! group needs its estimated encoded size, so each `write` to a row group on the pool waits
//! until that row group's queued batches are encoded ([`ParallelArrowWriter::in_progress_size`]
//! waits the same way).
//!
//! **Failures** (`board.rs`, `worker.rs`). An error while encoding a lane, or a panic (caught
//! and turned into an error), fails its row group: its queued columns are dropped, which gives
//! their budget back, no more of its lanes are claimed, and the error comes back from the call
//! that appends that row group. Dropping the writer stops each worker after its current claim
//! and joins the threads.
//!
//! **Async** (`async_writer.rs`). `AsyncParallelArrowWriter` wraps a `ParallelArrowWriter` that
//! writes into a buffer in memory: each call runs the synchronous call on tokio's blocking pool,
//! then hands the bytes it produced to the `AsyncFileWriter`.

#[cfg(feature = "tokio")]
mod async_writer;
mod board;
mod budget;
#[cfg(target_os = "linux")]
mod direct;
pub mod encode;
mod file_options;
mod options;
mod ordered;
mod pending;
mod preallocate;
mod sink_buffer;
mod sync;
mod unions;
mod worker;
mod writer;

pub use file_options::FileOptions;
pub use options::{ParallelOptions, WorkerObserver, THREADS_ENV};
pub use ordered::{OrderedRowGroupWriter, RowGroupEncoder};
pub use pending::{PendingFile, PendingFileError};
pub use unions::refuse_unions;
pub use writer::ParallelArrowWriter;

#[cfg(feature = "tokio")]
pub use async_writer::AsyncParallelArrowWriter;
