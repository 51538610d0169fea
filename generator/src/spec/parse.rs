//! The spec file's JSON, read into a validated tree.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, TimeUnit};
use serde_json::Value;
use thiserror::Error;

/// A spec that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{path}: {message}")]
pub struct SpecError {
    /// Where in the file, e.g. `fields[2].children[0]`.
    pub path: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// A [`SpecError`] at `path`.
pub(super) fn error(path: &str, message: impl Into<String>) -> SpecError {
    SpecError {
        path: path.to_string(),
        message: message.into(),
    }
}

/// How a column's values are drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    /// Every value in `[min, max]` equally likely.
    Uniform,
    /// Rank `k` of `cardinality` with probability proportional to `1 / k^s`.
    Zipf {
        /// The exponent, > 0.
        s: f64,
    },
    /// One of `values`, with `weights` (equal when absent).
    Categorical,
    /// Normal with this mean and standard deviation, clamped to `[min, max]`.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation, > 0.
        stddev: f64,
    },
    /// `min + row * step`: sorted keys and timestamps.
    Sequential {
        /// Increment per row.
        step: f64,
    },
}

/// The generator parameters of one field (its metadata).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Chance that a value is NULL, in [0, 1] (0 for non-nullable fields).
    pub null_probability: f64,
    /// How values are drawn.
    pub distribution: Distribution,
    /// Smallest value (numbers, dates, timestamps as their integer representation).
    pub min: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
    /// Shortest string or binary, or list length.
    pub min_length: Option<u64>,
    /// Longest string or binary, or list length.
    pub max_length: Option<u64>,
    /// Distinct values to draw from (Zipf ranks, vocabulary size).
    pub cardinality: Option<u64>,
    /// Explicit values (categorical).
    pub values: Vec<String>,
    /// Weights of `values`.
    pub weights: Vec<f64>,
    /// Shipped word lists (`first_names`, `last_names`): a value is one word drawn from each,
    /// joined by spaces.
    pub vocabulary: Vec<String>,
    /// Weights of the lengths `min_length..=max_length` (lists, maps, strings, binaries).
    pub length_weights: Vec<f64>,
    /// Text put before sequential and unique strings.
    pub prefix: String,
    /// Sequential strings: zero-padded to this many digits.
    pub digits: u64,
    /// Strings and binaries distinct across the whole dataset.
    pub unique: bool,
    /// Chance that a boolean is true.
    pub true_probability: f64,
}

impl Default for Params {
    /// Uniform values over the type's default range, no NULLs.
    fn default() -> Self {
        Self {
            null_probability: 0.0,
            distribution: Distribution::Uniform,
            min: None,
            max: None,
            min_length: None,
            max_length: None,
            cardinality: None,
            values: Vec::new(),
            weights: Vec::new(),
            vocabulary: Vec::new(),
            length_weights: Vec::new(),
            prefix: String::new(),
            digits: 1,
            unique: false,
            true_probability: 0.5,
        }
    }
}

impl Params {
    /// Whether values are drawn from a finite vocabulary (`values`, `cardinality` or
    /// `vocabulary`), rather than computed.
    pub fn has_vocabulary(&self) -> bool {
        !self.values.is_empty() || self.cardinality.is_some() || !self.vocabulary.is_empty()
    }
}

/// One field of the spec, its children resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec {
    /// Where it is in the file, e.g. `fields[2].children[0]`, for error messages.
    pub path: String,
    /// The Arrow field.
    pub field: Arc<Field>,
    /// Its generator parameters.
    pub params: Params,
    /// Children (lists, structs, maps), in order.
    pub children: Vec<FieldSpec>,
}

/// A whole validated spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The top-level columns.
    pub fields: Vec<FieldSpec>,
}

impl Spec {
    /// A spec for an Arrow schema one already has, `params` choosing each field's parameters.
    /// Map keys and dictionary-encoded fields given no vocabulary get one (16 entries, 2 for
    /// booleans), since their values must be drawn from one.
    pub fn from_schema(schema: &Schema, mut params: impl FnMut(&Field) -> Params) -> Self {
        let fields = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| from_field(f, &format!("fields[{i}]"), false, &mut params))
            .collect();
        Self { fields }
    }
}

