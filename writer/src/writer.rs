//! [`ParallelArrowWriter`]: the same API and the same bytes as `parquet::arrow::ArrowWriter`,
//! with leaf columns encoded on a pool of workers.

mod row_groups;

use std::collections::VecDeque;
use std::io::{BufWriter, Write};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;

use crate::budget::Budget;
use crate::encode::{ColumnEncoder, EncodePlan, LeafEncoders};
use crate::options::ParallelOptions;
use crate::sink_buffer;
use crate::worker::WorkerPool;
use row_groups::{Placement, RowGroup};

/// A drop-in replacement for [`ArrowWriter`] that encodes leaf columns on a persistent pool of
/// worker threads, and writes byte-for-byte the file `ArrowWriter` would.
///
/// It has `ArrowWriter`'s constructors and methods, with the same meaning (except
/// `write_all`, `sync`, `inner_mut`, `into_serialized_writer` and the `RecordBatchWriter`
/// implementation, which it does not provide): `write` splits batches into row groups exactly
/// as `ArrowWriter` does (`max_row_group_row_count` and `max_row_group_bytes`), and the bytes of
/// the file, footer included, are `ArrowWriter`'s for the same batches, properties and calls.
/// Columns are encoded on up to [`ParallelOptions::resolve_threads`] workers while later
/// batches arrive and later row groups fill; the crate's [Design](crate#design) section
/// describes how.
///
/// # Example
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
///
/// # Memory usage and limiting
///
/// Like `ArrowWriter`, the writer buffers a row group's encoded pages (and its column writers'
/// dictionaries and other state) until the row group is complete and appended to the sink.
/// Unlike `ArrowWriter`, which holds one row group, it holds:
///
/// - the row group being filled, plus up to
///   [`row_groups_in_flight`](ParallelOptions::with_row_groups_in_flight) (default 2) closed
///   row groups still encoding: the column writers of at most `1 + row_groups_in_flight` row
///   groups. A row group's memory is released when it is appended to the sink;
/// - Arrow data queued for the workers, up to
///   [`memory_budget`](ParallelOptions::with_memory_budget) bytes (default 32 MiB; the used
///   part of each queued column's buffers). `write` blocks while the budget is spent. A single
///   batch larger than the whole budget is still taken, once nothing else is queued. The queued
///   columns share their buffers with the caller's batches: the budget bounds what the writer
///   keeps alive after `write` returns.
///
/// Row groups encoded on the calling thread (before a row group first outgrows
/// [`inline_threshold`](ParallelOptions::with_inline_threshold), with one thread or fewer, or for
/// a schema of one leaf column) hold what `ArrowWriter` holds: one row group, no queue.
///
/// To limit the memory:
///
/// - cut smaller row groups with [`WriterProperties`]' `max_row_group_row_count` or
///   `max_row_group_bytes`, which bound every row group, as in `ArrowWriter` (smaller row groups
///   cost metadata and can worsen compression and scans);
/// - keep fewer closed row groups encoding with
///   [`ParallelOptions::with_row_groups_in_flight`] (1 at the least);
/// - queue less Arrow data with [`ParallelOptions::with_memory_budget`] (`write` then blocks
///   sooner, and workers may run out of work);
/// - move encoded pages out of memory with a page store
///   ([`ArrowWriterOptions::with_page_store_factory`]), which parquet's column writers here use
///   as `ArrowWriter`'s do (the index a store is given counts only the leaves they write);
///   shredlab's encoder keeps its leaves' pages in memory, so with a page store choose
///   [`ColumnEncoder::ArrowRs`];
/// - call [`Self::flush`] when [`Self::memory_size`] or [`Self::in_progress_size`] grows past a
///   threshold: it closes the row group being filled and appends every row group in flight.
///
/// [`Self::memory_size`] reports the queued Arrow data plus every column writer's memory (those
/// on the pool as of their last hand-back: it does not wait for them).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch};
/// use parquet::arrow::arrow_writer::ArrowWriterOptions;
/// use parquet::file::properties::WriterProperties;
/// use shredlab_writer::{ParallelArrowWriter, ParallelOptions};
///
/// let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100_000));
/// let batch = RecordBatch::try_from_iter([("id", Arc::clone(&ids)), ("copy", ids)])?;
///
/// let properties = WriterProperties::builder()
///     .set_max_row_group_row_count(Some(65_536))
///     .build();
/// let parallel = ParallelOptions::new()
///     .with_memory_budget(8 * 1024 * 1024)
///     .with_row_groups_in_flight(1);
/// let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
///     Vec::new(),
///     batch.schema(),
///     ArrowWriterOptions::new().with_properties(properties),
///     parallel,
/// )?;
/// writer.write(&batch)?;
/// // An early row group when the writer holds more than 64 MiB.
/// if writer.memory_size() > 64 * 1024 * 1024 {
///     writer.flush()?;
/// }
/// writer.close()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Type support
///
/// It writes whatever `ArrowWriter` writes, and refuses what it refuses, with one exception
/// (content-defined chunking, below), because the parts that decide the file are
/// `ArrowWriter`'s own: the constructor builds an `ArrowWriter` with the given options and takes
/// its file writer and column-writer factory ([`ArrowWriter::into_serialized_writer`]). Each
/// leaf column is encoded by shredlab's encoder ([`crate::encode`]) where it supports the leaf
/// and the properties, and by parquet's `compute_leaves` and `ArrowColumnWriter` otherwise, or
/// everywhere with [`ParallelOptions::with_encoder`]`(`[`ColumnEncoder::ArrowRs`]`)`; both write
/// the same bytes ([`Self::leaf_encoders`] says which wrote what). Schema conversion, every
/// other [`WriterProperties`] setting and every [`ArrowWriterOptions`] setting (an explicit
/// Parquet schema, the schema root, skipping the Arrow metadata) therefore act as they do in
/// `ArrowWriter`; a page store holds the pages of the leaves parquet's writers write. The tests compare the bytes with `ArrowWriter`'s over primitives,
/// dates, times, timestamps, decimals, strings, binaries and their views, dictionaries,
/// fixed-size binaries, lists, large lists, fixed-size lists, structs and maps nested up to
/// three levels, all-null and empty batches, and random property sets, with either encoder.
///
/// Refused:
///
/// - A union column anywhere: [`ParquetError::ArrowError`] naming its path
///   ([`crate::refuse_unions`]), where `ArrowWriter` panics (Parquet has no union type).
/// - Content-defined chunking (`WriterPropertiesBuilder::set_content_defined_chunking`): the
///   constructors return [`ParquetError::NYI`]. `ArrowWriter` cuts pages by content with
///   chunkers that parquet keeps to itself (`ArrowColumnWriter` has no public way to write
///   through one), and whose state runs on from one row group into the next. Without them the
///   column writers would cut pages elsewhere and the file would not be `ArrowWriter`'s. Use
///   `ArrowWriter` for it.
///
/// # After an error
///
/// Once [`write`](Self::write), [`flush`](Self::flush), [`finish`](Self::finish),
/// [`close`](Self::close) or [`into_inner`](Self::into_inner) has returned an error, the file
/// is incomplete, and every later call of these fails too, with
/// [`ParquetError::General`]`("an earlier write failed; this Parquet file is incomplete")`
/// rather than the first error again: keep the first error if you need it. The accessors
/// (`memory_size`, `flushed_row_groups`, `bytes_written`, ...) go on answering. Drop the writer
/// (a [`PendingFile`](crate::PendingFile) sink dropped without a commit leaves no file).
///
/// An encoding error or a worker's panic in a row group on the pool comes back from the call
/// that appends that row group: a later `write` that closes a row group beyond the ones kept in
/// flight, or `flush`, `finish`, `close` or `into_inner`; not necessarily from the `write` that
/// queued the batch.
pub struct ParallelArrowWriter<W: Write + Send> {
    file: SerializedFileWriter<BufWriter<W>>,
    schema: SchemaRef,
    plan: Arc<EncodePlan>,
    /// For each leaf: its top-level field.
    leaf_fields: Vec<usize>,
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
    /// Like [`ArrowWriter::try_new`]: [`Self::try_new_with_options`] with these properties (or
    /// the defaults).
    ///
    /// # Errors
    ///
    /// As [`Self::try_new_with_options`].
    pub fn try_new(
        writer: W,
        schema: SchemaRef,
        properties: Option<WriterProperties>,
    ) -> Result<Self> {
        let options = ArrowWriterOptions::new().with_properties(properties.unwrap_or_default());
        Self::try_new_with_options(writer, schema, options)
    }

