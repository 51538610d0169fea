//! View arrays (`Utf8View`, `BinaryView`), flat and inside a list, on the native encoder's own
//! pages: values inline and in several data buffers, nulls, sliced arrays, with the dictionary
//! on and off and page limits small enough to cut pages inside a mini-batch; the same bytes as
//! `ArrowWriter`. An Arrow dictionary of views stays with parquet.

mod common;

use std::sync::Arc;

use arrow_array::builder::{BinaryViewBuilder, StringViewBuilder};
use arrow_array::{
    Array, ArrayRef, DictionaryArray, Int8Array, ListArray, RecordBatch, StringViewArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use common::encoders::{encoded, upstream};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use shredlab_writer::encode::ColumnEncoder;

const ROWS: usize = 4_000;

/// Row `row`'s value: every ninth null, short ones inline, every fifth one long (kept in a
/// data buffer), from 700 distinct values.
fn word(row: usize) -> Option<String> {
    let n = row * 7_919 % 700;
    (!row.is_multiple_of(9)).then(|| match n % 5 {
        0 => format!("a value long enough to live in a data buffer, number {n}"),
        _ => format!("v{n}"),
    })
}

fn schema() -> SchemaRef {
    let item = Arc::new(Field::new("item", DataType::Utf8View, true));
    Arc::new(Schema::new(vec![
        Field::new("text", DataType::Utf8View, true),
        Field::new("bytes", DataType::BinaryView, true),
        Field::new("texts", DataType::List(item), true),
    ]))
}

fn batch() -> RecordBatch {
    // Small blocks: the long values spread over many data buffers.
    let mut text = StringViewBuilder::new().with_fixed_block_size(1_024);
    let mut bytes = BinaryViewBuilder::new().with_fixed_block_size(1_024);
    for row in 0..ROWS {
        text.append_option(word(row));
        bytes.append_option(word(row + 3).map(String::into_bytes));
    }
    let lengths = || (0..ROWS).map(|row| row % 4);
    let items = StringViewArray::from_iter((0..lengths().sum()).map(|i| word(i * 3)));
    let item = Arc::new(Field::new("item", DataType::Utf8View, true));
    let nulls = NullBuffer::from_iter((0..ROWS).map(|row| row % 11 != 0));
    let offsets = OffsetBuffer::from_lengths(lengths());
    let texts = ListArray::new(item, offsets, Arc::new(items), Some(nulls));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(text.finish()),
        Arc::new(bytes.finish()),
        Arc::new(texts),
    ];
    RecordBatch::try_new(schema(), columns).unwrap()
}

#[test]
fn view_arrays_on_native_pages_are_arrow_writer_s() {
    let batch = batch();
    let groups = vec![
        vec![batch.slice(5, 1_500), batch.slice(1_505, 995)],
        vec![batch.slice(2_500, 1_500)],
    ];
    for (dictionary, dictionary_limit, page_limit) in [
        (true, 1 << 20, 1 << 20),
        (true, 2_000, 700),
        (false, 1 << 20, 300),
    ] {
        let props = WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .set_dictionary_page_size_limit(dictionary_limit)
            .set_data_page_size_limit(page_limit)
            .set_write_batch_size(256)
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_statistics_truncate_length(Some(10))
            .build();
        let case = format!("dictionary {dictionary}, limits {dictionary_limit}/{page_limit}");
        let expected = upstream(&schema(), &groups, &props).unwrap();
        let (actual, native) = encoded(&schema(), &groups, &props, ColumnEncoder::Native).unwrap();
        assert_eq!(native, ["text", "bytes", "texts.list.item"], "{case}");
        assert!(actual == expected, "bytes differ: {case}");
    }
}

#[test]
fn a_dictionary_of_views_stays_with_arrow_rs() {
    let values = Arc::new(StringViewArray::from_iter_values(["a", "b", "c"]));
    let keys = Int8Array::from_iter((0..100).map(|i| (i % 7 != 0).then_some((i % 3) as i8)));
    let keyed = DictionaryArray::try_new(keys, values).unwrap();
    let field = Field::new("keyed", keyed.data_type().clone(), true);
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(keyed)]).unwrap();
    let props = WriterProperties::builder().build();
    let groups = vec![vec![batch]];
    let (actual, native) = encoded(&schema, &groups, &props, ColumnEncoder::Native).unwrap();
    assert!(native.is_empty(), "{native:?}");
    assert!(actual == upstream(&schema, &groups, &props).unwrap());
}
