//! The unencoded byte-array sizes `ArrowColumnWriter` records and parquet's typed column writer
//! leaves out.
//!
//! For a `BYTE_ARRAY` leaf, `ArrowColumnWriter` stores each page's total value length in the
//! offset index and the chunk's in its metadata (with statistics on) even where it is 0. The
//! typed writer counts only with statistics on and only pages holding values, so the native
//! encoder counts the bytes of every row itself and sets both on closing.

use arrow_array::cast::AsArray;
use arrow_array::{Array, OffsetSizeTrait};
use arrow_schema::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::Result;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnDescriptor;

use super::levels::LeafLevels;
use super::positions::Positions;

/// The value bytes of every row of a `BYTE_ARRAY` column chunk, as running totals.
#[derive(Debug)]
pub(crate) struct RowBytes {
    /// `totals[r]`: the bytes of the values of rows before `r`.
    totals: Vec<i64>,
    /// Whether the chunk's metadata carries the total (statistics are on).
    in_metadata: bool,
}

impl RowBytes {
    /// The counter for the leaf `descr`, `None` unless it is a `BYTE_ARRAY` column.
    pub(crate) fn new(descr: &ColumnDescriptor, props: &WriterProperties) -> Option<Self> {
        (descr.physical_type() == PhysicalType::BYTE_ARRAY).then(|| Self {
            totals: vec![0],
            in_metadata: props.statistics_enabled(descr.path()) != EnabledStatistics::None,
        })
    }

    /// Counts one batch's rows of `leaf`, whose definition level `max_def` marks a value.
    pub(crate) fn add(&mut self, leaf: &LeafLevels, max_def: i16) {
        let lengths = value_lengths(leaf);
        let mut lengths = lengths.iter();
        let mut total = *self.totals.last().unwrap_or(&0);
        let count = leaf.entries();
        for entry in 0..count {
            let starts_row = leaf.rep.as_ref().is_none_or(|rep| rep[entry] == 0);
            if starts_row && entry > 0 {
                self.totals.push(total);
            }
            if leaf
                .def
                .as_ref()
                .is_none_or(|def| def.get(entry) == max_def)
            {
                total += lengths.next().copied().unwrap_or(0);
            }
        }
        if count > 0 {
            self.totals.push(total);
        }
    }

    /// Sets the per-page sizes in `close`'s offset index and the chunk's in its metadata.
    pub(crate) fn apply(&self, close: &mut ColumnCloseResult) -> Result<()> {
        // A chunk without rows has no pages: `ArrowColumnWriter` records no sizes either.
        if self.totals.len() == 1 {
            return Ok(());
        }
        let at = |row: i64| {
            let row = usize::try_from(row).unwrap_or(0).min(self.totals.len() - 1);
            self.totals[row]
        };
        if let Some(index) = close.offset_index.as_mut() {
            let mut starts: Vec<i64> = index
                .page_locations
                .iter()
                .map(|p| p.first_row_index)
                .collect();
            starts.push(self.totals.len() as i64 - 1);
            index.unencoded_byte_array_data_bytes =
                Some(starts.windows(2).map(|w| at(w[1]) - at(w[0])).collect());
        }
        if self.in_metadata {
            let total = *self.totals.last().unwrap_or(&0);
            close.metadata = close
                .metadata
                .clone()
                .into_builder()
                .set_unencoded_byte_array_data_bytes(Some(total))
                .build()?;
        }
        Ok(())
    }
}

/// The lengths of the values `leaf` carries, in order.
fn value_lengths(leaf: &LeafLevels) -> Vec<i64> {
    match leaf.array.data_type() {
        DataType::Utf8 => lengths(leaf.array.as_string::<i32>().value_offsets(), &leaf.values),
        DataType::LargeUtf8 => lengths(leaf.array.as_string::<i64>().value_offsets(), &leaf.values),
        DataType::Binary => lengths(leaf.array.as_binary::<i32>().value_offsets(), &leaf.values),
        DataType::LargeBinary => {
            lengths(leaf.array.as_binary::<i64>().value_offsets(), &leaf.values)
        }
        _ => Vec::new(),
    }
}

fn lengths<O: OffsetSizeTrait>(offsets: &[O], at: &Positions) -> Vec<i64> {
    at.selection()
        .gather(|i| (offsets[i + 1] - offsets[i]).as_usize() as i64)
}