    /// Like [`ArrowWriter::try_new_with_options`]: [`Self::try_new_with_parallel_options`] with
    /// the default [`ParallelOptions`], whose worker count comes from
    /// [`THREADS_ENV`](crate::THREADS_ENV) or the machine.
    ///
    /// # Errors
    ///
    /// As [`Self::try_new_with_parallel_options`], including the `SHREDLAB_WRITER_THREADS`
    /// check.
    pub fn try_new_with_options(
        writer: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
    ) -> Result<Self> {
        Self::try_new_with_parallel_options(writer, schema, options, ParallelOptions::default())
    }

    /// A writer of `schema` to `writer`, with `ArrowWriter`'s options and these parallel
    /// settings. No worker thread starts here: the pool starts when a row group first outgrows
    /// the inline threshold.
    ///
    /// # Errors
    ///
    /// - [`ParquetError::General`]: `parallel` sets no worker count
    ///   ([`ParallelOptions::with_threads`]) and [`THREADS_ENV`](crate::THREADS_ENV) is set to
    ///   something other than a whole number.
    /// - Whatever [`ArrowWriter::try_new_with_options`] fails on, with its error: chiefly an
    ///   Arrow schema parquet cannot convert (for example a struct without fields), or invalid
    ///   content-defined chunking options.
    /// - [`ParquetError::ArrowError`] for a union column, [`ParquetError::NYI`] for
    ///   content-defined chunking: what this writer refuses ([Type support](Self#type-support)).
    ///
    /// The sink is not written to here beyond parquet's own buffer, so a failing sink shows only
    /// in later calls.
    pub fn try_new_with_parallel_options(
        writer: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        parallel: ParallelOptions,
    ) -> Result<Self> {
        let threads = parallel.resolve_threads()?;
        crate::unions::refuse_unions(&schema)?;
        let (file, _) = ArrowWriter::try_new_with_options(
            sink_buffer::wrap(writer, parallel.sink_buffer()),
            Arc::clone(&schema),
            options.clone(),
        )?
        .into_serialized_writer()?;
        let properties = Arc::clone(file.properties());
        if properties.content_defined_chunking().is_some() {
            return Err(ParquetError::NYI(
                "content-defined chunking in ParallelArrowWriter: use parquet's ArrowWriter for it"
                    .to_string(),
            ));
        }
        let descriptor = file.schema_descr();
        let leaf_fields: Vec<usize> = (0..descriptor.num_columns())
            .map(|leaf| descriptor.get_column_root_idx(leaf))
            .collect();
        // Only `ArrowColumnWriter`'s size estimate cuts row groups where `ArrowWriter` does.
        let encoder = match properties.max_row_group_bytes() {
            Some(_) => ColumnEncoder::ArrowRs,
            None => parallel.encoder(),
        };
        let plan = EncodePlan::new(Arc::clone(&schema), &file, &options, encoder)?;
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
            schema,
            plan: Arc::new(plan),
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
    /// Blocks while the memory budget is spent (see
    /// [Memory usage and limiting](Self#memory-usage-and-limiting)).
    ///
    /// # Errors
    ///
    /// - [`ParquetError::ArrowError`]: the batch's column count differs from the schema's.
    /// - What `ArrowWriter` fails on when encoding, with its error: for example a null in a
    ///   non-nullable field, or an Arrow type parquet cannot write (a month-day-nano interval).
    /// - A failure of the sink, when a row group is appended.
    /// - A worker thread that cannot be spawned, or a worker's panic.
    ///
    /// Encoding errors of row groups on the pool come back from the call that appends the row
    /// group, and every call after an error fails ([After an error](Self#after-an-error)).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.guard(|w| w.write_batch(batch))
    }