fn from_field(
    field: &Arc<Field>,
    path: &str,
    map_key: bool,
    params: &mut impl FnMut(&Field) -> Params,
) -> FieldSpec {
    let mut chosen = params(field);
    let needs_vocabulary = map_key || matches!(field.data_type(), DataType::Dictionary(..));
    if needs_vocabulary && !chosen.has_vocabulary() && !chosen.unique {
        let boolean = field.data_type() == &DataType::Boolean;
        chosen.distribution = Distribution::Uniform;
        chosen.cardinality = Some(if boolean { 2 } else { 16 });
    }
    let is_map = matches!(field.data_type(), DataType::Map(..));
    let children: Vec<Arc<Field>> = match field.data_type() {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => vec![f.clone()],
        DataType::Struct(fields) => fields.iter().cloned().collect(),
        _ => Vec::new(),
    };
    let children = children
        .iter()
        .enumerate()
        .map(|(i, child)| {
            let child_path = format!("{path}.children[{i}]");
            let entries = is_map.then(|| child.data_type());
            let grandchildren: Vec<FieldSpec> = match entries {
                Some(DataType::Struct(pair)) => pair
                    .iter()
                    .enumerate()
                    .map(|(j, f)| {
                        from_field(f, &format!("{child_path}.children[{j}]"), j == 0, params)
                    })
                    .collect(),
                _ => return from_field(child, &child_path, false, params),
            };
            FieldSpec {
                path: child_path,
                field: child.clone(),
                params: params(child),
                children: grandchildren,
            }
        })
        .collect();
    FieldSpec {
        path: path.to_string(),
        field: field.clone(),
        params: chosen,
        children,
    }
}

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

/// The largest vocabulary `cardinality` may ask for: each is held in memory with a guide table
/// of 8 entries per value.
pub const MAX_CARDINALITY: u64 = 1 << 22;

/// The shipped word lists `vocabulary` may name.
pub const WORD_LISTS: &[&str] = &["first_names", "last_names"];

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
        .map(|(i, f)| field(f, &format!("fields[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Spec { fields })
}

fn field(value: &Value, path: &str) -> Result<FieldSpec, SpecError> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| error(path, "needs a \"name\" string"))?;
    let nullable = match value.get("nullable") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(error(path, "\"nullable\" must be true or false")),
    };
    let children = match value.get("children") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, c)| field(c, &format!("{path}.children[{i}]")))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(error(path, "\"children\" must be an array")),
    };
    let kind = value
        .get("type")
        .ok_or_else(|| error(path, "needs a \"type\" object, e.g. {\"name\": \"utf8\"}"))?;
    let data_type = match value.get("dictionary") {
        None => data_type(kind, &children, path)?,
        Some(dictionary) => DataType::Dictionary(
            Box::new(dictionary_index(dictionary, path)?),
            Box::new(data_type(kind, &children, path)?),
        ),
    };
    let metadata = metadata(value.get("metadata"), path)?;
    let params = params(&metadata, nullable, path)?;
    let field = Arc::new(
        Field::new(name, data_type, nullable).with_metadata(
            metadata
                .into_iter()
                .collect::<std::collections::HashMap<_, _>>(),
        ),
    );
    Ok(FieldSpec {
        path: path.to_string(),
        field,
        params,
        children,
    })
}

/// The key type of a dictionary-encoded field: `{"indexType": {"name": "int", ...}}`.
fn dictionary_index(dictionary: &Value, path: &str) -> Result<DataType, SpecError> {
    let index = dictionary.get("indexType").ok_or_else(|| {
        error(
            path,
            "\"dictionary\" needs an \"indexType\", e.g. {\"name\": \"int\", \"bitWidth\": 16, \"isSigned\": true}",
        )
    })?;
    match data_type(index, &[], path)? {
        t if t.is_dictionary_key_type() => Ok(t),
        t => Err(error(
            path,
            format!("dictionary indexType {t} must be an integer type"),
        )),
    }
}

fn integer(kind: &Value, key: &str, path: &str) -> Result<i64, SpecError> {
    kind.get(key)
        .and_then(Value::as_i64)
        .ok_or_else(|| error(path, format!("type needs an integer \"{key}\"")))
}

