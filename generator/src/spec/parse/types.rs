//! A field's `type` object (Arrow's JSON form) read into an Arrow [`DataType`].

use std::sync::Arc;

use arrow_schema::{DataType, TimeUnit};
use serde_json::Value;

use crate::spec::error::{error, SpecError};
use crate::spec::FieldSpec;

/// The Arrow type that `type_object`, the `type` object of the field at `path`, names, over the
/// field's already read `children`.
pub(super) fn arrow_type(
    type_object: &Value,
    children: &[FieldSpec],
    path: &str,
) -> Result<DataType, SpecError> {
    let name = type_object
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| error(path, "type needs a \"name\""))?;
    match name {
        "list" | "largelist" | "fixedsizelist" | "struct" | "map" => {
            nested_type(name, type_object, children, path)
        }
        _ => {
            let data_type = leaf_type(name, type_object, path)?;
            if children.is_empty() {
                Ok(data_type)
            } else {
                Err(error(path, format!("a {name} field has no children")))
            }
        }
    }
}

/// The key type of a dictionary-encoded field: `{"indexType": {"name": "int", ...}}`.
pub(super) fn dictionary_index(dictionary: &Value, path: &str) -> Result<DataType, SpecError> {
    let index = dictionary.get("indexType").ok_or_else(|| {
        error(
            path,
            "\"dictionary\" needs an \"indexType\", e.g. {\"name\": \"int\", \"bitWidth\": 16, \"isSigned\": true}",
        )
    })?;
    match arrow_type(index, &[], path)? {
        t if t.is_dictionary_key_type() => Ok(t),
        t => Err(error(
            path,
            format!("dictionary indexType {t} must be an integer type"),
        )),
    }
}

/// A type without children, named `name`.
fn leaf_type(name: &str, type_object: &Value, path: &str) -> Result<DataType, SpecError> {
    Ok(match name {
        "null" => DataType::Null,
        "bool" => DataType::Boolean,
        "int" => integer_type(type_object, path)?,
        "floatingpoint" => float_type(type_object, path)?,
        "utf8" => DataType::Utf8,
        "largeutf8" => DataType::LargeUtf8,
        "utf8view" => DataType::Utf8View,
        "binary" => DataType::Binary,
        "largebinary" => DataType::LargeBinary,
        "binaryview" => DataType::BinaryView,
        "fixedsizebinary" => {
            DataType::FixedSizeBinary(positive_i32_attribute(type_object, "byteWidth", path)?)
        }
        "decimal" => decimal_type(type_object, path)?,
        "date" => date_type(type_object, path)?,
        "time" => match time_unit(type_object, path)? {
            unit @ (TimeUnit::Second | TimeUnit::Millisecond) => DataType::Time32(unit),
            unit @ (TimeUnit::Microsecond | TimeUnit::Nanosecond) => DataType::Time64(unit),
        },
        "timestamp" => {
            let zone = type_object
                .get("timezone")
                .and_then(Value::as_str)
                .map(Arc::from);
            DataType::Timestamp(time_unit(type_object, path)?, zone)
        }
        "interval" | "duration" => {
            return Err(error(
                path,
                format!("{name} types are not supported: Parquet has no portable form for them"),
            ))
        }
        other => {
            return Err(error(
                path,
                format!("unknown type \"{other}\" (see SPEC.md for the supported types)"),
            ))
        }
    })
}

/// A type over `children`, named `name`: a list, struct or map.
fn nested_type(
    name: &str,
    type_object: &Value,
    children: &[FieldSpec],
    path: &str,
) -> Result<DataType, SpecError> {
    match name {
        "list" => Ok(DataType::List(
            one_child(children, path, name)?.field.clone(),
        )),
        "largelist" => Ok(DataType::LargeList(
            one_child(children, path, name)?.field.clone(),
        )),
        "fixedsizelist" => {
            let size = positive_i32_attribute(type_object, "listSize", path)?;
            Ok(DataType::FixedSizeList(
                one_child(children, path, name)?.field.clone(),
                size,
            ))
        }
        "struct" => {
            if children.is_empty() {
                return Err(error(path, "a struct needs at least one child"));
            }
            Ok(DataType::Struct(
                children.iter().map(|c| c.field.clone()).collect(),
            ))
        }
        _ => map_type(type_object, children, path),
    }
}

/// `int`: signed unless `isSigned` is false, of `bitWidth` 8, 16, 32 or 64.
fn integer_type(type_object: &Value, path: &str) -> Result<DataType, SpecError> {
    let signed = type_object
        .get("isSigned")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    Ok(
        match (integer_attribute(type_object, "bitWidth", path)?, signed) {
            (8, true) => DataType::Int8,
            (16, true) => DataType::Int16,
            (32, true) => DataType::Int32,
            (64, true) => DataType::Int64,
            (8, false) => DataType::UInt8,
            (16, false) => DataType::UInt16,
            (32, false) => DataType::UInt32,
            (64, false) => DataType::UInt64,
            (bits, _) => return Err(error(path, format!("bitWidth {bits}: use 8, 16, 32 or 64"))),
        },
    )
}

