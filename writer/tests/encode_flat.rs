//! Leaves outside every list, written by the native encoder as `ArrowWriter` writes them.
//!
//! `compute_leaves` hands a flat leaf's definition levels to the column writer as one uniform
//! run where it can, and the column writer then cuts mini-batches of
//! `data_page_row_count_limit` levels instead of `write_batch_size`: with the defaults a page
//! ends after 20,000 rows instead of 20,480. Whether the run stays uniform depends on the
//! arrays' null buffers (a buffer without a null still spells the levels out), so each case
//! below is one of those rules, on 50,000 rows in one batch.

mod common;

use std::sync::Arc;

use arrow_array::types::{Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type};
use arrow_array::{
    ArrayRef, BooleanArray, Int64Array, PrimitiveArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::i256;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};
use common::encoders::{built_codecs, encoded, upstream};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::OrderedRowGroupWriter;

const ROWS: usize = 50_000;

/// A validity buffer: `valid(row)` says which rows hold a value.
fn validity(valid: impl Fn(usize) -> bool) -> Option<NullBuffer> {
    Some(NullBuffer::from_iter((0..ROWS).map(valid)))
}

fn integers(nulls: Option<NullBuffer>) -> ArrayRef {
    let values = (0..ROWS as i64).map(|i| i * 7 % 1_000).collect();
    Arc::new(Int64Array::new(values, nulls))
}

/// Runs of trues and falses of growing lengths, so that pages start mid-byte and mid-run.
fn booleans(nulls: Option<NullBuffer>) -> ArrayRef {
    let values = (0..ROWS).map(|i| (i / (1 + i % 13)).is_multiple_of(2));
    Arc::new(BooleanArray::new(values.collect(), nulls))
}

fn strings(nulls: Option<NullBuffer>) -> ArrayRef {
    let values = (0..ROWS)
        .map(|i| format!("s{}", i % 300))
        .collect::<Vec<_>>();
    let array = StringArray::from(values);
    let (offsets, bytes, _) = array.into_parts();
    Arc::new(StringArray::new(offsets, bytes, nulls))
}

/// Writes `column` as the only column `name` (nullable) with both encoders under `props`, and
/// checks that the native encoder took it and wrote `ArrowWriter`'s bytes.
fn assert_identical(name: &str, column: ArrayRef, props: &WriterProperties) {
    let field = Field::new(name, column.data_type().clone(), true);
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let groups = [vec![batch.slice(3, ROWS - 3)]];
    let expected = upstream(&schema, &groups, props).unwrap();
    let (actual, native) = encoded(&schema, &groups, props, ColumnEncoder::Native).unwrap();
    assert!(
        !native.is_empty(),
        "{name}: no leaf went to the native encoder"
    );
    assert!(
        actual == expected,
        "{name}: bytes differ from ArrowWriter's"
    );
}

fn each_property_set(check: impl Fn(&WriterProperties)) {
    let plain = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .build();
    let page_statistics = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    // 1,024 integers fit in a page, 20,000 do not: the column writer measures values only
    // for the second base.
    let pages_between_the_bases = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(64 * 1024)
        .build();
    check(&plain);
    check(&page_statistics);
    check(&pages_between_the_bases);
}

#[test]
fn a_leaf_without_a_null_buffer_is_one_uniform_run() {
    each_property_set(|props| {
        assert_identical("integers", integers(None), props);
        assert_identical("strings", strings(None), props);
    });
}

#[test]
fn a_null_buffer_without_a_null_spells_the_levels_out() {
    each_property_set(|props| {
        assert_identical("integers", integers(validity(|_| true)), props);
        assert_identical("strings", strings(validity(|_| true)), props);
    });
}

#[test]
fn leaves_with_some_nulls_and_with_only_nulls() {
    each_property_set(|props| {
        assert_identical("some", integers(validity(|row| row % 5 != 0)), props);
        assert_identical("only", integers(validity(|_| false)), props);
        assert_identical("only_strings", strings(validity(|_| false)), props);
    });
}

/// A struct's null buffer moves its leaves' definition levels between two values unless it
/// holds no null; its leaves' own buffers count as for flat leaves.
#[test]
fn leaves_under_a_struct_follow_the_struct_s_nulls() {
    let fields = Fields::from(vec![
        Field::new("plain", DataType::Int64, true),
        Field::new("spelled", DataType::Utf8, true),
    ]);
    let children = || vec![integers(None), strings(validity(|_| true))];
    let cases = [
        ("struct_without_nulls", None),
        ("struct_with_an_empty_null_buffer", validity(|_| true)),
        ("struct_with_nulls", validity(|row| row % 3 != 0)),
        ("struct_of_nulls", validity(|_| false)),
    ];
    each_property_set(|props| {
        for (name, nulls) in cases.clone() {
            let array = StructArray::new(fields.clone(), children(), nulls);
            assert_identical(name, Arc::new(array), props);
        }
    });
}

