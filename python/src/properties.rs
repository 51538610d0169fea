//! `write_parquet`'s `properties` dict as parquet `WriterProperties`: the same names as
//! `WriterProperties`' setters, for the whole file or, under `"columns"`, for one leaf column
//! by its dotted Parquet path (`"phones.list.item.number"`). Unknown keys and values of the
//! wrong type raise `ValueError` naming the key.

use arrow_schema::Schema;
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::Compression;
use parquet::file::properties::{
    EnabledStatistics, WriterProperties, WriterPropertiesBuilder, WriterVersion,
};
use parquet::schema::types::ColumnPath;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use shredlab_experiments::compression::CompressionSpec;

use crate::errors::{self, invalid};

/// Keys that apply to the whole file or to one column.
const COLUMN_KEYS: &[&str] = &[
    "dictionary",
    "dictionary_page_size",
    "data_page_size",
    "data_page_row_count_limit",
    "statistics",
    "bloom_filter",
    "compression",
];

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
    /// Fails unless every path under `"columns"` is a leaf column of `schema` once written as
    /// Parquet: a setting for a column that is not there would silently do nothing. The error
    /// names the closest leaf.
    pub fn check_columns(&self, schema: &Schema) -> PyResult<()> {
        if self.columns.is_empty() {
            return Ok(());
        }
        let parquet = ArrowSchemaConverter::new()
            .convert(schema)
            .map_err(|e| errors::parquet("cannot map the data's schema to Parquet", e))?;
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
    for (key, value) in properties.iter() {
        let key: String = key
            .extract()
            .map_err(|_| invalid("properties' keys must be strings"))?;
        builder = match key.as_str() {
            "write_batch_size" => builder.set_write_batch_size(positive(&key, &value)?),
            "writer_version" => builder.set_writer_version(writer_version(&value)?),
            "created_by" => builder.set_created_by(text(&key, &value)?),
            "columns" => column_settings(builder, &value, &mut columns)?,
            _ => column_setting(builder, &key, &value, None, "properties")?,
        };
    }
    Ok(Properties {
        writer: builder.build(),
        columns,
    })
}

/// The `"columns"` entry: a dict of dotted column paths (added to `paths`) to dicts of
/// [`COLUMN_KEYS`].
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
        for (key, value) in settings.iter() {
            let key: String = key
                .extract()
                .map_err(|_| invalid(format!("{place}'s keys must be strings")))?;
            builder = column_setting(builder, &key, &value, Some(column.clone()), &place)?;
        }
    }
    Ok(builder)
}

/// One of [`COLUMN_KEYS`], for `column` or, without one, for every column.
fn column_setting(
    builder: WriterPropertiesBuilder,
    key: &str,
    value: &Bound<'_, PyAny>,
    column: Option<ColumnPath>,
    place: &str,
) -> PyResult<WriterPropertiesBuilder> {
    let name = format!("{place}['{key}']");
    Ok(match (key, column) {
        ("dictionary", None) => builder.set_dictionary_enabled(flag(&name, value)?),
        ("dictionary", Some(c)) => builder.set_column_dictionary_enabled(c, flag(&name, value)?),
        ("dictionary_page_size", None) => {
            builder.set_dictionary_page_size_limit(positive(&name, value)?)
        }
        ("dictionary_page_size", Some(c)) => {
            builder.set_column_dictionary_page_size_limit(c, positive(&name, value)?)
        }
        ("data_page_size", None) => builder.set_data_page_size_limit(positive(&name, value)?),
        ("data_page_size", Some(c)) => {
            builder.set_column_data_page_size_limit(c, positive(&name, value)?)
        }
        ("data_page_row_count_limit", None) => {
            builder.set_data_page_row_count_limit(positive(&name, value)?)
        }
        ("data_page_row_count_limit", Some(c)) => {
            builder.set_column_data_page_row_count_limit(c, positive(&name, value)?)
        }
        ("statistics", None) => builder.set_statistics_enabled(statistics(&name, value)?),
        ("statistics", Some(c)) => {
            builder.set_column_statistics_enabled(c, statistics(&name, value)?)
        }
        ("bloom_filter", None) => builder.set_bloom_filter_enabled(flag(&name, value)?),
        ("bloom_filter", Some(c)) => {
            builder.set_column_bloom_filter_enabled(c, flag(&name, value)?)
        }
        // The file's codec is write_parquet's `compression` argument; a column may differ.
        ("compression", Some(c)) => builder.set_column_compression(c, codec(&name, value)?),
        (_, column) => {
            let mut known = COLUMN_KEYS.to_vec();
            if column.is_none() {
                known.retain(|k| *k != "compression");
                known.extend(FILE_KEYS);
            }
            let hint = if key == "compression" {
                " (the file's codec is write_parquet's compression argument)".to_string()
            } else {
                format!(": use one of {}", known.join(", "))
            };
            return Err(invalid(format!("unknown setting {name}{hint}")));
        }
    })
}

fn flag(name: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    value
        .extract()
        .map_err(|_| invalid(format!("{name} must be True or False")))
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

fn statistics(name: &str, value: &Bound<'_, PyAny>) -> PyResult<EnabledStatistics> {
    match text(name, value)?.as_str() {
        "none" => Ok(EnabledStatistics::None),
        "chunk" => Ok(EnabledStatistics::Chunk),
        "page" => Ok(EnabledStatistics::Page),
        other => Err(invalid(format!(
            "{name} is '{other}': use 'none', 'chunk' or 'page'"
        ))),
    }
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

/// A codec name as `pipeline --compression` takes it.
pub fn codec(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Compression> {
    let spec: CompressionSpec = text(name, value)?
        .parse()
        .map_err(|e| invalid(format!("{name}: {e}")))?;
    Ok(spec.codec())
}
