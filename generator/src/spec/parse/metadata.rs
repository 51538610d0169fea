//! A field's `metadata`, in either of its JSON forms, read into key -> text, refusing keys the
//! generator does not know.

use std::collections::BTreeMap;

use serde_json::Value;

use super::keys::{unknown_key, METADATA_KEYS};
use crate::spec::error::{error, SpecError};
use crate::spec::exact::{significant_digits, EXACT_FLOAT_DIGITS, ROUNDED_JSON_NUMBER};

/// Keys whose numbers are used exactly: a JSON number there must not have lost digits.
const EXACT_KEYS: &[&str] = &["min", "max"];

/// The metadata `value` of the field at `path` (none: empty), each key known and given once.
pub(super) fn read_metadata(
    value: Option<&Value>,
    path: &str,
) -> Result<BTreeMap<String, String>, SpecError> {
    let mut metadata = BTreeMap::new();
    for (key, value) in metadata_pairs(value, path)? {
        if !METADATA_KEYS.contains(&key.as_str()) {
            return Err(unknown_key(&key, METADATA_KEYS, "metadata", path));
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
                let pair = || error(path, "metadata entries are {\"key\": ..., \"value\": ...}");
                let known = |name: &String| name == "key" || name == "value";
                if item.as_object().is_some_and(|o| !o.keys().all(known)) {
                    return Err(pair());
                }
                let key = item.get("key").and_then(Value::as_str).ok_or_else(pair)?;
                let value = item.get("value").unwrap_or(&Value::Null);
                Ok((key.to_string(), as_text(key, value, path)?))
            })
            .collect(),
        // pyarrow's form: {"key": "value", ...}
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| Ok((k.clone(), as_text(k, v, path)?)))
            .collect(),
        Some(_) => Err(error(
            path,
            "\"metadata\" must be a list of key/value pairs or an object",
        )),
    }
}

/// The value of metadata `key` as the text Arrow metadata holds: strings as they are,
/// numbers, booleans and arrays in JSON. A JSON number of [`EXACT_KEYS`] that a JSON parser
/// may have rounded is refused: a string keeps every digit.
fn as_text(key: &str, value: &Value, path: &str) -> Result<String, SpecError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => {
            let text = n.to_string();
            if n.is_f64()
                && EXACT_KEYS.contains(&key)
                && significant_digits(&text) > EXACT_FLOAT_DIGITS
            {
                return Err(error(path, format!("{key} {text}: {ROUNDED_JSON_NUMBER}")));
            }
            Ok(text)
        }
        Value::Bool(b) => Ok(b.to_string()),
        Value::Array(_) => Ok(value.to_string()),
        _ => Err(error(
            path,
            format!("metadata \"{key}\" must be a string, number, boolean or array"),
        )),
    }
}
