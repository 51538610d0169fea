//! [`Bounds`]: the smallest and largest values of a page or chunk, compared as parquet's
//! column writer compares them ([`ValueOrder`]): integers by the leaf's signed or unsigned sort
//! order, floats (half floats too) by IEEE 754 total order with NaN only where there is nothing
//! else ([`NumberOrder`]), byte arrays and fixed-length byte arrays byte by byte, decimals
//! stored as fixed-length byte arrays as big-endian two's complement integers.

use std::ops::Range;

use super::byte_bounds::ByteBounds;
use super::dictionary::PageKeys;
use super::plain::PlainValues;
use super::total_order::{
    f16_key, f32_key, f64_key, total_order_16, total_order_32, total_order_64,
};

/// The smallest and largest value seen, as sort keys: integers widened so that one signed
/// comparison orders them as the leaf's sort order does, floats as ranks (see [`FloatRank`]),
/// byte arrays as their bytes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bounds {
    Integer(i128, i128),
    Float(i128, i128),
    Bytes(Vec<u8>, Vec<u8>),
}

/// How a leaf's values compare.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ValueOrder {
    /// Fixed-width numbers (and booleans, and half floats).
    Numbers(NumberOrder),
    /// Byte by byte, unsigned.
    Bytes,
    /// As big-endian two's complement integers, all of one length: decimals.
    SignedBytes,
}

impl ValueOrder {
    /// The min and max of `bounds` as the values' bytes (little-endian numbers, byte arrays
    /// as they are).
    pub(crate) fn bytes(self, bounds: &Bounds) -> (Vec<u8>, Vec<u8>) {
        match (bounds, self) {
            (Bounds::Bytes(min, max), Self::SignedBytes) => (flip_sign(min), flip_sign(max)),
            (Bounds::Bytes(min, max), _) => (min.clone(), max.clone()),
            (numbers, Self::Numbers(order)) => order.bytes(numbers).unwrap_or_default(),
            _ => (Vec::new(), Vec::new()),
        }
    }
}

/// A big-endian two's complement integer with its sign bit flipped: signed integers of one
/// length then order as their bytes do (and flipping again gives the integer back).
fn flip_sign(value: &[u8]) -> Vec<u8> {
    let mut flipped = value.to_vec();
    if let Some(first) = flipped.first_mut() {
        *first ^= 0x80;
    }
    flipped
}

impl Bounds {
    /// The bounds of `values`' values in `range` and how many of them are NaN (`None` if
    /// `range` is empty, or numbers are not fixed-width values). Signed bytes' bounds are kept
    /// with their sign bits flipped ([`ValueOrder::bytes`] gives the values back).
    pub(crate) fn of(
        values: &PlainValues<'_>,
        range: Range<usize>,
        order: ValueOrder,
    ) -> Option<(Self, u64)> {
        if range.is_empty() {
            return None;
        }
        match (values, order) {
            (PlainValues::Fixed { bytes, width, .. }, ValueOrder::Numbers(order)) => {
                order.bounds(&bytes[range.start * width..range.end * width])
            }
            (_, ValueOrder::Numbers(_)) => None,
            (_, ValueOrder::Bytes | ValueOrder::SignedBytes) => {
                let signed = matches!(order, ValueOrder::SignedBytes);
                Some((
                    Self::bytes(ByteBounds::of(values, range, signed), signed),
                    0,
                ))
            }
        }
    }

    /// [`Self::of`] for values whose dictionary indices are `keys` (one per value of `range`):
    /// byte arrays compare each index's value once ([`ByteBounds::of_keyed`], `seen` its
    /// scratch space); numbers, cheaper to compare than to look up, compare every value.
    pub(crate) fn of_keyed(
        values: &PlainValues<'_>,
        range: Range<usize>,
        keys: PageKeys<'_>,
        seen: &mut Vec<u64>,
        order: ValueOrder,
    ) -> Option<(Self, u64)> {
        let signed = match order {
            _ if range.is_empty() => return None,
            ValueOrder::Numbers(_) => return Self::of(values, range, order),
            ValueOrder::Bytes => false,
            ValueOrder::SignedBytes => true,
        };
        let bounds = ByteBounds::of_keyed(values, range, keys, seen, signed);
        Some((Self::bytes(bounds, signed), 0))
    }

    /// Byte bounds found with signed values' keys flipped ([`ValueOrder::bytes`] gives the
    /// values back).
    fn bytes((min, max): (&[u8], &[u8]), signed: bool) -> Self {
        match signed {
            true => Self::Bytes(flip_sign(min), flip_sign(max)),
            false => Self::Bytes(min.to_vec(), max.to_vec()),
        }
    }

