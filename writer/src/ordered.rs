//! [`OrderedRowGroupWriter`]: one Parquet file whose row groups are encoded on any threads, each
//! by its own [`RowGroupEncoder`], and appended in row-group order by whichever thread finishes
//! the row group the file is waiting for, with no thread of its own.
//!
//! This is for callers that make a row group's data where they encode it (a generator that
//! builds and encodes each batch while it is still in the core's caches), where
//! [`ParallelArrowWriter`](crate::ParallelArrowWriter) takes finished batches from one thread
//! and spreads their columns over a pool. The parts are `ArrowWriter`'s file writer and
//! column-writer factory, and per leaf either shredlab's encoder ([`crate::encode`]) or
//! `compute_leaves` and `ArrowColumnWriter`, so the file is the one `ArrowWriter` writes from
//! the same batches, cut into the same row groups, and properties.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::errors::{ParquetError, Result};
use parquet::file::writer::SerializedFileWriter;

use crate::encode::{ColumnEncoder, EncodePlan, LeafChunk, LeafEncoders, LeafWriter};
use crate::sink_buffer;

/// How often a thread waiting for room rechecks its stop flag.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// A Parquet file assembled from row groups encoded anywhere, appended in index order.
///
/// Row group `i` is encoded by the [`RowGroupEncoder`] of [`Self::encoder`]`(i)`, on any thread,
/// and handed back with [`Self::append`]. Finished row groups wait until every earlier one is
/// appended; the thread whose row group completes a run from the next index to append writes
/// the run to the sink, outside the lock, while the others go on encoding. A thread may start
/// row group `i` only while `i` is less than `window` row groups ahead of the next one to
/// append ([`Self::wait_for_room`]), so at most `window` row groups are ever encoding or
/// waiting: that, times a row group's encoded size, bounds the memory held.
///
/// Every index from 0 to the last must be appended exactly once before [`Self::into_inner`].
/// After any error the file is incomplete: later calls fail, and the sink should be dropped.
pub struct OrderedRowGroupWriter<W: Write + Send> {
    plan: Arc<EncodePlan>,
    window: usize,
    state: Mutex<FileState<W>>,
    /// Signalled when row groups are appended or the file fails.
    room: Condvar,
}

struct FileState<W: Write + Send> {
    /// The file writer; `None` while a releaser appends outside the lock.
    file: Option<SerializedFileWriter<BufWriter<W>>>,
    /// The next row group to append.
    next: usize,
    /// Finished row groups waiting for an earlier one.
    parked: BTreeMap<usize, Vec<LeafChunk>>,
    /// Why the file is incomplete, once something failed.
    failure: Option<String>,
}

impl<W: Write + Send> std::fmt::Debug for OrderedRowGroupWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.lock();
        f.debug_struct("OrderedRowGroupWriter")
            .field("window", &self.window)
            .field("next", &state.next)
            .field("parked", &state.parked.len())
            .finish_non_exhaustive()
    }
}

impl<W: Write + Send> OrderedRowGroupWriter<W> {
    /// A file of `schema` written to `sink` with `ArrowWriter`'s `options`, at most `window`
    /// row groups (at least 1) encoding or waiting at a time, each leaf written by shredlab's
    /// encoder where it supports the leaf and by parquet's `ArrowColumnWriter` otherwise, or
    /// every leaf by parquet's with [`Self::try_new_with_encoder`] and [`ColumnEncoder::ArrowRs`].
    ///
    /// # Errors
    ///
    /// What [`ArrowWriter::try_new_with_options`] fails on, chiefly a schema parquet cannot
    /// convert, and a union column, which it panics on ([`crate::refuse_unions`]);
    /// [`ParquetError::NYI`] for content-defined chunking, whose chunkers parquet keeps
    /// to itself (as in [`ParallelArrowWriter`](crate::ParallelArrowWriter)).
    pub fn try_new(
        sink: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        window: usize,
    ) -> Result<Self> {
        Self::try_new_with_encoder(sink, schema, options, window, ColumnEncoder::Native)
    }

