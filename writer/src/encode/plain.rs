//! [`PlainValues`]: one batch's values of a leaf in parquet's `PLAIN` encoding, ready to be
//! copied into pages a range at a time: fixed-width values as little-endian bytes, byte arrays
//! as a 4-byte length and the bytes, read straight from the Arrow buffers.

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::{BinaryType, ByteArrayType, LargeBinaryType, LargeUtf8Type, Utf8Type};
use arrow_array::{Array, ArrayRef, GenericByteArray};
use arrow_buffer::{ArrowNativeType, Buffer};
use arrow_schema::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::errors::{ParquetError, Result};
use parquet::schema::types::ColumnDescriptor;

use super::fixed_len;
use super::positions::{Positions, Selection};
use super::spans::{Keys, Spans};
use super::values::{self, fixed_width_values, FixedWidth};
use super::views::{self, ViewValues};

/// Whether [`PlainValues`] encodes leaves of the Arrow type `data_type` written as the leaf
/// `descr`.
pub(crate) fn supported(data_type: &DataType, descr: &ColumnDescriptor) -> bool {
    let physical = descr.physical_type();
    // An Arrow dictionary of byte arrays is written as its values are.
    let value_type = match data_type {
        DataType::Dictionary(_, values) if physical == PhysicalType::BYTE_ARRAY => values,
        other => other,
    };
    // A view array's values are read where they lie ([`ViewValues`]); an Arrow dictionary of
    // views is left to parquet.
    let view = views::is_view(data_type) && physical == PhysicalType::BYTE_ARRAY;
    view || values::written_as(value_type, descr)
}

/// A batch's values of one leaf, in the order its levels carry them.
#[derive(Debug)]
pub(crate) enum PlainValues<'a> {
    /// Values of `width` bytes each, encoded: the Arrow buffer itself where the values are
    /// consecutive and already in that form. Booleans are one byte each (0 or 1), bit-packed
    /// as a page is written ([`pack_booleans`]). `measured`: the values of a
    /// `FIXED_LEN_BYTE_ARRAY` leaf, which parquet measures one by one against a page's byte
    /// budget where it divides the budget by the width of a number.
    Fixed {
        bytes: Buffer,
        width: usize,
        measured: bool,
    },
    /// Byte arrays: where each value lies in `data`, or for an Arrow dictionary array where
    /// each dictionary value does, which each value's key picks.
    Variable {
        spans: Spans<'a>,
        data: &'a [u8],
        keys: Option<Keys>,
    },
    /// Byte arrays of a view array, read from each view.
    Views(ViewValues<'a>),
}

/// The range of a byte-array value in its buffer: `spans`' own, or through the value's key.
#[inline(always)]
fn span_of(spans: &Spans<'_>, keys: Option<&Keys>, value: usize) -> Range<usize> {
    match keys {
        Some(keys) => spans.span(keys.get(value)),
        None => spans.span(value),
    }
}

impl<'a> PlainValues<'a> {
    /// The values of `array` at the positions `at`, for the leaf `descr`.
    ///
    /// # Errors
    ///
    /// An Arrow type the encoder does not write as the leaf's physical type.
    pub(crate) fn of(
        array: &'a ArrayRef,
        at: &Positions,
        descr: &ColumnDescriptor,
    ) -> Result<Self> {
        let selection = at.selection();
        if descr.physical_type() != PhysicalType::BYTE_ARRAY {
            return fixed_width(array, &selection, descr);
        }
        if let Some(dictionary) = array.as_any_dictionary_opt() {
            // Every dictionary value's span, and each selected value's key. A dictionary
            // without values has no value to pick: every key is null.
            let keys = match dictionary.values().is_empty() {
                true => Vec::new(),
                false => dictionary.normalized_keys(),
            };
            let every = Selection::Run(0..dictionary.values().len());
            let (spans, data) = byte_arrays(dictionary.values(), &every)?;
            return Ok(Self::Variable {
                spans,
                data,
                keys: Some(Keys::new(keys, &selection)),
            });
        }
        if let Some(views) = ViewValues::of(array, &selection) {
            return Ok(Self::Views(views));
        }
        let (spans, data) = byte_arrays(array, &selection)?;
        Ok(Self::Variable {
            spans,
            data,
            keys: None,
        })
    }

