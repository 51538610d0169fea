//! The keys that say where a field's vocabulary comes from: `values` (with their `weights`),
//! `cardinality`, or the shipped word lists of `vocabulary`.

use serde_json::Value;

use super::{check_total, Metadata, MAX_CARDINALITY, WORD_LISTS};
use crate::spec::error::SpecError;
use crate::spec::exact::{significant_digits, EXACT_FLOAT_DIGITS, ROUNDED_JSON_NUMBER};

/// Where a field's vocabulary comes from: at most one of `values` (with their `weights`),
/// `cardinality` and the word lists of `vocabulary`.
pub(super) struct Vocabulary {
    pub cardinality: Option<u64>,
    pub values: Vec<String>,
    pub weights: Vec<f64>,
    pub word_lists: Vec<String>,
}

impl Vocabulary {
    /// How many of the three sources are given.
    fn sources_given(&self) -> usize {
        [
            !self.values.is_empty(),
            self.cardinality.is_some(),
            !self.word_lists.is_empty(),
        ]
        .into_iter()
        .filter(|&given| given)
        .count()
    }

    /// Whether values are drawn from a vocabulary.
    pub fn is_given(&self) -> bool {
        self.sources_given() > 0
    }
}

/// `cardinality`, `values` and `weights`, and `vocabulary`: one of them at most.
pub(super) fn read_vocabulary(metadata: &Metadata) -> Result<Vocabulary, SpecError> {
    let cardinality = cardinality(metadata)?;
    let values = values(metadata)?;
    let weights = value_weights(metadata, values.len())?;
    let word_lists = word_lists(metadata)?;
    let vocabulary = Vocabulary {
        cardinality,
        values,
        weights,
        word_lists,
    };
    if vocabulary.sources_given() > 1 {
        return Err(metadata.error("give only one of values, cardinality and vocabulary"));
    }
    Ok(vocabulary)
}

/// `cardinality`: at least 1, at most [`MAX_CARDINALITY`].
fn cardinality(metadata: &Metadata) -> Result<Option<u64>, SpecError> {
    let cardinality = metadata.count("cardinality")?;
    if cardinality == Some(0) {
        return Err(metadata.error("cardinality must be at least 1"));
    }
    if let Some(n) = cardinality.filter(|n| *n > MAX_CARDINALITY) {
        return Err(metadata.error(format!(
            "cardinality {n} is above {MAX_CARDINALITY}: vocabularies are held in memory; for more distinct values draw without one (uniform), or use sequential or unique"
        )));
    }
    Ok(cardinality)
}

/// `values`: strings as they are, numbers and booleans as their JSON text. NULLs come from
/// `null_probability`, and a JSON number that may have lost digits is refused.
fn values(metadata: &Metadata) -> Result<Vec<String>, SpecError> {
    metadata
        .json_array("values")?
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s),
            Value::Number(n) => {
                let text = n.to_string();
                if n.is_f64() && significant_digits(&text) > EXACT_FLOAT_DIGITS {
                    return Err(metadata.error(format!("values[{i}] {text}: {ROUNDED_JSON_NUMBER}")));
                }
                Ok(text)
            }
            Value::Bool(b) => Ok(b.to_string()),
            Value::Null => Err(metadata.error(format!(
                "values[{i}] is null: values lists what a field holds; NULLs come from null_probability"
            ))),
            _ => Err(metadata.error(format!(
                "values[{i}] must be a string, number or boolean"
            ))),
        })
        .collect()
}

/// `weights`: one per value, not all 0.
fn value_weights(metadata: &Metadata, value_count: usize) -> Result<Vec<f64>, SpecError> {
    let weights = metadata.weights("weights", "weight")?;
    if !weights.is_empty() && weights.len() != value_count {
        return Err(metadata.error(format!(
            "{} weights for {value_count} values",
            weights.len()
        )));
    }
    if !weights.is_empty() {
        check_total(metadata, "weights", &weights)?;
    }
    Ok(weights)
}

/// `vocabulary`: one word list's name, or a JSON array of them, each one of [`WORD_LISTS`].
fn word_lists(metadata: &Metadata) -> Result<Vec<String>, SpecError> {
    let word_lists: Vec<String> = match metadata.text("vocabulary") {
        None => Vec::new(),
        Some(text) if text.starts_with('[') => metadata
            .json_array("vocabulary")?
            .into_iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            })
            .collect(),
        Some(text) => vec![text.to_string()],
    };
    if let Some(unknown) = word_lists
        .iter()
        .find(|v| !WORD_LISTS.contains(&v.as_str()))
    {
        return Err(metadata.error(format!(
            "vocabulary \"{unknown}\" is not shipped (shipped: {})",
            WORD_LISTS.join(", ")
        )));
    }
    Ok(word_lists)
}