    /// Whether this min or max lies above `other`'s, as parquet compares the values (a NaN
    /// bound by its total order): pages stopped ascending (this one before `other`) or
    /// descending (`other` before this one).
    pub(crate) fn exceeds(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Integer(min, max), Self::Integer(low, high)) => min > low || max > high,
            (Self::Float(min, max), Self::Float(low, high)) => {
                FloatRank::min_key(*min) > FloatRank::min_key(*low)
                    || FloatRank::max_key(*max) > FloatRank::max_key(*high)
            }
            (Self::Bytes(min, max), Self::Bytes(low, high)) => min > low || max > high,
            _ => false,
        }
    }

    /// Widens these bounds to take in `other`'s.
    pub(crate) fn merge(&mut self, other: &Self) {
        match (self, other) {
            (Self::Integer(min, max), Self::Integer(low, high))
            | (Self::Float(min, max), Self::Float(low, high)) => {
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

/// How a leaf's fixed-width values compare: as signed or unsigned integers, or as floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberKind {
    Signed,
    Unsigned,
    Float,
}

/// How a leaf's fixed-width values (booleans of 1 byte, half floats of 2, numbers of 4 or 8)
/// become sort keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumberOrder {
    pub width: usize,
    pub kind: NumberKind,
}

impl NumberOrder {
    /// The bounds of the values in `bytes` and how many are NaN (`None` if there are none),
    /// compared in the values' own type rather than widened one by one.
    pub(crate) fn bounds(self, bytes: &[u8]) -> Option<(Bounds, u64)> {
        let integers = |(min, max)| (Bounds::Integer(min, max), 0);
        match (self.width, self.kind) {
            (1, _) => min_max(bytes, u8::from_le_bytes).map(integers),
            (4, NumberKind::Signed) => min_max(bytes, i32::from_le_bytes).map(integers),
            (4, NumberKind::Unsigned) => min_max(bytes, u32::from_le_bytes).map(integers),
            (_, NumberKind::Signed) => min_max(bytes, i64::from_le_bytes).map(integers),
            (_, NumberKind::Unsigned) => min_max(bytes, u64::from_le_bytes).map(integers),
            (2, NumberKind::Float) => float_bounds(bytes, f16_key),
            (4, NumberKind::Float) => float_bounds(bytes, f32_key),
            (_, NumberKind::Float) => float_bounds(bytes, f64_key),
        }
    }

    /// The bounds' min and max as the physical type's little-endian bytes (`None` for byte
    /// arrays' bounds).
    pub(crate) fn bytes(self, bounds: &Bounds) -> Option<(Vec<u8>, Vec<u8>)> {
        match bounds {
            Bounds::Integer(min, max) => Some((self.key_bytes(*min), self.key_bytes(*max))),
            Bounds::Float(min, max) => Some((
                self.key_bytes(FloatRank::min_key(*min)),
                self.key_bytes(FloatRank::max_key(*max)),
            )),
            Bounds::Bytes(..) => None,
        }
    }

    /// A sort key's value: an integer's own bits, or the float whose total-order key it is
    /// (the mapping is its own inverse).
    fn key_bytes(self, key: i128) -> Vec<u8> {
        match (self.width, self.kind) {
            (2, NumberKind::Float) => total_order_16(key as i16).to_le_bytes().to_vec(),
            (4, NumberKind::Float) => total_order_32(key as i32).to_le_bytes().to_vec(),
            (_, NumberKind::Float) => total_order_64(key as i64).to_le_bytes().to_vec(),
            (1, _) => vec![key as u8],
            (4, _) => (key as u32).to_le_bytes().to_vec(),
            _ => (key as u64).to_le_bytes().to_vec(),
        }
    }
}

/// The smallest and largest of the `N`-byte values in `bytes`, read by `decode`.
fn min_max<T: Ord + Copy + Into<i128>, const N: usize>(
    bytes: &[u8],
    decode: fn([u8; N]) -> T,
) -> Option<(i128, i128)> {
    let (values, _) = bytes.as_chunks::<N>();
    let first = decode(*values.first()?);
    let (min, max) = values.iter().fold((first, first), |(min, max), &value| {
        let value = decode(value);
        (min.min(value), max.max(value))
    });
    Some((min.into(), max.into()))
}

/// Floats' bounds as ranks: a NaN bound ranks behind every other value, so that merging
/// bounds by plain integer min and max keeps NaN only where a page or chunk holds nothing else,
/// as parquet's writer does; among NaNs, or among other values, the total-order key decides.
pub(crate) struct FloatRank;

impl FloatRank {
    /// Added to a NaN's key as a min, taken from it as a max: keys lie within `i64`.
    const NAN: i128 = 1 << 64;

    fn min(key: i64, nan: bool) -> i128 {
        i128::from(key) + i128::from(nan) * Self::NAN
    }

    fn max(key: i64, nan: bool) -> i128 {
        i128::from(key) - i128::from(nan) * Self::NAN
    }

    /// The total-order key of a min's rank.
    fn min_key(rank: i128) -> i128 {
        match rank > i128::from(i64::MAX) {
            true => rank - Self::NAN,
            false => rank,
        }
    }

    /// The total-order key of a max's rank.
    fn max_key(rank: i128) -> i128 {
        match rank < i128::from(i64::MIN) {
            true => rank + Self::NAN,
            false => rank,
        }
    }
}

/// The bounds of the `N`-byte floats in `bytes` as ranks, and how many are NaN; `key` gives a
/// value's total-order key and whether it is NaN.
fn float_bounds<const N: usize>(
    bytes: &[u8],
    key: fn([u8; N]) -> (i64, bool),
) -> Option<(Bounds, u64)> {
    let (values, _) = bytes.as_chunks::<N>();
    if values.is_empty() {
        return None;
    }
    let (mut min, mut max, mut nan_min, mut nan_max) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
    let mut nans = 0u64;
    for &value in values {
        let (key, nan) = key(value);
        // NaNs are rare: the branch is predicted, and the other values' loop stays two
        // comparisons.
        if nan {
            nan_min = nan_min.min(key);
            nan_max = nan_max.max(key);
            nans += 1;
        } else {
            min = min.min(key);
            max = max.max(key);
        }
    }
    let bounds = match nans == values.len() as u64 {
        true => Bounds::Float(FloatRank::min(nan_min, true), FloatRank::max(nan_max, true)),
        false => Bounds::Float(FloatRank::min(min, false), FloatRank::max(max, false)),
    };
    Some((bounds, nans))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Doubles' bounds, found over any split of the values and merged, are the min and
        /// max parquet's writer finds (NaN only where every value is, every NaN payload and
        /// sign, signed zeros), and the NaN count is theirs.
        #[test]
        fn float_bounds_are_parquets(
            bits in prop::collection::vec(float_bits(), 1..40),
            split in any::<prop::sample::Index>(),
        ) {
            let values: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
            let order = NumberOrder { width: 8, kind: NumberKind::Float };
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let at = (1 + split.index(values.len())) * 8;
            let (mut bounds, mut nans) = order.bounds(&bytes[..at]).unwrap();
            if let Some((rest, rest_nans)) = order.bounds(&bytes[at..]) {
                bounds.merge(&rest);
                nans += rest_nans;
            }
            let (min, max) = order.bytes(&bounds).unwrap();
            let (want_min, want_max) = parquet_min_max(&values);
            prop_assert_eq!(min, want_min.to_le_bytes().to_vec());
            prop_assert_eq!(max, want_max.to_le_bytes().to_vec());
            prop_assert_eq!(nans, values.iter().filter(|v| v.is_nan()).count() as u64);
        }

        /// Whether one page's float bounds exceed another's is parquet's comparison of the
        /// values by total order, NaN bounds included.
        #[test]
        fn float_bounds_exceed_as_total_order_says(
            first in prop::collection::vec(float_bits(), 1..6),
            second in prop::collection::vec(float_bits(), 1..6),
        ) {
            let order = NumberOrder { width: 8, kind: NumberKind::Float };
            let bounds = |bits: &[u64]| {
                let bytes: Vec<u8> = bits.iter().flat_map(|b| b.to_le_bytes()).collect();
                order.bounds(&bytes).unwrap().0
            };
            let (a, b) = (bounds(&first), bounds(&second));
            let values = |bits: &[u64]| bits.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>();
            let (a_min, a_max) = parquet_min_max(&values(&first));
            let (b_min, b_max) = parquet_min_max(&values(&second));
            let greater = |x: f64, y: f64| x.total_cmp(&y).is_gt();
            prop_assert_eq!(a.exceeds(&b), greater(a_min, b_min) || greater(a_max, b_max));
        }
    }

    /// Doubles that hit every case: NaNs of both signs and several payloads, infinities,
    /// signed zeros, and ordinary values.
    fn float_bits() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(f64::NAN.to_bits()),
            Just((-f64::NAN).to_bits()),
            Just(0x7ff0_0000_0000_0001),
            Just(0xfff8_0000_0000_0005),
            Just(0.0f64.to_bits()),
            Just((-0.0f64).to_bits()),
            Just(f64::INFINITY.to_bits()),
            Just(f64::NEG_INFINITY.to_bits()),
            (-5.0f64..5.0).prop_map(f64::to_bits),
            any::<u64>(),
        ]
    }

    /// parquet's scalar min and max of floats (`column::writer::fallback_min_max`), written
    /// out independently: NaNs compared only until another value comes, then skipped.
    fn parquet_min_max(values: &[f64]) -> (f64, f64) {
        let (mut min, mut max) = (values[0], values[0]);
        let mut nan = values[0].is_nan();
        for &value in &values[1..] {
            match (nan, value.is_nan()) {
                (false, true) => {}
                (true, false) => {
                    (min, max, nan) = (value, value, false);
                }
                _ => {
                    if min.total_cmp(&value).is_gt() {
                        min = value;
                    } else if value.total_cmp(&max).is_gt() {
                        max = value;
                    }
                }
            }
        }
        (min, max)
    }
}
