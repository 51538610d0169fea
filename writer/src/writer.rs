//! [`ParallelArrowWriter`]: the same API and the same bytes as `parquet::arrow::ArrowWriter`,
//! with leaf columns encoded on a pool of workers.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
    ArrowWriterOptions,
};
use parquet::arrow::ArrowWriter;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;

use crate::board::{PlacedLeaf, Sizes};
use crate::budget::Budget;
use crate::options::ParallelOptions;
use crate::worker::WorkerPool;

/// Where the column writers of the row group being filled live.
enum Placement {
    /// On the calling thread, exactly as `ArrowWriter` keeps them.
    Inline(Vec<ArrowColumnWriter>),
    /// On the worker pool.
    Pooled,
}

/// The row group being filled.
struct RowGroup {
    index: usize,
    rows: usize,
    placement: Placement,
}

/// A drop-in replacement for [`ArrowWriter`] that encodes leaf columns on a persistent pool of
/// worker threads, and writes byte-for-byte the file `ArrowWriter` would.
///
/// Row groups are split exactly as `ArrowWriter` splits them (`max_row_group_row_count` and
/// `max_row_group_bytes`). A row group starts on the calling thread; once it holds enough work
/// ([`ParallelOptions::with_inline_threshold`]) its column writers move to the workers, which
/// share out the fields as they go (see the `worker` module), and later row groups start there
/// directly. Up to
/// [`ParallelOptions::with_row_groups_in_flight`] closed row groups encode while the next one
/// fills; they are appended to the file in order. Arrow data waiting for a worker counts against
/// [`ParallelOptions::with_memory_budget`], and `write` blocks while the budget is spent.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// use parquet::arrow::ArrowWriter;
/// use shredlab_writer::{ParallelArrowWriter, ParallelOptions};
///
/// let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100_000));
/// let names: ArrayRef = Arc::new(StringArray::from_iter_values((0..100_000).map(|i| format!("n{i}"))));
/// let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)])?;
///
/// let options = ParallelOptions::new().with_threads(2);
/// let mut parallel = ParallelArrowWriter::try_new_with_parallel_options(
///     Vec::new(), batch.schema(), Default::default(), options)?;
/// parallel.write(&batch)?;
/// let parallel_bytes = parallel.into_inner()?;
///
/// let mut upstream = ArrowWriter::try_new(Vec::new(), batch.schema(), None)?;
/// upstream.write(&batch)?;
/// assert_eq!(parallel_bytes, upstream.into_inner()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParallelArrowWriter<W: Write + Send> {
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// For each leaf: its top-level field and its position among that field's leaves.
    leaf_fields: Vec<(usize, usize)>,
    max_rows: Option<usize>,
    max_bytes: Option<usize>,
    /// Workers to start when the first row group moves off the calling thread (0 or 1: never).
    workers: usize,
    pool: Option<WorkerPool>,
    budget: Arc<Budget>,
    options: ParallelOptions,
    current: Option<RowGroup>,
    /// Closed row groups still encoding on the pool, oldest first.
    in_flight: VecDeque<usize>,
    row_groups_started: usize,
    failed: bool,
}

impl<W: Write + Send> std::fmt::Debug for ParallelArrowWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelArrowWriter")
            .field("workers", &self.workers)
            .field("in_progress_rows", &self.in_progress_rows())
            .field("row_groups_in_flight", &self.in_flight.len())
            .finish_non_exhaustive()
    }
}

impl<W: Write + Send> ParallelArrowWriter<W> {
    /// Like [`ArrowWriter::try_new`].
    pub fn try_new(
        writer: W,
        schema: SchemaRef,
        properties: Option<WriterProperties>,
    ) -> Result<Self> {
        let options = ArrowWriterOptions::new().with_properties(properties.unwrap_or_default());
        Self::try_new_with_options(writer, schema, options)
    }

