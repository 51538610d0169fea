//! Numeric leaves: integer-like values (integers, decimals, dates, times, timestamps) computed
//! as `i128` in the column's own representation, and floating-point values as `f64`.
//! Spec numbers reach the integer-like representation exactly, never through a float.

use arrow_schema::DataType;

use super::domain::{domain, Domain};
use super::draw::{below, Draw, Slot, Stream};
use super::error::{error, SpecError};
use super::exact::Rounding;
use super::normal::standard_normal;
use super::parquet_types::{narrow_euclid_remainder, parquet_type, Conversion};
use super::resolved::{NarrowSequence, NarrowUniform, Span};
use super::sources::{not_a_number, refuse_non_numeric_keys, with_defaults, Source, StepSize};
use super::vocabulary::Picker;
use super::{Distribution, Number, Params, SpecPaths};

/// The values of an integer-like column.
#[derive(Debug, Clone)]
pub(super) struct Integers {
    lo: i128,
    hi: i128,
    granule: i128,
    /// The first whole granule in `[lo, hi]`, and how many there are: what a uniform draw
    /// picks from, worked out once (each takes a 128-bit division: done per value, the
    /// divisions were 9% of the wide preset's generation samples).
    first_granule: i128,
    granules: u128,
    /// How a value becomes the stored type's.
    conversion: Conversion,
    source: Source<i128>,
    /// A uniform draw's choices made once per batch (`spec-resolved-draws`).
    resolved_draws: bool,
}

impl Integers {
    /// For `data_type` under `params`, stored by `conversion`, or `None` when the type is not
    /// integer-like.
    pub fn new(
        data_type: &DataType,
        conversion: Conversion,
        params: &Params,
        path: &str,
    ) -> Option<Result<Self, SpecError>> {
        domain(data_type).map(|domain| {
            let domain = match conversion {
                Conversion::Same => domain,
                _ => domain.stored_by(conversion, &parquet_type(data_type)),
            };
            Self::in_domain(domain, data_type, conversion, params, path)
        })
    }

    fn in_domain(
        domain: Domain,
        data_type: &DataType,
        conversion: Conversion,
        params: &Params,
        path: &str,
    ) -> Result<Self, SpecError> {
        let sequential = matches!(params.distribution, Distribution::Sequential { .. });
        let (lo, hi) = integer_bounds(&domain, data_type, params, sequential, path)?;
        refuse_non_numeric_keys(data_type, params, path)?;
        let scale = 10f64.powi(domain.scale);
        let granule = domain.granule;
        let first_granule = lo.div_euclid(granule) + i128::from(lo.rem_euclid(granule) != 0);
        let source = Source::new(params, scale, || {
            if params.values.is_empty() {
                // Spread over whole granules (Date64's days), so that each entry is its own.
                let count = params.cardinality.unwrap_or(1);
                let entries = spread(first_granule, hi.div_euclid(granule), count, path)?;
                Ok(entries.into_iter().map(|e| e * granule).collect())
            } else {
                listed_values(&domain, data_type, params, path)
            }
        })?;
        if let Source::Sequential { step, .. } = source {
            refuse_runaway_step(step, hi.abs_diff(lo), domain.scale, data_type, path)?;
        }
        let granules = hi
            .div_euclid(granule)
            .abs_diff(first_granule)
            .saturating_add(1);
        Ok(Self {
            lo,
            hi,
            granule,
            first_granule,
            granules,
            conversion,
            source,
            resolved_draws: false,
        })
    }

    /// The value of `slot`, in the stored type's representation. Inlined into the loop that
    /// draws a column's values: left to the compiler, it became a call per value whenever the
    /// loop's function grew.
    #[inline(always)]
    pub fn value(&self, stream: Stream, slot: Slot) -> i128 {
        let value = match &self.source {
            // Entries are whole granules, and listed values are exactly what was listed.
            Source::Vocabulary(picker, entries) => {
                return self
                    .conversion
                    .apply(entries[picker.pick(stream, slot, Draw::Value)])
            }
            Source::Uniform => self.uniform(stream, slot),
            Source::Normal { mean, stddev } => {
                (mean + stddev * standard_normal(stream, slot)).round() as i128
            }
            Source::Sequential { step, size } => self.sequential(slot.ordinal, *step, *size),
        };
        self.conversion.apply(self.within(value))
    }

