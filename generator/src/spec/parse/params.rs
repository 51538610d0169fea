//! A field's metadata turned into its generator [`Params`]: each key checked on its own, then
//! against the others. A key the field's type or distribution does not use is refused before,
//! by `keys`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::spec::error::{error, SpecError};
use crate::spec::{Distribution, Number, Params};
use vocabulary::{read_vocabulary, Vocabulary};

mod vocabulary;

/// The largest vocabulary `cardinality` may ask for: each is held in memory with a guide table
/// of 8 entries per value.
const MAX_CARDINALITY: u64 = 1 << 22;

/// The shipped word lists `vocabulary` may name.
pub const WORD_LISTS: &[&str] = &["first_names", "last_names"];

/// The parameters that the metadata `entries` of the field at `path` give.
pub(super) fn read_params(
    entries: &BTreeMap<String, String>,
    nullable: bool,
    path: &str,
) -> Result<Params, SpecError> {
    let metadata = Metadata { entries, path };
    let null_probability = null_probability(&metadata, nullable)?;
    let (min, max) = value_bounds(&metadata)?;
    let (min_length, max_length) = length_bounds(&metadata)?;
    let vocabulary = read_vocabulary(&metadata)?;
    let length_weights = length_weights(&metadata, min_length, max_length)?;
    let digits = digits(&metadata)?;
    let unique = unique(&metadata)?;
    let true_probability = metadata.probability("true_probability", 0.5)?;
    let distribution = distribution(&metadata, &vocabulary)?;
    refuse_conflicts(&metadata, &distribution, &vocabulary, unique)?;
    Ok(Params {
        null_probability,
        distribution,
        min,
        max,
        min_length,
        max_length,
        cardinality: vocabulary.cardinality,
        values: vocabulary.values,
        weights: vocabulary.weights,
        word_lists: vocabulary.word_lists,
        length_weights,
        prefix: metadata.text("prefix").unwrap_or_default().to_string(),
        digits,
        unique,
        true_probability,
    })
}

/// A field's metadata, read key by key, and the path its errors name.
struct Metadata<'a> {
    entries: &'a BTreeMap<String, String>,
    path: &'a str,
}

impl<'a> Metadata<'a> {
    /// A [`SpecError`] at the field's path.
    fn error(&self, message: impl Into<String>) -> SpecError {
        error(self.path, message)
    }

    /// The text of `key`, if given.
    fn text(&self, key: &str) -> Option<&'a str> {
        self.entries.get(key).map(String::as_str)
    }

    /// `key` as an exact number, if given.
    fn exact(&self, key: &str) -> Result<Option<Number>, SpecError> {
        self.text(key)
            .map(|v| {
                Number::parse(v)
                    .ok_or_else(|| self.error(format!("{key} \"{v}\" is not a finite number")))
            })
            .transpose()
    }

    /// `key` as a finite number, if given, with the text it was written as.
    fn number(&self, key: &str) -> Result<Option<(f64, &'a str)>, SpecError> {
        self.text(key)
            .map(|v| {
                Number::parse(v)
                    .map(|x| x.to_f64())
                    .filter(|x| x.is_finite())
                    .map(|x| (x, v.trim()))
                    .ok_or_else(|| self.error(format!("{key} \"{v}\" is not a finite number")))
            })
            .transpose()
    }

    /// `key` as a whole number >= 0, if given.
    fn count(&self, key: &str) -> Result<Option<u64>, SpecError> {
        self.text(key)
            .map(|v| whole_number(v).map_err(|why| self.error(format!("{key} {v} {why}"))))
            .transpose()
    }

    /// The items of `key`, a JSON array of at least one item (none when not given).
    fn json_array(&self, key: &str) -> Result<Vec<Value>, SpecError> {
        match self.text(key) {
            None => Ok(Vec::new()),
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Array(items)) if items.is_empty() => Err(self.error(format!(
                    "{key} is an empty list: list at least one, or drop {key}"
                ))),
                Ok(Value::Array(items)) => Ok(items),
                Ok(_) => Err(self.error(format!("{key} must be a JSON array"))),
                Err(e) => Err(self.error(format!("{key} must be a JSON array: {e}"))),
            },
        }
    }

    /// The weights of `key`, a JSON array of numbers >= 0, each called a `noun` in errors.
    fn weights(&self, key: &str, noun: &str) -> Result<Vec<f64>, SpecError> {
        self.json_array(key)?
            .into_iter()
            .map(|w| {
                // Numbers may be written as strings, as everywhere in a spec.
                let number = w
                    .as_str()
                    .map_or(w.as_f64(), |text| text.parse::<f64>().ok());
                number
                    .filter(|w| w.is_finite() && *w >= 0.0)
                    .ok_or_else(|| self.error(format!("{noun} {w} must be a number >= 0")))
            })
            .collect()
    }

    /// `key` as a probability in [0, 1], `default` when not given.
    fn probability(&self, key: &str, default: f64) -> Result<f64, SpecError> {
        match self.number(key)? {
            None => Ok(default),
            Some((probability, _)) if (0.0..=1.0).contains(&probability) => Ok(probability),
            Some((_, text)) => Err(self.error(format!("{key} {text} must be in [0, 1]"))),
        }
    }

    /// `key` as a number > 0, which the chosen distribution needs.
    fn distribution_parameter(&self, key: &str) -> Result<f64, SpecError> {
        match self.number(key)? {
            None => Err(self.error(format!("distribution needs {key}"))),
            Some((value, _)) if value > 0.0 => Ok(value),
            Some(_) => Err(self.error(format!("{key} must be > 0"))),
        }
    }
}

