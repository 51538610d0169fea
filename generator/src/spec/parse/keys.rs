//! The keys a spec may use: a field's, a type's and its metadata's, which metadata keys a
//! field's type and distribution use, and the known key nearest to a misspelt one. A key that
//! is unknown or unused is refused, since a spec that ignored it would generate other data
//! than it says.

use std::collections::BTreeMap;

use arrow_schema::DataType;
use serde_json::{Map, Value};

use crate::spec::error::{error, SpecError};
use crate::spec::tree::Params;

/// Keys of a field object.
pub(super) const FIELD_KEYS: &[&str] = &[
    "name",
    "type",
    "nullable",
    "children",
    "dictionary",
    "metadata",
    "parquet",
];

/// Keys of a field's `dictionary` object.
pub(super) const DICTIONARY_KEYS: &[&str] = &["id", "indexType", "isOrdered"];

/// Metadata keys.
pub(super) const METADATA_KEYS: &[&str] = &[
    "null_probability",
    "distribution",
    "zipf_s",
    "mean",
    "stddev",
    "step",
    "min",
    "max",
    "min_length",
    "max_length",
    "cardinality",
    "values",
    "weights",
    "vocabulary",
    "length_weights",
    "prefix",
    "digits",
    "unique",
    "true_probability",
];

/// Keys of every field that draws values: the distribution and its vocabulary.
const DRAWN: &[&str] = &["distribution", "zipf_s", "values", "weights", "cardinality"];

/// Keys that only numbers use besides [`DRAWN`].
const NUMBER: &[&str] = &["min", "max", "mean", "stddev", "step"];

/// Keys that only strings and binaries use besides [`DRAWN`].
const BYTES: &[&str] = &[
    "min",
    "step",
    "vocabulary",
    "min_length",
    "max_length",
    "length_weights",
    "prefix",
    "digits",
    "unique",
];

/// Keys of lists and maps.
const LENGTHS: &[&str] = &["min_length", "max_length", "length_weights"];

/// Metadata keys that only one distribution uses, and which.
const DISTRIBUTION_KEYS: &[(&str, &str)] = &[
    ("zipf_s", "zipf"),
    ("weights", "categorical"),
    ("mean", "normal"),
    ("stddev", "normal"),
    ("step", "sequential"),
    ("digits", "sequential"),
];

/// Fails unless every key of `object`, the `what` at `path`, is one of `known`; the error
/// names the nearest known key.
pub(super) fn refuse_unknown(
    object: &Map<String, Value>,
    known: &[&str],
    what: &str,
    path: &str,
) -> Result<(), SpecError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => Err(unknown_key(key, known, what, path)),
    }
}

/// The error for `key`, not one of the `known` keys of a `what`.
pub(super) fn unknown_key(key: &str, known: &[&str], what: &str, path: &str) -> SpecError {
    let hint = match nearest(key, known) {
        Some(near) => format!("did you mean \"{near}\"?"),
        None => format!("known: {}", known.join(", ")),
    };
    error(path, format!("unknown {what} key \"{key}\": {hint}"))
}

/// The known key within two edits of `key` (ignoring case), the nearest first.
fn nearest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let key = key.to_lowercase();
    known
        .iter()
        .map(|k| (strsim::levenshtein(&key, &k.to_lowercase()), *k))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k)
}

/// What kind of field a type makes, as far as metadata keys go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Lists and maps: their lengths.
    Lists,
    /// Fixed-size lists, structs and null fields: no values of their own.
    Fixed,
    Boolean,
    /// Strings and binaries.
    Bytes,
    /// Numbers, dates, times and timestamps.
    Number,
}

impl Class {
    /// The class of `data_type` (of its values, for a dictionary).
    fn of(data_type: &DataType) -> Self {
        match data_type {
            DataType::Dictionary(_, value_type) => Self::of(value_type),
            DataType::List(_) | DataType::LargeList(_) | DataType::Map(..) => Self::Lists,
            DataType::FixedSizeList(..) | DataType::Struct(_) | DataType::Null => Self::Fixed,
            DataType::Boolean => Self::Boolean,
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_) => Self::Bytes,
            _ => Self::Number,
        }
    }

    /// Whether such fields use the metadata `key`.
    fn uses(self, key: &str) -> bool {
        let lists: &[&[&str]] = match self {
            Self::Lists => &[LENGTHS],
            Self::Fixed => &[],
            Self::Boolean => &[DRAWN, &["true_probability"]],
            Self::Bytes => &[DRAWN, BYTES],
            Self::Number => &[DRAWN, NUMBER],
        };
        key == "null_probability" || lists.iter().any(|keys| keys.contains(&key))
    }

    /// What such fields are called.
    fn name(self) -> &'static str {
        match self {
            Self::Lists => "lists and maps",
            Self::Fixed => "fixed-size lists, structs and null fields",
            Self::Boolean => "booleans",
            Self::Bytes => "strings and binaries",
            Self::Number => "numbers, dates and times",
        }
    }
}

