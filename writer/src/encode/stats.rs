//! [`ChunkStatistics`]: the statistics parquet's column writer records for a leaf whose pages
//! [`super::pages::PageChunkWriter`] writes: per page the null count, the level histograms and
//! the values' min and max (the column index, with its boundary order), per chunk their sums
//! and bounds (the chunk's `Statistics` and size statistics), truncated as parquet truncates
//! them.
//!
//! Values are compared as parquet's writer compares them for the types [`supported`] takes:
//! `BOOLEAN` false before true, `INT32` and `INT64` as signed or unsigned integers by the
//! leaf's sort order, `FLOAT`, `DOUBLE` and half floats by IEEE 754 total order with NaNs
//! counted and left out of the bounds wherever anything else is there, decimals stored as
//! `FIXED_LEN_BYTE_ARRAY` as signed integers, other byte arrays byte by byte.

use std::ops::Range;

use parquet::basic::{BoundaryOrder, ConvertedType, LogicalType, SortOrder, Type as PhysicalType};
use parquet::data_type::{ByteArray, FixedLenByteArray};
use parquet::errors::Result;
use parquet::file::metadata::{ColumnChunkMetaDataBuilder, ColumnIndexBuilder, LevelHistogram};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::statistics::{Statistics, ValueStatistics};
use parquet::schema::types::ColumnDescPtr;

use super::bounds::{Bounds, NumberKind, NumberOrder, ValueOrder};
use super::dictionary::PageKeys;
use super::plain::PlainValues;
use super::truncate;

/// Whether [`ChunkStatistics`] records what parquet's writer records for the leaf `descr`
/// under `props`: any leaf without statistics; with chunk or page statistics, integers with a
/// signed or unsigned sort order, floats and doubles, byte arrays compared byte by byte, and
/// fixed-length byte arrays compared as half floats, as decimals or byte by byte (not
/// intervals, which parquet gives no bounds), without statistics in the page headers.
pub(crate) fn supported(descr: &ColumnDescPtr, props: &WriterProperties) -> bool {
    if props.statistics_enabled(descr.path()) == EnabledStatistics::None {
        return true;
    }
    let order = descr.sort_order();
    let comparable = match descr.physical_type() {
        PhysicalType::INT32 | PhysicalType::INT64 => {
            matches!(order, SortOrder::SIGNED | SortOrder::UNSIGNED)
                && descr.converted_type() != ConvertedType::INTERVAL
        }
        PhysicalType::BOOLEAN | PhysicalType::FLOAT | PhysicalType::DOUBLE => true,
        PhysicalType::BYTE_ARRAY => order == SortOrder::UNSIGNED && !is_decimal(descr),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => match order {
            SortOrder::TOTAL_ORDER => descr.type_length() == 2,
            SortOrder::SIGNED => is_decimal(descr),
            SortOrder::UNSIGNED => descr.converted_type() != ConvertedType::INTERVAL,
            _ => false,
        },
        PhysicalType::INT96 => false,
    };
    comparable && !props.write_page_header_statistics(descr.path())
}

fn is_decimal(descr: &ColumnDescPtr) -> bool {
    descr.converted_type() == ConvertedType::DECIMAL
        || matches!(descr.logical_type_ref(), Some(LogicalType::Decimal { .. }))
}

/// What the open page has added so far.
#[derive(Debug, Default)]
struct PageMetrics {
    nulls: u64,
    /// NaN values, once a float page has values.
    nans: Option<u64>,
    rep: Option<LevelHistogram>,
    def: Option<LevelHistogram>,
    bounds: Option<Bounds>,
}

/// The statistics of one leaf column chunk, page by page.
pub(crate) struct ChunkStatistics {
    descr: ColumnDescPtr,
    enabled: EnabledStatistics,
    /// How the values compare.
    order: ValueOrder,
    column_index_truncation: Option<usize>,
    statistics_truncation: Option<usize>,
    page: PageMetrics,
    nulls: u64,
    /// NaN values, once a float page has values: the chunk's `nan_count`.
    nans: Option<u64>,
    rep: Option<LevelHistogram>,
    def: Option<LevelHistogram>,
    bounds: Option<Bounds>,
    byte_array_bytes: Option<i64>,
    index: ColumnIndexBuilder,
    /// The bounds of the last page with values, and whether the pages' bounds never fell or
    /// never rose: the column index's boundary order.
    last_bounds: Option<Bounds>,
    ascending: bool,
    descending: bool,
    /// Scratch space for [`Bounds::of_keyed`]: one bit per dictionary index.
    seen: Vec<u64>,
}

