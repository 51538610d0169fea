//! The Arrow types a spec file's columns are stored as. Parquet has no unit of seconds for
//! timestamps and times and no date in milliseconds: writers store those as plain integers,
//! which pyarrow and DuckDB read back as numbers. A column of such a type is generated as the
//! type that keeps its meaning, with the same values (the gate's digest does not change).

use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, TimeUnit};

/// Milliseconds in a day.
pub(super) const DAY_MS: i128 = 86_400_000;

/// The type that `data_type` is stored as so that Parquet keeps its meaning: timestamps and
/// `Time32` in seconds as milliseconds, `Date64` as `Date32`; nested types with their
/// children's; any other type as it is.
pub fn parquet_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Timestamp(TimeUnit::Second, zone) => {
            DataType::Timestamp(TimeUnit::Millisecond, zone.clone())
        }
        DataType::Time32(TimeUnit::Second) => DataType::Time32(TimeUnit::Millisecond),
        DataType::Date64 => DataType::Date32,
        DataType::List(item) => DataType::List(parquet_field(item)),
        DataType::LargeList(item) => DataType::LargeList(parquet_field(item)),
        DataType::FixedSizeList(item, size) => DataType::FixedSizeList(parquet_field(item), *size),
        DataType::Map(entries, sorted) => DataType::Map(parquet_field(entries), *sorted),
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(parquet_field).collect()),
        DataType::Dictionary(key, value) => {
            DataType::Dictionary(key.clone(), Box::new(parquet_type(value)))
        }
        other => other.clone(),
    }
}

/// `field` with its type stored as [`parquet_type`] says.
pub(super) fn parquet_field(field: &FieldRef) -> FieldRef {
    let stored = parquet_type(field.data_type());
    if &stored == field.data_type() {
        Arc::clone(field)
    } else {
        Arc::new(Field::clone(field).with_data_type(stored))
    }
}

/// How a value in its declared type's representation becomes the stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conversion {
    /// Stored as it is.
    Same,
    /// Multiplied by this (seconds to milliseconds).
    Times(i128),
    /// Divided by this, which divides every value (whole days in milliseconds to days).
    Per(i128),
}

impl Conversion {
    /// How a leaf of `declared` type is stored: as [`parquet_type`] says with `parquet_types`.
    pub fn of(declared: &DataType, parquet_types: bool) -> Self {
        match parquet_types {
            true => Self::to_parquet(declared),
            false => Self::Same,
        }
    }

    /// The conversion of a leaf of `declared` type into [`parquet_type`].
    pub fn to_parquet(declared: &DataType) -> Self {
        match declared {
            DataType::Timestamp(TimeUnit::Second, _) | DataType::Time32(TimeUnit::Second) => {
                Self::Times(1_000)
            }
            DataType::Date64 => Self::Per(DAY_MS),
            _ => Self::Same,
        }
    }

    /// The stored form of `value`.
    #[inline]
    pub fn apply(self, value: i128) -> i128 {
        match self {
            Self::Same => value,
            Self::Times(factor) => value * factor,
            Self::Per(divisor) => narrow_quotient(value, divisor),
        }
    }

    /// The declared values whose stored form lies within `stored` bounds.
    pub fn declared_bounds(self, stored: (i128, i128)) -> (i128, i128) {
        match self {
            Self::Same => stored,
            Self::Times(factor) => (
                stored.0.div_euclid(factor) + i128::from(stored.0.rem_euclid(factor) != 0),
                stored.1.div_euclid(factor),
            ),
            Self::Per(divisor) => (stored.0 * divisor, stored.1 * divisor + divisor - 1),
        }
    }
}

/// `value / divisor`, as i128 divides, in 64 bits where both fit: an i128 division is a
/// library call, a twentieth of the deep preset's instructions.
#[inline]
pub(super) fn narrow_quotient(value: i128, divisor: i128) -> i128 {
    narrow(value, divisor, |v, d| v / d, |v, d| v / d)
}

/// `value.rem_euclid(divisor)` in 64 bits where both fit, as [`narrow_quotient`] divides.
#[inline]
pub(super) fn narrow_euclid_remainder(value: i128, divisor: i128) -> i128 {
    narrow(value, divisor, i64::rem_euclid, i128::rem_euclid)
}

/// `wide(value, divisor)`, computed as `short` where both fit 64 bits and the divisor is
/// positive; `short` must give the same value as `wide` there.
#[inline(always)]
fn narrow(
    value: i128,
    divisor: i128,
    short: impl Fn(i64, i64) -> i64,
    wide: impl Fn(i128, i128) -> i128,
) -> i128 {
    match (i64::try_from(value), i64::try_from(divisor)) {
        // A positive divisor leaves out the one 64-bit overflow, i64::MIN / -1, for i128.
        (Ok(value), Ok(divisor)) if divisor > 0 => i128::from(short(value, divisor)),
        _ => wide(value, divisor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_division_is_i128_s() {
        let edges = [
            i128::MIN,
            -(1 << 64),
            i128::from(i64::MIN),
            -86_400_001,
            -1,
            0,
            1,
        ];
        let more = [86_399_999, i128::from(i64::MAX), 1 << 64, i128::MAX];
        for value in edges.into_iter().chain(more) {
            for divisor in [-1, 1, 7, 1000, 86_400_000, i128::from(i64::MAX), 1 << 70] {
                if value == i128::MIN && divisor == -1 {
                    continue;
                }
                assert_eq!(narrow_quotient(value, divisor), value / divisor);
                let remainder = narrow_euclid_remainder(value, divisor);
                assert_eq!(remainder, value.rem_euclid(divisor), "{value} {divisor}");
            }
        }
    }

    #[test]
    fn nested_types_keep_their_shape_and_store_their_leaves() {
        let item = Arc::new(Field::new(
            "item",
            DataType::Timestamp(TimeUnit::Second, Some("UTC".into())),
            true,
        ));
        let stored = parquet_type(&DataType::List(item));
        let DataType::List(stored_item) = &stored else {
            panic!("{stored}")
        };
        assert_eq!(
            stored_item.data_type(),
            &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
        assert_eq!(stored_item.name(), "item");
        assert_eq!(parquet_type(&DataType::Utf8), DataType::Utf8);
    }

    #[test]
    fn conversions_keep_the_instant() {
        let seconds = Conversion::to_parquet(&DataType::Time32(TimeUnit::Second));
        assert_eq!(seconds.apply(86_399), 86_399_000);
        assert_eq!(seconds.declared_bounds((-1_001, 1_999)), (-1, 1));
        let days = Conversion::to_parquet(&DataType::Date64);
        assert_eq!(days.apply(3 * DAY_MS), 3);
        assert_eq!(days.declared_bounds((-1, 1)), (-DAY_MS, 2 * DAY_MS - 1));
    }
}
