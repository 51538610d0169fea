//! [`PlainChunkWriter`]: a leaf column chunk whose data pages shredlab writes itself (levels,
//! `PLAIN` values or, for byte arrays, dictionary indices; page cuts; the dictionary page and
//! its fallback), with the bytes parquet's column writer gives for the same leaf under the
//! properties [`supported`] accepts.
//!
//! parquet's writer encodes levels one at a time into its RLE encoder; this one hands whole
//! runs to [`HybridRle`] and copies values in bulk. Pages are cut where parquet cuts them: after
//! each mini-batch ([`MiniBatches`], then [`split_for_page`] where the values would overflow
//! the page or the dictionary), once the page's estimated size reaches `data_page_size_limit`
//! bytes or its rows `data_page_row_count_limit`; the dictionary falls back to `PLAIN` once its
//! page reaches `dictionary_page_size_limit`.

use arrow_schema::DataType;
use bytes::Bytes;
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::column::page::{CompressedPage, Page};
use parquet::errors::Result;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnDescPtr;

use super::batches::{split_for_page, MiniBatch, MiniBatches};
use super::bloom::ChunkBloom;
use super::chunk::ChunkPages;
use super::column::NativeColumnChunk;
use super::compress::{self, PageCodec};
use super::dictionary::Dictionary;
use super::levels::LeafLevels;
use super::plain::{self, pack_booleans, PlainValues};
use super::rle::HybridRle;
use super::stats::{self, ChunkStatistics};
use super::tally::LevelTally;
use super::views;

/// Whether [`PlainChunkWriter`] writes the leaf `descr` (of Arrow type `data_type`) under
/// `props`: data page v1, `PLAIN` values (or a dictionary, for byte arrays and numbers), no
/// other encoding asked for, a codec [`compress::supported`] lists, statistics that
/// [`stats::supported`] records (and any bloom filter); types [`plain::supported`] lists.
pub(crate) fn supported(
    descr: &ColumnDescPtr,
    data_type: &DataType,
    props: &WriterProperties,
) -> bool {
    let path = descr.path();
    let physical = descr.physical_type();
    plain::supported(data_type, physical)
        && props.writer_version() == WriterVersion::PARQUET_1_0
        // parquet never builds a dictionary for booleans, whatever the properties say.
        && (!props.dictionary_enabled(path)
            || dictionary_type(physical)
            || physical == PhysicalType::BOOLEAN)
        && props.encoding(path).is_none_or(|e| e == Encoding::PLAIN)
        && compress::supported(props.compression(path))
        && stats::supported(descr, props)
}

/// Whether [`Dictionary`] encodes values of the physical type `physical`: byte arrays, and
/// fixed-width values of 4 or 8 bytes (which parquet's dictionary tells apart by their bytes,
/// as it does floats: every NaN payload and both zeros are values of their own).
fn dictionary_type(physical: PhysicalType) -> bool {
    matches!(
        physical,
        PhysicalType::BYTE_ARRAY
            | PhysicalType::INT32
            | PhysicalType::INT64
            | PhysicalType::FLOAT
            | PhysicalType::DOUBLE
    )
}

/// The page being filled.
#[derive(Debug, Default)]
struct OpenPage {
    /// Room for the page's encoded levels, then its `PLAIN` values (while no dictionary is
    /// open): levels that fit are written in front of the values, which are then not copied
    /// again to assemble the page.
    values: Vec<u8>,
    /// The bytes of room before the values.
    room: usize,
    levels: u32,
    rows: u32,
    byte_array_bytes: i64,
}

impl OpenPage {
    /// An empty page with `room` bytes for its levels and `capacity` for its values.
    fn new(room: usize, capacity: usize) -> Self {
        let mut values = Vec::with_capacity(room + capacity);
        values.resize(room, 0);
        Self {
            values,
            room,
            ..Self::default()
        }
    }

    /// The bytes of `PLAIN` values so far.
    fn values_len(&self) -> usize {
        self.values.len() - self.room
    }
}

