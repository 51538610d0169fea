//! [`ChunkPages`]: the finished pages of one column chunk written by
//! [`super::pages::PageChunkWriter`], and what parquet's column writer records about them
//! (sizes, counts, encodings, offset index), turned into the chunk's metadata on closing.

use std::collections::BTreeSet;

use parquet::basic::{Compression, Encoding, EncodingMask, PageType};
use parquet::bloom_filter::Sbbf;
use parquet::column::page::{CompressedPage, PageWriteSpec, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::Result;
use parquet::file::metadata::{ColumnChunkMetaData, OffsetIndexBuilder, PageEncodingStats};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescPtr;

use super::column::{ChunkBuffer, NativeColumnChunk};
use super::stats::ChunkStatistics;

/// The pages of one column chunk and their bookkeeping.
pub(crate) struct ChunkPages {
    descr: ColumnDescPtr,
    compression: Compression,
    buffer: ChunkBuffer,
    /// Data pages finished while a dictionary is open: the dictionary page goes first.
    held: Vec<CompressedPage>,
    offset_index: Option<OffsetIndexBuilder>,
    encodings: BTreeSet<Encoding>,
    encoding_stats: Vec<PageEncodingStats>,
    compressed: u64,
    uncompressed: u64,
    bytes_written: u64,
    values: u64,
    rows: u64,
    dictionary_page: Option<u64>,
    first_data_page: Option<u64>,
}

impl std::fmt::Debug for ChunkPages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkPages")
            .field("column", &self.descr.path().string())
            .field("bytes", &self.bytes_written)
            .field("held", &self.held.len())
            .finish_non_exhaustive()
    }
}

impl ChunkPages {
    /// No pages yet, for the leaf `descr` under `props`.
    pub(crate) fn new(descr: ColumnDescPtr, props: &WriterProperties) -> Self {
        Self {
            compression: props.compression(descr.path()),
            descr,
            buffer: ChunkBuffer::default(),
            held: Vec::new(),
            offset_index: (!props.offset_index_disabled()).then(OffsetIndexBuilder::new),
            // The levels' encoding, there from the start as in parquet's writer.
            encodings: BTreeSet::from([Encoding::RLE]),
            encoding_stats: Vec::new(),
            compressed: 0,
            uncompressed: 0,
            bytes_written: 0,
            values: 0,
            rows: 0,
            dictionary_page: None,
            first_data_page: None,
        }
    }

    /// Adds a finished data page of `rows` rows (with `byte_array_bytes` of values for a
    /// byte-array column): written now, or held until the dictionary page when `hold`.
    ///
    /// # Errors
    ///
    /// Writing the page failed.
    pub(crate) fn add_data_page(
        &mut self,
        page: CompressedPage,
        rows: u32,
        byte_array_bytes: Option<i64>,
        hold: bool,
    ) -> Result<()> {
        if let Some(index) = self.offset_index.as_mut() {
            index.append_row_count(i64::from(rows));
            index.append_unencoded_byte_array_data_bytes(byte_array_bytes);
        }
        self.rows += u64::from(rows);
        match hold {
            true => self.held.push(page),
            false => self.write_data_page(page)?,
        }
        Ok(())
    }

    /// Writes the dictionary page, then the data pages held for it.
    ///
    /// # Errors
    ///
    /// Writing a page failed.
    pub(crate) fn write_dictionary_page(&mut self, page: CompressedPage) -> Result<()> {
        self.encodings.insert(page.encoding());
        self.encoding_stats.insert(
            0,
            PageEncodingStats {
                page_type: PageType::DICTIONARY_PAGE,
                encoding: page.encoding(),
                count: 1,
            },
        );
        let spec = self.buffer.write_page(page)?;
        self.dictionary_page = Some(spec.offset);
        self.count(&spec);
        for page in std::mem::take(&mut self.held) {
            self.write_data_page(page)?;
        }
        Ok(())
    }

    fn write_data_page(&mut self, page: CompressedPage) -> Result<()> {
        let (page_type, encoding) = (page.page_type(), page.encoding());
        self.encodings.insert(encoding);
        match self.encoding_stats.last_mut() {
            Some(last) if last.page_type == page_type && last.encoding == encoding => {
                last.count += 1
            }
            _ => self.encoding_stats.push(PageEncodingStats {
                page_type,
                encoding,
                count: 1,
            }),
        }
        let spec = self.buffer.write_page(page)?;
        if let Some(index) = self.offset_index.as_mut() {
            index.append_offset_and_size(spec.offset as i64, spec.compressed_size as i32);
        }
        self.values += u64::from(spec.num_values);
        self.first_data_page.get_or_insert(spec.offset);
        self.count(&spec);
        Ok(())
    }

    fn count(&mut self, spec: &PageWriteSpec) {
        self.compressed += spec.compressed_size as u64;
        self.uncompressed += spec.uncompressed_size as u64;
        self.bytes_written += spec.bytes_written;
    }

    /// Bytes of the pages written or held.
    pub(crate) fn memory_size(&self) -> usize {
        let held: usize = self.held.iter().map(CompressedPage::compressed_size).sum();
        self.buffer.lock().bytes_written() + held
    }

    /// The finished chunk, its metadata (with `statistics`), bloom filter, column and offset
    /// index (all pages written).
    ///
    /// # Errors
    ///
    /// Building the metadata failed.
    pub(crate) fn close(
        self,
        statistics: ChunkStatistics,
        bloom_filter: Option<Sbbf>,
    ) -> Result<NativeColumnChunk> {
        let builder = ColumnChunkMetaData::builder(self.descr.clone())
            .set_compression(self.compression)
            .set_encodings_mask(EncodingMask::new_from_encodings(self.encodings.iter()))
            .set_page_encoding_stats(self.encoding_stats)
            .set_total_compressed_size(self.compressed as i64)
            .set_total_uncompressed_size(self.uncompressed as i64)
            .set_num_values(self.values as i64)
            .set_data_page_offset(self.first_data_page.unwrap_or(0) as i64)
            .set_dictionary_page_offset(self.dictionary_page.map(|offset| offset as i64));
        let (builder, column_index) = statistics.finish(builder)?;
        let metadata = builder.build()?;
        let close = ColumnCloseResult {
            bytes_written: self.bytes_written,
            rows_written: self.rows,
            metadata,
            bloom_filter,
            column_index,
            offset_index: self.offset_index.map(OffsetIndexBuilder::build),
        };
        NativeColumnChunk::new(self.buffer, close)
    }
}
