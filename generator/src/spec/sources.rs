//! What a numeric column's values come from (a vocabulary, uniform, normal or sequential),
//! shared by integer-like and floating-point columns, with the steps of sequences and the
//! refusals of number keys that do not fit a column.

use arrow_schema::DataType;

use super::error::{error, SpecError};
use super::vocabulary::Picker;
use super::{Distribution, Number, Params, SpecPaths};

/// How a numeric column's values come about.
#[derive(Debug, Clone)]
// An explicit tag, as `Picker` has: read at every value.
#[repr(u8)]
pub(super) enum Source<T> {
    /// One of these entries.
    Vocabulary(Picker, Vec<T>),
    /// Uniform in `[lo, hi]`.
    Uniform,
    /// Normal, rounded for integers, clamped to `[lo, hi]`.
    Normal { mean: f64, stddev: f64 },
    /// `lo + ordinal * step` (rounded down for integers: a step of 0.25 repeats each value 4
    /// times); `size` is the step's, worked out once (per value, its float-to-i128 cast was a
    /// fiftieth of the otel-logs preset's instructions).
    Sequential { step: f64, size: StepSize },
}

impl<T> Source<T> {
    /// The source `params` ask for, their numbers multiplied by `scale` into the column's
    /// representation; `vocabulary` makes the entries when values are drawn from one.
    pub(super) fn new(
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
            Distribution::Sequential { step } => Source::Sequential {
                step: step * scale,
                size: StepSize::of(step * scale),
            },
            _ => Source::Uniform,
        })
    }

    /// The entries, when values are drawn from a vocabulary.
    pub(super) fn vocabulary(&self) -> Option<&[T]> {
        match self {
            Source::Vocabulary(_, entries) => Some(entries),
            _ => None,
        }
    }

    /// Draws vocabulary entries by the faster paths `paths` turns on: the same entries.
    pub(super) fn set_paths(&mut self, paths: SpecPaths) {
        if let Source::Vocabulary(picker, _) = self {
            picker.set_paths(paths);
        }
    }

    /// What picks the entry, when values are drawn from a vocabulary.
    pub(super) fn picker(&self) -> Option<&Picker> {
        match self {
            Source::Vocabulary(picker, _) => Some(picker),
            _ => None,
        }
    }
}

/// The size of a sequence's step: a whole one multiplies exactly, a fraction rounds down (0.25
/// repeats each value 4 times).
#[derive(Debug, Clone, Copy)]
pub(super) enum StepSize {
    Whole(i128),
    Fraction(f64),
}

impl StepSize {
    /// The size of `step`.
    pub fn of(step: f64) -> Self {
        match step.fract() == 0.0 {
            // A float cast saturates: a step past i128 only saturates the products.
            true => Self::Whole(step.abs() as i128),
            false => Self::Fraction(step.abs()),
        }
    }

    /// How far the value of `ordinal` is from the sequence's start: `ordinal` steps,
    /// saturating at the i128 range.
    #[inline]
    pub fn times(self, ordinal: u64) -> i128 {
        match self {
            // A 64-bit product where it fits (a size is never negative): 128-bit saturating
            // arithmetic cost as much as writing the number's digits.
            Self::Whole(size) => match u64::try_from(size).map(|size| ordinal.checked_mul(size)) {
                Ok(Some(product)) => i128::from(product),
                _ => i128::from(ordinal).saturating_mul(size),
            },
            Self::Fraction(size) => (ordinal as f64 * size).floor() as i128,
        }
    }
}

/// The range `[min, max]` of the ends `given`, the `default` end where one is missing; refuses
/// a `min` alone above the default range, or a `max` alone below it: the range would be one
/// value.
pub(super) fn with_defaults<T: PartialOrd + Copy>(
    given: (Option<T>, Option<T>),
    default: (T, T),
    params: &Params,
    data_type: &DataType,
    path: &str,
) -> Result<(T, T), SpecError> {
    let beyond = |key: &str, x: &Option<Number>, side: &str, other: &str| {
        let x = x.as_ref().map_or(String::new(), |x| format!(" {x}"));
        error(
            path,
            format!("{key}{x} is {side} the default range of {data_type} (SPEC.md, Default ranges), so every value would be the same: give {other} too"),
        )
    };
    match given {
        (Some(lo), None) if lo > default.1 => Err(beyond("min", &params.min, "above", "max")),
        (None, Some(hi)) if hi < default.0 => Err(beyond("max", &params.max, "below", "min")),
        (lo, hi) => Ok((lo.unwrap_or(default.0), hi.unwrap_or(default.1))),
    }
}

/// The error for the number `x` given as `key`, which `data_type` cannot hold.
pub(super) fn outside(data_type: &DataType, key: &str, x: &Number, path: &str) -> SpecError {
    match data_type {
        // Its values are drawn as 128-bit integers, narrower than what the type holds past
        // precision 38.
        DataType::Decimal256(precision, _) if *precision > 38 => error(
            path,
            format!("{key} {x} is outside what {data_type} values are drawn in: 128-bit integers of its units, at most {} in size", i128::MAX),
        ),
        _ => error(path, format!("{key} {x} is outside what {data_type} holds")),
    }
}

/// The error for a value that is not a number.
pub(super) fn not_a_number(value: &str, path: &str) -> SpecError {
    error(path, format!("value \"{value}\" is not a number"))
}

/// Fails when `params` give a number column what only strings and booleans take.
pub(super) fn refuse_non_numeric_keys(
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
