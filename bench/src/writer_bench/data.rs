//! The benchmark matrix's data: parquet-ext's shapes from the spec generator, in batches of
//! random size, and spec workloads.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use shredlab_generator::spec::{Params, Spec, SpecError, SpecGenerator, SpecPaths};

/// The column mix of a benchmark table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// Alternating Int64 and Utf8.
    Simple,
    /// Cycling Int64, Utf8, List<Int32>, List<Utf8>, Struct{Int64, Utf8, Float64}, Boolean.
    Complex,
}

impl Shape {
    /// The shape's name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Simple => "simple",
            Shape::Complex => "complex",
        }
    }

    fn kinds(self) -> &'static [Kind] {
        match self {
            Shape::Simple => &[Kind::Int64, Kind::Utf8],
            Shape::Complex => &[
                Kind::Int64,
                Kind::Utf8,
                Kind::ListInt32,
                Kind::ListUtf8,
                Kind::Struct,
                Kind::Boolean,
            ],
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Int64,
    Utf8,
    ListInt32,
    ListUtf8,
    Struct,
    Boolean,
}

fn struct_fields() -> Fields {
    Fields::from(vec![
        Field::new("i", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("f", DataType::Float64, true),
    ])
}

impl Kind {
    fn data_type(self) -> DataType {
        let item = |t| Arc::new(Field::new("item", t, true));
        match self {
            Kind::Int64 => DataType::Int64,
            Kind::Utf8 => DataType::Utf8,
            Kind::ListInt32 => DataType::List(item(DataType::Int32)),
            Kind::ListUtf8 => DataType::List(item(DataType::Utf8)),
            Kind::Struct => DataType::Struct(struct_fields()),
            Kind::Boolean => DataType::Boolean,
        }
    }
}

/// The shapes' value ranges: integers below 10^9, strings from 100,000 distinct values, lists of
/// 0 to 4 items, no NULLs.
fn params(field: &Field) -> Params {
    let mut params = Params::default();
    match field.data_type() {
        DataType::Int64 => {
            (params.min, params.max) = (Some(0i64.into()), Some(999_999_999i64.into()))
        }
        DataType::Utf8 => params.cardinality = Some(100_000),
        DataType::List(_) => params.max_length = Some(4),
        _ => {}
    }
    params
}

/// `rows` rows of `columns` columns of `shape`, in batches of 100 to 10,000 rows.
pub fn table(
    shape: Shape,
    columns: usize,
    rows: usize,
    seed: u64,
) -> (SchemaRef, Vec<RecordBatch>) {
    let fields: Vec<Field> = shape
        .kinds()
        .iter()
        .cycle()
        .take(columns)
        .enumerate()
        .map(|(i, k)| Field::new(format!("c{i}"), k.data_type(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    // The faster paths give the same rows and take a fraction of the untimed time the
    // matrix spends making its data (a 100,000-entry vocabulary read by point took a quarter
    // of a 1 M-row cell's samples).
    let generator = SpecGenerator::new(&Spec::from_schema(&schema, params), seed)
        .expect("the shapes' parameters fit their types")
        .with_paths(SpecPaths::ALL);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut batches = Vec::new();
    let mut start = 0;
    while start < rows as u64 {
        let end = (start + rng.random_range(100..=10_000)).min(rows as u64);
        batches.push(
            generator
                .batch(start..end)
                .expect("batches of at most 10,000 rows"),
        );
        start = end;
    }
    (schema, batches)
}

/// `rows` rows of the spec workload `generator`, in batches of `batch_rows`.
pub fn spec_table(
    generator: &SpecGenerator,
    rows: usize,
    batch_rows: usize,
) -> Result<(SchemaRef, Vec<RecordBatch>), SpecError> {
    generator.check_batch_rows(batch_rows)?;
    let batches = (0..rows as u64)
        .step_by(batch_rows)
        .map(|start| generator.batch(start..(start + batch_rows as u64).min(rows as u64)))
        .collect::<Result<_, _>>()?;
    Ok((generator.schema(), batches))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_the_requested_size_and_mix() {
        let (schema, batches) = table(Shape::Complex, 10, 25_000, 1);
        assert_eq!(schema.fields().len(), 10);
        assert_eq!(
            schema.field(4).data_type(),
            &DataType::Struct(struct_fields())
        );
        assert_eq!(schema.field(6).data_type(), &DataType::Int64);
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 25_000);
        assert!(batches.iter().all(|b| b.num_rows() <= 10_000));
    }
}
