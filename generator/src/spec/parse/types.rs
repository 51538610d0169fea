//! A field's `type` object (Arrow's JSON form) read into an Arrow [`DataType`]: every
//! attribute known, of its JSON type, and within what Arrow and Parquet take.

use std::str::FromStr;
use std::sync::Arc;

use arrow_array::timezone::Tz;
use arrow_schema::{DataType, TimeUnit};
use serde_json::Value;

use super::keys::refuse_unknown;
use crate::spec::error::{error, SpecError};
use crate::spec::FieldSpec;

/// The time units of times and timestamps, by their names in Arrow's JSON form.
const TIME_UNITS: &[(&str, TimeUnit)] = &[
    ("SECOND", TimeUnit::Second),
    ("MILLISECOND", TimeUnit::Millisecond),
    ("MICROSECOND", TimeUnit::Microsecond),
    ("NANOSECOND", TimeUnit::Nanosecond),
];

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
        .ok_or_else(|| error(path, "type needs a \"name\", e.g. {\"name\": \"utf8\"}"))?;
    if let Some(object) = type_object.as_object() {
        refuse_unknown(object, attributes(name), &format!("{name} type"), path)?;
    }
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

/// The key type of a dictionary-encoded field: `{"indexType": {"name": "int", ...}}`, with an
/// integer `id` and `isOrdered` false if given (Parquet keeps no dictionary order).
pub(super) fn dictionary_index(dictionary: &Value, path: &str) -> Result<DataType, SpecError> {
    if dictionary.get("id").is_some_and(|id| !id.is_i64()) {
        return Err(error(path, "dictionary id must be an integer"));
    }
    match dictionary.get("isOrdered") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => {
            return Err(error(
                path,
                "dictionary isOrdered true is not kept: Parquet stores no dictionary order; drop isOrdered",
            ))
        }
        Some(_) => return Err(error(path, "dictionary isOrdered must be true or false")),
    }
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
        "date" => choice(
            type_object,
            "unit",
            &[("DAY", DataType::Date32), ("MILLISECOND", DataType::Date64)],
            path,
        )?,
        "time" => time_type(type_object, path)?,
        "timestamp" => DataType::Timestamp(
            choice(type_object, "unit", TIME_UNITS, path)?,
            time_zone(type_object, path)?,
        ),
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
    let signed = optional(
        type_object,
        "isSigned",
        Value::as_bool,
        "true or false",
        path,
    )?
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
    choice(
        type_object,
        "precision",
        &[
            ("HALF", DataType::Float16),
            ("SINGLE", DataType::Float32),
            ("DOUBLE", DataType::Float64),
        ],
        path,
    )
}

/// `decimal` of `precision` and `scale` (default 0, at most the precision: Parquet takes no
/// negative scale), 128 or 256 bits wide (default 128).
fn decimal_type(type_object: &Value, path: &str) -> Result<DataType, SpecError> {
    let precision = integer_attribute(type_object, "precision", path)?;
    let scale = optional(type_object, "scale", Value::as_i64, "an integer", path)?.unwrap_or(0);
    let bits = optional(type_object, "bitWidth", Value::as_i64, "128 or 256", path)?.unwrap_or(128);
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
    if !(0..=precision).contains(&scale) {
        return Err(error(
            path,
            format!("scale {scale} must be between 0 and the precision {precision}"),
        ));
    }
    Ok(make(precision as u8, scale as i8))
}

/// `time` in a unit, 32 bits wide for seconds and milliseconds, 64 for finer units.
fn time_type(type_object: &Value, path: &str) -> Result<DataType, SpecError> {
    let unit = choice(type_object, "unit", TIME_UNITS, path)?;
    let (bits, data_type) = match unit {
        TimeUnit::Second | TimeUnit::Millisecond => (32, DataType::Time32(unit)),
        TimeUnit::Microsecond | TimeUnit::Nanosecond => (64, DataType::Time64(unit)),
    };
    match optional(type_object, "bitWidth", Value::as_i64, "32 or 64", path)? {
        Some(given) if given != bits => Err(error(
            path,
            format!("time bitWidth {given} does not fit its unit: 32 for SECOND and MILLISECOND, 64 for MICROSECOND and NANOSECOND"),
        )),
        _ => Ok(data_type),
    }
}

/// The `timezone` of a timestamp, if given: an IANA name or a fixed offset, as Arrow reads
/// them.
fn time_zone(type_object: &Value, path: &str) -> Result<Option<Arc<str>>, SpecError> {
    let Some(zone) = optional(type_object, "timezone", Value::as_str, "a string", path)? else {
        return Ok(None);
    };
    match Tz::from_str(zone) {
        Ok(_) => Ok(Some(Arc::from(zone))),
        Err(_) => Err(error(
            path,
            format!("timezone \"{zone}\" is neither an IANA time zone name (such as \"Europe/Paris\") nor an offset (such as \"+02:00\")"),
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
    // Arrow's maps hold no NULL entry; `nullable` defaults to true, so a map written without
    // it would fail only when its first batch is assembled.
    if entries.field.is_nullable() {
        return Err(error(
            &entries.path,
            "a map's entries are never NULL: set \"nullable\": false on the entries struct (a NULL map is the map field's own null_probability)",
        ));
    }
    match entries.field.data_type() {
        DataType::Struct(fields) if fields.len() == 2 && !fields[0].is_nullable() => {
            let sorted = optional(
                type_object,
                "keysSorted",
                Value::as_bool,
                "true or false",
                path,
            )?
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
    optional(type_object, key, Value::as_i64, "an integer", path)?
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

/// The attribute `key` of `type_object`, if given, read by `read`; `expected` says what it
/// must be otherwise.
fn optional<'a, T>(
    type_object: &'a Value,
    key: &str,
    read: fn(&'a Value) -> Option<T>,
    expected: &str,
    path: &str,
) -> Result<Option<T>, SpecError> {
    match type_object.get(key) {
        None => Ok(None),
        Some(value) => read(value)
            .map(Some)
            .ok_or_else(|| error(path, format!("\"{key}\" {value} must be {expected}"))),
    }
}

/// The string attribute `key` of `type_object`, one of the names of `options`, as its value.
fn choice<T: Clone>(
    type_object: &Value,
    key: &str,
    options: &[(&str, T)],
    path: &str,
) -> Result<T, SpecError> {
    let names: Vec<&str> = options.iter().map(|(name, _)| *name).collect();
    let given = type_object.get(key);
    given
        .and_then(Value::as_str)
        .and_then(|name| options.iter().find(|(n, _)| *n == name))
        .map(|(_, value)| value.clone())
        .ok_or_else(|| {
            let given = given.map_or("missing".to_string(), Value::to_string);
            error(path, format!("{key} {given}: use {}", names.join(", ")))
        })
}

/// The attributes a type named `name` may have besides its name.
fn attributes(name: &str) -> &'static [&'static str] {
    match name {
        "int" => &["name", "bitWidth", "isSigned"],
        "floatingpoint" => &["name", "precision"],
        "decimal" => &["name", "precision", "scale", "bitWidth"],
        "date" | "interval" | "duration" => &["name", "unit"],
        "time" => &["name", "unit", "bitWidth"],
        "timestamp" => &["name", "unit", "timezone"],
        "fixedsizebinary" => &["name", "byteWidth"],
        "fixedsizelist" => &["name", "listSize"],
        "map" => &["name", "keysSorted"],
        _ => &["name"],
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