    /// As [`Self::try_new`], each leaf written by `encoder` where it supports the leaf (by
    /// parquet's `ArrowColumnWriter` for the rest).
    ///
    /// # Errors
    ///
    /// As [`Self::try_new`].
    pub fn try_new_with_encoder(
        sink: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        window: usize,
        encoder: ColumnEncoder,
    ) -> Result<Self> {
        crate::unions::refuse_unions(&schema)?;
        let (file, _) = ArrowWriter::try_new_with_options(
            sink_buffer::wrap(sink, sink_buffer::CAPACITY),
            schema.clone(),
            options.clone(),
        )?
        .into_serialized_writer()?;
        if file.properties().content_defined_chunking().is_some() {
            return Err(ParquetError::NYI(
                "content-defined chunking in OrderedRowGroupWriter: use parquet's ArrowWriter for it"
                    .to_string(),
            ));
        }
        let plan = EncodePlan::new(schema, &file, &options, encoder)?;
        Ok(Self {
            plan: Arc::new(plan),
            window: window.max(1),
            state: Mutex::new(FileState {
                file: Some(file),
                next: 0,
                parked: BTreeMap::new(),
                failure: None,
            }),
            room: Condvar::new(),
        })
    }

    /// Which encoder writes each leaf column of the file.
    pub fn leaf_encoders(&self) -> LeafEncoders {
        self.plan.leaf_encoders()
    }

