//! The statistics of the native encoder's own pages are `ArrowWriter`'s, byte for byte, where
//! random data rarely goes: bounds cut inside multi-byte characters and raised past the last
//! code point or byte, integers compared unsigned, pages whose bounds rise, fall or do
//! neither, pages of nulls only and pages of empty lists, integer dictionaries that fall back
//! in the middle of a mini-batch, floats with NaNs of every kind (pages of nothing else),
//! signed zeros and infinities.

mod common;

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, Float32Array, Float64Array, Int32Array, Int64Array, ListArray,
    RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};
use common::encoders::{encoded, upstream};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::OrderedRowGroupWriter;

/// A nullable list column of `values`, `rows` rows of `lengths(row)` entries, null where
/// `null(row)`.
fn list(
    item: &FieldRef,
    values: ArrayRef,
    lengths: impl Iterator<Item = usize>,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    let offsets = OffsetBuffer::from_lengths(lengths);
    Arc::new(ListArray::new(item.clone(), offsets, values, nulls))
}

/// List lengths of `rows` rows: 0, 1, 2 in turn, and empty lists over `empty` (pages with
/// rows but no value and not all null).
fn lengths_with_empty(rows: usize, empty: Range<usize>) -> impl Iterator<Item = usize> {
    (0..rows).map(move |row| match empty.contains(&row) {
        true => 0,
        false => row % 3,
    })
}

fn schema_of(items: &[(&str, &FieldRef)]) -> SchemaRef {
    Arc::new(Schema::new(
        items
            .iter()
            .map(|(name, item)| Field::new(*name, DataType::List((*item).clone()), true))
            .collect::<Vec<_>>(),
    ))
}

/// Asserts that every leaf of `schema` gets the native encoder's own pages under `props` and
/// that the file is `ArrowWriter`'s.
fn assert_native_pages_match(schema: &SchemaRef, batch: &RecordBatch, props: &WriterProperties) {
    let options = ArrowWriterOptions::new().with_properties(props.clone());
    let writer = OrderedRowGroupWriter::try_new(Vec::new(), schema.clone(), options, 1).unwrap();
    assert_eq!(
        writer.leaf_encoders().native_pages.len(),
        schema.fields().len(),
        "every leaf takes the native pages"
    );
    let groups = vec![vec![
        batch.slice(0, 100),
        batch.slice(100, batch.num_rows() - 100),
    ]];
    let expected = upstream(schema, &groups, props).unwrap();
    let (actual, _) = encoded(schema, &groups, props, ColumnEncoder::Native).unwrap();
    assert!(actual == expected, "bytes differ under {props:?}");
}