/// Booleans are bit-packed across mini-batches and cut into pages by their packed size; parquet
/// never builds them a dictionary, so they take native pages with the dictionary on too.
#[test]
fn booleans_are_bit_packed_as_parquet_packs_them() {
    let dictionary_on = WriterProperties::builder()
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    // 2,000 values fill a page: most pages end inside a byte.
    let small_pages = WriterProperties::builder()
        .set_data_page_size_limit(250)
        .set_write_batch_size(100)
        .build();
    let all_true = Arc::new(BooleanArray::from(vec![true; ROWS])) as ArrayRef;
    for props in [&dictionary_on, &small_pages] {
        assert_identical("booleans", booleans(None), props);
        assert_identical("all_true", all_true.clone(), props);
    }
    each_property_set(|props| {
        assert_identical("booleans", booleans(None), props);
        assert_identical("some_null", booleans(validity(|row| row % 7 != 0)), props);
        assert_identical("only_null", booleans(validity(|_| false)), props);
    });
}

/// Unscaled values of every size, negative ones too, with nulls: wider than the column's
/// physical type where the Arrow type allows, so that the low bits parquet keeps are tested.
fn unscaled(row: usize) -> i128 {
    let magnitude = (row as i128 * 7_919) << (row % 70);
    if row.is_multiple_of(3) {
        -magnitude
    } else {
        magnitude
    }
}

fn decimals<T: arrow_array::types::DecimalType>(
    to_native: fn(i128) -> T::Native,
    precision: u8,
) -> ArrayRef {
    let values = (0..ROWS).map(|row| to_native(unscaled(row)));
    let array = PrimitiveArray::<T>::new(values.collect(), validity(|row| row % 11 != 0));
    Arc::new(array.with_precision_and_scale(precision, 2).unwrap())
}

/// Decimals of precision up to 18 are written as `INT32` or `INT64` (their unscaled value's low
/// bits), from every Arrow decimal width, dictionary on or off.
#[test]
fn decimals_of_low_precision_are_written_as_integers() {
    let cases = [
        (
            "decimal32_int32",
            decimals::<Decimal32Type>(|v| v as i32, 9),
        ),
        (
            "decimal64_int32",
            decimals::<Decimal64Type>(|v| v as i64, 7),
        ),
        (
            "decimal64_int64",
            decimals::<Decimal64Type>(|v| v as i64, 18),
        ),
        ("decimal128_int32", decimals::<Decimal128Type>(|v| v, 9)),
        ("decimal128_int64", decimals::<Decimal128Type>(|v| v, 15)),
        (
            "decimal256_int32",
            decimals::<Decimal256Type>(i256::from_i128, 4),
        ),
        (
            "decimal256_int64",
            decimals::<Decimal256Type>(i256::from_i128, 18),
        ),
    ];
    let dictionary_on = WriterProperties::builder()
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    for (name, column) in &cases {
        assert_identical(name, column.clone(), &dictionary_on);
        each_property_set(|props| assert_identical(name, column.clone(), props));
    }
}

/// Every codec the project builds parquet with compresses the native encoder's own pages to
/// parquet's bytes: Hadoop's LZ4 frame (two big-endian lengths before the block) included.
#[test]
fn every_built_codec_compresses_native_pages_as_parquet_does() {
    for codec in built_codecs(3) {
        for dictionary in [false, true] {
            let props = WriterProperties::builder()
                .set_compression(codec)
                .set_dictionary_enabled(dictionary)
                .set_data_page_size_limit(16 * 1024)
                .build();
            let column = integers(validity(|row| row % 5 != 0));
            let field = Field::new("integers", column.data_type().clone(), true);
            let schema = Arc::new(Schema::new(vec![field]));
            let options = ArrowWriterOptions::new().with_properties(props.clone());
            let writer = OrderedRowGroupWriter::try_new(Vec::new(), schema, options, 1).unwrap();
            assert_eq!(
                writer.leaf_encoders().native_pages,
                ["integers"],
                "{codec}: the native encoder does not write the pages"
            );
            assert_identical("integers", column, &props);
            assert_identical("strings", strings(validity(|row| row % 3 != 0)), &props);
        }
    }
}
