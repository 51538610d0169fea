//! Lists where the native encoder must not lay its elements' levels out in one span: null lists
//! that cover elements (Arrow allows it; a fixed-size list's null rows always do) and
//! fixed-size lists of size 0, over enough rows (at least 64) that the spanned walk is tried.

mod common;

use std::sync::Arc;

use arrow_array::{ArrayRef, FixedSizeListArray, Int32Array, ListArray, RecordBatch};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema};
use common::encoders::{encoded, upstream};
use parquet::file::properties::WriterProperties;
use shredlab_writer::encode::ColumnEncoder;

const ROWS: usize = 300;

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Int32, true))
}

/// `ROWS` rows, every `every`th null.
fn nulls(every: usize) -> Option<NullBuffer> {
    Some(NullBuffer::from_iter((0..ROWS).map(|row| row % every != 0)))
}

fn integers(count: usize) -> ArrayRef {
    let values = (0..count as i32).map(|i| (i % 9 != 0).then_some(i));
    Arc::new(Int32Array::from_iter(values))
}

/// Checks that the list column `list` is written natively, with `ArrowWriter`'s bytes, whole
/// and sliced.
fn assert_identical(list: ArrayRef) {
    let field = Field::new("c0", list.data_type().clone(), true);
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = RecordBatch::try_new(schema.clone(), vec![list]).unwrap();
    let groups = [vec![batch.clone()], vec![batch.slice(5, ROWS - 10)]];
    let props = WriterProperties::builder().build();
    let expected = upstream(&schema, &groups, &props).unwrap();
    let (actual, native) = encoded(&schema, &groups, &props, ColumnEncoder::Native).unwrap();
    assert_eq!(native, ["c0.list.item"]);
    assert!(actual == expected, "bytes differ from ArrowWriter's");
}

#[test]
fn null_lists_that_cover_elements_are_skipped() {
    let offsets = OffsetBuffer::<i32>::from_lengths((0..ROWS).map(|row| row % 4));
    let count = offsets[ROWS] as usize;
    let list = ListArray::new(item(), offsets, integers(count), nulls(7));
    assert_identical(Arc::new(list));
}

#[test]
fn fixed_size_lists_with_null_rows() {
    let list = FixedSizeListArray::new(item(), 3, integers(3 * ROWS), nulls(5));
    assert_identical(Arc::new(list));
}

#[test]
fn fixed_size_lists_of_size_zero() {
    for validity in [None, nulls(3)] {
        let list = FixedSizeListArray::try_new_with_length(item(), 0, integers(0), validity, ROWS);
        assert_identical(Arc::new(list.unwrap()));
    }
}
