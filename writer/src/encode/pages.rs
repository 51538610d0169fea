//! [`PlainChunkWriter`]: a leaf column chunk of `PLAIN` data pages written by shredlab itself,
//! levels, values, page cuts, offset index and metadata, with the bytes parquet's column
//! writer gives for the same leaf under the properties [`supported`] accepts.
//!
//! parquet's writer encodes levels one at a time into its RLE encoder; this one hands whole
//! runs to [`HybridRle`] and copies values in bulk. Pages are cut where parquet cuts them: after
//! each mini-batch ([`MiniBatches`], then [`split_for_page`] where the values would overflow a
//! page), once the page's values reach `data_page_size_limit` bytes or its rows
//! `data_page_row_count_limit`.

use std::collections::BTreeSet;

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, EncodingMask, PageType, Type as PhysicalType};
use parquet::column::page::{CompressedPage, Page, PageWriteSpec, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::Result;
use parquet::file::metadata::{ColumnChunkMetaData, OffsetIndexBuilder, PageEncodingStats};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnDescPtr;

use super::batches::{split_for_page, MiniBatch, MiniBatches};
use super::column::{ChunkBuffer, NativeColumnChunk};
use super::levels::LeafLevels;
use super::plain::{self, PlainValues};
use super::rle::HybridRle;

/// Whether [`PlainChunkWriter`] writes the leaf `descr` under `props`: data page v1, `PLAIN`
/// values (no dictionary, no other encoding asked for), no compression, no statistics and no
/// bloom filter; its physical type one [`plain::supported`] lists.
pub(crate) fn supported(descr: &ColumnDescPtr, props: &WriterProperties) -> bool {
    let path = descr.path();
    plain::supported(descr.physical_type())
        && props.writer_version() == WriterVersion::PARQUET_1_0
        && !props.dictionary_enabled(path)
        && props.encoding(path).is_none_or(|e| e == Encoding::PLAIN)
        && props.compression(path) == Compression::UNCOMPRESSED
        && props.statistics_enabled(path) == EnabledStatistics::None
        && props.bloom_filter_properties(path).is_none()
}

/// The page being filled.
#[derive(Debug, Default)]
struct OpenPage {
    values: Vec<u8>,
    levels: u32,
    rows: u32,
    byte_array_bytes: i64,
}

/// Encodes one leaf column of one row group into `PLAIN` data pages.
pub(crate) struct PlainChunkWriter {
    descr: ColumnDescPtr,
    batches: MiniBatches,
    /// `data_page_size_limit` and `data_page_row_count_limit`.
    page_bytes: usize,
    page_rows: usize,
    /// Whether `write_batch_size` fixed-width values always fit in a page, so that parquet
    /// never measures them.
    always_fits: bool,
    def: Option<HybridRle>,
    rep: Option<HybridRle>,
    page: OpenPage,
    pages: ChunkBuffer,
    chunk: ChunkTotals,
    offset_index: Option<OffsetIndexBuilder>,
}

/// What the chunk's metadata sums over its pages.
#[derive(Debug, Default)]
struct ChunkTotals {
    compressed: u64,
    uncompressed: u64,
    bytes_written: u64,
    values: u64,
    rows: u64,
    first_data_page: Option<u64>,
    page_count: i32,
}

impl std::fmt::Debug for PlainChunkWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlainChunkWriter")
            .field("column", &self.descr.path().string())
            .field("pages", &self.chunk.page_count)
            .finish_non_exhaustive()
    }
}

impl PlainChunkWriter {
    /// A writer for the leaf `descr` under `props` (which [`supported`] accepts).
    pub fn new(descr: ColumnDescPtr, props: &WriterProperties) -> Self {
        let path = descr.path();
        let page_bytes = props.column_data_page_size_limit(path);
        let width = match descr.physical_type() {
            PhysicalType::INT32 | PhysicalType::FLOAT => Some(4usize),
            PhysicalType::INT64 | PhysicalType::DOUBLE => Some(8),
            _ => None,
        };
        let always_fits =
            width.is_some_and(|w| w.saturating_mul(props.write_batch_size()) <= page_bytes);
        let levels = |max: i16| (max > 0).then(|| HybridRle::new(bit_width(max)));
        Self {
            batches: MiniBatches::new(&descr, props),
            page_bytes,
            page_rows: props.column_data_page_row_count_limit(path),
            always_fits,
            def: levels(descr.max_def_level()),
            rep: levels(descr.max_rep_level()),
            page: OpenPage::default(),
            pages: ChunkBuffer::default(),
            chunk: ChunkTotals::default(),
            offset_index: (!props.offset_index_disabled()).then(OffsetIndexBuilder::new),
            descr,
        }
    }

    /// Encodes one batch's share of the leaf.
    ///
    /// # Errors
    ///
    /// The leaf's values are not of the column's type, or writing a page failed.
    pub fn write(&mut self, leaf: &LeafLevels) -> Result<()> {
        let max_def = self.descr.max_def_level();
        let values = PlainValues::of(&leaf.array, &leaf.values, self.descr.physical_type())?;
        for batch in self.batches.of(leaf, max_def) {
            if self.always_fits {
                self.write_mini_batch(leaf, &values, batch)?;
                continue;
            }
            let fit = |range| values.count_within(range, self.page_bytes);
            for piece in split_for_page(batch, leaf, max_def, fit) {
                self.write_mini_batch(leaf, &values, piece)?;
            }
        }
        Ok(())
    }