impl std::fmt::Debug for ChunkStatistics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkStatistics")
            .field("enabled", &self.enabled)
            .field("nulls", &self.nulls)
            .field("bounds", &self.bounds)
            .finish_non_exhaustive()
    }
}

impl ChunkStatistics {
    /// Nothing recorded yet for the leaf `descr` (which [`supported`] accepts) under `props`.
    pub fn new(descr: ColumnDescPtr, props: &WriterProperties) -> Self {
        let enabled = props.statistics_enabled(descr.path());
        let histogram = |max: i16| match enabled {
            EnabledStatistics::None => None,
            _ => LevelHistogram::try_new(max),
        };
        let order = value_order(&descr);
        let mut index = ColumnIndexBuilder::new(descr.physical_type());
        if enabled != EnabledStatistics::Page {
            index.to_invalid();
        }
        let (rep, def) = (
            histogram(descr.max_rep_level()),
            histogram(descr.max_def_level()),
        );
        Self {
            enabled,
            order,
            column_index_truncation: props.column_index_truncate_length(),
            statistics_truncation: props.statistics_truncate_length(),
            page: PageMetrics {
                rep: rep.clone(),
                def: def.clone(),
                ..PageMetrics::default()
            },
            nulls: 0,
            nans: None,
            rep,
            def,
            bounds: None,
            byte_array_bytes: None,
            index,
            last_bounds: None,
            ascending: true,
            descending: true,
            seen: Vec::new(),
            descr,
        }
    }

    /// Whether statistics are on: otherwise [`Self::add_levels`] and [`Self::add_values`]
    /// record nothing, and need not be called.
    pub fn enabled(&self) -> bool {
        self.enabled != EnabledStatistics::None
    }

    /// Records one mini-batch's levels, counted by level ([`LevelTally`]): nulls (levels
    /// without a value) and histograms.
    pub fn add_levels(&mut self, def: Option<&[u64]>, rep: Option<&[u64]>) {
        if !self.enabled() {
            return;
        }
        if let Some(def) = def {
            let values = def.get(self.descr.max_def_level() as usize).copied();
            self.page.nulls += def.iter().sum::<u64>() - values.unwrap_or(0);
        }
        for (counts, histogram) in [(def, &mut self.page.def), (rep, &mut self.page.rep)] {
            if let (Some(counts), Some(histogram)) = (counts, histogram.as_mut()) {
                for (level, &count) in counts.iter().enumerate() {
                    if count > 0 {
                        histogram.increment_by(level as i16, count as i64);
                    }
                }
            }
        }
    }

    /// Records the min and max of the values in `range`, whose dictionary indices are `keys`
    /// where the caller has them (see [`Bounds::of_keyed`]).
    pub fn add_values(
        &mut self,
        values: &PlainValues<'_>,
        range: Range<usize>,
        keys: Option<PageKeys<'_>>,
    ) {
        if !self.enabled() || range.is_empty() {
            return;
        }
        let found = match keys {
            Some(keys) => Bounds::of_keyed(values, range, keys, &mut self.seen, self.order),
            None => Bounds::of(values, range, self.order),
        };
        let Some((bounds, nans)) = found else {
            return;
        };
        if self.floats() {
            *self.page.nans.get_or_insert(0) += nans;
        }
        match self.page.bounds.as_mut() {
            Some(page) => page.merge(&bounds),
            None => self.page.bounds = Some(bounds),
        }
    }

