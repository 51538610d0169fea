//! The mini-batches `ArrowColumnWriter`'s column writer cuts a batch into, reproduced so that
//! the native encoder's writes end where its do: page boundaries, dictionary fallback and the
//! byte-budget checks all happen between mini-batches.

use std::ops::Range;

use parquet::basic::Type as PhysicalType;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescriptor;

use super::levels::LeafLevels;

/// How one leaf column's writes are cut into mini-batches.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MiniBatches {
    /// `write_batch_size`: the levels of one mini-batch, extended to the end of a record.
    levels: usize,
    /// `data_page_row_count_limit`: the levels of one mini-batch when `compute_leaves` hands
    /// the writer uniform runs ([`LeafLevels::uniform`]).
    uniform: usize,
}

impl MiniBatches {
    /// The mini-batches of the leaf `descr` under `props`.
    pub(crate) fn new(descr: &ColumnDescriptor, props: &WriterProperties) -> Self {
        Self {
            levels: props.write_batch_size().max(1),
            uniform: props.column_data_page_row_count_limit(descr.path()).max(1),
        }
    }

    /// The `write_batch_size` to give parquet's column writer, so that each mini-batch the
    /// native encoder hands it is one mini-batch there too.
    pub(crate) fn writer_batch_size(&self) -> usize {
        self.levels.max(self.uniform)
    }

    /// Whether the column writer's byte-budget checks, which skip the values of fixed-width
    /// types when a base batch of them cannot overflow a page, decide alike with
    /// [`Self::writer_batch_size`] as with either base `ArrowColumnWriter` uses.
    pub(crate) fn budget_checks_agree(
        &self,
        descr: &ColumnDescriptor,
        props: &WriterProperties,
    ) -> bool {
        let width = match descr.physical_type() {
            PhysicalType::BOOLEAN => 1,
            PhysicalType::INT32 | PhysicalType::FLOAT => 4,
            PhysicalType::INT64 | PhysicalType::DOUBLE => 8,
            PhysicalType::INT96 => 12,
            PhysicalType::FIXED_LEN_BYTE_ARRAY => descr.type_length().max(0) as usize,
            // Never checked statically: the values are always measured.
            PhysicalType::BYTE_ARRAY => return true,
        };
        let path = descr.path();
        let limits = [
            props.column_data_page_size_limit(path),
            props.column_dictionary_page_size_limit(path),
        ];
        let fits = |batch: usize, limit: usize| width.saturating_mul(batch) <= limit;
        // Either size can be a batch's base: `write_batch_size`, or the row count limit where
        // a flat leaf's definition levels are uniform.
        limits.iter().all(|&limit| {
            let wanted = fits(self.writer_batch_size(), limit);
            fits(self.levels, limit) == wanted && fits(self.uniform, limit) == wanted
        })
    }

    /// The levels of one of `leaf`'s mini-batches before it is extended to a record's end:
    /// what parquet's column writer calls the base batch size, and sizes its static checks of
    /// fixed-width values by.
    pub(crate) fn base(&self, leaf: &LeafLevels) -> usize {
        match leaf.uniform {
            true => self.uniform,
            false => self.levels,
        }
    }

    /// The mini-batches of `leaf`: each one's range of levels and range of values.
    pub(crate) fn of(&self, leaf: &LeafLevels, max_def: i16) -> Vec<MiniBatch> {
        let rep = leaf.rep.as_deref();
        let count = leaf.entries();
        let records = rep.filter(|_| !leaf.uniform);
        let base = self.base(leaf);
        cut(
            0..count,
            0,
            |start| start.saturating_add(base),
            records,
            values_in(leaf, max_def),
        )
    }
}

/// A mini-batch: its range of levels and its range of values.
pub(crate) type MiniBatch = (Range<usize>, Range<usize>);

/// The mini-batches the column writer cuts `batch` (one of [`MiniBatches::of`]'s) into when
/// its values would not fit in one data page: `fit(values)` says how many of them, from the
/// start, fit in the page's byte limit (at least one). Each piece is extended to the end of
/// its record, as in parquet's `write_granular_chunk`. Where `exact_values` (values that
/// depend on the one before, `DELTA_BYTE_ARRAY`), a piece ends right after that many values;
/// otherwise the cut is in levels, the values' count scaled by the batch's levels per value
/// and rounded up.
pub(crate) fn split_for_page(
    batch: MiniBatch,
    leaf: &LeafLevels,
    max_def: i16,
    fit: impl Fn(Range<usize>) -> usize,
    exact_values: bool,
) -> Vec<MiniBatch> {
    let (levels, values) = batch;
    let (size, count) = (levels.len(), values.len());
    let fits = match count {
        0 => 0,
        _ => fit(values.clone()),
    };
    if fits >= count {
        return vec![(levels, values)];
    }
    let fits = fits.max(1);
    let def = leaf.def.as_ref().filter(|_| !leaf.uniform && count < size);
    let window = match count == size {
        true => fits,
        false => (fits * size).div_ceil(count),
    }
    .clamp(1, size);
    let window_end = |start: usize| match (exact_values, def) {
        (true, Some(def)) => {
            // Nulls after the last value that fits are left to the next piece.
            let (mut end, mut seen) = (start, 0);
            while end < levels.end && seen < fits {
                seen += usize::from(def.get(end) == max_def);
                end += 1;
            }
            end
        }
        (true, None) => start.saturating_add(fits),
        (false, _) => start.saturating_add(window),
    };
    cut(
        levels.clone(),
        values.start,
        window_end,
        leaf.rep.as_deref(),
        values_in(leaf, max_def),
    )
}

/// How many values `leaf`'s levels in a range carry: those at definition level `max_def`
/// (every level where the leaf has no definition levels, all or none where they are all alike).
fn values_in(leaf: &LeafLevels, max_def: i16) -> impl Fn(Range<usize>) -> usize + '_ {
    move |levels: Range<usize>| match &leaf.def {
        Some(def) => def.slice(levels).count_at(max_def),
        None => levels.len(),
    }
}

/// Cuts `levels` (whose values start at `first_value`) into pieces, each from its start to
/// `window_end(start)` (at least one level on), extended to the end of its record where
/// `records` (repetition levels) are given, with the values each carries (`carried` counts
/// them).
fn cut(
    levels: Range<usize>,
    first_value: usize,
    window_end: impl Fn(usize) -> usize,
    records: Option<&[i16]>,
    carried: impl Fn(Range<usize>) -> usize,
) -> Vec<MiniBatch> {
    let mut pieces = Vec::new();
    let (mut start, mut value) = (levels.start, first_value);
    while start < levels.end {
        let mut end = levels.end.min(window_end(start).max(start + 1));
        if let Some(rep) = records {
            // A record never spans two mini-batches.
            while end < levels.end && rep[end] != 0 {
                end += 1;
            }
        }
        let carried = carried(start..end);
        pieces.push((start..end, value..value + carried));
        (start, value) = (end, value + carried);
    }
    pieces
}
