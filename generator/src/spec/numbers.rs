//! Numeric leaves: integer-like values (integers, decimals, dates, times, timestamps) computed
//! as `i128` in the column's own representation, floating-point values as `f64`, booleans.

use arrow_schema::{DataType, TimeUnit};

use super::draw::{below, Draw, Slot, Stream};
use super::error::error;
use super::vocabulary::Picker;
use super::{Distribution, Params, SpecError};

const DAY_MS: i128 = 86_400_000;
/// 2020-01-01 and 2026-01-01 in days and seconds since the epoch: the default date range.
const DEFAULT_DAYS: (i128, i128) = (18_262, 20_454);
const DEFAULT_SECONDS: (i128, i128) = (1_577_836_800, 1_767_225_600);

/// How a numeric column's values come about.
#[derive(Debug, Clone)]
enum Source<T> {
    /// One of these entries.
    Vocabulary(Picker, Vec<T>),
    /// Uniform in `[lo, hi]`.
    Uniform,
    /// Normal, rounded for integers, clamped to `[lo, hi]`.
    Normal { mean: f64, stddev: f64 },
    /// `lo + ordinal * step` (rounded down for integers: a step of 0.25 repeats each value 4
    /// times).
    Sequential { step: f64 },
}

impl<T> Source<T> {
    /// The source `params` ask for, their numbers multiplied by `scale` into the column's
    /// representation; `vocabulary` makes the entries when values are drawn from one.
    fn new(
        params: &Params,
        scale: f64,
        vocabulary: impl FnOnce() -> Result<Vec<T>, SpecError>,
    ) -> Result<Self, SpecError> {
        Ok(match params.distribution {
            _ if params.draws_from_vocabulary() => {
                let entries = vocabulary()?;
                Source::Vocabulary(Picker::new(params, entries.len()), entries)
            }
            Distribution::Normal { mean, stddev } => Source::Normal {
                mean: mean * scale,
                stddev: stddev * scale,
            },
            Distribution::Sequential { step } => Source::Sequential { step: step * scale },
            _ => Source::Uniform,
        })
    }

    /// The entries, when values are drawn from a vocabulary.
    fn vocabulary(&self) -> Option<&[T]> {
        match self {
            Source::Vocabulary(_, entries) => Some(entries),
            _ => None,
        }
    }

    fn vocabulary_index(&self, stream: Stream, slot: Slot) -> Option<usize> {
        match self {
            Source::Vocabulary(picker, _) => Some(picker.pick(stream, slot, Draw::Value)),
            _ => None,
        }
    }
}

/// What an integer-like type can hold, what it draws by default, and how spec numbers map onto
/// its representation.
struct Domain {
    bounds: (i128, i128),
    default: (i128, i128),
    /// Spec numbers are multiplied by this (10^scale for decimals).
    scale: f64,
    /// Values are rounded down to a multiple of this (a day for Date64).
    granule: i128,
}

impl Domain {
    /// The range drawn when `min` or `max` is not given; sequential keys count up from 0 (or
    /// the default start of dates and timestamps) to the largest value.
    fn default_range(&self, sequential: bool) -> (i128, i128) {
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
}

fn domain(data_type: &DataType) -> Option<Domain> {
    let plain = |lo: i128, hi: i128| Domain {
        bounds: (lo, hi),
        default: (lo, hi),
        scale: 1.0,
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
                scale: 10f64.powi(i32::from(*scale)),
                ..plain(-largest, largest)
            }
        }
        _ => return None,
    })
}

/// The values of an integer-like column.
#[derive(Debug, Clone)]
pub(super) struct Integers {
    lo: i128,
    hi: i128,
    granule: i128,
    source: Source<i128>,
}

impl Integers {
    /// For `data_type` under `params`, or `None` when the type is not integer-like.
    pub fn new(
        data_type: &DataType,
        params: &Params,
        path: &str,
    ) -> Option<Result<Self, SpecError>> {
        domain(data_type).map(|domain| Self::in_domain(domain, data_type, params, path))
    }

    fn in_domain(
        domain: Domain,
        data_type: &DataType,
        params: &Params,
        path: &str,
    ) -> Result<Self, SpecError> {
        let (min, max) = domain.bounds;
        let convert = |key: &str, x: f64| -> Result<i128, SpecError> {
            let value = (x * domain.scale).round();
            if value >= min as f64 && value <= max as f64 {
                Ok(value as i128)
            } else {
                Err(outside(data_type, key, x, path))
            }
        };
        let sequential = matches!(params.distribution, Distribution::Sequential { .. });
        let (lo, hi) = bounds(params, domain.default_range(sequential), convert)?;
        refuse_non_numeric_keys(data_type, params, path)?;
        let source = Source::new(params, domain.scale, || {
            if params.values.is_empty() {
                spread(lo, hi, params.cardinality.unwrap_or(1), path)
            } else {
                numeric_values(params, path, |x| convert("value", x))
            }
        })?;
        Ok(Self {
            lo,
            hi,
            granule: domain.granule,
            source,
        })
    }

