//! The validated spec: its fields, each with its Arrow field, generator parameters and
//! children. `parse` reads one from a file; [`Spec::from_schema`] makes one for a schema one
//! already has.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};

use super::writing::ColumnWriting;
use super::Number;

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
    /// Smallest value (numbers, dates, timestamps as their integer representation, decimals
    /// in their units), exactly as given.
    pub min: Option<Number>,
    /// Largest value.
    pub max: Option<Number>,
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
    /// Shipped word lists (`first_names`, `last_names`; the `vocabulary` key): a value is one
    /// word drawn from each, joined by spaces.
    pub word_lists: Vec<String>,
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
            word_lists: Vec::new(),
            length_weights: Vec::new(),
            prefix: String::new(),
            digits: 1,
            unique: false,
            true_probability: 0.5,
        }
    }
}

impl Params {
    /// Whether values are drawn from a finite vocabulary, given by `values`, `cardinality` or
    /// `word_lists`, rather than computed.
    pub fn draws_from_vocabulary(&self) -> bool {
        !self.values.is_empty() || self.cardinality.is_some() || !self.word_lists.is_empty()
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
    /// How the writer is asked to write its leaf columns (its `"parquet"` object).
    pub writing: ColumnWriting,
}

/// The writer settings of one leaf column, its own over those of the fields it is inside.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafWriting {
    /// Where the field that gives the leaf its settings is in the file (the leaf's own place
    /// if none does), for error messages.
    pub path: String,
    /// The settings.
    pub writing: ColumnWriting,
}

/// A whole validated spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The top-level columns.
    pub fields: Vec<FieldSpec>,
    /// Whether the generator stores the types Parquet has no form for as the types that keep
    /// their meaning there, with the same values: timestamps and times in seconds as
    /// milliseconds, `Date64` as `Date32` (see [`crate::spec::parquet_type`]). [`parse`]
    /// sets it, so a spec file's columns read back as what they are; [`Spec::from_schema`]
    /// does not, so the batches have the schema given.
    ///
    /// [`parse`]: crate::spec::parse
    pub parquet_types: bool,
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
        Self {
            fields,
            parquet_types: false,
        }
    }

    /// Every leaf column's writer settings, in the order of the Parquet schema's leaves (the
    /// fields depth first); a leaf no field gives settings to has empty ones.
    pub fn leaf_writings(&self) -> Vec<LeafWriting> {
        let mut leaves = Vec::new();
        let outer = LeafWriting {
            path: String::new(),
            writing: ColumnWriting::default(),
        };
        for field in &self.fields {
            collect_leaf_writings(field, &outer, &mut leaves);
        }
        leaves
    }
}

/// The leaf writings of `field`, inside fields whose settings are `outer`, added to `leaves`.
fn collect_leaf_writings(field: &FieldSpec, outer: &LeafWriting, leaves: &mut Vec<LeafWriting>) {
    let here = match field.writing.is_empty() {
        true => outer.clone(),
        false => LeafWriting {
            path: field.path.clone(),
            writing: field.writing.within(&outer.writing),
        },
    };
    if field.children.is_empty() {
        leaves.push(LeafWriting {
            path: match here.path.is_empty() {
                true => field.path.clone(),
                false => here.path,
            },
            writing: here.writing,
        });
        return;
    }
    for child in &field.children {
        collect_leaf_writings(child, &here, leaves);
    }
}

/// The spec of `field` at `path` and of its children, `params` called on each field in
/// depth-first order (a map's entries struct after its key and value).
fn from_field(
    field: &Arc<Field>,
    path: &str,
    map_key: bool,
    params: &mut impl FnMut(&Field) -> Params,
) -> FieldSpec {
    let mut chosen = params(field);
    if map_key || matches!(field.data_type(), DataType::Dictionary(..)) {
        give_default_vocabulary(&mut chosen, field);
    }
    let is_map = matches!(field.data_type(), DataType::Map(..));
    let children = child_fields(field.data_type())
        .iter()
        .enumerate()
        .map(|(i, child)| {
            let child_path = format!("{path}.children[{i}]");
            match child.data_type() {
                DataType::Struct(pair) if is_map => map_entries(child, pair, child_path, params),
                _ => from_field(child, &child_path, false, params),
            }
        })
        .collect();
    FieldSpec {
        path: path.to_string(),
        field: field.clone(),
        params: chosen,
        children,
        writing: ColumnWriting::default(),
    }
}

/// Gives `params` of a field whose values must come from a vocabulary one, when they name
/// none and are not unique: 16 entries, 2 for booleans.
fn give_default_vocabulary(params: &mut Params, field: &Field) {
    if params.draws_from_vocabulary() || params.unique {
        return;
    }
    let boolean = field.data_type() == &DataType::Boolean;
    params.distribution = Distribution::Uniform;
    params.cardinality = Some(if boolean { 2 } else { 16 });
}

/// The fields nested directly in a field of `data_type`, in order.
fn child_fields(data_type: &DataType) -> Vec<Arc<Field>> {
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => vec![f.clone()],
        DataType::Struct(fields) => fields.iter().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The spec of a map's `entries` struct of key and value (`pair`) at `path`: the key, its
/// first field, is a map key.
fn map_entries(
    entries: &Arc<Field>,
    pair: &Fields,
    path: String,
    params: &mut impl FnMut(&Field) -> Params,
) -> FieldSpec {
    let children = pair
        .iter()
        .enumerate()
        .map(|(j, f)| from_field(f, &format!("{path}.children[{j}]"), j == 0, params))
        .collect();
    FieldSpec {
        path,
        field: entries.clone(),
        params: params(entries),
        children,
        writing: ColumnWriting::default(),
    }
}
