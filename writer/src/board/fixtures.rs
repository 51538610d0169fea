use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;

use super::FieldWriters;
use crate::encode::{ColumnEncoder, EncodePlan, LeafWriter};

/// A schema of nullable fields `f0`, `f1`, ... of these types.
pub(crate) fn schema(fields: &[DataType]) -> SchemaRef {
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, t)| Field::new(format!("f{i}"), t.clone(), true));
    Arc::new(Schema::new(fields.collect::<Vec<_>>()))
}

/// One lane per field of `schema` (each field one leaf), its writers parquet's, made by its own
/// factory.
pub(crate) fn lanes(schema: &SchemaRef) -> Vec<FieldWriters> {
    let (_, factory) = ArrowWriter::try_new(Vec::new(), SchemaRef::clone(schema), None)
        .unwrap()
        .into_serialized_writer()
        .unwrap();
    let writers = factory.create_column_writers(0).unwrap();
    let placed = writers
        .into_iter()
        .enumerate()
        .map(|(leaf, writer)| FieldWriters {
            first_leaf: leaf,
            writers: vec![LeafWriter::Arrow(writer)],
        });
    placed.collect()
}

/// The encoding plan of `schema` under parquet's default properties, with parquet's encoder for
/// every leaf, as [`lanes`] has.
pub(crate) fn plan(schema: &SchemaRef) -> Arc<EncodePlan> {
    let (file, _) = ArrowWriter::try_new(Vec::new(), SchemaRef::clone(schema), None)
        .unwrap()
        .into_serialized_writer()
        .unwrap();
    let options = ArrowWriterOptions::new();
    let plan = EncodePlan::new(
        SchemaRef::clone(schema),
        &file,
        &options,
        ColumnEncoder::ArrowRs,
    );
    Arc::new(plan.unwrap())
}

/// A one-row Int32 column holding `value`.
pub(crate) fn column(value: i32) -> ArrayRef {
    Arc::new(Int32Array::from(vec![value]))
}