    /// Like [`ArrowWriter::try_new_with_options`].
    pub fn try_new_with_options(
        writer: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
    ) -> Result<Self> {
        Self::try_new_with_parallel_options(writer, schema, options, ParallelOptions::default())
    }

    /// With explicit parallel settings.
    pub fn try_new_with_parallel_options(
        writer: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        parallel: ParallelOptions,
    ) -> Result<Self> {
        let threads = parallel.resolve_threads()?;
        let (file, factory) =
            ArrowWriter::try_new_with_options(writer, Arc::clone(&schema), options)?
                .into_serialized_writer()?;
        let properties = Arc::clone(file.properties());
        if properties.content_defined_chunking().is_some() {
            return Err(ParquetError::NYI(
                "content-defined chunking in ParallelArrowWriter: use parquet's ArrowWriter for it"
                    .to_string(),
            ));
        }
        let descriptor = file.schema_descr();
        let mut leaf_fields = Vec::with_capacity(descriptor.num_columns());
        for leaf in 0..descriptor.num_columns() {
            let field = descriptor.get_column_root_idx(leaf);
            let index_in_field = leaf_fields.iter().filter(|(f, _)| *f == field).count();
            leaf_fields.push((field, index_in_field));
        }
        // Workers start only when a row group first outgrows the inline threshold.
        let workers = if leaf_fields.len() > 1 {
            threads.min(leaf_fields.len())
        } else {
            0
        };
        Ok(Self {
            max_rows: properties.max_row_group_row_count(),
            max_bytes: properties.max_row_group_bytes(),
            budget: Budget::new(parallel.memory_budget()),
            file,
            factory,
            schema,
            leaf_fields,
            workers,
            pool: None,
            options: parallel,
            current: None,
            in_flight: VecDeque::new(),
            row_groups_started: 0,
            failed: false,
        })
    }