    /// The value of `slot`.
    #[inline]
    pub fn value(&self, stream: Stream, slot: Slot) -> i128 {
        let value = match &self.source {
            Source::Vocabulary(picker, entries) => entries[picker.pick(stream, slot, Draw::Value)],
            Source::Uniform => {
                let span = self.hi.abs_diff(self.lo).saturating_add(1);
                let offset = match u64::try_from(span) {
                    Ok(span) => u128::from(below(stream.bits(slot, Draw::Value), span)),
                    Err(_) => {
                        let wide = u128::from(stream.bits(slot, Draw::Value)) << 64
                            | u128::from(stream.bits(slot, Draw::Second));
                        wide % span
                    }
                };
                (self.lo as u128).wrapping_add(offset) as i128
            }
            Source::Normal { mean, stddev } => {
                (mean + stddev * standard_normal(stream, slot)).round() as i128
            }
            Source::Sequential { step } => self.sequential(slot.ordinal, *step),
        };
        let value = value.clamp(self.lo, self.hi);
        // Only Date64 has a granule; skip the 128-bit division for every other type.
        if self.granule == 1 {
            value
        } else {
            value - value.rem_euclid(self.granule)
        }
    }

    /// `lo + ordinal * step`, wrapping around within `[lo, hi]`; a negative step counts down
    /// from `hi`.
    fn sequential(&self, ordinal: u64, step: f64) -> i128 {
        let offset = if step.fract() == 0.0 {
            i128::from(ordinal).saturating_mul(step.abs() as i128)
        } else {
            (ordinal as f64 * step.abs()).floor() as i128
        };
        // Wrapping needs a 128-bit division, which the common case (still inside the range)
        // skips.
        let within = match i128::try_from(self.hi.abs_diff(self.lo)) {
            Ok(width) if offset > width && width < i128::MAX => offset.rem_euclid(width + 1),
            _ => offset,
        };
        if step < 0.0 {
            self.hi.saturating_sub(within)
        } else {
            self.lo.saturating_add(within)
        }
    }

    /// The vocabulary entries, when values are drawn from one.
    pub fn vocabulary(&self) -> Option<&[i128]> {
        self.source.vocabulary()
    }

    /// The vocabulary index of `slot`'s value, when values are drawn from one.
    pub fn vocabulary_index(&self, stream: Stream, slot: Slot) -> Option<usize> {
        self.source.vocabulary_index(stream, slot)
    }
}

/// `[min, max]` of `params`, each converted by `convert` into the column's representation;
/// `default` where one is not given, the upper end never below the lower.
fn bounds<T: Copy + PartialOrd>(
    params: &Params,
    default: (T, T),
    convert: impl Fn(&str, f64) -> Result<T, SpecError>,
) -> Result<(T, T), SpecError> {
    let lo = params.min.map_or(Ok(default.0), |x| convert("min", x))?;
    let default_hi = if default.1 < lo { lo } else { default.1 };
    let hi = params.max.map_or(Ok(default_hi), |x| convert("max", x))?;
    Ok((lo, hi))
}

/// The error for the number `x` given as `key`, which `data_type` cannot hold.
fn outside(data_type: &DataType, key: &str, x: f64, path: &str) -> SpecError {
    error(path, format!("{key} {x} is outside what {data_type} holds"))
}

/// Fails when `params` give a number column what only strings and booleans take.
fn refuse_non_numeric_keys(
    data_type: &DataType,
    params: &Params,
    path: &str,
) -> Result<(), SpecError> {
    if params.unique || !params.word_lists.is_empty() || params.true_probability != 0.5 {
        return Err(error(
            path,
            format!("{data_type} takes none of unique, vocabulary and true_probability"),
        ));
    }
    Ok(())
}

/// The `values` of `params`, each read as a number and converted by `convert`.
fn numeric_values<T>(
    params: &Params,
    path: &str,
    convert: impl Fn(f64) -> Result<T, SpecError>,
) -> Result<Vec<T>, SpecError> {
    params
        .values
        .iter()
        .map(|v| {
            v.parse::<f64>()
                .map_err(|_| error(path, format!("value \"{v}\" is not a number")))
                .and_then(&convert)
        })
        .collect()
}

/// `count` values spread evenly over `[lo, hi]`.
fn spread(lo: i128, hi: i128, count: u64, path: &str) -> Result<Vec<i128>, SpecError> {
    let width = hi.abs_diff(lo).saturating_add(1);
    let step = width / u128::from(count);
    if step == 0 {
        return Err(error(
            path,
            format!("cardinality {count} is more than the {width} values in [min, max]"),
        ));
    }
    Ok((0..u128::from(count))
        .map(|k| (lo as u128).wrapping_add(k * step) as i128)
        .collect())
}