    /// Writes the buffered rows as a row group, and every row group still encoding, to the
    /// sink before returning.
    ///
    /// # Errors
    ///
    /// The first error of the row groups it appends (encoding, panic or sink), or a refusal
    /// after an earlier error ([After an error](Self#after-an-error)).
    pub fn flush(&mut self) -> Result<()> {
        self.guard(|w| {
            w.end_row_group()?;
            w.drain_in_flight(0)?;
            // Through the sink buffer too: a flushed row group has reached the sink.
            Ok(w.file.flush()?)
        })
    }

    /// Flushes and writes the footer, returning the file's metadata.
    ///
    /// # Errors
    ///
    /// As [`Self::flush`], or a failure to write the footer.
    pub fn finish(&mut self) -> Result<ParquetMetaData> {
        self.guard(|w| {
            w.end_row_group()?;
            w.drain_in_flight(0)?;
            w.file.finish()
        })
    }

    /// Flushes, writes the footer and returns the file's metadata.
    ///
    /// # Errors
    ///
    /// As [`Self::finish`]: the first error of the row groups it appends, a failure to write the
    /// footer, or a refusal after an earlier error ([After an error](Self#after-an-error)).
    pub fn close(mut self) -> Result<ParquetMetaData> {
        self.finish()
    }

    /// Flushes, writes the footer and returns the sink.
    ///
    /// # Errors
    ///
    /// As [`Self::finish`].
    pub fn into_inner(mut self) -> Result<W> {
        self.flush()?;
        sink_buffer::unwrap(self.file.into_inner()?)
    }