    /// How many keys an Arrow dictionary array's values can have (0 without keys): the size of
    /// a cache indexed by key.
    pub(crate) fn key_count(&self) -> usize {
        match self {
            Self::Variable {
                spans,
                keys: Some(_),
                ..
            } => spans.len(),
            _ => 0,
        }
    }

    /// Calls `each` with the bytes of every value in `range`, in order: a byte array's own,
    /// a fixed-width value's encoded bytes. The kind of spans is matched once for the range,
    /// not per value.
    #[inline(always)]
    pub(crate) fn for_each_value_bytes<'s>(
        &'s self,
        range: Range<usize>,
        mut each: impl FnMut(&'s [u8]),
    ) {
        match self {
            Self::Variable { spans, data, keys } => {
                for_each_span(spans, keys.as_ref(), range, |span| each(&data[span]));
            }
            Self::Fixed { width, .. } => {
                self.fixed_bytes(range).chunks_exact(*width).for_each(each);
            }
            Self::Views(views) => range.for_each(|value| each(views.bytes(value))),
        }
    }

    /// The bytes of value `value`: a byte array's own, a fixed-width value's encoded bytes.
    #[inline(always)]
    pub(crate) fn value_bytes(&self, value: usize) -> &[u8] {
        match self {
            Self::Variable { spans, data, keys } => &data[span_of(spans, keys.as_ref(), value)],
            Self::Fixed { .. } => self.fixed_bytes(value..value + 1),
            Self::Views(views) => views.bytes(value),
        }
    }

    /// How many of the values in `range`, from its start, fit in `budget` encoded bytes: all of
    /// them, or the count up to and including the first that goes over (at least one). This is
    /// `ArrowColumnWriter`'s measure for cutting a mini-batch short of a page's byte limit.
    pub(crate) fn count_within(&self, range: Range<usize>, budget: usize) -> usize {
        match self {
            // parquet adds up a FIXED_LEN_BYTE_ARRAY's values until one goes over, as for
            // byte arrays, but their lengths are not written.
            Self::Fixed {
                width,
                measured: true,
                ..
            } => (budget / width).saturating_add(1).min(range.len()),
            Self::Fixed { width, .. } => (budget / width).max(1).min(range.len()),
            // parquet does not measure dictionary arrays' values: they fit.
            Self::Variable { keys: Some(_), .. } => range.len(),
            Self::Variable { spans, .. } => {
                let bound = spans.bound(range.clone());
                if bound.is_some_and(|bytes| bytes.saturating_add(4 * range.len()) <= budget) {
                    return range.len();
                }
                lengths_within(range.map(|value| spans.span(value).len()), budget)
            }
            Self::Views(views) => lengths_within(range.map(|value| views.length(value)), budget),
        }
    }

    /// The encoded bytes of the fixed-width values in `range` (none for byte arrays).
    pub(crate) fn fixed_bytes(&self, range: Range<usize>) -> &[u8] {
        match self {
            Self::Fixed { bytes, width, .. } => &bytes[range.start * width..range.end * width],
            Self::Variable { .. } | Self::Views(_) => &[],
        }
    }

    /// Appends the values in `range` to `page`, returning their unencoded byte-array length
    /// (0 for fixed-width values).
    pub(crate) fn append(&self, range: Range<usize>, page: &mut Vec<u8>) -> i64 {
        match self {
            Self::Fixed { .. } => {
                page.extend_from_slice(self.fixed_bytes(range));
                0
            }
            Self::Variable { spans, data, keys } => {
                let keys = keys.as_ref();
                let total = match keys {
                    Some(_) => range
                        .clone()
                        .map(|value| span_of(spans, keys, value).len())
                        .sum(),
                    None => spans.total(range.clone()),
                };
                page.reserve(total + 4 * range.len() + SHORT);
                for_each_span(spans, keys, range, |span| {
                    append_byte_array(page, data, span)
                });
                total as i64
            }
            Self::Views(views) => {
                let total = views.total(range.clone());
                page.reserve(total + 4 * range.len() + SHORT);
                for value in range {
                    let (data, span) = views.location(value);
                    append_byte_array(page, data, span);
                }
                total as i64
            }
        }
    }
}