    fn lock(&self) -> MutexGuard<'_, FileState<W>> {
        // Every change to the state is one step under the lock, so a panic elsewhere left it whole.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until row group `index` may start: fewer than `window` row groups ahead of the
    /// next to append. `Ok(false)` if `stop` was raised meanwhile.
    ///
    /// # Errors
    ///
    /// The file failed (another row group's append or encoding): `index` will never be needed.
    pub fn wait_for_room(&self, index: usize, stop: &AtomicBool) -> Result<bool> {
        let mut state = self.lock();
        loop {
            if let Some(failure) = &state.failure {
                return Err(incomplete(failure));
            }
            if index < state.next + self.window {
                return Ok(true);
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            state = self
                .room
                .wait_timeout(state, STOP_CHECK)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// The column writers of row group `index`, to be filled on the calling thread.
    ///
    /// # Errors
    ///
    /// What parquet's column-writer factory fails on.
    pub fn encoder(&self, index: usize) -> Result<RowGroupEncoder> {
        Ok(RowGroupEncoder {
            index,
            rows: 0,
            writers: self.plan.writers(index)?,
            plan: self.plan.clone(),
        })
    }

    /// Closes `encoder`'s column writers (on the calling thread) and appends its row group once
    /// every earlier one is; if that completes a run, appends the run before returning.
    ///
    /// # Errors
    ///
    /// Closing the column writers, or writing to the sink, failed; or the file failed earlier.
    /// Either way the file is incomplete and every later call fails too.
    pub fn append(&self, encoder: RowGroupEncoder) -> Result<()> {
        let index = encoder.index;
        let chunks = match encoder.close() {
            Ok(chunks) => chunks,
            Err(error) => return Err(self.fail(error)),
        };
        let mut state = self.lock();
        if let Some(failure) = &state.failure {
            return Err(incomplete(failure));
        }
        if index < state.next || state.parked.contains_key(&index) {
            let error = ParquetError::General(format!("row group {index} was appended twice"));
            drop(state);
            return Err(self.fail(error));
        }
        state.parked.insert(index, chunks);
        // Whoever holds the file releases the consecutive row groups, this one included.
        let Some(mut file) = state.file.take() else {
            return Ok(());
        };
        loop {
            let mut run = Vec::new();
            let state_now = &mut *state;
            while let Some(chunks) = state_now.parked.remove(&state_now.next) {
                run.push(chunks);
                state_now.next += 1;
            }
            if run.is_empty() {
                state.file = Some(file);
                self.room.notify_all();
                return Ok(());
            }
            drop(state);
            let written = run
                .into_iter()
                .try_for_each(|chunks| append_row_group(&mut file, chunks));
            if let Err(error) = written {
                return Err(self.fail(error));
            }
            state = self.lock();
            self.room.notify_all();
            if let Some(failure) = &state.failure {
                return Err(incomplete(failure));
            }
        }
    }

    /// Marks the file failed with `error`, wakes every waiting thread, and returns `error`.
    pub fn fail(&self, error: ParquetError) -> ParquetError {
        let mut state = self.lock();
        state.failure.get_or_insert_with(|| error.to_string());
        state.parked.clear();
        self.room.notify_all();
        error
    }

    /// Row groups appended to the sink so far.
    pub fn appended(&self) -> usize {
        self.lock().next
    }

    /// Writes the footer and returns the sink.
    ///
    /// # Errors
    ///
    /// The file failed earlier, a row group is still waiting for an earlier one that never
    /// came, or writing the footer failed.
    pub fn into_inner(self) -> Result<W> {
        let state = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(failure) = &state.failure {
            return Err(incomplete(failure));
        }
        if let Some(waiting) = state.parked.keys().next() {
            return Err(ParquetError::General(format!(
                "row group {waiting} is finished but row group {} never came",
                state.next
            )));
        }
        let file = state.file.ok_or_else(|| {
            ParquetError::General(
                "a thread stopped while appending row groups; this Parquet file is incomplete"
                    .to_string(),
            )
        })?;
        sink_buffer::unwrap(file.into_inner()?)
    }
}

fn incomplete(failure: &str) -> ParquetError {
    ParquetError::General(format!(
        "an earlier row group failed ({failure}); this Parquet file is incomplete"
    ))
}

fn append_row_group<W: Write + Send>(
    file: &mut SerializedFileWriter<BufWriter<W>>,
    chunks: Vec<LeafChunk>,
) -> Result<()> {
    let mut row_group = file.next_row_group()?;
    for chunk in chunks {
        chunk.append_to_row_group(&mut row_group)?;
    }
    row_group.close()?;
    Ok(())
}

/// The column writers of one row group of an [`OrderedRowGroupWriter`], filled batch by batch
/// on one thread; the caller decides where the row group ends.
pub struct RowGroupEncoder {
    index: usize,
    rows: usize,
    writers: Vec<LeafWriter>,
    plan: Arc<EncodePlan>,
}

impl std::fmt::Debug for RowGroupEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowGroupEncoder")
            .field("index", &self.index)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl RowGroupEncoder {
    /// Encodes `batch` into the row group, as `ArrowWriter::write` encodes a batch that fits in
    /// its row group.
    ///
    /// # Errors
    ///
    /// The batch's columns differ from the schema's, or what `ArrowWriter` fails on when
    /// encoding (a null in a non-nullable field, a type parquet cannot write).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.plan.write(&mut self.writers, batch)?;
        self.rows += batch.num_rows();
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Memory held by the column writers: buffered pages, dictionaries, levels.
    pub fn memory_size(&self) -> usize {
        self.writers.iter().map(LeafWriter::memory_size).sum()
    }

    fn close(self) -> Result<Vec<LeafChunk>> {
        self.writers.into_iter().map(LeafWriter::close).collect()
    }
}

/// Refuses a batch whose column count differs from the schema's.
pub(crate) fn check_columns(schema: &SchemaRef, batch: &RecordBatch) -> Result<()> {
    if batch.num_columns() == schema.fields().len() {
        return Ok(());
    }
    Err(ParquetError::ArrowError(format!(
        "batch has {} columns, the writer's schema {}",
        batch.num_columns(),
        schema.fields().len()
    )))
}