    /// Metadata of the row groups already written to the sink.
    pub fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.file.flushed_row_groups()
    }

    /// Estimated encoded size of the row group being filled, as [`ArrowWriter::in_progress_size`]
    /// where parquet's `ArrowColumnWriter` writes a leaf; for leaves shredlab's encoder writes,
    /// the memory they hold: an estimate, not a bound (no test checks it), that their encoded
    /// bytes seldom outgrow.
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

    /// Which encoder writes each leaf column, by path, in file order.
    pub fn leaf_encoders(&self) -> LeafEncoders {
        self.plan.leaf_encoders()
    }

    /// Encoding threads started so far: 0 while every row group has stayed on the calling
    /// thread (small or single-column work, or one thread configured).
    pub fn worker_threads(&self) -> usize {
        self.pool.as_ref().map_or(0, WorkerPool::size)
    }

    /// Bytes written so far, those still in the buffer before the sink included (see
    /// [`Self::inner`]).
    pub fn bytes_written(&self) -> usize {
        self.file.bytes_written()
    }

    /// Adds key-value metadata to the footer, as [`ArrowWriter::append_key_value_metadata`].
    pub fn append_key_value_metadata(&mut self, kv_metadata: KeyValue) {
        self.file.append_key_value_metadata(kv_metadata)
    }

    /// The sink. Up to [`ParallelOptions::with_sink_buffer`] bytes (1 MiB by default) of those
    /// [`Self::bytes_written`] counts may still be in the writer's buffer before it
    /// (`ArrowWriter` keeps 8 KiB): [`Self::flush`], [`Self::finish`] and [`Self::into_inner`]
    /// write them.
    pub fn inner(&self) -> &W {
        self.file.inner().get_ref()
    }

    /// Runs `step`, and refuses all later calls once one has failed: the file is then
    /// incomplete and must not be finished as if it were whole (the public rule: "After an
    /// error" on [`ParallelArrowWriter`]).
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
}