/// Encodes one leaf column of one row group into data pages.
#[derive(Debug)]
pub(crate) struct PlainChunkWriter {
    descr: ColumnDescPtr,
    batches: MiniBatches,
    /// `data_page_size_limit`, `data_page_row_count_limit` and `dictionary_page_size_limit`.
    page_bytes: usize,
    page_rows: usize,
    dictionary_bytes: usize,
    /// The width of a fixed-width value: a base batch of them may always fit in a page, so
    /// that parquet never measures them.
    width: Option<usize>,
    def: Option<HybridRle>,
    rep: Option<HybridRle>,
    /// The open dictionary, until it falls back to `PLAIN`.
    dictionary: Option<Dictionary>,
    page: OpenPage,
    /// The room the next page leaves for its levels.
    level_room: usize,
    pages: ChunkPages,
    stats: ChunkStatistics,
    def_tally: LevelTally,
    rep_tally: LevelTally,
    /// The pages' compressor, if any.
    codec: Option<PageCodec>,
    bloom: Option<ChunkBloom>,
    /// Whether a data page was `PLAIN`-encoded (parquet keeps the bloom filter of a chunk
    /// without one only if the properties ask).
    plain_pages: bool,
}

impl PlainChunkWriter {
    /// A writer for the leaf `descr` under `props` (which [`supported`] accepts).
    ///
    /// # Errors
    ///
    /// The codec could not be set up.
    pub fn new(descr: ColumnDescPtr, props: &WriterProperties) -> Result<Self> {
        let path = descr.path();
        let codec = PageCodec::new(props.compression(path))?;
        let page_bytes = props.column_data_page_size_limit(path);
        let width = match descr.physical_type() {
            PhysicalType::BOOLEAN => Some(1usize),
            PhysicalType::INT32 | PhysicalType::FLOAT => Some(4),
            PhysicalType::INT64 | PhysicalType::DOUBLE => Some(8),
            _ => None,
        };
        let dictionary_bytes = props.column_dictionary_page_size_limit(path);
        let levels = |max: i16| (max > 0).then(|| HybridRle::new(bit_width(max)));
        let physical = descr.physical_type();
        let dictionary = (dictionary_type(physical) && props.dictionary_enabled(path))
            .then(|| Dictionary::new(physical == PhysicalType::BYTE_ARRAY, dictionary_bytes));
        Ok(Self {
            batches: MiniBatches::new(&descr, props),
            page_bytes,
            page_rows: props.column_data_page_row_count_limit(path),
            dictionary_bytes,
            width,
            def: levels(descr.max_def_level()),
            rep: levels(descr.max_rep_level()),
            dictionary,
            page: OpenPage::new(LEVEL_SLACK, 0),
            level_room: LEVEL_SLACK,
            pages: ChunkPages::new(descr.clone(), props),
            stats: ChunkStatistics::new(descr.clone(), props),
            def_tally: LevelTally::new(descr.max_def_level()),
            rep_tally: LevelTally::new(descr.max_rep_level()),
            codec,
            bloom: ChunkBloom::new(&descr, props)?,
            plain_pages: false,
            descr,
        })
    }

    /// Encodes one batch's share of the leaf.
    ///
    /// # Errors
    ///
    /// The leaf's values are not of the column's type, or writing a page failed.
    pub fn write(&mut self, leaf: &LeafLevels) -> Result<()> {
        let max_def = self.descr.max_def_level();
        let array = views::contiguous(&leaf.array);
        let values = PlainValues::of(&array, &leaf.values, self.descr.physical_type())?;
        let mut cache = vec![u32::MAX; values.key_count()];
        let base = self.batches.base(leaf);
        for batch in self.batches.of(leaf, max_def) {
            let limit = match self.dictionary {
                Some(_) => self.dictionary_bytes,
                None => self.page_bytes,
            };
            if self.width.is_some_and(|w| w.saturating_mul(base) <= limit) {
                self.write_mini_batch(leaf, &values, batch, &mut cache)?;
                continue;
            }
            // What the values may fill: the dictionary page's room while it is open.
            let budget = match &self.dictionary {
                Some(dictionary) => self.dictionary_bytes.saturating_sub(dictionary.page_size()),
                None => self.page_bytes,
            };
            let fit = |range| values.count_within(range, budget);
            for piece in split_for_page(batch, leaf, max_def, fit) {
                self.write_mini_batch(leaf, &values, piece, &mut cache)?;
            }
        }
        Ok(())
    }

