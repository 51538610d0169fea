use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;

use super::PlacedLeaf;

/// A schema of nullable fields `f0`, `f1`, ... of these types.
pub(crate) fn schema(fields: &[DataType]) -> SchemaRef {
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, t)| Field::new(format!("f{i}"), t.clone(), true));
    Arc::new(Schema::new(fields.collect::<Vec<_>>()))
}

/// One lane per field of `schema`, its writers made by parquet's own factory.
pub(crate) fn lanes(schema: &SchemaRef) -> Vec<Vec<PlacedLeaf>> {
    let (_, factory) = ArrowWriter::try_new(Vec::new(), SchemaRef::clone(schema), None)
        .unwrap()
        .into_serialized_writer()
        .unwrap();
    let writers = factory.create_column_writers(0).unwrap();
    let placed = writers.into_iter().enumerate().map(|(leaf, writer)| {
        vec![PlacedLeaf {
            leaf,
            index_in_field: 0,
            writer,
        }]
    });
    placed.collect()
}

/// A one-row Int32 column holding `value`.
pub(crate) fn column(value: i32) -> ArrayRef {
    Arc::new(Int32Array::from(vec![value]))
}
