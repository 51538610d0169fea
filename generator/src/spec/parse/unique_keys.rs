//! A check that no JSON object of a spec names a key twice. serde_json keeps the last of two
//! equal keys, so `{"name": "a", "name": "b"}` would silently be a field named `b`: a spec that
//! says one thing twice is refused instead, with where the second one is.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// The start of the message of the error [`check`] gives for a repeated key.
pub(super) const REPEATED: &str = "repeated key";

/// Fails when an object of the JSON `text` holds one key twice, naming the key (serde_json's
/// error adds the line and column); also fails where `text` is not JSON.
pub(super) fn check(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<UniqueKeys>(text).map(|_| ())
}

/// A JSON value whose every object, at any depth, has distinct keys.
struct UniqueKeys;

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = UniqueKeys;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UniqueKeys, A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if keys.contains(&key) {
                return Err(de::Error::custom(format!(
                    "{REPEATED} \"{key}\" in one object"
                )));
            }
            keys.insert(key);
            map.next_value::<UniqueKeys>()?;
        }
        Ok(UniqueKeys)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UniqueKeys, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(UniqueKeys)
    }

    // Scalars hold no keys.
    fn visit_bool<E>(self, _: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_i64<E>(self, _: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_u64<E>(self, _: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_f64<E>(self, _: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_str<E>(self, _: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_twice_in_any_object_is_named_with_its_place() {
        let nested = r#"{"fields": [{"name": "a", "type": {"name": "int", "bitWidth": 8, "bitWidth": 16}}]}"#;
        let message = check(nested).unwrap_err().to_string();
        assert!(
            message.starts_with("repeated key \"bitWidth\""),
            "{message}"
        );
        assert!(message.contains("line 1"), "{message}");
        assert!(check(r#"{"a": 1, "a": 1}"#).is_err());
    }

    #[test]
    fn distinct_keys_and_repeated_values_pass() {
        let fine =
            r#"{"a": [{"b": 1}, {"b": 2}], "c": {"a": null, "d": [true, "x", -1, 1.5e300]}}"#;
        check(fine).unwrap();
        // The same key in sibling or nested objects is not a repetition.
        check(r#"{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}"#).unwrap();
    }
}