    fn write_mini_batch(
        &mut self,
        leaf: &LeafLevels,
        values: &PlainValues<'_>,
        (levels, range): MiniBatch,
        cache: &mut [u32],
    ) -> Result<()> {
        let def = leaf.def.as_deref().map(|def| &def[levels.clone()]);
        let rep = leaf.rep.as_deref().map(|rep| &rep[levels.clone()]);
        // Uniform levels (a column of nulls only, or without a null buffer) go in as one run.
        let uniform = def.and_then(|def| def.first()).filter(|_| leaf.uniform);
        if let (Some(rle), Some(def)) = (self.def.as_mut(), def) {
            match uniform {
                Some(&level) => rle.put_run(level as u64, def.len()),
                None => rle.put_levels(def),
            }
        }
        let rep_counts = match (self.rep.as_mut(), rep) {
            (Some(rle), Some(rep)) => {
                rle.put_levels(rep);
                Some(self.rep_tally.count(rep))
            }
            _ => None,
        };
        self.page.rows += rep_counts.map_or(levels.len() as u64, |counts| counts[0]) as u32;
        if self.stats.enabled() {
            let def_counts = def.map(|def| match uniform {
                Some(&level) => self.def_tally.count_run(level, def.len()),
                None => self.def_tally.count(def),
            });
            self.stats.add_levels(def_counts, rep_counts);
            self.stats.add_values(values, range.clone());
        }
        self.page.byte_array_bytes += match self.dictionary.as_mut() {
            Some(dictionary) => dictionary.append(values, range, cache),
            None => {
                if let Some(bloom) = self.bloom.as_mut() {
                    bloom.insert_values(values, range.clone());
                }
                values.append(range, &mut self.page.values)
            }
        };
        self.page.levels += levels.len() as u32;
        let estimate = match &self.dictionary {
            Some(dictionary) => dictionary.estimated_data_page_size(),
            None if self.booleans() => self.page.values_len().div_ceil(8),
            None => self.page.values_len(),
        };
        let full = self.page.rows as usize >= self.page_rows || estimate >= self.page_bytes;
        if self.page.levels > 0 && full {
            self.flush_page()?;
        }
        let overflowing = self.dictionary.as_ref().map(Dictionary::page_size);
        if overflowing.is_some_and(|size| size >= self.dictionary_bytes) {
            self.fall_back()?;
        }
        Ok(())
    }

    /// Writes the open page as a data page v1: repetition levels, definition levels (each
    /// with its 4-byte length), values.
    fn flush_page(&mut self) -> Result<()> {
        // The next page's values take as much room (up to the page limit): no regrowth page
        // after page.
        let capacity = self.page.values.capacity().min(self.page_bytes);
        let mut page = std::mem::replace(&mut self.page, OpenPage::new(self.level_room, capacity));
        if self.booleans() {
            pack_booleans(&mut page.values, page.room);
        }
        let levels = self.finish_levels();
        // The next page's levels most likely take about as many bytes as this one's.
        self.level_room = levels.len() + levels.len() / 4 + LEVEL_SLACK;
        let (buf, start, encoding) = match self.dictionary.as_mut() {
            Some(dictionary) => {
                let mut buf = levels;
                buf.reserve(dictionary.estimated_data_page_size() + 1);
                dictionary.finish_page_into(&mut buf);
                (buf, 0, Encoding::RLE_DICTIONARY)
            }
            None if levels.len() <= page.room => {
                let (mut buf, start) = (page.values, page.room - levels.len());
                buf[start..page.room].copy_from_slice(&levels);
                (buf, start, Encoding::PLAIN)
            }
            None => {
                let mut buf = levels;
                buf.extend_from_slice(&page.values[page.room..]);
                (buf, 0, Encoding::PLAIN)
            }
        };
        self.plain_pages |= encoding == Encoding::PLAIN;
        let size = buf.len() - start;
        let buf = match self.codec.as_mut() {
            Some(codec) => fitted(codec.compress(&buf[start..])?),
            None => fitted(buf).slice(start..),
        };
        let data_page = Page::DataPage {
            buf,
            num_values: page.levels,
            encoding,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: None,
        };
        let bytes = (self.descr.physical_type() == PhysicalType::BYTE_ARRAY)
            .then_some(page.byte_array_bytes);
        self.stats.finish_page(page.rows, bytes);
        let hold = self.dictionary.is_some();
        let finished = CompressedPage::new(data_page, size);
        self.pages.add_data_page(finished, page.rows, bytes, hold)
    }