#[test]
fn byte_array_bounds_are_cut_and_raised_as_arrow_writer_s() {
    // Multi-byte characters at every cut, characters that cannot be raised without growing
    // (U+007F, U+07FF, U+D7FF before the surrogates, U+10FFFF), bytes that overflow.
    let words = [
        "a",
        "é",
        "ab€",
        "€€€€",
        "😀😀",
        "z\u{7F}\u{7F}\u{7F}",
        "z\u{7FF}\u{7FF}",
        "\u{D7FF}\u{D7FF}",
        "\u{10FFFF}\u{10FFFF}",
        "\u{10FFFF}a\u{10FFFF}",
        "zzzzzzzzzz",
        "",
    ];
    let bytes: [&[u8]; 6] = [
        &[0xFF; 7],
        &[0x01, 0xFF, 0xFF, 0xFF],
        &[0xFE, 0xFF, 0x00],
        &[0x80, 0x81],
        &[],
        &[0xFF, 0xFF, 0x7F, 0xFF, 0xFF],
    ];
    let text_item: FieldRef = Arc::new(Field::new("item", DataType::Utf8, true));
    let byte_item: FieldRef = Arc::new(Field::new("item", DataType::Binary, true));
    let schema = schema_of(&[("text", &text_item), ("bytes", &byte_item)]);
    let rows = 600;
    let lengths = || (0..rows).map(|row| row % 3);
    let entries: usize = lengths().sum();
    // A few words per page, so each page has its own bounds.
    let texts = StringArray::from_iter(
        (0..entries).map(|i| (i % 5 != 4).then(|| words[(i / 23 + i % 2) % words.len()])),
    );
    let binaries = BinaryArray::from_iter((0..entries).map(|i| Some(bytes[(i / 61) % 6])));
    let nulls = NullBuffer::from_iter((0..rows).map(|row| row % 13 != 0));
    let columns = vec![
        list(&text_item, Arc::new(texts), lengths(), Some(nulls.clone())),
        list(&byte_item, Arc::new(binaries), lengths(), None),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    for statistics in [EnabledStatistics::Chunk, EnabledStatistics::Page] {
        for truncate in [None, Some(1), Some(2), Some(3), Some(4), Some(5), Some(6)] {
            for dictionary in [false, true] {
                let props = WriterProperties::builder()
                    .set_statistics_enabled(statistics)
                    .set_statistics_truncate_length(truncate)
                    .set_column_index_truncate_length(truncate)
                    .set_dictionary_enabled(dictionary)
                    .set_data_page_size_limit(256)
                    .set_write_batch_size(50)
                    .build();
                assert_native_pages_match(&schema, &batch, &props);
            }
        }
    }
}

#[test]
fn integer_bounds_and_boundary_orders_are_arrow_writer_s() {
    let fields: Vec<FieldRef> = [
        DataType::Int32,
        DataType::Int64,
        DataType::UInt32,
        DataType::UInt64,
    ]
    .into_iter()
    .map(|data_type| Arc::new(Field::new("item", data_type, true)))
    .collect();
    let schema = schema_of(&[
        ("signed", &fields[0]),
        ("wide", &fields[1]),
        ("unsigned", &fields[2]),
        ("unsigned_wide", &fields[3]),
    ]);
    let rows = 3_000;
    // Runs of rows with no values at all: empty lists (pages with rows but no value and not
    // all null) and null lists (pages of nulls only).
    let lengths = || lengths_with_empty(rows, 1_000..1_400);
    let nulls = NullBuffer::from_iter((0..rows).map(|row| !(2_000..2_500).contains(&row)));
    let entries: usize = lengths().sum();
    // Rising, then falling, then mixed: every boundary order, and values on both sides of
    // the signed/unsigned divide.
    let wave = |i: usize| match i {
        i if i < entries / 3 => i as i64 * 1_000_003 - 500_000_000,
        i if i < 2 * entries / 3 => -(i as i64) * 999_983,
        i => ((i * 7_919) % 1_000) as i64 - 500,
    };
    let signed = Int32Array::from_iter((0..entries).map(|i| Some(wave(i) as i32)));
    let wide = Int64Array::from_iter((0..entries).map(|i| Some(wave(i) << 24)));
    let unsigned = UInt32Array::from_iter((0..entries).map(|i| Some(wave(i) as u32)));
    let unsigned_wide = UInt64Array::from_iter((0..entries).map(|i| Some((wave(i) << 30) as u64)));
    let columns = [
        Arc::new(signed) as ArrayRef,
        Arc::new(wide),
        Arc::new(unsigned),
        Arc::new(unsigned_wide),
    ]
    .into_iter()
    .zip(&fields)
    .map(|(values, item)| list(item, values, lengths(), Some(nulls.clone())))
    .collect();
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    for statistics in [EnabledStatistics::Chunk, EnabledStatistics::Page] {
        for (page_bytes, page_rows) in [(1 << 20, 20_000), (512, 20_000), (1 << 20, 150)] {
            let props = WriterProperties::builder()
                .set_statistics_enabled(statistics)
                .set_data_page_size_limit(page_bytes)
                .set_data_page_row_count_limit(page_rows)
                .set_dictionary_enabled(false)
                .set_write_batch_size(64)
                .build();
            assert_native_pages_match(&schema, &batch, &props);
        }
    }
}

#[test]
fn integer_dictionaries_fall_back_mid_batch_with_page_statistics() {
    let item: FieldRef = Arc::new(Field::new("item", DataType::UInt32, true));
    let wide: FieldRef = Arc::new(Field::new("item", DataType::Int64, true));
    let schema = schema_of(&[("small", &item), ("wide", &wide)]);
    let rows = 2_000;
    let lengths = || (0..rows).map(|row| row % 4);
    let entries: usize = lengths().sum();
    // Few distinct values first, then ever new ones: the dictionary fills and falls back.
    let value = |i: usize| {
        if i < 300 {
            (i % 7) as i64
        } else {
            (i * 2_654_435_761 % 100_000) as i64
        }
    };
    let small = UInt32Array::from_iter((0..entries).map(|i| (i % 9 != 0).then(|| value(i) as u32)));
    let large = Int64Array::from_iter((0..entries).map(|i| Some(-value(i) << 33)));
    let nulls = NullBuffer::from_iter((0..rows).map(|row| row % 17 != 0));
    let columns = vec![
        list(&item, Arc::new(small), lengths(), Some(nulls.clone())),
        list(&wide, Arc::new(large), lengths(), Some(nulls)),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    for (dictionary_limit, batch_size) in [(64, 33), (200, 1024), (4_096, 7)] {
        let props = WriterProperties::builder()
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_dictionary_page_size_limit(dictionary_limit)
            .set_data_page_size_limit(300)
            .set_write_batch_size(batch_size)
            .build();
        assert_native_pages_match(&schema, &batch, &props);
    }
}

#[test]
fn float_bounds_nan_counts_and_boundary_orders_are_arrow_writer_s() {
    let single: FieldRef = Arc::new(Field::new("item", DataType::Float32, true));
    let double: FieldRef = Arc::new(Field::new("item", DataType::Float64, true));
    let schema = schema_of(&[("single", &single), ("double", &double)]);
    let rows = 3_000;
    let lengths = || lengths_with_empty(rows, 2_000..2_200);
    let entries: usize = lengths().sum();
    let special = [
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001),
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    // A run of NaNs of three kinds (whole pages with nothing else), specials sprinkled in,
    // then rising and falling values: every boundary order, NaN bounds among them.
    let value = |i: usize| match i {
        i if (400..800).contains(&i) => special[(i / 60) % 3],
        i if i % 11 == 0 => special[i % special.len()],
        i if i < entries / 2 => i as f64 * 0.25,
        i => -(i as f64) * 1.5,
    };
    let doubles = Float64Array::from_iter((0..entries).map(|i| (i % 13 != 0).then(|| value(i))));
    let singles = Float32Array::from_iter((0..entries).map(|i| Some(value(i) as f32)));
    let nulls = NullBuffer::from_iter((0..rows).map(|row| row % 17 != 0));
    let columns = vec![
        list(&single, Arc::new(singles), lengths(), Some(nulls.clone())),
        list(&double, Arc::new(doubles), lengths(), Some(nulls)),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    for statistics in [EnabledStatistics::Chunk, EnabledStatistics::Page] {
        for dictionary in [false, true] {
            for (page_bytes, page_rows) in [(1 << 20, 20_000), (512, 20_000), (1 << 20, 150)] {
                let props = WriterProperties::builder()
                    .set_statistics_enabled(statistics)
                    .set_dictionary_enabled(dictionary)
                    .set_dictionary_page_size_limit(2_048)
                    .set_data_page_size_limit(page_bytes)
                    .set_data_page_row_count_limit(page_rows)
                    .set_write_batch_size(64)
                    .build();
                assert_native_pages_match(&schema, &batch, &props);
            }
        }
    }
}