/// The whole number >= 0 that `text` writes, as an integer or as a float without a fraction
/// (JSON's `1e6`, `3.0`); why not otherwise.
fn whole_number(text: &str) -> Result<u64, &'static str> {
    if let Ok(whole) = text.parse::<u64>() {
        return Ok(whole);
    }
    match text.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.fract() == 0.0 && x < 2f64.powi(53) => Ok(x as u64),
        Ok(x) if (2f64.powi(53)..=u64::MAX as f64).contains(&x) => {
            Err("is too large to be exact as a float: write it as an integer")
        }
        Ok(x) if x > u64::MAX as f64 => Err("is above 18446744073709551615"),
        _ => Err("must be a whole number >= 0"),
    }
}

/// `null_probability`: 0 unless given, and only on a nullable field.
fn null_probability(metadata: &Metadata, nullable: bool) -> Result<f64, SpecError> {
    let null_probability = metadata.probability("null_probability", 0.0)?;
    if null_probability > 0.0 && !nullable {
        return Err(metadata.error("null_probability > 0 on a field that is not nullable"));
    }
    Ok(null_probability)
}

/// `min` and `max`, exactly, in order when both are given.
fn value_bounds(metadata: &Metadata) -> Result<(Option<Number>, Option<Number>), SpecError> {
    let (min, max) = (metadata.exact("min")?, metadata.exact("max")?);
    if let (Some(lo), Some(hi)) = (&min, &max) {
        if lo > hi {
            return Err(metadata.error(format!("min {lo} is above max {hi}")));
        }
    }
    Ok((min, max))
}

/// `min_length` and `max_length`, in order when both are given, `max_length` within 32 bits.
fn length_bounds(metadata: &Metadata) -> Result<(Option<u64>, Option<u64>), SpecError> {
    let (min_length, max_length) = (metadata.count("min_length")?, metadata.count("max_length")?);
    if let (Some(lo), Some(hi)) = (min_length, max_length) {
        if lo > hi {
            return Err(metadata.error(format!("min_length {lo} is above max_length {hi}")));
        }
    }
    for (key, length) in [("min_length", min_length), ("max_length", max_length)] {
        if length.is_some_and(|n| n > u64::from(u32::MAX)) {
            return Err(metadata.error(format!("{key} must be at most {}", u32::MAX)));
        }
    }
    Ok((min_length, max_length))
}

/// `length_weights`: one per length in `min_length..=max_length`, not all 0.
fn length_weights(
    metadata: &Metadata,
    min_length: Option<u64>,
    max_length: Option<u64>,
) -> Result<Vec<f64>, SpecError> {
    let length_weights = metadata.weights("length_weights", "length weight")?;
    if length_weights.is_empty() {
        return Ok(length_weights);
    }
    // min_length <= max_length <= u32::MAX, checked before.
    let lengths = max_length.map(|max| max - min_length.unwrap_or(0) + 1);
    if lengths != Some(length_weights.len() as u64) {
        return Err(metadata.error(format!(
            "length_weights needs max_length and one weight per length in min_length..=max_length ({} given)",
            length_weights.len()
        )));
    }
    check_total(metadata, "length_weights", &length_weights)?;
    Ok(length_weights)
}

