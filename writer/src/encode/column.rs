//! [`NativeColumnWriter`]: one leaf column chunk, its levels from [`super::levels`] and its
//! values, pages, statistics and indexes from parquet's public typed column writer, buffered in
//! memory and spliced into the row group with `SerializedRowGroupWriter::append_column`.

use std::sync::{Arc, Mutex, MutexGuard};

use parquet::column::page::{CompressedPage, PageWriteSpec, PageWriter};
use parquet::column::writer::{get_column_writer, ColumnCloseResult, ColumnWriter};
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::Length;
use parquet::file::writer::{SerializedPageWriter, SerializedRowGroupWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

use super::batches::MiniBatches;
use super::levels::LeafLevels;
use super::segments::Segments;
use super::sizes::RowBytes;
use super::values;

/// Encodes one leaf column of one row group, as `ArrowColumnWriter` would.
pub(crate) struct NativeColumnWriter {
    writer: ColumnWriter<'static>,
    pages: ChunkBuffer,
    batches: MiniBatches,
    max_def: i16,
    row_bytes: Option<RowBytes>,
    /// Bytes in the page store when the last batch was written.
    handed_over: usize,
    /// Bytes of levels and values given to the typed writer that it may still hold: those since
    /// it last handed a page over (it exposes no size of its own).
    held: usize,
}

impl std::fmt::Debug for NativeColumnWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeColumnWriter").finish_non_exhaustive()
    }
}

impl NativeColumnWriter {
    /// A writer for the leaf `descr` under the file's `props`.
    pub fn new(descr: ColumnDescPtr, props: &WriterProperties) -> Self {
        let pages = ChunkBuffer::default();
        let batches = MiniBatches::new(&descr, props);
        let row_bytes = RowBytes::new(&descr, props);
        // The native encoder cuts the mini-batches itself, each one a single write.
        let props = props
            .clone()
            .into_builder()
            .set_write_batch_size(batches.writer_batch_size())
            .build();
        let max_def = descr.max_def_level();
        let writer = get_column_writer(descr, Arc::new(props), Box::new(pages.clone()));
        Self {
            writer,
            pages,
            batches,
            max_def,
            row_bytes,
            handed_over: 0,
            held: 0,
        }
    }

    /// Encodes one batch's share of the leaf.
    ///
    /// # Errors
    ///
    /// What parquet's column writer fails on.
    pub fn write(&mut self, leaf: &LeafLevels) -> Result<()> {
        if let Some(row_bytes) = &mut self.row_bytes {
            row_bytes.add(leaf, self.max_def);
        }
        let batches = self.batches.of(leaf, self.max_def);
        let given = values::write(&mut self.writer, leaf, &batches)?;
        let handed_over = self.pages.lock().bytes_written();
        // A page handed over during this batch may hold any part of it: count it all.
        self.held = match handed_over == self.handed_over {
            true => self.held + given,
            false => given,
        };
        self.handed_over = handed_over;
        Ok(())
    }

    /// Bytes held, estimated (the typed writer exposes no size of its own): the pages it has
    /// handed over, and every level and value given to it since it last handed one over, in
    /// their unencoded form, which the pages, and a dictionary it keeps until the chunk closes,
    /// seldom outgrow.
    pub fn memory_size(&self) -> usize {
        self.handed_over + self.held
    }

    /// Finishes the chunk: the last page, the dictionary page, the statistics and indexes.
    ///
    /// # Errors
    ///
    /// What parquet's column writer fails on when closing.
    pub fn close(self) -> Result<NativeColumnChunk> {
        let mut close = self.writer.close()?;
        if let Some(row_bytes) = &self.row_bytes {
            row_bytes.apply(&mut close)?;
        }
        // Closing the column writer dropped its page writer, the buffer's only other owner.
        NativeColumnChunk::new(self.pages, close)
    }
}

/// A finished column chunk of a [`NativeColumnWriter`], ready to be spliced into its row group.
pub(crate) struct NativeColumnChunk {
    data: Segments,
    close: ColumnCloseResult,
}

impl std::fmt::Debug for NativeColumnChunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeColumnChunk")
            .field("bytes", &self.data.len())
            .finish_non_exhaustive()
    }
}

impl NativeColumnChunk {
    /// The chunk of the pages in `pages` (no longer shared) described by `close`.
    ///
    /// # Errors
    ///
    /// Another owner still holds `pages`, or flushing them failed.
    pub(crate) fn new(pages: ChunkBuffer, mut close: ColumnCloseResult) -> Result<Self> {
        let pages = Arc::try_unwrap(pages.0)
            .map_err(|_| ParquetError::General("a column chunk's pages are still shared".into()))?;
        let data = pages
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .into_inner()?;
        // A chunk of no rows with a dictionary holds the (empty) dictionary page alone:
        // `ArrowColumnWriter` records its data pages as starting after it, not at 0.
        let metadata = &close.metadata;
        if metadata.dictionary_page_offset().is_some() && metadata.num_values() == 0 {
            close.metadata = metadata
                .clone()
                .into_builder()
                .set_data_page_offset(data.len() as i64)
                .build()?;
        }
        Ok(Self { data, close })
    }

    /// Appends the chunk to `row_group`, whose next column it must be.
    ///
    /// # Errors
    ///
    /// The chunk is not the row group's next column, or writing failed.
    pub fn append_to_row_group<W: std::io::Write + Send>(
        self,
        row_group: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        row_group.append_column(&self.data, self.close)
    }
}

/// The pages of one column chunk, serialized (headers and all) by parquet's page writer into a
/// buffer shared with the [`NativeColumnWriter`] that reads it back on close.
#[derive(Clone)]
pub(crate) struct ChunkBuffer(Arc<Mutex<TrackedWrite<Segments>>>);

impl Default for ChunkBuffer {
    fn default() -> Self {
        Self(Arc::new(Mutex::new(TrackedWrite::new(Segments::default()))))
    }
}

impl std::fmt::Debug for ChunkBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkBuffer")
            .field("bytes", &self.lock().bytes_written())
            .finish()
    }
}

impl ChunkBuffer {
    pub(crate) fn lock(&self) -> MutexGuard<'_, TrackedWrite<Segments>> {
        // Every write is one step under the lock, so a panic elsewhere left the buffer whole.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl PageWriter for ChunkBuffer {
    fn write_page(&mut self, page: CompressedPage) -> Result<PageWriteSpec> {
        let mut sink = self.lock();
        // Parquet's page writer writes the data in one call past its small buffer.
        sink.inner_mut()
            .expect(Some(page.compressed_page().buffer().clone()));
        let written = SerializedPageWriter::new(&mut sink).write_page(page);
        sink.inner_mut().expect(None);
        written
    }

    fn close(&mut self) -> Result<()> {
        Ok(())
    }
}