/// Fails when `metadata` gives the field of `data_type` at `path` a key its type or its
/// distribution does not use.
pub(super) fn refuse_unused(
    metadata: &BTreeMap<String, String>,
    data_type: &DataType,
    path: &str,
) -> Result<(), SpecError> {
    let class = Class::of(data_type);
    let distribution = metadata
        .get("distribution")
        .map_or("uniform", String::as_str);
    for key in metadata.keys().map(String::as_str) {
        if !class.uses(key) {
            return Err(error(
                path,
                format!("{key} does not apply to {}: drop it", class.name()),
            ));
        }
        if let Some((_, needs)) = DISTRIBUTION_KEYS.iter().find(|(k, _)| *k == key) {
            if *needs != distribution {
                return Err(error(
                    path,
                    format!("{key} is a parameter of distribution {needs}, and this field's is {distribution}: set \"distribution\": \"{needs}\" or drop {key}"),
                ));
            }
        }
    }
    if class == Class::Bytes {
        refuse_unused_by_strings(metadata, distribution, path)?;
    }
    Ok(())
}

/// Fails when the unique values of the fixed-size binary field of `data_type` at `path` would
/// be cut to its width: each is the prefix then 16 hex digits, and cut shorter they repeat.
pub(super) fn refuse_cut_unique(
    params: &Params,
    data_type: &DataType,
    path: &str,
) -> Result<(), SpecError> {
    let needed = params.prefix.len() + 16;
    match data_type {
        DataType::FixedSizeBinary(width) if params.unique && (*width as usize) < needed => Err(error(
            path,
            format!("unique fixedsizebinary values are their prefix and 16 hex digits: byteWidth {width} cuts them, and cut values repeat; set byteWidth to at least {needed}, or drop unique"),
        )),
        _ => Ok(()),
    }
}

/// Fails when a string or binary field is given `min` (the start of sequential strings) or
/// `prefix` (of sequential and unique ones) without drawing such values, or lengths for values
/// whose length they do not set: sequential, unique, listed or word-list values.
fn refuse_unused_by_strings(
    metadata: &BTreeMap<String, String>,
    distribution: &str,
    path: &str,
) -> Result<(), SpecError> {
    let sequential = distribution == "sequential";
    let unique = metadata.get("unique").is_some_and(|u| u == "true");
    if metadata.contains_key("min") && !sequential {
        return Err(error(
            path,
            "min of a string is where sequential strings start: set \"distribution\": \"sequential\" or drop min",
        ));
    }
    if metadata.contains_key("prefix") && !sequential && !unique {
        return Err(error(
            path,
            "prefix is put before sequential or unique strings: set \"distribution\": \"sequential\" or \"unique\": true, or drop prefix",
        ));
    }
    let own_length = if sequential {
        Some("sequential values")
    } else if unique {
        Some("unique values")
    } else if metadata.contains_key("values") {
        Some("listed values")
    } else if metadata.contains_key("vocabulary") {
        Some("word-list values")
    } else {
        None
    };
    let length_key = LENGTHS.iter().find(|k| metadata.contains_key(**k));
    if let (Some(values), Some(key)) = (own_length, length_key) {
        return Err(error(
            path,
            format!("{key} sets the length of random values and of a generated vocabulary's; {values} have their own: drop {key}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_key_finds_its_nearest() {
        assert_eq!(nearest("nulable", FIELD_KEYS), Some("nullable"));
        assert_eq!(nearest("Nullable", FIELD_KEYS), Some("nullable"));
        assert_eq!(nearest("zipfs", METADATA_KEYS), Some("zipf_s"));
        assert_eq!(nearest("colour", METADATA_KEYS), None);
    }
}
