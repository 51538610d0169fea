//! `write_parquet`'s `properties` dict as parquet `WriterProperties`: the same names as
//! `WriterProperties`' setters, for the whole file or, under `"columns"`, for one leaf column
//! by its dotted Parquet path (`"phones.list.item.number"`). The per-column keys are a spec
//! file's `"parquet"` keys ([`ColumnWriting`]), read and applied by the same code. Unknown
//! keys and values of the wrong type raise `ValueError` naming the key.

use arrow_schema::Schema;
use parquet::arrow::ArrowSchemaConverter;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder, WriterVersion};
use parquet::schema::types::{ColumnPath, SchemaDescriptor};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use serde_json::Value;
use shredlab_experiments::column_writing::{check_bloom_filters, check_encodings, CheckedWriting};
use shredlab_experiments::compression::CompressionSpec;
use shredlab_generator::spec::{ColumnWriting, WRITING_KEYS};

use crate::errors::{self, invalid};

/// Keys that apply only to the whole file.
const FILE_KEYS: &[&str] = &[
    "write_batch_size",
    "writer_version",
    "created_by",
    "columns",
];

/// What `write_parquet` was asked for, before the `properties` dict.
pub struct FileSettings {
    /// The `compression` argument.
    pub compression: CompressionSpec,
    /// The `row_group_rows` argument, else parquet's default.
    pub row_group_rows: Option<usize>,
}

/// `write_parquet`'s writer properties, with the column paths its `"columns"` entry names.
pub struct Properties {
    /// The writer properties.
    pub writer: WriterProperties,
    /// The dotted paths under `"columns"`.
    columns: Vec<String>,
}

impl Properties {
    /// Fails unless these properties fit the data's `schema`, checked before anything is read:
    /// every path under `"columns"` is a leaf column of it once written as Parquet (a setting
    /// for a column that is not there would silently do nothing; the error names the closest
    /// leaf), and every column's encoding is one its Parquet type has (parquet's column writer
    /// panics on any other).
    pub fn check_schema(&self, schema: &Schema) -> PyResult<()> {
        shredlab_writer::refuse_unions(schema)
            .map_err(|e| errors::parquet("cannot map the data's schema to Parquet", e))?;
        let parquet = ArrowSchemaConverter::new()
            .convert(schema)
            .map_err(|e| errors::parquet("cannot map the data's schema to Parquet", e))?;
        self.check_columns(&parquet)?;
        check_encodings(&self.writer, &parquet)
            .map_err(|e| invalid(format!("properties' encoding: {e}")))?;
        check_bloom_filters(&self.writer, &parquet)
            .map_err(|e| invalid(format!("properties' bloom filters: {e}")))
    }

    /// Fails unless every path under `"columns"` is a leaf column of `parquet`.
    fn check_columns(&self, parquet: &SchemaDescriptor) -> PyResult<()> {
        if self.columns.is_empty() {
            return Ok(());
        }
        let leaves: Vec<String> = parquet
            .columns()
            .iter()
            .map(|c| c.path().string())
            .collect();
        // Compared part by part, as the setting's `ColumnPath` is split at dots: a field name
        // with a dot in it can take no per-column setting.
        let is_leaf = |path: &String| {
            parquet.columns().iter().any(|c| {
                c.path()
                    .parts()
                    .iter()
                    .map(String::as_str)
                    .eq(path.split('.'))
            })
        };
        match self.columns.iter().find(|path| !is_leaf(path)) {
            None => Ok(()),
            Some(path) => Err(invalid(format!(
                "properties['columns']['{path}'] is not a leaf column of the data: did you mean '{}'? (the leaves: {})",
                closest(path, &leaves).unwrap_or_default(),
                leaves.join(", ")
            ))),
        }
    }
}

/// The leaf closest to `path`: one with the same last part (`"phones.number"` for
/// `"phones.list.item.number"`) if any, else the nearest by edit distance.
fn closest<'a>(path: &str, leaves: &'a [String]) -> Option<&'a str> {
    let last = path.rsplit('.').next().unwrap_or(path);
    leaves
        .iter()
        .min_by_key(|leaf| {
            let same_last = leaf.rsplit('.').next() == Some(last);
            (!same_last, strsim::levenshtein(path, leaf))
        })
        .map(String::as_str)
}

/// The writer properties of `settings` and the `properties` dict.
pub fn writer_properties(
    settings: &FileSettings,
    properties: Option<&Bound<'_, PyDict>>,
) -> PyResult<Properties> {
    let mut builder = WriterProperties::builder().set_compression(settings.compression.codec());
    if let Some(rows) = settings.row_group_rows {
        if rows == 0 {
            return Err(invalid("row_group_rows must be at least 1"));
        }
        builder = builder.set_max_row_group_row_count(Some(rows));
    }
    let mut columns = Vec::new();
    let Some(properties) = properties else {
        return Ok(Properties {
            writer: builder.build(),
            columns,
        });
    };
    // Every column's defaults, set as one group like a column's: the same checks across keys.
    let mut defaults = ColumnWriting::default();
    for (key, value) in properties.iter() {
        let key: String = key
            .extract()
            .map_err(|_| invalid("properties' keys must be strings"))?;
        builder = match key.as_str() {
            "write_batch_size" => builder.set_write_batch_size(positive(&key, &value)?),
            "writer_version" => builder.set_writer_version(writer_version(&value)?),
            "created_by" => builder.set_created_by(text(&key, &value)?),
            "columns" => column_settings(builder, &value, &mut columns)?,
            _ => {
                add_setting(&mut defaults, &key, &value, false, "properties")?;
                builder
            }
        };
    }
    Ok(Properties {
        writer: checked(defaults, "properties")?.set(builder, None).build(),
        columns,
    })
}

