//! [`PageChunkWriter`]: a leaf column chunk whose data pages shredlab writes itself (levels,
//! dictionary indices, values in their own encoding; page cuts; the dictionary page and its
//! fallback; data page v1 or v2), with the bytes parquet's column writer gives for the same
//! leaf under the properties [`super::encodings::supported`] accepts.
//!
//! parquet's writer encodes levels one at a time into its RLE encoder; this one hands whole
//! runs to [`HybridRle`] and copies values in bulk. Pages are cut where parquet cuts them: after
//! each mini-batch ([`MiniBatches`], then [`split_for_page`] where the values would overflow
//! the page or the dictionary), once the page's estimated size reaches `data_page_size_limit`
//! bytes or its rows `data_page_row_count_limit`; the dictionary falls back to the column's own
//! encoding once its page reaches `dictionary_page_size_limit`.

use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::column::page::{CompressedPage, Page};
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescPtr;

use super::batches::{split_for_page, MiniBatch, MiniBatches};
use super::bloom::ChunkBloom;
use super::chunk::ChunkPages;
use super::column::NativeColumnChunk;
use super::compress::PageCodec;
use super::data_page::{fitted, PageBody, PageCounts, PageFormat};
use super::dictionary::Dictionary;
use super::encodings::{dictionary_type, value_encoding};
use super::levels::{LeafLevels, LevelSlice};
use super::plain::{pack_booleans, split_streams, PlainValues};
use super::rle::HybridRle;
use super::stats::ChunkStatistics;
use super::tally::LevelTally;
use super::value_encoders::ValueEncoder;

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
    /// Levels with a value (the others are nulls or empty lists).
    value_count: u32,
    rows: u32,
    byte_array_bytes: i64,
    /// The size of a lone first value that alone reaches the page limit, which parquet leaves
    /// out when it checks the page (`DELTA_BYTE_ARRAY` values only: such a value is cut into a
    /// mini-batch of its own, and the page still takes the next).
    size_exemption: usize,
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
pub(crate) struct PageChunkWriter {
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
    /// The open dictionary, until it falls back to the values' own encoding.
    dictionary: Option<Dictionary>,
    /// The values' own encoder where their encoding is not `PLAIN` (`None`); boxed, as most
    /// chunks have none.
    encoder: Option<Box<ValueEncoder>>,
    /// Data page v1 or v2.
    format: PageFormat,
    /// Whether the values outside a dictionary are `BYTE_STREAM_SPLIT`: gathered as `PLAIN`,
    /// split into streams as a page is written.
    byte_stream_split: bool,
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
    /// Whether a data page was not dictionary-encoded (parquet keeps the bloom filter of a
    /// chunk without one only if the properties ask).
    non_dictionary_pages: bool,
}