    /// Encodes `batch`, splitting it across row groups exactly as [`ArrowWriter::write`] does.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.guard(|w| w.write_batch(batch))
    }

    /// Writes the buffered rows as a row group, and every row group still encoding, to the
    /// sink before returning.
    pub fn flush(&mut self) -> Result<()> {
        self.guard(|w| {
            w.end_row_group()?;
            w.drain_in_flight(0)
        })
    }

    /// Flushes and writes the footer, returning the file's metadata.
    pub fn finish(&mut self) -> Result<ParquetMetaData> {
        self.guard(|w| {
            w.end_row_group()?;
            w.drain_in_flight(0)?;
            w.file.finish()
        })
    }

    /// Flushes, writes the footer and returns the file's metadata.
    pub fn close(mut self) -> Result<ParquetMetaData> {
        self.finish()
    }

    /// Flushes, writes the footer and returns the sink.
    pub fn into_inner(mut self) -> Result<W> {
        self.flush()?;
        self.file.into_inner()
    }

    /// Metadata of the row groups already written to the sink.
    pub fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.file.flushed_row_groups()
    }

    /// Estimated encoded size of the row group being filled, as [`ArrowWriter::in_progress_size`].
    pub fn in_progress_size(&self) -> usize {
        self.current_sizes().map_or(0, |s| s.estimated)
    }

    /// Rows in the row group being filled.
    pub fn in_progress_rows(&self) -> usize {
        self.current.as_ref().map_or(0, |c| c.rows)
    }

    /// Memory held by the writer: Arrow data waiting for workers, plus the column writers of
    /// every row group being filled or encoded, on the calling thread or on the workers (as of
    /// each worker's last finished job; this call does not wait for them).
    pub fn memory_size(&self) -> usize {
        let inline = match self.current.as_ref().map(|c| &c.placement) {
            Some(Placement::Inline(writers)) => writers.iter().map(|w| w.memory_size()).sum(),
            _ => 0,
        };
        let workers = self.pool.as_ref().map_or(0, WorkerPool::held_memory);
        self.budget.used() + inline + workers
    }

    /// Encoding threads started so far: 0 while every row group has stayed on the calling
    /// thread (small or single-column work, or one thread configured).
    pub fn worker_threads(&self) -> usize {
        self.pool.as_ref().map_or(0, WorkerPool::size)
    }

    /// Bytes written to the sink so far.
    pub fn bytes_written(&self) -> usize {
        self.file.bytes_written()
    }

    /// Adds key-value metadata to the footer, as [`ArrowWriter::append_key_value_metadata`].
    pub fn append_key_value_metadata(&mut self, kv_metadata: KeyValue) {
        self.file.append_key_value_metadata(kv_metadata)
    }

    /// The sink.
    pub fn inner(&self) -> &W {
        self.file.inner()
    }

    /// Runs `step`, and refuses all later calls once one has failed: the file is then
    /// incomplete and must not be finished as if it were whole.
    fn guard<T>(&mut self, step: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.failed {
            return Err(ParquetError::General(
                "an earlier write failed; this Parquet file is incomplete".to_string(),
            ));
        }
        let result = step(self);
        self.failed = result.is_err();
        result
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if batch.num_columns() != self.schema.fields().len() {
            return Err(ParquetError::ArrowError(format!(
                "batch has {} columns, the writer's schema {}",
                batch.num_columns(),
                self.schema.fields().len()
            )));
        }
        let mut remaining = batch.clone();
        loop {
            if self.current.is_none() {
                self.start_row_group()?;
            }
            let buffered_rows = self.in_progress_rows();
            let mut split_at = match self.max_rows {
                Some(max) if buffered_rows + remaining.num_rows() > max => {
                    Some(max - buffered_rows)
                }
                _ => None,
            };
            let candidate_rows = split_at.unwrap_or_else(|| remaining.num_rows());
            if let (Some(max_bytes), true) = (self.max_bytes, buffered_rows > 0) {
                let current_bytes = self.current_sizes()?.estimated;
                if current_bytes >= max_bytes {
                    self.end_row_group()?;
                    continue;
                }
                let average = current_bytes / buffered_rows;
                if let Some(fit) = (max_bytes - current_bytes).checked_div(average) {
                    if candidate_rows > fit {
                        if fit == 0 {
                            self.end_row_group()?;
                            continue;
                        }
                        split_at = Some(fit);
                    }
                }
            }
            let rest = split_at.map(|keep| {
                let rest = remaining.slice(keep, remaining.num_rows() - keep);
                remaining = remaining.slice(0, keep);
                rest
            });
            self.write_to_current(&remaining)?;
            let rows_full = self
                .max_rows
                .is_some_and(|max| self.in_progress_rows() >= max);
            let bytes_full = match self.max_bytes {
                Some(max) => self.current_sizes()?.estimated >= max,
                None => false,
            };
            if rows_full || bytes_full {
                self.end_row_group()?;
            }
            match rest {
                Some(rest) => remaining = rest,
                None => return Ok(()),
            }
        }
    }

    fn start_row_group(&mut self) -> Result<()> {
        let index = self.row_groups_started;
        let writers = self.factory.create_column_writers(index)?;
        self.row_groups_started += 1;
        // Once one row group has outgrown the calling thread, later ones start on the pool.
        let placement = if self.pool.is_some() {
            self.place(index, writers);
            Placement::Pooled
        } else {
            Placement::Inline(writers)
        };
        self.current = Some(RowGroup {
            index,
            rows: 0,
            placement,
        });
        Ok(())
    }

    fn write_to_current(&mut self, batch: &RecordBatch) -> Result<()> {
        let current = self.current.as_mut().expect("a row group was started");
        current.rows += batch.num_rows();
        let (index, rows) = (current.index, current.rows);
        match &mut current.placement {
            Placement::Inline(writers) => {
                let mut writers = writers.iter_mut();
                for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
                    for computed in compute_leaves(field, column)? {
                        writers
                            .next()
                            .expect("one writer per leaf")
                            .write(&computed)?;
                    }
                }
                if self.workers > 1
                    && rows * self.leaf_fields.len() >= self.options.inline_threshold()
                {
                    self.migrate(index)?;
                }
                Ok(())
            }
            Placement::Pooled => {
                // Each column holds its own share of the budget, given back once encoded.
                let bytes: Vec<usize> = batch.columns().iter().map(data_bytes).collect();
                let mut permit = self.budget.acquire(bytes.iter().sum());
                let columns = batch.columns().iter().zip(bytes);
                let queued =
                    columns.map(|(column, bytes)| (ArrayRef::clone(column), permit.split(bytes)));
                self.pool().write(index, queued)
            }
        }
    }

    /// Moves the inline row group's writers to the workers; later row groups start there.
    fn migrate(&mut self, index: usize) -> Result<()> {
        let current = self.current.as_mut().expect("a row group was started");
        let Placement::Inline(writers) =
            std::mem::replace(&mut current.placement, Placement::Pooled)
        else {
            return Ok(());
        };
        if self.pool.is_none() {
            self.pool = Some(WorkerPool::new(self.workers, &self.schema, &self.budget)?);
        }
        self.place(index, writers);
        Ok(())
    }

    fn pool(&self) -> &WorkerPool {
        self.pool.as_ref().expect("pooled placement implies a pool")
    }

    /// Hands row group `index`'s writers to the pool, grouped by field: a field's leaves stay
    /// together so its levels are computed once per batch.
    fn place(&self, index: usize, writers: Vec<ArrowColumnWriter>) {
        let mut lanes: Vec<Vec<PlacedLeaf>> = (0..self.schema.fields().len())
            .map(|_| Vec::new())
            .collect();
        for (leaf, writer) in writers.into_iter().enumerate() {
            let (field, index_in_field) = self.leaf_fields[leaf];
            lanes[field].push(PlacedLeaf {
                leaf,
                index_in_field,
                writer,
            });
        }
        self.pool().start(index, lanes);
    }

    fn current_sizes(&self) -> Result<Sizes> {
        let Some(current) = &self.current else {
            return Ok(Sizes::default());
        };
        match &current.placement {
            Placement::Inline(writers) => Ok(writers.iter().fold(Sizes::default(), |s, w| Sizes {
                estimated: s.estimated + w.get_estimated_total_bytes(),
                memory: s.memory + w.memory_size(),
            })),
            Placement::Pooled => self.pool().sizes(current.index),
        }
    }

    /// Closes the row group being filled: inline ones are appended at once (after those still
    /// encoding), pooled ones join the in-flight queue.
    fn end_row_group(&mut self) -> Result<()> {
        let Some(current) = self.current.take() else {
            return Ok(());
        };
        match current.placement {
            Placement::Inline(writers) => {
                self.drain_in_flight(0)?;
                let chunks = writers
                    .into_iter()
                    .map(ArrowColumnWriter::close)
                    .collect::<Result<Vec<_>>>()?;
                self.append(chunks)
            }
            Placement::Pooled => {
                self.pool().close(current.index)?;
                self.in_flight.push_back(current.index);
                self.drain_in_flight(self.options.row_groups_in_flight())
            }
        }
    }

    /// Appends finished row groups, oldest first, until at most `keep` are in flight.
    fn drain_in_flight(&mut self, keep: usize) -> Result<()> {
        while self.in_flight.len() > keep {
            let index = self.in_flight.pop_front().expect("non-empty");
            let chunks = self.pool().finish(index)?;
            self.append(chunks)?;
        }
        Ok(())
    }

    fn append(&mut self, chunks: Vec<ArrowColumnChunk>) -> Result<()> {
        let mut row_group = self.file.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        Ok(())
    }
}

/// Bytes of Arrow data a column holds: the used part of its buffers.
fn data_bytes(column: &ArrayRef) -> usize {
    column
        .to_data()
        .get_slice_memory_size()
        .unwrap_or_else(|_| column.get_array_memory_size())
}