    /// Closes the open page of `rows` rows with `byte_array_bytes` of byte-array values: its
    /// column index entry, and its share of the chunk's statistics.
    pub fn finish_page(&mut self, rows: u32, byte_array_bytes: Option<i64>) {
        if let Some(bytes) = byte_array_bytes {
            *self.byte_array_bytes.get_or_insert(0) += bytes;
        }
        if !self.enabled() {
            return;
        }
        let fresh = PageMetrics {
            rep: self.page.rep.as_ref().map(empty_like),
            def: self.page.def.as_ref().map(empty_like),
            ..PageMetrics::default()
        };
        let page = std::mem::replace(&mut self.page, fresh);
        self.nulls += page.nulls;
        if let Some(nans) = page.nans {
            *self.nans.get_or_insert(0) += nans;
        }
        if let Some(bounds) = &page.bounds {
            match self.bounds.as_mut() {
                Some(chunk) => chunk.merge(bounds),
                None => self.bounds = Some(bounds.clone()),
            }
        }
        self.index_page(&page, rows);
        for (chunk, page) in [(&mut self.rep, &page.rep), (&mut self.def, &page.def)] {
            if let (Some(chunk), Some(page)) = (chunk.as_mut(), page) {
                chunk.add(page);
            }
        }
    }

    /// The page's column index entry: a null page, its truncated bounds, or (a page with
    /// neither values nor only nulls) no column index at all, as parquet's writer decides.
    fn index_page(&mut self, page: &PageMetrics, rows: u32) {
        if !self.index.valid() {
            return;
        }
        let nulls = page.nulls as i64;
        // Every page of a float leaf has a NaN count in the column index, 0 without values.
        let nans = self
            .floats()
            .then(|| i64::try_from(page.nans.unwrap_or(0)).unwrap_or(i64::MAX));
        if u64::from(rows) == page.nulls {
            self.index.append(true, Vec::new(), Vec::new(), nulls, nans);
        } else if let Some(bounds) = &page.bounds {
            if let Some(last) = &self.last_bounds {
                let (low, high) = (last.exceeds(bounds), bounds.exceeds(last));
                self.ascending &= !low;
                self.descending &= !high;
            }
            self.last_bounds = Some(bounds.clone());
            let (min, max) = self.order.bytes(bounds);
            let (min, max) = match self.order {
                ValueOrder::Bytes => (
                    truncate::min(&self.descr, self.column_index_truncation, &min).0,
                    truncate::max(&self.descr, self.column_index_truncation, &max).0,
                ),
                _ => (min, max),
            };
            self.index.append(false, min, max, nulls, nans);
        } else {
            self.index.to_invalid();
        }
        self.index.append_histograms(&page.rep, &page.def);
    }

    /// Whether the leaf holds floats, doubles or half floats: parquet counts their NaNs.
    fn floats(&self) -> bool {
        matches!(self.order, ValueOrder::Numbers(order) if order.kind == NumberKind::Float)
    }

    /// Adds the chunk's statistics and size statistics to `builder`, and returns it with the
    /// column index (if page statistics are on and every page has one).
    ///
    /// # Errors
    ///
    /// Building the column index failed.
    pub fn finish(
        mut self,
        builder: ColumnChunkMetaDataBuilder,
    ) -> Result<(ColumnChunkMetaDataBuilder, Option<ColumnIndexMetaData>)> {
        if !self.enabled() {
            return Ok((builder, None));
        }
        let statistics = self.chunk_statistics();
        let builder = builder
            .set_statistics(statistics)
            .set_unencoded_byte_array_data_bytes(self.byte_array_bytes)
            .set_repetition_level_histogram(self.rep.take())
            .set_definition_level_histogram(self.def.take());
        self.index
            .set_boundary_order(match (self.ascending, self.descending) {
                (true, _) => BoundaryOrder::ASCENDING,
                (false, true) => BoundaryOrder::DESCENDING,
                (false, false) => BoundaryOrder::UNORDERED,
            });
        let index = match self.index.valid() {
            true => Some(self.index.build()?),
            false => None,
        };
        Ok((builder, index))
    }

    /// The chunk's `Statistics`, built and truncated as parquet's column writer builds them.
    fn chunk_statistics(&self) -> Statistics {
        let signed = self.descr.sort_order().is_signed();
        let nulls = Some(self.nulls);
        let bounds = self.bounds.as_ref().map(|b| self.order.bytes(b));
        let nans = self.nans;
        if self.descr.physical_type() == PhysicalType::FIXED_LEN_BYTE_ARRAY {
            return self.byte_statistics::<FixedLenByteArray>(bounds, signed);
        }
        let ValueOrder::Numbers(order) = self.order else {
            return self.byte_statistics::<ByteArray>(bounds, signed);
        };
        match (order.width, order.kind) {
            (4, NumberKind::Float) => {
                number_statistics(bounds, f32::from_le_bytes, nulls, nans, signed)
            }
            (_, NumberKind::Float) => {
                number_statistics(bounds, f64::from_le_bytes, nulls, nans, signed)
            }
            (1, _) => number_statistics(bounds, |[byte]: [u8; 1]| byte != 0, nulls, nans, signed),
            (4, _) => number_statistics(bounds, i32::from_le_bytes, nulls, nans, signed),
            _ => number_statistics(bounds, i64::from_le_bytes, nulls, nans, signed),
        }
    }