/// `floatingpoint` of `precision` HALF, SINGLE or DOUBLE.
fn float_type(type_object: &Value, path: &str) -> Result<DataType, SpecError> {
    match type_object.get("precision").and_then(Value::as_str) {
        Some("HALF") => Ok(DataType::Float16),
        Some("SINGLE") => Ok(DataType::Float32),
        Some("DOUBLE") => Ok(DataType::Float64),
        other => Err(error(
            path,
            format!("precision {other:?}: use HALF, SINGLE or DOUBLE"),
        )),
    }
}

/// `decimal` of `precision` and `scale` (default 0), 128 or 256 bits wide (default 128).
fn decimal_type(type_object: &Value, path: &str) -> Result<DataType, SpecError> {
    let precision = integer_attribute(type_object, "precision", path)?;
    let scale = type_object
        .get("scale")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let bits = type_object
        .get("bitWidth")
        .and_then(Value::as_i64)
        .unwrap_or(128);
    let (limit, make): (i64, fn(u8, i8) -> DataType) = match bits {
        128 => (38, DataType::Decimal128),
        256 => (76, DataType::Decimal256),
        other => {
            return Err(error(
                path,
                format!("decimal bitWidth {other}: use 128 or 256"),
            ))
        }
    };
    if !(1..=limit).contains(&precision) {
        return Err(error(
            path,
            format!("precision {precision} must be between 1 and {limit}"),
        ));
    }
    if !(-128..=127).contains(&scale) || scale > precision {
        return Err(error(
            path,
            format!("scale {scale} must be at most the precision {precision}"),
        ));
    }
    Ok(make(precision as u8, scale as i8))
}

/// `date` in days (Date32) or milliseconds (Date64).
fn date_type(type_object: &Value, path: &str) -> Result<DataType, SpecError> {
    match type_object.get("unit").and_then(Value::as_str) {
        Some("DAY") => Ok(DataType::Date32),
        Some("MILLISECOND") => Ok(DataType::Date64),
        other => Err(error(
            path,
            format!("date unit {other:?}: use DAY or MILLISECOND"),
        )),
    }
}

/// `map` over one child, a struct of a non-nullable key and a value.
fn map_type(
    type_object: &Value,
    children: &[FieldSpec],
    path: &str,
) -> Result<DataType, SpecError> {
    let entries = one_child(children, path, "map")?;
    match entries.field.data_type() {
        DataType::Struct(fields) if fields.len() == 2 && !fields[0].is_nullable() => {
            let sorted = type_object
                .get("keysSorted")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Ok(DataType::Map(entries.field.clone(), sorted))
        }
        _ => Err(error(
            path,
            "a map's child is a struct of a non-nullable key and a value",
        )),
    }
}

/// The integer attribute `key` of `type_object`.
fn integer_attribute(type_object: &Value, key: &str, path: &str) -> Result<i64, SpecError> {
    type_object
        .get(key)
        .and_then(Value::as_i64)
        .ok_or_else(|| error(path, format!("type needs an integer \"{key}\"")))
}

/// The integer attribute `key` of `type_object`, between 1 and `i32::MAX`.
fn positive_i32_attribute(type_object: &Value, key: &str, path: &str) -> Result<i32, SpecError> {
    let value = integer_attribute(type_object, key, path)?;
    i32::try_from(value).ok().filter(|v| *v > 0).ok_or_else(|| {
        error(
            path,
            format!("{key} {value} must be between 1 and {}", i32::MAX),
        )
    })
}

/// The `unit` of a time or timestamp type.
fn time_unit(type_object: &Value, path: &str) -> Result<TimeUnit, SpecError> {
    match type_object.get("unit").and_then(Value::as_str) {
        Some("SECOND") => Ok(TimeUnit::Second),
        Some("MILLISECOND") => Ok(TimeUnit::Millisecond),
        Some("MICROSECOND") => Ok(TimeUnit::Microsecond),
        Some("NANOSECOND") => Ok(TimeUnit::Nanosecond),
        other => Err(error(
            path,
            format!("unit {other:?}: use SECOND, MILLISECOND, MICROSECOND or NANOSECOND"),
        )),
    }
}

/// The one child of a `what` (a list or a map).
fn one_child<'a>(
    children: &'a [FieldSpec],
    path: &str,
    what: &str,
) -> Result<&'a FieldSpec, SpecError> {
    match children {
        [child] => Ok(child),
        _ => Err(error(
            path,
            format!("a {what} needs exactly one child, its item field"),
        )),
    }
}
