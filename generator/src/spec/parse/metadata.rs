//! A field's `metadata`, in either of its JSON forms, read into key -> text, refusing keys the
//! generator does not know.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::spec::error::{error, SpecError};

/// Keys a field's metadata may carry.
const KEYS: &[&str] = &[
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

/// The metadata `value` of the field at `path` (none: empty), each key known and given once.
pub(super) fn read_metadata(
    value: Option<&Value>,
    path: &str,
) -> Result<BTreeMap<String, String>, SpecError> {
    let mut metadata = BTreeMap::new();
    for (key, value) in metadata_pairs(value, path)? {
        if !KEYS.contains(&key.as_str()) {
            return Err(error(
                path,
                format!(
                    "unknown metadata key \"{key}\" (known: {})",
                    KEYS.join(", ")
                ),
            ));
        }
        if metadata.insert(key.clone(), value).is_some() {
            return Err(error(path, format!("metadata key \"{key}\" given twice")));
        }
    }
    Ok(metadata)
}

/// The key/value pairs of `value`, in the order given.
fn metadata_pairs(value: Option<&Value>, path: &str) -> Result<Vec<(String, String)>, SpecError> {
    match value {
        None => Ok(Vec::new()),
        // Arrow's integration form: [{"key": ..., "value": ...}, ...]
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                let key = item.get("key").and_then(Value::as_str);
                let value = item.get("value").and_then(as_text);
                key.zip(value)
                    .map(|(k, v)| (k.to_string(), v))
                    .ok_or_else(|| {
                        error(path, "metadata entries are {\"key\": ..., \"value\": ...}")
                    })
            })
            .collect(),
        // pyarrow's form: {"key": "value", ...}
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                as_text(v).map(|v| (k.clone(), v)).ok_or_else(|| {
                    error(
                        path,
                        format!("metadata \"{k}\" must be a string or a number"),
                    )
                })
            })
            .collect(),
        Some(_) => Err(error(
            path,
            "\"metadata\" must be a list of key/value pairs or an object",
        )),
    }
}

/// A metadata value as the text Arrow metadata holds: strings as they are, numbers, booleans
/// and arrays in JSON.
fn as_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(_) => Some(value.to_string()),
        _ => None,
    }
}
