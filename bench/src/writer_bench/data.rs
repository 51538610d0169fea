//! The benchmark matrix's data: parquet-ext's shapes, in batches of random size.

use std::sync::Arc;

use arrow_array::builder::{
    Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder, StructBuilder,
};
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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

    fn array(self, rows: usize, rng: &mut Xoshiro256PlusPlus) -> ArrayRef {
        let text =
            |rng: &mut Xoshiro256PlusPlus| format!("value-{}", rng.random_range(0..100_000u32));
        match self {
            Kind::Int64 => Arc::new(Int64Array::from_iter_values(
                (0..rows).map(|_| rng.random_range(0..1_000_000_000)),
            )),
            Kind::Utf8 => Arc::new(StringArray::from_iter_values((0..rows).map(|_| text(rng)))),
            Kind::ListInt32 => {
                let mut b = ListBuilder::new(Int32Builder::new());
                for _ in 0..rows {
                    (0..rng.random_range(0..5)).for_each(|_| b.values().append_value(rng.random()));
                    b.append(true);
                }
                Arc::new(b.finish())
            }
            Kind::ListUtf8 => {
                let mut b = ListBuilder::new(StringBuilder::new());
                for _ in 0..rows {
                    (0..rng.random_range(0..4)).for_each(|_| b.values().append_value(text(rng)));
                    b.append(true);
                }
                Arc::new(b.finish())
            }
            Kind::Struct => {
                let mut b = StructBuilder::new(
                    struct_fields(),
                    vec![
                        Box::new(Int64Builder::new()),
                        Box::new(StringBuilder::new()),
                        Box::new(Float64Builder::new()),
                    ],
                );
                for _ in 0..rows {
                    let i: i64 = rng.random_range(0..1_000);
                    b.field_builder::<Int64Builder>(0)
                        .expect("i")
                        .append_value(i);
                    let s = text(rng);
                    b.field_builder::<StringBuilder>(1)
                        .expect("s")
                        .append_value(s);
                    let f: f64 = rng.random();
                    b.field_builder::<Float64Builder>(2)
                        .expect("f")
                        .append_value(f);
                    b.append(true);
                }
                Arc::new(b.finish())
            }
            Kind::Boolean => Arc::new(BooleanArray::from_iter(
                (0..rows).map(|_| Some(rng.random_bool(0.5))),
            )),
        }
    }
}

/// `rows` rows of `columns` columns of `shape`, in batches of 100 to 10,000 rows.
pub fn table(
    shape: Shape,
    columns: usize,
    rows: usize,
    seed: u64,
) -> (SchemaRef, Vec<RecordBatch>) {
    let kinds: Vec<Kind> = shape
        .kinds()
        .iter()
        .copied()
        .cycle()
        .take(columns)
        .collect();
    let fields: Vec<Field> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| Field::new(format!("c{i}"), k.data_type(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut batches = Vec::new();
    let mut left = rows;
    while left > 0 {
        let size = rng.random_range(100..=10_000).min(left);
        let arrays = kinds.iter().map(|k| k.array(size, &mut rng)).collect();
        batches.push(RecordBatch::try_new(Arc::clone(&schema), arrays).expect("matching schema"));
        left -= size;
    }
    (schema, batches)
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