/// Refuses `key`'s `weights` unless their sum is a positive number that a draw can scale: not
/// all 0, not so large that it overflows, not so small (subnormal) that a draw's point, scaled
/// to it, lands on weights of 0. Only their ratios matter, so either can be scaled.
fn check_total(metadata: &Metadata, key: &str, weights: &[f64]) -> Result<(), SpecError> {
    let total: f64 = weights.iter().sum();
    let problem = match total {
        _ if total <= 0.0 => "must not all be 0",
        _ if total.is_infinite() => {
            "add up to more than the largest number: scale them down (only their ratios matter)"
        }
        _ if total < f64::MIN_POSITIVE => {
            "add up to less than the smallest normal number (2.2e-308): scale them up (only their ratios matter)"
        }
        _ => return Ok(()),
    };
    Err(metadata.error(format!("{key} {problem}")))
}

/// `digits`: 1 unless given, at most 39 (the digits of the largest 128-bit integer).
fn digits(metadata: &Metadata) -> Result<u64, SpecError> {
    let digits = metadata.count("digits")?.unwrap_or(1);
    if !(1..=39).contains(&digits) {
        return Err(metadata.error(format!("digits {digits} must be between 1 and 39")));
    }
    Ok(digits)
}

/// `unique`: true or false (the default).
fn unique(metadata: &Metadata) -> Result<bool, SpecError> {
    match metadata.text("unique") {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(metadata.error(format!("unique \"{other}\" must be true or false"))),
    }
}

/// `distribution` (uniform unless given) with the parameters it needs.
fn distribution(metadata: &Metadata, vocabulary: &Vocabulary) -> Result<Distribution, SpecError> {
    Ok(match metadata.text("distribution") {
        None | Some("uniform") => Distribution::Uniform,
        Some("zipf") => {
            if !vocabulary.is_given() {
                return Err(metadata.error("zipf needs values, cardinality or vocabulary"));
            }
            Distribution::Zipf {
                s: metadata.distribution_parameter("zipf_s")?,
            }
        }
        Some("categorical") => {
            if vocabulary.values.is_empty() {
                return Err(metadata.error("categorical needs values"));
            }
            Distribution::Categorical
        }
        Some("normal") => Distribution::Normal {
            mean: metadata
                .number("mean")?
                .ok_or_else(|| metadata.error("normal needs mean"))?
                .0,
            stddev: metadata.distribution_parameter("stddev")?,
        },
        Some("sequential") => Distribution::Sequential {
            step: metadata.number("step")?.map_or(1.0, |(step, _)| step),
        },
        Some(other) => {
            return Err(metadata.error(format!(
                "distribution \"{other}\": use uniform, zipf, categorical, normal or sequential"
            )))
        }
    })
}

/// Fails when computed values (normal, sequential) or unique ones are also given a vocabulary,
/// or unique ones a distribution.
fn refuse_conflicts(
    metadata: &Metadata,
    distribution: &Distribution,
    vocabulary: &Vocabulary,
    unique: bool,
) -> Result<(), SpecError> {
    let vocabulary_given = vocabulary.is_given();
    let computed = matches!(
        distribution,
        Distribution::Normal { .. } | Distribution::Sequential { .. }
    );
    if computed && vocabulary_given {
        return Err(metadata.error(
            "normal and sequential compute values: drop values, cardinality and vocabulary, or draw from them with uniform, zipf or categorical",
        ));
    }
    if !vocabulary.values.is_empty()
        && (metadata.text("min").is_some() || metadata.text("max").is_some())
    {
        return Err(metadata.error(
            "values lists every value a field holds: drop min and max, or draw from the range with cardinality",
        ));
    }
    if unique && (vocabulary_given || metadata.text("distribution").is_some()) {
        return Err(metadata.error(
            "unique values are neither drawn from a vocabulary nor by a distribution: drop the others",
        ));
    }
    Ok(())
}