    fn write_mini_batch(
        &mut self,
        leaf: &LeafLevels,
        values: &PlainValues<'_>,
        (levels, range): MiniBatch,
    ) -> Result<()> {
        if let (Some(rle), Some(def)) = (self.def.as_mut(), leaf.def.as_deref()) {
            rle.put_levels(&def[levels.clone()]);
        }
        match (self.rep.as_mut(), leaf.rep.as_deref()) {
            (Some(rle), Some(rep)) => {
                let rep = &rep[levels.clone()];
                rle.put_levels(rep);
                self.page.rows += rep.iter().filter(|&&r| r == 0).count() as u32;
            }
            _ => self.page.rows += levels.len() as u32,
        }
        self.page.byte_array_bytes += values.append(range, &mut self.page.values);
        self.page.levels += levels.len() as u32;
        let full =
            self.page.rows as usize >= self.page_rows || self.page.values.len() >= self.page_bytes;
        if self.page.levels > 0 && full {
            self.flush_page()?;
        }
        Ok(())
    }

    /// Writes the open page as a data page v1: repetition levels, definition levels (each
    /// with its 4-byte length), values.
    fn flush_page(&mut self) -> Result<()> {
        let page = std::mem::take(&mut self.page);
        let mut buf = Vec::with_capacity(page.values.len() + 64);
        for rle in [self.rep.as_mut(), self.def.as_mut()].into_iter().flatten() {
            let start = buf.len();
            buf.extend_from_slice(&[0; 4]);
            rle.finish_into(&mut buf);
            let length = (buf.len() - start - 4) as u32;
            buf[start..start + 4].copy_from_slice(&length.to_le_bytes());
        }
        buf.extend_from_slice(&page.values);
        let size = buf.len();
        let data_page = Page::DataPage {
            buf: Bytes::from(buf),
            num_values: page.levels,
            encoding: Encoding::PLAIN,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: None,
        };
        let spec = self
            .pages
            .write_page(CompressedPage::new(data_page, size))?;
        if let Some(index) = self.offset_index.as_mut() {
            index.append_row_count(i64::from(page.rows));
            let bytes = (self.descr.physical_type() == PhysicalType::BYTE_ARRAY)
                .then_some(page.byte_array_bytes);
            index.append_unencoded_byte_array_data_bytes(bytes);
            index.append_offset_and_size(spec.offset as i64, spec.compressed_size as i32);
        }
        self.chunk.add(&spec, page.rows);
        Ok(())
    }

    /// Bytes held: the pages written and the open page's values.
    pub fn memory_size(&self) -> usize {
        self.pages.lock().bytes_written() + self.page.values.capacity()
    }

    /// Finishes the chunk: the last page, the offset index and the metadata.
    ///
    /// # Errors
    ///
    /// Writing the last page or building the metadata failed.
    pub fn close(mut self) -> Result<NativeColumnChunk> {
        if self.page.levels > 0 {
            self.flush_page()?;
        }
        let chunk = &self.chunk;
        let mut encodings = BTreeSet::from([Encoding::RLE]);
        let mut encoding_stats = Vec::new();
        if chunk.page_count > 0 {
            encodings.insert(Encoding::PLAIN);
            encoding_stats.push(PageEncodingStats {
                page_type: PageType::DATA_PAGE,
                encoding: Encoding::PLAIN,
                count: chunk.page_count,
            });
        }
        let metadata = ColumnChunkMetaData::builder(self.descr.clone())
            .set_compression(Compression::UNCOMPRESSED)
            .set_encodings_mask(EncodingMask::new_from_encodings(encodings.iter()))
            .set_page_encoding_stats(encoding_stats)
            .set_total_compressed_size(chunk.compressed as i64)
            .set_total_uncompressed_size(chunk.uncompressed as i64)
            .set_num_values(chunk.values as i64)
            .set_data_page_offset(chunk.first_data_page.unwrap_or(0) as i64)
            .set_dictionary_page_offset(None)
            .build()?;
        let close = ColumnCloseResult {
            bytes_written: chunk.bytes_written,
            rows_written: chunk.rows,
            metadata,
            bloom_filter: None,
            column_index: None,
            offset_index: self.offset_index.map(OffsetIndexBuilder::build),
        };
        NativeColumnChunk::new(self.pages, close)
    }
}

impl ChunkTotals {
    fn add(&mut self, spec: &PageWriteSpec, rows: u32) {
        self.compressed += spec.compressed_size as u64;
        self.uncompressed += spec.uncompressed_size as u64;
        self.bytes_written += spec.bytes_written;
        self.values += u64::from(spec.num_values);
        self.rows += u64::from(rows);
        self.first_data_page.get_or_insert(spec.offset);
        self.page_count += 1;
    }
}

/// The bits of the largest level, as parquet's level encoder counts them.
fn bit_width(max_level: i16) -> u8 {
    (16 - max_level.leading_zeros()) as u8
}