/// The `"columns"` entry: a dict of dotted column paths (added to `paths`) to dicts of
/// [`WRITING_KEYS`].
fn column_settings(
    mut builder: WriterPropertiesBuilder,
    value: &Bound<'_, PyAny>,
    paths: &mut Vec<String>,
) -> PyResult<WriterPropertiesBuilder> {
    let columns = value.cast::<PyDict>().map_err(|_| {
        invalid("properties['columns'] must be a dict of column paths to dicts of settings")
    })?;
    for (path, settings) in columns.iter() {
        let path: String = path
            .extract()
            .map_err(|_| invalid("properties['columns'] keys must be dotted column paths"))?;
        let settings = settings.cast::<PyDict>().map_err(|_| {
            invalid(format!(
                "properties['columns']['{path}'] must be a dict of settings"
            ))
        })?;
        let column = ColumnPath::from(path.split('.').map(str::to_string).collect::<Vec<_>>());
        let place = format!("properties['columns']['{path}']");
        paths.push(path);
        let mut writing = ColumnWriting::default();
        for (key, value) in settings.iter() {
            let key: String = key
                .extract()
                .map_err(|_| invalid(format!("{place}'s keys must be strings")))?;
            add_setting(&mut writing, &key, &value, true, &place)?;
        }
        builder = checked(writing, &place)?.set(builder, Some(&column));
    }
    Ok(builder)
}

/// Adds `key` (one of [`WRITING_KEYS`]) to `writing`: a column's (`per_column`), or every
/// column's defaults, which take no `compression` (the file's codec is an argument).
fn add_setting(
    writing: &mut ColumnWriting,
    key: &str,
    value: &Bound<'_, PyAny>,
    per_column: bool,
    place: &str,
) -> PyResult<()> {
    let name = format!("{place}['{key}']");
    let file_codec = key == "compression" && !per_column;
    if file_codec || !WRITING_KEYS.contains(&key) {
        let mut known = WRITING_KEYS.to_vec();
        if !per_column {
            known.retain(|k| *k != "compression");
            known.extend(FILE_KEYS);
        }
        let hint = match file_codec {
            true => " (the file's codec is write_parquet's compression argument)".to_string(),
            false => format!(": use one of {}", known.join(", ")),
        };
        return Err(invalid(format!("unknown setting {name}{hint}")));
    }
    writing
        .set(key, &json_value(value))
        .map_err(|message| invalid(format!("{name} {message}")))
}

/// `writing`, the settings at `place`, checked across its keys.
fn checked(writing: ColumnWriting, place: &str) -> PyResult<CheckedWriting> {
    CheckedWriting::new(writing).map_err(|message| invalid(format!("{place}: {message}")))
}

/// A setting's Python value as the JSON value a spec file would hold (`null` for any other
/// kind, which every setting refuses): one reader for both.
fn json_value(value: &Bound<'_, PyAny>) -> Value {
    // A bool is an int to Python: asked first.
    if value.is_instance_of::<PyBool>() {
        return value.extract::<bool>().map_or(Value::Null, Value::Bool);
    }
    if value.is_instance_of::<PyInt>() {
        return match (value.extract::<u64>(), value.extract::<i64>()) {
            (Ok(n), _) => Value::from(n),
            (_, Ok(n)) => Value::from(n),
            // Beyond 64 bits, which no setting takes: shown as the number it is.
            _ => value.extract::<f64>().map_or(Value::Null, Value::from),
        };
    }
    if value.is_instance_of::<PyFloat>() {
        return value.extract::<f64>().map_or(Value::Null, Value::from);
    }
    if value.is_instance_of::<PyString>() {
        return value.extract::<String>().map_or(Value::Null, Value::String);
    }
    Value::Null
}

fn positive(name: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    match value.extract::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(invalid(format!(
            "{name} must be a whole number of at least 1"
        ))),
    }
}

fn text(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    value
        .extract()
        .map_err(|_| invalid(format!("{name} must be a string")))
}

fn writer_version(value: &Bound<'_, PyAny>) -> PyResult<WriterVersion> {
    match text("properties['writer_version']", value)?.as_str() {
        "1.0" => Ok(WriterVersion::PARQUET_1_0),
        "2.0" => Ok(WriterVersion::PARQUET_2_0),
        other => Err(invalid(format!(
            "properties['writer_version'] is '{other}': use '1.0' or '2.0'"
        ))),
    }
}