/// A standard normal value from two of the cell's draws (Box-Muller).
fn standard_normal(stream: Stream, slot: Slot) -> f64 {
    let u1 = stream.fraction(slot, Draw::Value).max(f64::MIN_POSITIVE);
    let u2 = stream.fraction(slot, Draw::Second);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The values of a floating-point column.
#[derive(Debug, Clone)]
pub(super) struct Floats {
    lo: f64,
    hi: f64,
    source: Source<f64>,
}

impl Floats {
    /// For `data_type` under `params`, or `None` when it is not a floating-point type.
    pub fn new(
        data_type: &DataType,
        params: &Params,
        path: &str,
    ) -> Option<Result<Self, SpecError>> {
        let largest = match data_type {
            DataType::Float16 => 65_504.0,
            DataType::Float32 => f64::from(f32::MAX),
            DataType::Float64 => f64::MAX,
            _ => return None,
        };
        Some(Self::within(largest, data_type, params, path))
    }

    fn within(
        largest: f64,
        data_type: &DataType,
        params: &Params,
        path: &str,
    ) -> Result<Self, SpecError> {
        let convert = |key: &str, x: f64| {
            if x.abs() <= largest {
                Ok(x)
            } else {
                Err(outside(data_type, key, x, path))
            }
        };
        let normal = matches!(params.distribution, Distribution::Normal { .. });
        let default_range = if normal {
            (-largest, largest)
        } else {
            (0.0, 1.0)
        };
        let (lo, hi) = bounds(params, default_range, convert)?;
        refuse_non_numeric_keys(data_type, params, path)?;
        let source = Source::new(params, 1.0, || {
            if params.values.is_empty() {
                let count = params.cardinality.unwrap_or(1);
                Ok((0..count)
                    .map(|k| lo + (hi - lo) * k as f64 / count as f64)
                    .collect())
            } else {
                // NaN and infinities are values a float column may hold.
                numeric_values(params, path, |x| {
                    if x.is_finite() {
                        convert("value", x)
                    } else {
                        Ok(x)
                    }
                })
            }
        })?;
        Ok(Self { lo, hi, source })
    }

    /// The value of `slot`.
    #[inline]
    pub fn value(&self, stream: Stream, slot: Slot) -> f64 {
        match &self.source {
            Source::Vocabulary(picker, entries) => entries[picker.pick(stream, slot, Draw::Value)],
            Source::Uniform => self.lo + stream.fraction(slot, Draw::Value) * (self.hi - self.lo),
            Source::Normal { mean, stddev } => {
                (mean + stddev * standard_normal(stream, slot)).clamp(self.lo, self.hi)
            }
            Source::Sequential { step } => self.lo + slot.ordinal as f64 * step,
        }
    }

    /// The vocabulary entries, when values are drawn from one.
    pub fn vocabulary(&self) -> Option<&[f64]> {
        self.source.vocabulary()
    }

    /// The vocabulary index of `slot`'s value, when values are drawn from one.
    pub fn vocabulary_index(&self, stream: Stream, slot: Slot) -> Option<usize> {
        self.source.vocabulary_index(stream, slot)
    }
}

/// The values of a boolean column: from a vocabulary of `true`/`false`, or true with a chance.
#[derive(Debug, Clone)]
pub(super) enum Booleans {
    /// One of these entries.
    Vocabulary(Picker, Vec<bool>),
    /// True with this probability.
    Chance(f64),
}

impl Booleans {
    /// For `data_type` under `params`, or `None` when it is not the boolean type.
    pub fn new(
        data_type: &DataType,
        params: &Params,
        path: &str,
    ) -> Option<Result<Self, SpecError>> {
        (data_type == &DataType::Boolean).then(|| Self::from_params(params, path))
    }

    fn from_params(params: &Params, path: &str) -> Result<Self, SpecError> {
        if matches!(
            params.distribution,
            Distribution::Normal { .. } | Distribution::Sequential { .. }
        ) || params.unique
            || params.min.is_some()
            || params.max.is_some()
            || !params.word_lists.is_empty()
        {
            return Err(error(
                path,
                "booleans take true_probability, or values/cardinality with uniform, zipf or categorical",
            ));
        }
        if !params.draws_from_vocabulary() {
            return Ok(Self::Chance(params.true_probability));
        }
        let entries: Vec<bool> = if params.values.is_empty() {
            match params.cardinality {
                Some(n @ 1..=2) => [true, false][..n as usize].to_vec(),
                _ => return Err(error(path, "a boolean's cardinality is 1 or 2")),
            }
        } else {
            params
                .values
                .iter()
                .map(|v| match v.as_str() {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    other => Err(error(
                        path,
                        format!("value \"{other}\" is not true or false"),
                    )),
                })
                .collect::<Result<_, _>>()?
        };
        Ok(Self::Vocabulary(
            Picker::new(params, entries.len()),
            entries,
        ))
    }

    /// The value of `slot`.
    #[inline]
    pub fn value(&self, stream: Stream, slot: Slot) -> bool {
        match self {
            Self::Vocabulary(picker, entries) => entries[picker.pick(stream, slot, Draw::Value)],
            Self::Chance(p) => stream.fraction(slot, Draw::Value) < *p,
        }
    }

    /// The vocabulary index of `slot`'s value, when values are drawn from one.
    pub fn vocabulary_index(&self, stream: Stream, slot: Slot) -> Option<usize> {
        match self {
            Self::Vocabulary(picker, _) => Some(picker.pick(stream, slot, Draw::Value)),
            Self::Chance(_) => None,
        }
    }
}
