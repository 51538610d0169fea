//! [`Bounds`]: the smallest and largest values of a page or chunk, compared as parquet's
//! column writer compares them: integers by the leaf's signed or unsigned sort order
//! ([`IntegerOrder`]), byte arrays byte by byte.

use std::ops::Range;

use super::plain::PlainValues;

/// The smallest and largest value seen, as sort keys: integers widened so that one signed
/// comparison orders them as the leaf's sort order does, byte arrays as their bytes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bounds {
    Integer(i128, i128),
    Bytes(Vec<u8>, Vec<u8>),
}

impl Bounds {
    /// The bounds of `values`' values in `range` (`None` if it is empty, or the values are
    /// not of the kind `integers` says: integers with it, byte arrays without).
    pub(crate) fn of(
        values: &PlainValues<'_>,
        range: Range<usize>,
        integers: Option<IntegerOrder>,
    ) -> Option<Self> {
        if range.is_empty() {
            return None;
        }
        Some(match (values, integers) {
            (PlainValues::Fixed { bytes, width }, Some(order)) => {
                let mut keys = bytes[range.start * width..range.end * width]
                    .chunks_exact(*width)
                    .map(|value| order.key(value));
                let first = keys.next().expect("a non-empty range");
                let (min, max) = keys.fold((first, first), |(min, max), key| {
                    (min.min(key), max.max(key))
                });
                Self::Integer(min, max)
            }
            (PlainValues::Variable { .. }, None) => {
                let mut values = range.map(|value| values.byte_array(value));
                let first = values.next().expect("a non-empty range");
                let (min, max) = values.fold((first, first), |(min, max), value| {
                    (min.min(value), max.max(value))
                });
                Self::Bytes(min.to_vec(), max.to_vec())
            }
            _ => return None,
        })
    }

    /// Whether this min or max lies above `other`'s: pages stopped ascending (this one before
    /// `other`) or descending (`other` before this one).
    pub(crate) fn exceeds(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Integer(min, max), Self::Integer(low, high)) => min > low || max > high,
            (Self::Bytes(min, max), Self::Bytes(low, high)) => min > low || max > high,
            _ => false,
        }
    }

    /// Widens these bounds to take in `other`'s.
    pub(crate) fn merge(&mut self, other: &Self) {
        match (self, other) {
            (Self::Integer(min, max), Self::Integer(low, high)) => {
                *min = (*min).min(*low);
                *max = (*max).max(*high);
            }
            (Self::Bytes(min, max), Self::Bytes(low, high)) => {
                if low < min {
                    min.clone_from(low);
                }
                if high > max {
                    max.clone_from(high);
                }
            }
            _ => {}
        }
    }
}

/// How a leaf's integer values become sort keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IntegerOrder {
    pub width: usize,
    pub unsigned: bool,
}

impl IntegerOrder {
    /// The sort key of one value's little-endian bytes.
    pub(crate) fn key(self, bytes: &[u8]) -> i128 {
        match (self.width, self.unsigned) {
            (4, false) => i128::from(i32::from_le_bytes(bytes.try_into().expect("4 bytes"))),
            (4, true) => i128::from(u32::from_le_bytes(bytes.try_into().expect("4 bytes"))),
            (_, false) => i128::from(i64::from_le_bytes(bytes.try_into().expect("8 bytes"))),
            (_, true) => i128::from(u64::from_le_bytes(bytes.try_into().expect("8 bytes"))),
        }
    }

    /// The key's value as the physical type's little-endian bytes.
    pub(crate) fn bytes(self, key: i128) -> Vec<u8> {
        match self.width {
            4 => (key as u32).to_le_bytes().to_vec(),
            _ => (key as u64).to_le_bytes().to_vec(),
        }
    }
}
