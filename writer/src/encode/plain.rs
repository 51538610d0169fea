//! [`PlainValues`]: one batch's values of a leaf in parquet's `PLAIN` encoding, ready to be
//! copied into pages a range at a time: fixed-width values as little-endian bytes, byte arrays
//! as a 4-byte length and the bytes, read straight from the Arrow buffers.

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, OffsetSizeTrait};
use arrow_schema::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::errors::{ParquetError, Result};

use super::values::{self, fixed_width_values, FixedWidth};

/// Whether [`PlainValues`] encodes leaves of the Arrow type `data_type` written as the physical
/// type `physical`.
pub(crate) fn supported(data_type: &DataType, physical: PhysicalType) -> bool {
    // An Arrow dictionary of byte arrays is written as its values are.
    let value_type = match data_type {
        DataType::Dictionary(_, values) if physical == PhysicalType::BYTE_ARRAY => values,
        other => other,
    };
    physical != PhysicalType::BOOLEAN && values::written_as(value_type, physical)
}

/// A batch's values of one leaf, in the order its levels carry them.
#[derive(Debug)]
pub(crate) enum PlainValues<'a> {
    /// Values of `width` bytes each, encoded.
    Fixed { bytes: Vec<u8>, width: usize },
    /// Byte arrays: ranges of `data`, one per value, or for an Arrow dictionary array one per
    /// dictionary value, which each value's key picks.
    Variable {
        spans: Vec<Range<usize>>,
        data: &'a [u8],
        keys: Option<Vec<usize>>,
    },
}

/// The range of a byte-array value in its buffer: `spans[value]`, or through the value's key.
#[inline]
fn span_of(spans: &[Range<usize>], keys: Option<&[usize]>, value: usize) -> Range<usize> {
    match keys {
        Some(keys) => spans[keys[value]].clone(),
        None => spans[value].clone(),
    }
}

impl<'a> PlainValues<'a> {
    /// The values of `array` at the positions `at`, for a leaf of type `physical`.
    ///
    /// # Errors
    ///
    /// An Arrow type the encoder does not write as `physical`.
    pub(crate) fn of(array: &'a ArrayRef, at: &[usize], physical: PhysicalType) -> Result<Self> {
        if physical != PhysicalType::BYTE_ARRAY {
            return Ok(match fixed_width_values(array, at, physical)? {
                FixedWidth::Int32(values) => fixed(&values, i32::to_le_bytes),
                FixedWidth::Int64(values) => fixed(&values, i64::to_le_bytes),
                FixedWidth::Float(values) => fixed(&values, f32::to_le_bytes),
                FixedWidth::Double(values) => fixed(&values, f64::to_le_bytes),
            });
        }
        if let Some(dictionary) = array.as_any_dictionary_opt() {
            // The spans of the dictionary's values, and each value's key. A dictionary without
            // values has no value to pick: every key is null.
            let keys = match dictionary.values().is_empty() {
                true => Vec::new(),
                false => dictionary.normalized_keys(),
            };
            let keys: Vec<usize> = at.iter().map(|&i| keys[i]).collect();
            let every: Vec<usize> = (0..dictionary.values().len()).collect();
            let Self::Variable { spans, data, .. } =
                Self::of(dictionary.values(), &every, physical)?
            else {
                return Err(unsupported(array.data_type()));
            };
            return Ok(Self::Variable {
                spans,
                data,
                keys: Some(keys),
            });
        }
        let (spans, data) = match array.data_type() {
            DataType::Utf8 => {
                let strings = array.as_string::<i32>();
                (
                    spans(strings.value_offsets(), at),
                    strings.values().as_slice(),
                )
            }
            DataType::LargeUtf8 => {
                let strings = array.as_string::<i64>();
                (
                    spans(strings.value_offsets(), at),
                    strings.values().as_slice(),
                )
            }
            DataType::Binary => {
                let binary = array.as_binary::<i32>();
                (
                    spans(binary.value_offsets(), at),
                    binary.values().as_slice(),
                )
            }
            DataType::LargeBinary => {
                let binary = array.as_binary::<i64>();
                (
                    spans(binary.value_offsets(), at),
                    binary.values().as_slice(),
                )
            }
            other => return Err(unsupported(other)),
        };
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

    /// The bytes of byte-array value `value` (none for fixed-width values).
    #[inline]
    pub(crate) fn byte_array(&self, value: usize) -> &'a [u8] {
        match self {
            Self::Variable { spans, data, keys } => &data[span_of(spans, keys.as_deref(), value)],
            Self::Fixed { .. } => &[],
        }
    }

    /// How many of the values in `range`, from its start, fit in `budget` encoded bytes: all of
    /// them, or the count up to and including the first that goes over (at least one). This is
    /// `ArrowColumnWriter`'s measure for cutting a mini-batch short of a page's byte limit.
    pub(crate) fn count_within(&self, range: Range<usize>, budget: usize) -> usize {
        match self {
            Self::Fixed { width, .. } => (budget / width).max(1).min(range.len()),
            // parquet does not measure dictionary arrays' values: they fit.
            Self::Variable { keys: Some(_), .. } => range.len(),
            Self::Variable { spans, .. } => {
                let mut total = 0usize;
                for (index, span) in spans[range.clone()].iter().enumerate() {
                    total = total.saturating_add(span.len() + 4);
                    if total > budget {
                        return index + 1;
                    }
                }
                range.len()
            }
        }
    }

    /// Appends the values in `range` to `page`, returning their unencoded byte-array length
    /// (0 for fixed-width values).
    pub(crate) fn append(&self, range: Range<usize>, page: &mut Vec<u8>) -> i64 {
        match self {
            Self::Fixed { bytes, width } => {
                page.extend_from_slice(&bytes[range.start * width..range.end * width]);
                0
            }
            Self::Variable { spans, data, keys } => {
                let keys = keys.as_deref();
                let span = |value| span_of(spans, keys, value);
                let total: usize = range.clone().map(|value| span(value).len()).sum();
                page.reserve(total + 4 * range.len() + SHORT);
                for value in range {
                    let span = span(value);
                    page.extend_from_slice(&(span.len() as u32).to_le_bytes());
                    append_bytes(page, data, span);
                }
                total as i64
            }
        }
    }
}

/// Byte arrays up to this long are copied as one fixed-size block.
const SHORT: usize = 16;

/// Appends `data[span]` to `page`. A short value is copied as the [`SHORT`] bytes from its
/// start, then cut back to its length, where `data` holds that many: a copy of known size
/// compiles to two moves, where a call to `memcpy` per value cost more than the copy (a fifth
/// of the encoding CPU of the contacts' phone numbers).
#[inline]
fn append_bytes(page: &mut Vec<u8>, data: &[u8], span: Range<usize>) {
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

fn fixed<'a, T: Copy, const N: usize>(values: &[T], encode: fn(T) -> [u8; N]) -> PlainValues<'a> {
    let mut bytes = Vec::with_capacity(values.len() * N);
    for &value in values {
        bytes.extend_from_slice(&encode(value));
    }
    PlainValues::Fixed { bytes, width: N }
}

fn spans<O: OffsetSizeTrait>(offsets: &[O], at: &[usize]) -> Vec<Range<usize>> {
    at.iter()
        .map(|&i| offsets[i].as_usize()..offsets[i + 1].as_usize())
        .collect()
}

fn unsupported(data_type: &DataType) -> ParquetError {
    ParquetError::NYI(format!("{data_type} as BYTE_ARRAY in the native encoder"))
}
