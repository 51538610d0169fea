//! Floating-point leaves: values drawn as `f64` from a spec's distribution, then narrowed to
//! the column's float width.

use arrow_schema::DataType;

use super::draw::{Draw, Slot, Stream};
use super::error::error;
use super::error::SpecError;
use super::normal::standard_normal;
use super::sources::{not_a_number, outside, refuse_non_numeric_keys, with_defaults, Source};
use super::vocabulary::Picker;
use super::{Distribution, Number, Params, SpecPaths};

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
        let convert = |key: &str, x: &Number| {
            let value = x.to_f64();
            if value.abs() <= largest {
                Ok(value)
            } else {
                Err(outside(data_type, key, x, path))
            }
        };
        let default = match params.distribution {
            Distribution::Normal { .. } => (-largest, largest),
            // As for integers: counting from 0 through the type; down from 0 for a negative
            // step (from f64::MAX, a step of 1 is lost to rounding).
            Distribution::Sequential { step } if step < 0.0 => (-largest, 0.0),
            Distribution::Sequential { .. } => (0.0, largest),
            _ => (0.0, 1.0),
        };
        let lo = params.min.as_ref().map(|x| convert("min", x)).transpose()?;
        let hi = params.max.as_ref().map(|x| convert("max", x)).transpose()?;
        let (lo, hi) = with_defaults((lo, hi), default, params, data_type, path)?;
        refuse_non_numeric_keys(data_type, params, path)?;
        if let Distribution::Sequential { step } = params.distribution {
            refuse_runaway_float_step(step, data_type, path)?;
        }
        let source = Source::new(params, 1.0, || {
            if params.values.is_empty() {
                let count = params.cardinality.unwrap_or(1);
                return Ok((0..count)
                    .map(|k| {
                        let spread = lo + (hi - lo) * k as f64 / count as f64;
                        finite_or_between(spread, lo, hi, k as f64 / count as f64)
                    })
                    .collect());
            }
            // NaN and infinities are values a float column may hold.
            params
                .values
                .iter()
                .map(|v| match Number::parse(v) {
                    Some(x) => convert("value", &x),
                    None => v.parse::<f64>().map_err(|_| not_a_number(v, path)),
                })
                .collect()
        })?;
        Ok(Self { lo, hi, source })
    }

    /// The value of `slot`. Inlined into the loop that draws a column's values, as
    /// [`super::numbers::Integers::value`] is.
    #[inline(always)]
    pub fn value(&self, stream: Stream, slot: Slot) -> f64 {
        match &self.source {
            Source::Vocabulary(picker, entries) => entries[picker.pick(stream, slot, Draw::Value)],
            Source::Uniform => {
                let fraction = stream.fraction(slot, Draw::Value);
                let value = self.lo + fraction * (self.hi - self.lo);
                finite_or_between(value, self.lo, self.hi, fraction)
            }
            Source::Normal { mean, stddev } => {
                (mean + stddev * standard_normal(stream, slot)).clamp(self.lo, self.hi)
            }
            Source::Sequential { step, .. } => self.sequential(slot.ordinal, *step),
        }
    }

    /// `lo + ordinal * step`, wrapping around within `[lo, hi]`; a negative step counts down
    /// from `hi`.
    fn sequential(&self, ordinal: u64, step: f64) -> f64 {
        // Finite: the step is at most f64::MAX / 2^64. A range wider than f64::MAX has an
        // infinite span, which no offset passes.
        let (offset, span) = (ordinal as f64 * step.abs(), self.hi - self.lo);
        let within = match offset > span {
            // `min == max`: every value is that one (a remainder by 0 would be NaN).
            true if span == 0.0 => 0.0,
            true => offset % span,
            false => offset,
        };
        let value = match step < 0.0 {
            true => self.hi - within,
            false => self.lo + within,
        };
        value.clamp(self.lo, self.hi)
    }

    /// The vocabulary entries, when values are drawn from one.
    pub fn vocabulary(&self) -> Option<&[f64]> {
        self.source.vocabulary()
    }

    /// What picks a value's entry by its value draw, when values are drawn from a vocabulary.
    pub fn picker(&self) -> Option<&Picker> {
        self.source.picker()
    }

    /// Draws vocabulary entries by the faster paths `paths` turns on: the same values.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        self.source.set_paths(paths);
    }
}

/// `value`, the point `fraction` of the way through `[lo, hi]` as `lo + fraction * (hi - lo)`
/// computes it, unless that overflowed (a range wider than f64::MAX): then the same point
/// computed without the range's width.
#[inline]
fn finite_or_between(value: f64, lo: f64, hi: f64, fraction: f64) -> f64 {
    match value.is_finite() {
        true => value,
        false => (lo * (1.0 - fraction) + hi * fraction).clamp(lo, hi),
    }
}

/// Refuses a float `step` whose product with a 64-bit ordinal could pass f64::MAX.
fn refuse_runaway_float_step(step: f64, data_type: &DataType, path: &str) -> Result<(), SpecError> {
    let most = f64::MAX / 2f64.powi(64);
    match step.abs() <= most {
        true => Ok(()),
        false => Err(error(
            path,
            format!("step {step:e} of {data_type} times a row number (up to 2^64) would pass the largest float: use a step of at most {most:e}"),
        )),
    }
}
