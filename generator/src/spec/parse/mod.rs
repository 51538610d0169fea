//! Reading a spec file: the JSON document and its fields. A field's keys are checked by
//! `keys`, its type read by `types`, its metadata by `metadata` and turned into generator
//! parameters by `params`.

mod keys;
mod metadata;
mod params;
mod types;
mod unique_keys;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field};
use serde_json::{Map, Value};

use super::error::{error, SpecError};
use super::writing::{ColumnWriting, WRITING_KEYS};
use super::{FieldSpec, Spec};
use keys::{refuse_unknown, DICTIONARY_KEYS, FIELD_KEYS};

pub use params::WORD_LISTS;

/// How deep fields may nest: a top-level field is at level 0, its children at level 1. pyarrow
/// reads Parquet schemas at most 100 levels deep, and every level of lists and maps takes two;
/// arrow-rs reads an embedded Arrow schema at most about 60 levels deep.
pub const MAX_NESTING: usize = 49;

/// Reads and validates a spec.
pub fn parse(text: &str) -> Result<Spec, SpecError> {
    // A byte order mark, which some editors put first, is not JSON, but says nothing either.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // serde_json keeps the last of two equal keys: a key said twice is refused, not dropped.
    unique_keys::check(text).map_err(json_error)?;
    let root: Value = serde_json::from_str(text).map_err(json_error)?;
    let fields = root
        .get("fields")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            error(
                "spec",
                "needs a \"fields\" array (Arrow's JSON schema form)",
            )
        })?;
    if fields.is_empty() {
        return Err(error("fields", "needs at least one field"));
    }
    Ok(Spec {
        fields: read_fields(fields, "fields", 0)?,
        parquet_types: true,
    })
}

/// The error for a text serde_json does not read. It stops at 128 nested arrays and objects,
/// which a spec only reaches with fields nested far beyond [`MAX_NESTING`].
fn json_error(e: serde_json::Error) -> SpecError {
    let message = e.to_string();
    if message.starts_with(unique_keys::REPEATED) {
        return error("spec", format!("{message}: keep one of them"));
    }
    match message.strip_prefix("recursion limit exceeded") {
        Some(place) => error(
            "spec",
            format!("fields nest deeper than the {MAX_NESTING} levels a spec may have (JSON too deep{place})"),
        ),
        None => error("spec", format!("not valid JSON: {message}")),
    }
}

/// The fields `items` at `path[i]`, `level` deep, their names distinct.
fn read_fields(items: &[Value], path: &str, level: usize) -> Result<Vec<FieldSpec>, SpecError> {
    let fields = items
        .iter()
        .enumerate()
        .map(|(i, f)| read_field(f, &format!("{path}[{i}]"), level))
        .collect::<Result<Vec<_>, _>>()?;
    // The first field of each name, by name: a spec of many thousand side-by-side fields is
    // checked in one pass, not by comparing each field with all before it.
    let mut firsts = HashMap::with_capacity(fields.len());
    for field in &fields {
        if let Some(first) = firsts.insert(field.field.name(), field) {
            return Err(error(
                &field.path,
                format!(
                    "name \"{}\" is already the name of {}: fields side by side need distinct names",
                    field.field.name(),
                    first.path
                ),
            ));
        }
    }
    Ok(fields)
}

