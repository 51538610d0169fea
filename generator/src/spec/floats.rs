//! Floating-point leaves: values drawn as `f64` from a spec's distribution, then narrowed to
//! the column's float width.

use arrow_schema::DataType;

use super::draw::{Draw, Slot, Stream};
use super::error::SpecError;
use super::normal::standard_normal;
use super::numbers::{not_a_number, outside, refuse_non_numeric_keys, Source};
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
        let normal = matches!(params.distribution, Distribution::Normal { .. });
        let (default_lo, default_hi) = if normal {
            (-largest, largest)
        } else {
            (0.0, 1.0)
        };
        let lo = params.min.as_ref().map(|x| convert("min", x)).transpose()?;
        let hi = params.max.as_ref().map(|x| convert("max", x)).transpose()?;
        let lo = lo.unwrap_or(default_lo);
        let hi = hi.unwrap_or(default_hi.max(lo));
        refuse_non_numeric_keys(data_type, params, path)?;
        let source = Source::new(params, 1.0, || {
            if params.values.is_empty() {
                let count = params.cardinality.unwrap_or(1);
                return Ok((0..count)
                    .map(|k| lo + (hi - lo) * k as f64 / count as f64)
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

    /// What picks a value's entry by its value draw, when values are drawn from a vocabulary.
    pub fn picker(&self) -> Option<&Picker> {
        self.source.picker()
    }

    /// Draws vocabulary entries by the faster paths `paths` turns on: the same values.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        self.source.set_paths(paths);
    }
}