impl PageChunkWriter {
    /// A writer for the leaf `descr` under `props` (which [`super::encodings::supported`]
    /// accepts).
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
            PhysicalType::FIXED_LEN_BYTE_ARRAY => Some(descr.type_length().max(1) as usize),
            _ => None,
        };
        let dictionary_bytes = props.column_dictionary_page_size_limit(path);
        let levels = |max: i16| (max > 0).then(|| HybridRle::for_levels(max));
        let physical = descr.physical_type();
        let dictionary = (dictionary_type(physical) && props.dictionary_enabled(path))
            .then(|| Dictionary::new(width, dictionary_bytes));
        let layout = props.delta_binary_packed_encoder_options(path);
        let encoding = value_encoding(physical, props, path);
        let encoder = encoding
            .and_then(|encoding| ValueEncoder::new(encoding, physical, layout))
            .map(Box::new);
        Ok(Self {
            batches: MiniBatches::new(&descr, props),
            page_bytes,
            page_rows: props.column_data_page_row_count_limit(path),
            dictionary_bytes,
            width,
            def: levels(descr.max_def_level()),
            rep: levels(descr.max_rep_level()),
            dictionary,
            encoder,
            format: PageFormat::of(props, path),
            byte_stream_split: encoding == Some(Encoding::BYTE_STREAM_SPLIT),
            page: OpenPage::new(LEVEL_SLACK, 0),
            level_room: LEVEL_SLACK,
            pages: ChunkPages::new(descr.clone(), props),
            stats: ChunkStatistics::new(descr.clone(), props),
            def_tally: LevelTally::new(descr.max_def_level()),
            rep_tally: LevelTally::new(descr.max_rep_level()),
            codec,
            bloom: ChunkBloom::new(&descr, props)?,
            non_dictionary_pages: false,
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
        let values = PlainValues::of(&leaf.array, &leaf.values, &self.descr)?;
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
            let exact = self.dictionary.is_none()
                && self
                    .encoder
                    .as_ref()
                    .is_some_and(|encoder| encoder.compares_with_previous());
            for piece in split_for_page(batch, leaf, max_def, fit, exact) {
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
        let page_was_empty = self.page.levels == 0;
        let def = leaf.def.as_ref().map(|def| def.slice(levels.clone()));
        let rep = leaf.rep.as_deref().map(|rep| &rep[levels.clone()]);
        // Levels all alike (a column of nulls only, or without a null; list items too) go in
        // as one run.
        if let (Some(rle), Some(def)) = (self.def.as_mut(), def) {
            match def {
                LevelSlice::Same(level, count) => rle.put_run(level as u64, count),
                LevelSlice::Spelled(def) => rle.put_levels(def),
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
        self.page.byte_array_bytes += match self.dictionary.as_mut() {
            Some(dictionary) => dictionary.append(values, range.clone(), cache),
            None => {
                if let Some(bloom) = self.bloom.as_mut() {
                    bloom.insert_values(values, range.clone());
                }
                match self.encoder.as_mut() {
                    Some(encoder) => encoder.put(values, range.clone()),
                    None => values.append(range.clone(), &mut self.page.values),
                }
            }
        };
        if self.stats.enabled() {
            let def_counts = def.map(|def| match def {
                LevelSlice::Same(level, count) => self.def_tally.count_run(level, count),
                LevelSlice::Spelled(def) => self.def_tally.count(def),
            });
            self.stats.add_levels(def_counts, rep_counts);
            let keys = self
                .dictionary
                .as_ref()
                .and_then(|d| d.last_keys(range.len()));
            self.stats.add_values(values, range.clone(), keys);
        }
        self.page.levels += levels.len() as u32;
        self.page.value_count += range.len() as u32;
        let estimate = match (&self.dictionary, &self.encoder) {
            (Some(dictionary), _) => dictionary.estimated_data_page_size(),
            (None, Some(encoder)) => encoder.estimated_size(),
            (None, None) if self.plain_booleans() => self.page.values_len().div_ceil(8),
            (None, None) => self.page.values_len(),
        };
        if page_was_empty && range.len() == 1 && estimate >= self.page_bytes {
            self.page.size_exemption = self.exemption(estimate);
        }
        let measured = estimate.saturating_sub(self.page.size_exemption);
        let full = self.page.rows as usize >= self.page_rows || measured >= self.page_bytes;
        if self.page.levels > 0 && full {
            self.flush_page()?;
        }
        let overflowing = self.dictionary.as_ref().map(Dictionary::page_size);
        if overflowing.is_some_and(|size| size >= self.dictionary_bytes) {
            self.fall_back()?;
        }
        Ok(())
    }

    /// What parquet leaves out of the page's size when its lone first value alone takes
    /// `estimate` bytes: all of it for values that depend on the one before
    /// (`DELTA_BYTE_ARRAY` outside a dictionary), else nothing.
    fn exemption(&self, estimate: usize) -> usize {
        let outside_dictionary = self.encoder.as_ref().filter(|_| self.dictionary.is_none());
        match outside_dictionary.is_some_and(|encoder| encoder.compares_with_previous()) {
            true => estimate,
            false => 0,
        }
    }

    /// Writes the open page as a data page of the chunk's format.
    fn flush_page(&mut self) -> Result<()> {
        // The next page's values take about as much room as this one's, and a page passes the
        // limit by up to a mini-batch: room for an eighth more (up to the limit and an eighth),
        // so that the buffer is not grown, and its values copied, page after page. (Room for
        // the limit alone was passed by every full page, whose buffer then doubled.)
        let capacity = {
            let used = self.page.values_len();
            let most = self.page_bytes.saturating_add(self.page_bytes / 8);
            used.saturating_add(used / 8).min(most)
        };
        let mut page = std::mem::replace(&mut self.page, OpenPage::new(self.level_room, capacity));
        if self.plain_booleans() {
            pack_booleans(&mut page.values, page.room);
        }
        if let (true, None, Some(width)) = (self.byte_stream_split, &self.dictionary, self.width) {
            split_streams(&mut page.values[page.room..], width);
        }
        let (levels, rep_len) = self
            .format
            .finish_levels(self.rep.as_mut(), self.def.as_mut());
        // The next page's levels most likely take about as many bytes as this one's.
        self.level_room = levels.len() + levels.len() / 4 + LEVEL_SLACK;
        let (body, encoding) = self.page_body(page.values, page.room, levels, rep_len);
        self.non_dictionary_pages |= encoding != Encoding::RLE_DICTIONARY;
        let counts = PageCounts {
            levels: page.levels,
            rows: page.rows,
            nulls: page.levels - page.value_count,
            encoding,
        };
        let finished = self.format.assemble(body, counts, self.codec.as_mut())?;
        let bytes = (self.descr.physical_type() == PhysicalType::BYTE_ARRAY)
            .then_some(page.byte_array_bytes);
        self.stats.finish_page(page.rows, bytes);
        let hold = self.dictionary.is_some();
        self.pages.add_data_page(finished, page.rows, bytes, hold)
    }

    /// The open page's `levels` (`rep_len` bytes of repetition levels first), then its values:
    /// the dictionary's indices, the `DELTA_BINARY_PACKED` blocks, or the `PLAIN` values in
    /// `values` after `room` bytes, in front of which the levels go where they fit.
    fn page_body(
        &mut self,
        values: Vec<u8>,
        room: usize,
        levels: Vec<u8>,
        rep_len: usize,
    ) -> (PageBody, Encoding) {
        let levels_len = levels.len();
        let (buf, start, encoding) = match (self.dictionary.as_mut(), self.encoder.as_mut()) {
            (Some(dictionary), _) => {
                let mut buf = levels;
                buf.reserve(dictionary.estimated_data_page_size() + 1);
                dictionary.finish_page_into(&mut buf);
                (buf, 0, Encoding::RLE_DICTIONARY)
            }
            (None, Some(encoder)) => {
                let mut buf = levels;
                encoder.finish_into(&mut buf);
                (buf, 0, encoder.encoding())
            }
            (None, None) if levels_len <= room => {
                let (mut buf, start) = (values, room - levels_len);
                buf[start..room].copy_from_slice(&levels);
                (buf, start, self.plain_encoding())
            }
            (None, None) => {
                let mut buf = levels;
                buf.extend_from_slice(&values[room..]);
                (buf, 0, self.plain_encoding())
            }
        };
        let body = PageBody {
            buf,
            start,
            values_at: start + levels_len,
            rep_len,
        };
        (body, encoding)
    }

    /// The encoding of values gathered as `PLAIN` in the open page.
    fn plain_encoding(&self) -> Encoding {
        match self.byte_stream_split {
            true => Encoding::BYTE_STREAM_SPLIT,
            false => Encoding::PLAIN,
        }
    }

    /// Whether the leaf holds `PLAIN` booleans: one byte each in the open page, bit-packed
    /// when it is written.
    fn plain_booleans(&self) -> bool {
        self.descr.physical_type() == PhysicalType::BOOLEAN && self.encoder.is_none()
    }

    /// Ends the dictionary: its open page, the dictionary page, the data pages held for it;
    /// later values take the column's own encoding.
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

    /// Bytes held: the pages finished, the open page's values, the open dictionary, the
    /// `DELTA_BINARY_PACKED` blocks and the bloom filter.
    pub fn memory_size(&self) -> usize {
        let dictionary = self.dictionary.as_ref().map_or(0, Dictionary::memory_size);
        let encoder = self.encoder.as_ref().map_or(0, |e| e.memory_size());
        let bloom = self.bloom.as_ref().map_or(0, ChunkBloom::memory_size);
        self.pages.memory_size() + self.page.values.capacity() + dictionary + encoder + bloom
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
        let bloom = self
            .bloom
            .and_then(|bloom| bloom.finish(self.non_dictionary_pages));
        self.pages.close(self.stats, bloom)
    }
}

/// Bytes of room for a page's levels beyond what the last page's took.
const LEVEL_SLACK: usize = 64;