/// The field at `path`, `level` deep, its children first.
fn read_field(value: &Value, path: &str, level: usize) -> Result<FieldSpec, SpecError> {
    let object = value
        .as_object()
        .ok_or_else(|| error(path, "a field is an object with a \"name\" and a \"type\""))?;
    refuse_unknown(object, FIELD_KEYS, "field", path)?;
    if level > MAX_NESTING {
        return Err(error(
            path,
            format!("nested {level} levels deep, beyond the {MAX_NESTING} a spec may have: Parquet readers refuse deeper schemas"),
        ));
    }
    let name = match object.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        Some(Value::String(_)) => return Err(error(path, "\"name\" must not be empty")),
        _ => return Err(error(path, "needs a \"name\" string")),
    };
    let nullable = match object.get("nullable") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(error(path, "\"nullable\" must be true or false")),
    };
    let children = read_children(object, path, level)?;
    let data_type = field_type(object, &children, path)?;
    if data_type == DataType::Null && !nullable {
        return Err(error(
            path,
            "a null field holds only NULLs: make it nullable, or give it another type",
        ));
    }
    let metadata = metadata::read_metadata(object.get("metadata"), path)?;
    keys::refuse_unused(&metadata, &data_type, path)?;
    let params = params::read_params(&metadata, nullable, path)?;
    keys::refuse_cut_unique(&params, &data_type, path)?;
    let writing = read_writing(object.get("parquet"), path)?;
    let field = Arc::new(
        Field::new(name, data_type, nullable)
            .with_metadata(metadata.into_iter().collect::<HashMap<_, _>>()),
    );
    Ok(FieldSpec {
        path: path.to_string(),
        field,
        params,
        children,
        writing,
    })
}

/// The field's `"parquet"` writer settings (none without one), its keys checked like the
/// field's own.
fn read_writing(value: Option<&Value>, path: &str) -> Result<ColumnWriting, SpecError> {
    let Some(value) = value else {
        return Ok(ColumnWriting::default());
    };
    if let Some(object) = value.as_object() {
        refuse_unknown(object, WRITING_KEYS, "parquet", path)?;
    }
    ColumnWriting::read(value).map_err(|(key, message)| match key {
        Some(key) => error(path, format!("parquet \"{key}\" {message}")),
        None => error(path, message),
    })
}

/// The `children` of the field `object` at `path`, `level` deep.
fn read_children(
    object: &Map<String, Value>,
    path: &str,
    level: usize,
) -> Result<Vec<FieldSpec>, SpecError> {
    match object.get("children") {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => read_fields(items, &format!("{path}.children"), level + 1),
        Some(_) => Err(error(path, "\"children\" must be an array")),
    }
}