/// Calls `each` with the span of every value in `range`, in order, through its key where the
/// values have keys. The kind of spans is matched once for the range, not per value.
#[inline(always)]
fn for_each_span(
    spans: &Spans<'_>,
    keys: Option<&Keys>,
    range: Range<usize>,
    mut each: impl FnMut(Range<usize>),
) {
    match (spans, keys) {
        (_, Some(keys)) => range.for_each(|value| each(spans.span(keys.get(value)))),
        (Spans::Offsets(offsets), None) => each_between(offsets, range, each),
        (Spans::LargeOffsets(offsets), None) => each_between(offsets, range, each),
        (Spans::Gathered(spans), None) => range.for_each(|value| each(spans[value].clone())),
    }
}

/// Byte arrays up to this long are copied as one fixed-size block.
const SHORT: usize = 16;

/// How many of the byte arrays of `lengths`, from the first, fit in `budget` bytes of `PLAIN`
/// values (each after its 4-byte length): all of them, or the count up to and including the
/// first that goes over.
fn lengths_within(lengths: impl ExactSizeIterator<Item = usize>, budget: usize) -> usize {
    let count = lengths.len();
    let mut total = 0usize;
    for (index, length) in lengths.enumerate() {
        total = total.saturating_add(length + 4);
        if total > budget {
            return index + 1;
        }
    }
    count
}

/// Appends `data[span]` to `page` as a `PLAIN` byte array, after its 4-byte length. A short
/// value is copied as the [`SHORT`] bytes from its start, then cut back to its length, where
/// `data` holds that many: a copy of known size compiles to two moves, where a call to
/// `memcpy` per value cost more than the copy (a fifth of the encoding CPU of the contacts'
/// phone numbers).
#[inline]
fn append_byte_array(page: &mut Vec<u8>, data: &[u8], span: Range<usize>) {
    page.extend_from_slice(&(span.len() as u32).to_le_bytes());
    let block = data
        .get(span.start..)
        .and_then(|rest| rest.first_chunk::<SHORT>());
    match block {
        Some(block) if span.len() <= SHORT => {
            let end = page.len() + span.len();
            page.extend_from_slice(block);
            page.truncate(end);
        }
        _ => page.extend_from_slice(&data[span]),
    }
}

/// The values of a fixed-width leaf: borrowed from the Arrow buffer where they are consecutive
/// and stored as parquet stores them (the same width, little-endian), gathered and converted
/// otherwise.
fn fixed_width<'a>(
    array: &ArrayRef,
    selection: &Selection<'_>,
    descr: &ColumnDescriptor,
) -> Result<PlainValues<'a>> {
    let physical = descr.physical_type();
    let measured = physical == PhysicalType::FIXED_LEN_BYTE_ARRAY;
    let width = match physical {
        PhysicalType::BOOLEAN => 1,
        PhysicalType::INT32 | PhysicalType::FLOAT => 4,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => descr.type_length().max(1) as usize,
        _ => 8,
    };
    let same_form = match measured {
        true => fixed_len::stored_as_is(array.data_type()),
        false => {
            cfg!(target_endian = "little")
                && !matches!(array.data_type(), DataType::Dictionary(..))
                && array.data_type().primitive_width() == Some(width)
        }
    };
    if let (Selection::Run(run), true) = (selection, same_form) {
        let data = array.to_data();
        let start = (data.offset() + run.start) * width;
        let bytes = data.buffers()[0].slice_with_length(start, run.len() * width);
        return Ok(PlainValues::Fixed {
            bytes,
            width,
            measured,
        });
    }
    if measured {
        let bytes = Buffer::from_vec(fixed_len::gather(array, selection, width)?);
        return Ok(PlainValues::Fixed {
            bytes,
            width,
            measured,
        });
    }
    Ok(match fixed_width_values(array, selection, physical)? {
        FixedWidth::Boolean(values) => PlainValues::Fixed {
            bytes: Buffer::from_vec(values),
            width: 1,
            measured: false,
        },
        FixedWidth::Int32(values) => fixed(&values, i32::to_le_bytes),
        FixedWidth::Int64(values) => fixed(&values, i64::to_le_bytes),
        FixedWidth::Float(values) => fixed(&values, f32::to_le_bytes),
        FixedWidth::Double(values) => fixed(&values, f64::to_le_bytes),
    })
}