fn time_unit(kind: &Value, path: &str) -> Result<TimeUnit, SpecError> {
    match kind.get("unit").and_then(Value::as_str) {
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

fn data_type(kind: &Value, children: &[FieldSpec], path: &str) -> Result<DataType, SpecError> {
    let name = kind
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| error(path, "type needs a \"name\""))?;
    let leaf = |t: DataType| {
        if children.is_empty() {
            Ok(t)
        } else {
            Err(error(path, format!("a {name} field has no children")))
        }
    };
    match name {
        "null" => leaf(DataType::Null),
        "bool" => leaf(DataType::Boolean),
        "int" => {
            let signed = kind
                .get("isSigned")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            leaf(match (integer(kind, "bitWidth", path)?, signed) {
                (8, true) => DataType::Int8,
                (16, true) => DataType::Int16,
                (32, true) => DataType::Int32,
                (64, true) => DataType::Int64,
                (8, false) => DataType::UInt8,
                (16, false) => DataType::UInt16,
                (32, false) => DataType::UInt32,
                (64, false) => DataType::UInt64,
                (bits, _) => {
                    return Err(error(path, format!("bitWidth {bits}: use 8, 16, 32 or 64")))
                }
            })
        }
        "floatingpoint" => leaf(match kind.get("precision").and_then(Value::as_str) {
            Some("HALF") => DataType::Float16,
            Some("SINGLE") => DataType::Float32,
            Some("DOUBLE") => DataType::Float64,
            other => {
                return Err(error(
                    path,
                    format!("precision {other:?}: use HALF, SINGLE or DOUBLE"),
                ))
            }
        }),
        "utf8" => leaf(DataType::Utf8),
        "largeutf8" => leaf(DataType::LargeUtf8),
        "utf8view" => leaf(DataType::Utf8View),
        "binary" => leaf(DataType::Binary),
        "largebinary" => leaf(DataType::LargeBinary),
        "binaryview" => leaf(DataType::BinaryView),
        "fixedsizebinary" => {
            let width = integer(kind, "byteWidth", path)?;
            let width = i32::try_from(width)
                .ok()
                .filter(|w| *w > 0)
                .ok_or_else(|| {
                    error(
                        path,
                        format!("byteWidth {width} must be between 1 and {}", i32::MAX),
                    )
                })?;
            leaf(DataType::FixedSizeBinary(width))
        }
        "decimal" => {
            let precision = integer(kind, "precision", path)?;
            let scale = kind.get("scale").and_then(Value::as_i64).unwrap_or(0);
            let bits = kind.get("bitWidth").and_then(Value::as_i64).unwrap_or(128);
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
            leaf(make(precision as u8, scale as i8))
        }
        "date" => leaf(match kind.get("unit").and_then(Value::as_str) {
            Some("DAY") => DataType::Date32,
            Some("MILLISECOND") => DataType::Date64,
            other => {
                return Err(error(
                    path,
                    format!("date unit {other:?}: use DAY or MILLISECOND"),
                ))
            }
        }),
        "time" => {
            let unit = time_unit(kind, path)?;
            leaf(match unit {
                TimeUnit::Second | TimeUnit::Millisecond => DataType::Time32(unit),
                TimeUnit::Microsecond | TimeUnit::Nanosecond => DataType::Time64(unit),
            })
        }
        "timestamp" => {
            let zone = kind.get("timezone").and_then(Value::as_str).map(Arc::from);
            leaf(DataType::Timestamp(time_unit(kind, path)?, zone))
        }
        "interval" | "duration" => Err(error(
            path,
            format!("{name} types are not supported: Parquet has no portable form for them"),
        )),
        "list" => Ok(DataType::List(
            one_child(children, path, "list")?.field.clone(),
        )),
        "largelist" => Ok(DataType::LargeList(
            one_child(children, path, "largelist")?.field.clone(),
        )),
        "fixedsizelist" => {
            let size = integer(kind, "listSize", path)?;
            let size = i32::try_from(size).ok().filter(|s| *s > 0).ok_or_else(|| {
                error(
                    path,
                    format!("listSize {size} must be between 1 and {}", i32::MAX),
                )
            })?;
            Ok(DataType::FixedSizeList(
                one_child(children, path, "fixedsizelist")?.field.clone(),
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
        "map" => {
            let entries = one_child(children, path, "map")?;
            match entries.field.data_type() {
                DataType::Struct(fields) if fields.len() == 2 && !fields[0].is_nullable() => {
                    let sorted = kind
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
        other => Err(error(
            path,
            format!("unknown type \"{other}\" (see SPEC.md for the supported types)"),
        )),
    }
}

fn metadata(value: Option<&Value>, path: &str) -> Result<BTreeMap<String, String>, SpecError> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(_) => Some(v.to_string()),
        _ => None,
    };
    let pairs: Vec<(String, String)> = match value {
        None => Vec::new(),
        // Arrow's integration form: [{"key": ..., "value": ...}, ...]
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                let key = item.get("key").and_then(Value::as_str);
                let value = item.get("value").and_then(text);
                key.zip(value)
                    .map(|(k, v)| (k.to_string(), v))
                    .ok_or_else(|| {
                        error(path, "metadata entries are {\"key\": ..., \"value\": ...}")
                    })
            })
            .collect::<Result<_, _>>()?,
        // pyarrow's form: {"key": "value", ...}
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                text(v).map(|v| (k.clone(), v)).ok_or_else(|| {
                    error(
                        path,
                        format!("metadata \"{k}\" must be a string or a number"),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(error(
                path,
                "\"metadata\" must be a list of key/value pairs or an object",
            ))
        }
    };
    let mut metadata = BTreeMap::new();
    for (key, value) in pairs {
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

fn number(
    metadata: &BTreeMap<String, String>,
    key: &str,
    path: &str,
) -> Result<Option<f64>, SpecError> {
    metadata
        .get(key)
        .map(|v| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| error(path, format!("{key} \"{v}\" is not a finite number")))
        })
        .transpose()
}

fn count(
    metadata: &BTreeMap<String, String>,
    key: &str,
    path: &str,
) -> Result<Option<u64>, SpecError> {
    metadata
        .get(key)
        .map(|v| {
            v.parse::<u64>()
                .map_err(|_| error(path, format!("{key} \"{v}\" must be a whole number >= 0")))
        })
        .transpose()
}

fn list(
    metadata: &BTreeMap<String, String>,
    key: &str,
    path: &str,
) -> Result<Vec<Value>, SpecError> {
    match metadata.get(key) {
        None => Ok(Vec::new()),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => Ok(items),
            _ => Err(error(path, format!("{key} must be a JSON array"))),
        },
    }
}

fn params(
    metadata: &BTreeMap<String, String>,
    nullable: bool,
    path: &str,
) -> Result<Params, SpecError> {
    let null_probability = number(metadata, "null_probability", path)?.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&null_probability) {
        return Err(error(
            path,
            format!("null_probability {null_probability} must be in [0, 1]"),
        ));
    }
    if null_probability > 0.0 && !nullable {
        return Err(error(
            path,
            "null_probability > 0 on a field that is not nullable",
        ));
    }
    let (min, max) = (
        number(metadata, "min", path)?,
        number(metadata, "max", path)?,
    );
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(error(path, format!("min {lo} is above max {hi}")));
        }
    }
    let (min_length, max_length) = (
        count(metadata, "min_length", path)?,
        count(metadata, "max_length", path)?,
    );
    if let (Some(lo), Some(hi)) = (min_length, max_length) {
        if lo > hi {
            return Err(error(
                path,
                format!("min_length {lo} is above max_length {hi}"),
            ));
        }
    }
    if max_length.is_some_and(|n| n > u64::from(u32::MAX)) {
        return Err(error(
            path,
            format!("max_length must be at most {}", u32::MAX),
        ));
    }
    let cardinality = count(metadata, "cardinality", path)?;
    if cardinality == Some(0) {
        return Err(error(path, "cardinality must be at least 1"));
    }
    if let Some(n) = cardinality.filter(|n| *n > MAX_CARDINALITY) {
        return Err(error(
            path,
            format!("cardinality {n} is above {MAX_CARDINALITY}: vocabularies are held in memory; for more distinct values draw without one (uniform), or use sequential or unique"),
        ));
    }
    let values: Vec<String> = list(metadata, "values", path)?
        .into_iter()
        .map(|v| match v {
            Value::String(s) => s,
            other => other.to_string(),
        })
        .collect();
    let weights = list(metadata, "weights", path)?
        .into_iter()
        .map(|w| {
            w.as_f64()
                .filter(|w| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| error(path, format!("weight {w} must be a number >= 0")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !weights.is_empty() && weights.len() != values.len() {
        return Err(error(
            path,
            format!("{} weights for {} values", weights.len(), values.len()),
        ));
    }
    if !weights.is_empty() && weights.iter().sum::<f64>() <= 0.0 {
        return Err(error(path, "weights must not all be 0"));
    }
    let vocabulary: Vec<String> = match metadata.get("vocabulary") {
        None => Vec::new(),
        Some(text) if text.starts_with('[') => list(metadata, "vocabulary", path)?
            .into_iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            })
            .collect(),
        Some(text) => vec![text.clone()],
    };
    if let Some(unknown) = vocabulary
        .iter()
        .find(|v| !WORD_LISTS.contains(&v.as_str()))
    {
        return Err(error(
            path,
            format!(
                "vocabulary \"{unknown}\" is not shipped (shipped: {})",
                WORD_LISTS.join(", ")
            ),
        ));
    }
    let sources = [
        !values.is_empty(),
        cardinality.is_some(),
        !vocabulary.is_empty(),
    ];
    if sources.iter().filter(|&&s| s).count() > 1 {
        return Err(error(
            path,
            "give only one of values, cardinality and vocabulary",
        ));
    }
    let length_weights = list(metadata, "length_weights", path)?
        .into_iter()
        .map(|w| {
            w.as_f64()
                .filter(|w| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| error(path, format!("length weight {w} must be a number >= 0")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !length_weights.is_empty() {
        let lengths = max_length.unwrap_or(0) - min_length.unwrap_or(0) + 1;
        if max_length.is_none() || length_weights.len() as u64 != lengths {
            return Err(error(
                path,
                format!(
                    "length_weights needs max_length and one weight per length in min_length..=max_length ({} given)",
                    length_weights.len()
                ),
            ));
        }
        if length_weights.iter().sum::<f64>() <= 0.0 {
            return Err(error(path, "length_weights must not all be 0"));
        }
    }
    let digits = count(metadata, "digits", path)?.unwrap_or(1);
    if !(1..=39).contains(&digits) {
        return Err(error(
            path,
            format!("digits {digits} must be between 1 and 39"),
        ));
    }
    let unique = match metadata.get("unique").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(error(
                path,
                format!("unique \"{other}\" must be true or false"),
            ))
        }
    };
    let true_probability = number(metadata, "true_probability", path)?.unwrap_or(0.5);
    if !(0.0..=1.0).contains(&true_probability) {
        return Err(error(
            path,
            format!("true_probability {true_probability} must be in [0, 1]"),
        ));
    }
    let positive = |key: &str| -> Result<f64, SpecError> {
        let value = number(metadata, key, path)?
            .ok_or_else(|| error(path, format!("distribution needs {key}")))?;
        if value > 0.0 {
            Ok(value)
        } else {
            Err(error(path, format!("{key} must be > 0")))
        }
    };
    let distribution = match metadata.get("distribution").map(String::as_str) {
        None | Some("uniform") => Distribution::Uniform,
        Some("zipf") => {
            if !sources.contains(&true) {
                return Err(error(path, "zipf needs values, cardinality or vocabulary"));
            }
            Distribution::Zipf {
                s: positive("zipf_s")?,
            }
        }
        Some("categorical") => {
            if values.is_empty() {
                return Err(error(path, "categorical needs values"));
            }
            Distribution::Categorical
        }
        Some("normal") => Distribution::Normal {
            mean: number(metadata, "mean", path)?
                .ok_or_else(|| error(path, "normal needs mean"))?,
            stddev: positive("stddev")?,
        },
        Some("sequential") => Distribution::Sequential {
            step: number(metadata, "step", path)?.unwrap_or(1.0),
        },
        Some(other) => {
            return Err(error(
                path,
                format!(
                "distribution \"{other}\": use uniform, zipf, categorical, normal or sequential"
            ),
            ))
        }
    };
    let computed = matches!(
        distribution,
        Distribution::Normal { .. } | Distribution::Sequential { .. }
    );
    if computed && sources.contains(&true) {
        return Err(error(
            path,
            "normal and sequential compute values: drop values, cardinality and vocabulary, or draw from them with uniform, zipf or categorical",
        ));
    }
    if unique && (sources.contains(&true) || metadata.contains_key("distribution")) {
        return Err(error(
            path,
            "unique values are neither drawn from a vocabulary nor by a distribution: drop the others",
        ));
    }
    Ok(Params {
        null_probability,
        distribution,
        min,
        max,
        min_length,
        max_length,
        cardinality,
        values,
        weights,
        vocabulary,
        length_weights,
        prefix: metadata.get("prefix").cloned().unwrap_or_default(),
        digits,
        unique,
        true_probability,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