    /// Whether the leaf holds booleans: one byte each in the open page, bit-packed when it
    /// is written.
    fn booleans(&self) -> bool {
        self.descr.physical_type() == PhysicalType::BOOLEAN
    }

    /// The open page's repetition and definition levels, each with its 4-byte length.
    fn finish_levels(&mut self) -> Vec<u8> {
        let bound: usize = [self.rep.as_ref(), self.def.as_ref()]
            .into_iter()
            .flatten()
            .map(|rle| 4 + rle.len_bound())
            .sum();
        let mut buf = Vec::with_capacity(bound);
        for rle in [self.rep.as_mut(), self.def.as_mut()].into_iter().flatten() {
            let start = buf.len();
            buf.extend_from_slice(&[0; 4]);
            rle.finish_into(&mut buf);
            let length = (buf.len() - start - 4) as u32;
            buf[start..start + 4].copy_from_slice(&length.to_le_bytes());
        }
        buf
    }

    /// Ends the dictionary: its open page, the dictionary page, the data pages held for it;
    /// later values are `PLAIN`.
    fn fall_back(&mut self) -> Result<()> {
        if self.page.levels > 0 {
            self.flush_page()?;
        }
        self.write_dictionary_page()
    }

    fn write_dictionary_page(&mut self) -> Result<()> {
        let Some(dictionary) = self.dictionary.take() else {
            return Ok(());
        };
        let (page, count) = dictionary.into_page();
        if let Some(bloom) = self.bloom.as_mut() {
            bloom.insert_dictionary(&page, self.width);
        }
        let size = page.len();
        let page = self.compressed(page)?;
        let dictionary_page = Page::DictionaryPage {
            buf: fitted(page),
            num_values: count as u32,
            encoding: Encoding::PLAIN,
            is_sorted: false,
        };
        self.pages
            .write_dictionary_page(CompressedPage::new(dictionary_page, size))
    }

    /// `page` as the chunk's codec compresses it.
    fn compressed(&mut self, page: Vec<u8>) -> Result<Vec<u8>> {
        match self.codec.as_mut() {
            Some(codec) => codec.compress(&page),
            None => Ok(page),
        }
    }

    /// Bytes held: the pages finished, the open page's values, the open dictionary and the
    /// bloom filter.
    pub fn memory_size(&self) -> usize {
        let dictionary = self.dictionary.as_ref().map_or(0, Dictionary::memory_size);
        let bloom = self.bloom.as_ref().map_or(0, ChunkBloom::memory_size);
        self.pages.memory_size() + self.page.values.capacity() + dictionary + bloom
    }

    /// Finishes the chunk: the last page, the dictionary page, the bloom filter, the offset
    /// index and the metadata.
    ///
    /// # Errors
    ///
    /// Writing a page or building the metadata failed.
    pub fn close(mut self) -> Result<NativeColumnChunk> {
        if self.page.levels > 0 {
            self.flush_page()?;
        }
        self.write_dictionary_page()?;
        let bloom = self.bloom.and_then(|bloom| bloom.finish(self.plain_pages));
        self.pages.close(self.stats, bloom)
    }
}

/// `page` as the bytes a chunk keeps until it is written (the buffer itself, not a copy):
/// without the room a buffer sized for the worst case left unused (a compressor's bound, the
/// longest index encoding, a full page for the chunk's last one).
fn fitted(mut page: Vec<u8>) -> Bytes {
    if page.capacity() > page.len() + page.len() / 8 {
        page.shrink_to_fit();
    }
    Bytes::from(page)
}

/// Bytes of room for a page's levels beyond what the last page's took.
const LEVEL_SLACK: usize = 64;

/// The bits of the largest level, as parquet's level encoder counts them.
fn bit_width(max_level: i16) -> u8 {
    (16 - max_level.leading_zeros()) as u8
}