    /// The draw of this column's values when it is a uniform one over at most 2^64 whole
    /// values stored as they are: what [`Integers::value`] gives, worked out without its
    /// per-value choices (`spec-resolved-draws`).
    pub fn narrow_uniform(&self) -> Option<NarrowUniform> {
        if !self.resolved_draws
            || !matches!(self.source, Source::Uniform)
            || self.granule != 1
            || self.conversion != Conversion::Same
        {
            return None;
        }
        let span = match u64::try_from(self.granules) {
            Ok(span) => Span::Below(span),
            Err(_) if self.granules == 1 << 64 => Span::Whole,
            Err(_) => return None,
        };
        Some(NarrowUniform::new(self.first_granule, span))
    }

    /// `value` clamped to `[lo, hi]` and, for types with a granule, rounded down to a whole
    /// one (up when that falls below `lo`).
    #[inline]
    fn within(&self, value: i128) -> i128 {
        let value = value.clamp(self.lo, self.hi);
        // Only Date64 has a granule; skip the 128-bit division for every other type.
        if self.granule == 1 {
            return value;
        }
        let down = value - narrow_euclid_remainder(value, self.granule);
        if down < self.lo {
            down + self.granule
        } else {
            down
        }
    }

    /// A uniform value in `[lo, hi]`, a whole number of granules.
    #[inline]
    fn uniform(&self, stream: Stream, slot: Slot) -> i128 {
        let span = self.granules;
        let offset = match u64::try_from(span) {
            Ok(span) => u128::from(below(stream.bits(slot, Draw::Value), span)),
            Err(_) => {
                let wide = u128::from(stream.bits(slot, Draw::Value)) << 64
                    | u128::from(stream.bits(slot, Draw::Second));
                wide % span
            }
        };
        let granules = (self.first_granule as u128).wrapping_add(offset) as i128;
        if self.granule == 1 {
            granules
        } else {
            granules * self.granule
        }
    }

    /// `lo + ordinal * step` (`size` the step's), wrapping around within `[lo, hi]`; a negative
    /// step counts down from `hi`.
    fn sequential(&self, ordinal: u64, step: f64, size: StepSize) -> i128 {
        let offset = size.times(ordinal);
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

    /// This column's values when they are a sequence of whole steps through a range of 64-bit
    /// values stored as they are: what [`Integers::value`] gives for an ordinal, worked out
    /// without its per-value choices (`spec-resolved-draws`).
    pub fn narrow_sequence(&self) -> Option<NarrowSequence> {
        let Source::Sequential {
            step,
            size: StepSize::Whole(size),
        } = self.source
        else {
            return None;
        };
        if !self.resolved_draws || self.granule != 1 || self.conversion != Conversion::Same {
            return None;
        }
        let (lo, hi) = (i64::try_from(self.lo).ok()?, i64::try_from(self.hi).ok()?);
        Some(NarrowSequence::new(
            (lo, hi),
            u64::try_from(size).ok()?,
            step < 0.0,
        ))
    }

    /// The vocabulary entries in the stored type's representation, when values are drawn
    /// from one.
    pub fn vocabulary(&self) -> Option<Vec<i128>> {
        let entries = self.source.vocabulary()?;
        Some(entries.iter().map(|&e| self.conversion.apply(e)).collect())
    }

    /// What picks a value's entry by its value draw, when values are drawn from a vocabulary.
    pub fn picker(&self) -> Option<&Picker> {
        self.source.picker()
    }

    /// Draws by the faster paths `paths` turns on: the same values either way.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        self.resolved_draws = paths.resolved_draws;
        self.source.set_paths(paths);
    }
}

/// `[min, max]` of `params` in the representation of `domain`: `min` rounded up and `max`
/// down to whole units (and granules), the type's defaults where one is not given.
fn integer_bounds(
    domain: &Domain,
    data_type: &DataType,
    params: &Params,
    sequential: bool,
    path: &str,
) -> Result<(i128, i128), SpecError> {
    let (default_lo, default_hi) = domain.default_range(sequential);
    let given = |key: &str, x: &Option<Number>, rounding| {
        x.as_ref()
            .map(|x| domain.units(x, key, rounding, data_type, path))
            .transpose()
    };
    let lo = given("min", &params.min, Rounding::Up)?;
    let hi = given("max", &params.max, Rounding::Down)?;
    let (lo, hi) = with_defaults((lo, hi), (default_lo, default_hi), params, data_type, path)?;
    let first_granule = lo + (domain.granule - lo.rem_euclid(domain.granule)) % domain.granule;
    if first_granule > hi {
        return Err(empty_range(domain, data_type, params, path));
    }
    Ok((lo, hi))
}