fn fixed<'a, T: Copy, const N: usize>(values: &[T], encode: fn(T) -> [u8; N]) -> PlainValues<'a> {
    let mut bytes = Vec::with_capacity(values.len() * N);
    for &value in values {
        bytes.extend_from_slice(&encode(value));
    }
    PlainValues::Fixed {
        bytes: Buffer::from_vec(bytes),
        width: N,
        measured: false,
    }
}

/// Calls `each` with the span of each of values `range`, which Arrow `offsets` delimit.
#[inline(always)]
fn each_between<O: ArrowNativeType>(
    offsets: &[O],
    range: Range<usize>,
    mut each: impl FnMut(Range<usize>),
) {
    for pair in offsets[range.start..=range.end].windows(2) {
        each(pair[0].as_usize()..pair[1].as_usize());
    }
}

/// The spans of `selection`'s values of a byte-array `array`, and its value buffer.
fn byte_arrays<'a>(
    array: &'a ArrayRef,
    selection: &Selection<'_>,
) -> Result<(Spans<'a>, &'a [u8])> {
    Ok(match array.data_type() {
        DataType::Utf8 => spans(array.as_bytes::<Utf8Type>(), selection, Spans::Offsets),
        DataType::LargeUtf8 => spans(
            array.as_bytes::<LargeUtf8Type>(),
            selection,
            Spans::LargeOffsets,
        ),
        DataType::Binary => spans(array.as_bytes::<BinaryType>(), selection, Spans::Offsets),
        DataType::LargeBinary => spans(
            array.as_bytes::<LargeBinaryType>(),
            selection,
            Spans::LargeOffsets,
        ),
        other => return Err(unsupported(other)),
    })
}

fn spans<'a, T: ByteArrayType>(
    array: &'a GenericByteArray<T>,
    selection: &Selection<'_>,
    borrowed: fn(&'a [T::Offset]) -> Spans<'a>,
) -> (Spans<'a>, &'a [u8]) {
    let spans = Spans::new(array.value_offsets(), selection, borrowed);
    (spans, array.values().as_slice())
}

fn unsupported(data_type: &DataType) -> ParquetError {
    ParquetError::NYI(format!("{data_type} as BYTE_ARRAY in the native encoder"))
}

/// Rearranges `values` (fixed-width values of `width` bytes, one after another) in place into
/// `BYTE_STREAM_SPLIT`'s streams: the first byte of every value, then every second byte, and
/// so on.
pub(crate) fn split_streams(values: &mut [u8], width: usize) {
    let source = values.to_vec();
    let count = source.len() / width;
    for (index, value) in source.chunks_exact(width).enumerate() {
        for (stream, &byte) in value.iter().enumerate() {
            values[stream * count + index] = byte;
        }
    }
}

/// Bit-packs the booleans (one byte each, 0 or 1) in `page[start..]` in place, as `PLAIN`
/// encodes them: eight to a byte, the first in the lowest bit, the last byte padded with zeros.
pub(crate) fn pack_booleans(page: &mut Vec<u8>, start: usize) {
    let count = page.len() - start;
    for byte in 0..count.div_ceil(8) {
        let from = start + 8 * byte;
        let mut eight = [0u8; 8];
        let values = &page[from..page.len().min(from + 8)];
        eight[..values.len()].copy_from_slice(values);
        // Byte i's lowest bit lands at bit i: each 0 or 1 byte sits at bit 8 i of the word.
        let word = u64::from_le_bytes(eight);
        page[start + byte] = (word.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
    }
    page.truncate(start + count.div_ceil(8));
}

#[cfg(test)]
mod tests {
    use super::pack_booleans;

    #[test]
    fn booleans_pack_first_in_the_lowest_bit() {
        for count in [0, 1, 7, 8, 9, 64, 77] {
            let values: Vec<u8> = (0..count)
                .map(|i| u8::from(i % 3 == 0 || i % 5 == 1))
                .collect();
            let mut page = vec![0xAA, 0xBB];
            page.extend_from_slice(&values);
            pack_booleans(&mut page, 2);
            let mut expected = vec![0xAA, 0xBB];
            expected.extend(values.chunks(8).map(|eight| {
                let bits = eight.iter().enumerate().map(|(bit, &value)| value << bit);
                bits.fold(0u8, |byte, bit| byte | bit)
            }));
            assert_eq!(page, expected, "{count} booleans");
        }
    }
}