    /// The chunk `Statistics` of a byte-array or fixed-length byte-array leaf (`T`): bounds
    /// compared byte by byte are truncated, and then exact only where not cut; decimals' and
    /// half floats' are kept whole, as parquet's writer keeps them.
    fn byte_statistics<T>(&self, bounds: Option<(Vec<u8>, Vec<u8>)>, signed: bool) -> Statistics
    where
        T: From<ByteArray>,
        Statistics: From<ValueStatistics<T>>,
    {
        let nulls = Some(self.nulls);
        let value = |bytes: Vec<u8>| Some(T::from(ByteArray::from(bytes)));
        match (bounds, self.order) {
            (Some((min, max)), ValueOrder::Bytes) => {
                let truncation = self.statistics_truncation;
                let (min, cut_min) = truncate::min(&self.descr, truncation, &min);
                let (max, cut_max) = truncate::max(&self.descr, truncation, &max);
                ValueStatistics::new(value(min), value(max), None, nulls, signed)
                    .with_max_is_exact(!cut_max)
                    .with_min_is_exact(!cut_min)
                    .into()
            }
            (bounds, _) => {
                let (min, max) = bounds.unzip();
                ValueStatistics::new(min.and_then(value), max.and_then(value), None, nulls, false)
                    .with_nan_count(self.nans)
                    .with_backwards_compatible_min_max(signed)
                    .into()
            }
        }
    }
}

/// How the leaf `descr`'s values compare, as parquet's writer compares them.
fn value_order(descr: &ColumnDescPtr) -> ValueOrder {
    let integers = match descr.sort_order() {
        SortOrder::UNSIGNED => NumberKind::Unsigned,
        _ => NumberKind::Signed,
    };
    let number = |width, kind| ValueOrder::Numbers(NumberOrder { width, kind });
    match descr.physical_type() {
        // false before true, as one byte each.
        PhysicalType::BOOLEAN => number(1, NumberKind::Unsigned),
        PhysicalType::INT32 => number(4, integers),
        PhysicalType::INT64 => number(8, integers),
        PhysicalType::FLOAT => number(4, NumberKind::Float),
        PhysicalType::DOUBLE => number(8, NumberKind::Float),
        // A fixed-length byte array in total order is a half float.
        PhysicalType::FIXED_LEN_BYTE_ARRAY if descr.sort_order() == SortOrder::TOTAL_ORDER => {
            number(2, NumberKind::Float)
        }
        PhysicalType::FIXED_LEN_BYTE_ARRAY if is_decimal(descr) => ValueOrder::SignedBytes,
        _ => ValueOrder::Bytes,
    }
}

/// The chunk `Statistics` of a fixed-width leaf of `N`-byte values, whose bounds' bytes
/// `decode` reads, as parquet's column writer builds them.
fn number_statistics<T, const N: usize>(
    bounds: Option<(Vec<u8>, Vec<u8>)>,
    decode: fn([u8; N]) -> T,
    nulls: Option<u64>,
    nans: Option<u64>,
    signed: bool,
) -> Statistics
where
    Statistics: From<ValueStatistics<T>>,
{
    let read = |bytes: Vec<u8>| bytes.try_into().ok().map(decode);
    let (min, max) = match bounds {
        Some((min, max)) => (read(min), read(max)),
        None => (None, None),
    };
    ValueStatistics::new(min, max, None, nulls, false)
        .with_nan_count(nans)
        .with_backwards_compatible_min_max(signed)
        .into()
}

fn empty_like(histogram: &LevelHistogram) -> LevelHistogram {
    let mut empty = histogram.clone();
    empty.reset();
    empty
}