/// The Arrow type of the field `object` at `path`: its `type`, dictionary-encoded when it has a
/// `dictionary`.
fn field_type(
    object: &Map<String, Value>,
    children: &[FieldSpec],
    path: &str,
) -> Result<DataType, SpecError> {
    let type_object = object
        .get("type")
        .ok_or_else(|| error(path, "needs a \"type\" object, e.g. {\"name\": \"utf8\"}"))?;
    Ok(match object.get("dictionary") {
        None => types::arrow_type(type_object, children, path)?,
        Some(dictionary) => {
            if let Some(dictionary) = dictionary.as_object() {
                refuse_unknown(dictionary, DICTIONARY_KEYS, "dictionary", path)?;
            }
            DataType::Dictionary(
                Box::new(types::dictionary_index(dictionary, path)?),
                Box::new(types::arrow_type(type_object, children, path)?),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use arrow_schema::TimeUnit;

    use super::*;
    use crate::spec::{Distribution, StatisticsLevel, ValueEncoding};

    fn one(field: &str) -> Result<Spec, SpecError> {
        parse(&format!("{{\"fields\": [{{\"name\": \"id\", \"type\": {{\"name\": \"int\", \"bitWidth\": 64}}}}, {field}]}}"))
    }

    #[test]
    fn a_byte_order_mark_before_the_json_is_skipped() {
        let text = r#"{"fields": [{"name": "x", "type": {"name": "utf8"}}]}"#;
        let with_mark = format!("\u{feff}{text}");
        assert_eq!(parse(&with_mark).unwrap(), parse(text).unwrap());
    }

    /// A key said twice in a field, its type or its metadata is refused with its place, where
    /// serde_json alone would keep the last one.
    #[test]
    fn a_key_given_twice_in_an_object_is_refused() {
        for field in [
            r#"{"name": "a", "name": "b", "type": {"name": "utf8"}}"#,
            r#"{"name": "a", "type": {"name": "int", "bitWidth": 8, "bitWidth": 64}}"#,
            r#"{"name": "a", "type": {"name": "utf8"}, "metadata": {"min_length": 1, "min_length": 9}}"#,
        ] {
            let message = one(field).unwrap_err().to_string();
            assert!(message.contains("repeated key"), "{message}");
            assert!(message.contains("line 1 column"), "{message}");
            assert!(message.ends_with("keep one of them"), "{message}");
        }
    }

    #[test]
    fn reads_nested_types_and_both_metadata_forms() {
        let spec = parse(
            r#"{"fields": [
                {"name": "ts", "nullable": false, "type": {"name": "timestamp", "unit": "MICROSECOND", "timezone": "UTC"},
                 "metadata": [{"key": "distribution", "value": "sequential"}, {"key": "step", "value": "1000"}]},
                {"name": "attrs", "type": {"name": "list"}, "metadata": {"min_length": 0, "max_length": 5},
                 "children": [{"name": "item", "type": {"name": "struct"}, "children": [
                    {"name": "key", "nullable": false, "type": {"name": "utf8"},
                     "metadata": {"distribution": "zipf", "zipf_s": 1.1, "cardinality": 1000}},
                    {"name": "value", "type": {"name": "decimal", "precision": 12, "scale": 2},
                     "metadata": {"null_probability": 0.1, "distribution": "normal", "mean": 10, "stddev": 2}}]}]}
            ]}"#,
        )
        .unwrap();
        assert_eq!(spec.fields.len(), 2);
        assert_eq!(
            spec.fields[0].field.data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        assert_eq!(
            spec.fields[0].params.distribution,
            Distribution::Sequential { step: 1000.0 }
        );
        let item = &spec.fields[1].children[0];
        assert!(matches!(item.field.data_type(), DataType::Struct(f) if f.len() == 2));
        assert_eq!(
            item.children[0].params.distribution,
            Distribution::Zipf { s: 1.1 }
        );
        assert_eq!(item.children[1].params.null_probability, 0.1);
        assert_eq!(spec.fields[1].params.max_length, Some(5));
    }

    /// A field's `"parquet"` settings reach every leaf inside it, a leaf's own winning, each
    /// with the place of the field that gave it its settings.
    #[test]
    fn parquet_settings_reach_their_leaves_the_innermost_winning() {
        let spec = parse(
            r#"{"fields": [
                {"name": "id", "type": {"name": "int", "bitWidth": 64}, "parquet": {"encoding": "delta_binary_packed"}},
                {"name": "tags", "type": {"name": "list"}, "parquet": {"dictionary": false},
                 "children": [{"name": "item", "type": {"name": "utf8"}, "parquet": {"statistics": "none"}}]},
                {"name": "s", "type": {"name": "struct"}, "parquet": {"statistics": "chunk"}, "children": [
                    {"name": "a", "type": {"name": "int", "bitWidth": 32}},
                    {"name": "b", "type": {"name": "utf8"}, "parquet": {"statistics": "page"}}]},
                {"name": "plain", "type": {"name": "bool"}}
            ]}"#,
        )
        .unwrap();
        let leaves = spec.leaf_writings();
        let places: Vec<&str> = leaves.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            places,
            [
                "fields[0]",
                "fields[1].children[0]",
                "fields[2]",
                "fields[2].children[1]",
                "fields[3]"
            ]
        );
        assert_eq!(
            leaves[0].writing.encoding,
            Some(ValueEncoding::DeltaBinaryPacked)
        );
        assert_eq!(leaves[1].writing.dictionary, Some(false));
        assert_eq!(leaves[1].writing.statistics, Some(StatisticsLevel::None));
        assert_eq!(leaves[2].writing.statistics, Some(StatisticsLevel::Chunk));
        assert_eq!(leaves[3].writing.statistics, Some(StatisticsLevel::Page));
        assert!(leaves[4].writing.is_empty());
    }

    #[test]
    fn bad_specs_name_the_field_and_the_fix() {
        let cases = [
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"distribution": "zipf", "zipf_s": 0, "cardinality": 3}}"#,
                "fields[1]: zipf_s must be > 0",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"null_probability": 1.5}}"#,
                "fields[1]: null_probability 1.5 must be in [0, 1]",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"cardinality": 0}}"#,
                "fields[1]: cardinality must be at least 1",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"cardinality": 1000000000}}"#,
                "fields[1]: cardinality 1000000000 is above 4194304",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"colour": "red"}}"#,
                "fields[1]: unknown metadata key \"colour\"",
            ),
            (
                r#"{"name": "x", "type": {"name": "int", "bitWidth": 32}, "metadata": {"min": 5, "max": 1}}"#,
                "fields[1]: min 5 is above max 1",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"max_length": 99999999999}}"#,
                "fields[1]: max_length must be at most",
            ),
            (
                r#"{"name": "x", "type": {"name": "fixedsizebinary", "byteWidth": 15}, "metadata": {"min_length": 4294967297}}"#,
                "fields[1]: min_length must be at most 4294967295",
            ),
            (
                r#"{"name": "x", "type": {"name": "quaternion"}}"#,
                "fields[1]: unknown type \"quaternion\"",
            ),
            (
                r#"{"name": "x", "type": {"name": "list"}, "children": [{"name": "item", "type": {"name": "int", "bitWidth": 12}}]}"#,
                "fields[1].children[0]: bitWidth 12",
            ),
            (
                r#"{"name": "x", "type": {"name": "list"}}"#,
                "fields[1]: a list needs exactly one child",
            ),
            (
                r#"{"name": "x", "nullable": false, "type": {"name": "utf8"}, "metadata": {"null_probability": 0.5}}"#,
                "not nullable",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"distribution": "categorical", "values": "[\"a\"]", "weights": "[1, 2]"}}"#,
                "2 weights for 1 values",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"distribution": "categorical", "values": ["a", "b"], "weights": [1e308, 1e308]}}"#,
                "fields[1]: weights add up to more than the largest number",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"min_length": 1, "max_length": 2, "length_weights": [1e-320, 0]}}"#,
                "fields[1]: length_weights add up to less than the smallest normal number",
            ),
            (
                r#"{"name": "x", "type": {"name": "fixedsizebinary", "byteWidth": 8}, "metadata": {"unique": true}}"#,
                "fields[1]: unique fixedsizebinary values are their prefix and 16 hex digits: byteWidth 8 cuts them",
            ),
            (
                r#"{"name": "x", "type": {"name": "decimal", "precision": 40}}"#,
                "precision 40 must be between 1 and 38",
            ),
            (
                r#"{"name": "x", "type": {"name": "duration", "unit": "SECOND"}}"#,
                "duration types are not supported",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "parquet": {"dictonary": false}}"#,
                "fields[1]: unknown parquet key \"dictonary\": did you mean \"dictionary\"?",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "parquet": {"statistics": "all"}}"#,
                "fields[1]: parquet \"statistics\" is 'all': use 'none', 'chunk' or 'page'",
            ),
            (
                r#"{"name": "x", "type": {"name": "utf8"}, "parquet": true}"#,
                "fields[1]: \"parquet\" must be an object",
            ),
        ];
        for (field, expected) in cases {
            let message = one(field).unwrap_err().to_string();
            assert!(message.contains(expected), "{field}: got {message}");
        }
        assert!(parse("[]")
            .unwrap_err()
            .to_string()
            .contains("\"fields\" array"));
        assert!(parse("{")
            .unwrap_err()
            .to_string()
            .contains("not valid JSON"));
    }
}
