//! Reading a spec file: the JSON document and its fields. A field's type is read by
//! `types`, its metadata by `metadata` and turned into generator parameters by `params`.

mod metadata;
mod params;
mod types;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field};
use serde_json::Value;

use super::error::{error, SpecError};
use super::{FieldSpec, Spec};

pub use params::WORD_LISTS;

/// Reads and validates a spec.
pub fn parse(text: &str) -> Result<Spec, SpecError> {
    let root: Value =
        serde_json::from_str(text).map_err(|e| error("spec", format!("not valid JSON: {e}")))?;
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
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, f)| read_field(f, &format!("fields[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Spec { fields })
}

/// The field at `path`, its children first.
fn read_field(value: &Value, path: &str) -> Result<FieldSpec, SpecError> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| error(path, "needs a \"name\" string"))?;
    let nullable = match value.get("nullable") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(error(path, "\"nullable\" must be true or false")),
    };
    let children = read_children(value, path)?;
    let data_type = field_type(value, &children, path)?;
    let metadata = metadata::read_metadata(value.get("metadata"), path)?;
    let params = params::read_params(&metadata, nullable, path)?;
    let field = Arc::new(
        Field::new(name, data_type, nullable)
            .with_metadata(metadata.into_iter().collect::<HashMap<_, _>>()),
    );
    Ok(FieldSpec {
        path: path.to_string(),
        field,
        params,
        children,
    })
}

/// The `children` of the field `value` at `path`.
fn read_children(value: &Value, path: &str) -> Result<Vec<FieldSpec>, SpecError> {
    match value.get("children") {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, c)| read_field(c, &format!("{path}.children[{i}]")))
            .collect(),
        Some(_) => Err(error(path, "\"children\" must be an array")),
    }
}

/// The Arrow type of the field `value` at `path`: its `type`, dictionary-encoded when it has a
/// `dictionary`.
fn field_type(value: &Value, children: &[FieldSpec], path: &str) -> Result<DataType, SpecError> {
    let type_object = value
        .get("type")
        .ok_or_else(|| error(path, "needs a \"type\" object, e.g. {\"name\": \"utf8\"}"))?;
    Ok(match value.get("dictionary") {
        None => types::arrow_type(type_object, children, path)?,
        Some(dictionary) => DataType::Dictionary(
            Box::new(types::dictionary_index(dictionary, path)?),
            Box::new(types::arrow_type(type_object, children, path)?),
        ),
    })
}

#[cfg(test)]
mod tests {
    use arrow_schema::TimeUnit;

    use super::*;
    use crate::spec::Distribution;

    fn one(field: &str) -> Result<Spec, SpecError> {
        parse(&format!("{{\"fields\": [{{\"name\": \"id\", \"type\": {{\"name\": \"int\", \"bitWidth\": 64}}}}, {field}]}}"))
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
                r#"{"name": "x", "type": {"name": "decimal", "precision": 40}}"#,
                "precision 40 must be between 1 and 38",
            ),
            (
                r#"{"name": "x", "type": {"name": "duration", "unit": "SECOND"}}"#,
                "duration types are not supported",
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