/// The listed `values` of `params`, each exactly a value of `data_type`.
fn listed_values(
    domain: &Domain,
    data_type: &DataType,
    params: &Params,
    path: &str,
) -> Result<Vec<i128>, SpecError> {
    params
        .values
        .iter()
        .map(|v| {
            let x = Number::parse(v).ok_or_else(|| not_a_number(v, path))?;
            let value = domain.units(&x, "value", Rounding::Exact, data_type, path)?;
            if value.rem_euclid(domain.granule) != 0 {
                return Err(error(
                    path,
                    format!("value {x} is not a whole day, which {data_type} values are"),
                ));
            }
            Ok(value)
        })
        .collect()
}

/// The error for a `[min, max]` that holds no value of `data_type`.
fn empty_range(domain: &Domain, data_type: &DataType, params: &Params, path: &str) -> SpecError {
    let show = |x: &Option<Number>| x.as_ref().map_or("its default".into(), |x| x.to_string());
    let unit = if domain.granule > 1 {
        " (its values are whole days)".to_string()
    } else if domain.scale > 0 {
        format!(" (its values have {} decimal places)", domain.scale)
    } else {
        " (its values are whole numbers)".to_string()
    };
    error(
        path,
        format!(
            "min {} and max {} hold no value of {data_type}{unit}: widen the range",
            show(&params.min),
            show(&params.max)
        ),
    )
}

/// Refuses a sequential `step` (in the column's units) that is larger than the range's
/// `width` and too large to multiply by a row number in 128 bits: such values would not wrap
/// within the range but stick at its end. The error says both in the spec's numbers, the
/// units divided by 10^`scale` (a decimal's).
fn refuse_runaway_step(
    step: f64,
    width: u128,
    scale: i32,
    data_type: &DataType,
    path: &str,
) -> Result<(), SpecError> {
    let size = step.abs();
    if size <= width as f64 || size < 2f64.powi(63) {
        return Ok(());
    }
    let spec_number = |units: f64| units / 10f64.powi(scale);
    let (given, most) = (spec_number(step), spec_number(width as f64));
    Err(error(path, format!("step {given:e} of {data_type} is larger than its whole range: use a step of at most {most} (a larger one only wraps past the range)")))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A sequential 64-bit column over `[lo, hi]` by `step`, its choices resolved or not.
    fn sequence(lo: i128, hi: i128, step: f64, resolved_draws: bool) -> Integers {
        Integers {
            lo,
            hi,
            granule: 1,
            first_granule: lo,
            granules: hi.abs_diff(lo) + 1,
            conversion: Conversion::Same,
            source: Source::Sequential {
                step,
                size: StepSize::of(step),
            },
            resolved_draws,
        }
    }

    #[test]
    fn a_resolved_sequence_gives_the_values_of_the_general_path() {
        let (min, max) = (i128::from(i64::MIN), i128::from(i64::MAX));
        let ranges = [
            (0, max),
            (min, max),
            (-5, 5),
            (min, min + 2),
            (max - 1, max),
            (7, 7),
        ];
        let steps = [
            1.0,
            -1.0,
            3.0,
            -250_000.0,
            2f64.powi(62),
            -(2f64.powi(63)),
            1e9,
            // 2^64 - 2048: its products pass i128 and saturate.
            18_446_744_073_709_549_568.0,
        ];
        let ordinals = [0, 1, 2, 5, 1 << 20, 1 << 40, (1 << 63) + 1, u64::MAX];
        let stream = Stream::new(1, 2);
        for (lo, hi) in ranges {
            for step in steps {
                let general = sequence(lo, hi, step, false);
                let resolved = sequence(lo, hi, step, true).narrow_sequence().unwrap();
                assert!(general.narrow_sequence().is_none());
                for ordinal in ordinals {
                    let slot = Slot::row(ordinal, false);
                    let expected = general.value(stream, slot);
                    assert_eq!(
                        resolved.value(ordinal),
                        expected,
                        "[{lo}, {hi}] by {step}, {ordinal}"
                    );
                }
            }
        }
    }
}
