//! What each integer-like Arrow type can hold (integers, decimals, dates, times, timestamps),
//! what a spec column of it draws by default, and how spec numbers map onto its representation.

use arrow_schema::{DataType, TimeUnit};

use super::error::{error, SpecError};
use super::exact::{NotWhole, Rounding};
use super::parquet_types::{Conversion, DAY_MS};
use super::sources::outside;
use super::Number;

/// 2020-01-01 and 2026-01-01 in days and seconds since the epoch: the default date range.
const DEFAULT_DAYS: (i128, i128) = (18_262, 20_454);
const DEFAULT_SECONDS: (i128, i128) = (1_577_836_800, 1_767_225_600);

/// What an integer-like type can hold, what it draws by default, and how spec numbers map onto
/// its representation.
pub(super) struct Domain {
    pub(super) bounds: (i128, i128),
    pub(super) default: (i128, i128),
    /// Spec numbers are multiplied by 10^scale (a decimal's scale; 0 for other types).
    pub(super) scale: i32,
    /// Values are whole multiples of this (a day for Date64).
    pub(super) granule: i128,
}

impl Domain {
    /// The range drawn when `min` or `max` is not given; sequential keys count up from 0 (or
    /// the default start of dates and timestamps) to the largest value.
    pub(super) fn default_range(&self, sequential: bool) -> (i128, i128) {
        let lo = if sequential && self.default == self.bounds {
            0.clamp(self.bounds.0, self.bounds.1)
        } else {
            self.default.0
        };
        let hi = if sequential {
            self.bounds.1
        } else {
            self.default.1
        };
        (lo, hi)
    }

    /// The domain of values whose stored form, by `conversion`, the stored type holds.
    pub(super) fn stored_by(self, conversion: Conversion, stored: &DataType) -> Self {
        let Some(stored) = domain(stored) else {
            return self;
        };
        let (lo, hi) = conversion.declared_bounds(stored.bounds);
        Self {
            bounds: (self.bounds.0.max(lo), self.bounds.1.min(hi)),
            ..self
        }
    }

    /// `x`, given as `key`, as a whole number of the representation, rounded by `rounding`.
    pub(super) fn units(
        &self,
        x: &Number,
        key: &str,
        rounding: Rounding,
        data_type: &DataType,
        path: &str,
    ) -> Result<i128, SpecError> {
        let value = match x.to_units(self.scale, rounding) {
            Ok(value) => value,
            Err(NotWhole::TooLarge) => return Err(outside(data_type, key, x, path)),
            Err(NotWhole::Fraction) => {
                return Err(error(
                    path,
                    format!("{key} {x} has more decimal places than {data_type} holds"),
                ))
            }
        };
        if (self.bounds.0..=self.bounds.1).contains(&value) {
            Ok(value)
        } else {
            Err(outside(data_type, key, x, path))
        }
    }
}

pub(super) fn domain(data_type: &DataType) -> Option<Domain> {
    let plain = |lo: i128, hi: i128| Domain {
        bounds: (lo, hi),
        default: (lo, hi),
        scale: 0,
        granule: 1,
    };
    let per_second = |unit: &TimeUnit| match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    Some(match data_type {
        DataType::Int8 => plain(i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => plain(i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => plain(i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => plain(i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => plain(0, u8::MAX.into()),
        DataType::UInt16 => plain(0, u16::MAX.into()),
        DataType::UInt32 => plain(0, u32::MAX.into()),
        DataType::UInt64 => plain(0, u64::MAX.into()),
        DataType::Date32 => Domain {
            default: (DEFAULT_DAYS.0, DEFAULT_DAYS.1 - 1),
            ..plain(i32::MIN.into(), i32::MAX.into())
        },
        DataType::Date64 => Domain {
            default: (DEFAULT_DAYS.0 * DAY_MS, DEFAULT_DAYS.1 * DAY_MS - 1),
            granule: DAY_MS,
            ..plain(i64::MIN.into(), i64::MAX.into())
        },
        DataType::Time32(unit) | DataType::Time64(unit) => plain(0, 86_400 * per_second(unit) - 1),
        DataType::Timestamp(unit, _) => Domain {
            default: (
                DEFAULT_SECONDS.0 * per_second(unit),
                DEFAULT_SECONDS.1 * per_second(unit) - 1,
            ),
            ..plain(i64::MIN.into(), i64::MAX.into())
        },
        DataType::Decimal128(precision, scale) | DataType::Decimal256(precision, scale) => {
            // Decimal256 values are drawn within i128, which holds 38 full digits.
            let largest = 10i128
                .checked_pow(u32::from(*precision))
                .map_or(i128::MAX, |p| p - 1);
            Domain {
                scale: i32::from(*scale),
                ..plain(-largest, largest)
            }
        }
        _ => return None,
    })
}
