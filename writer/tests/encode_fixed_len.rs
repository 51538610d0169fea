//! `FIXED_LEN_BYTE_ARRAY` leaves on the native encoder's own pages, as `ArrowWriter` writes
//! them: fixed-size binaries (flat, and short ones in a list), decimals of 30 and 50 digits at
//! the edges of their range, half floats with every kind of NaN, zero and infinity, and
//! intervals; under v1 and v2 pages, with and without a dictionary that falls back, every
//! statistics level with truncated bounds, `PLAIN`, `DELTA_BYTE_ARRAY` and
//! `BYTE_STREAM_SPLIT` values, bloom filters, and pages small enough that parquet cuts
//! mini-batches short of them.

mod common;

use std::sync::Arc;

use arrow_array::types::{Float16Type, IntervalDayTime};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, Decimal128Array, Decimal256Array, FixedSizeBinaryArray,
    Float16Array, IntervalDayTimeArray, IntervalYearMonthArray, ListArray, RecordBatch,
    StringArray,
};
use arrow_buffer::{i256, ArrowNativeType, NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, SchemaRef};
use common::columns::{data_pages, named_batch};
use common::encoders::{encoded_with, native_identical, upstream_with};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::basic::{Encoding, LogicalType, Repetition, Type as PhysicalType};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::{SchemaDescriptor, Type};
use shredlab_writer::encode::ColumnEncoder;

const ROWS: usize = 6_000;

/// Arrow's half float (the `half` crate's).
type F16 = <Float16Type as ArrowPrimitiveType>::Native;

/// Which rows are null in a column: every `every`th.
fn nulls(every: usize) -> Option<NullBuffer> {
    Some(NullBuffer::from_iter((0..ROWS).map(|r| r % every != 0)))
}

/// 16 bytes from 700 distinct keys (a dictionary fills and falls back at a few KiB), every
/// third all 0xFF (a maximum that truncation cannot raise).
fn uuid(row: usize) -> [u8; 16] {
    match row % 3 {
        0 => [0xFF; 16],
        _ => ((row % 700) as u128)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)
            .to_be_bytes(),
    }
}

/// Unscaled decimals of up to 30 digits, both signs, the extremes among them.
fn decimal(row: usize) -> i128 {
    let largest = 10i128.pow(30) - 1;
    match row % 11 {
        0 => largest,
        1 => -largest,
        2 => 0,
        3 => -1,
        _ => (row as i128 * 7_919 - 20_000_000) * 10i128.pow((row % 23) as u32),
    }
}

/// Half floats of every kind: NaNs of both signs and two payloads, infinities, signed zeros,
/// the extremes and ordinary values.
fn half(row: usize) -> F16 {
    let special = [
        F16::NAN,
        -F16::NAN,
        F16::from_bits(0x7c01),
        F16::INFINITY,
        F16::NEG_INFINITY,
        F16::ZERO,
        F16::NEG_ZERO,
        F16::MAX,
        F16::MIN,
    ];
    match special.get(row % 40) {
        Some(&value) => value,
        None => F16::from_f32((row % 300) as f32 / 8.0 - 12.0),
    }
}

/// Every fixed-length leaf kind, with nulls.
fn columns() -> (SchemaRef, RecordBatch) {
    let uuids: ArrayRef = Arc::new(
        FixedSizeBinaryArray::try_from_sparse_iter_with_size(
            (0..ROWS).map(|r| (r % 7 != 0).then(|| uuid(r))),
            16,
        )
        .unwrap(),
    );
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(3), true));
    let lengths = (0..ROWS).map(|r| r % 4);
    let offsets: OffsetBuffer<i32> = OffsetBuffer::from_lengths(lengths);
    let items = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..offsets.last().as_usize())
            .map(|i| (i % 9 != 0).then_some([(i % 5) as u8, (i % 13) as u8, 0xFE])),
        3,
    )
    .unwrap();
    let short: ArrayRef = Arc::new(ListArray::new(item, offsets, Arc::new(items), nulls(6)));
    let decimals: ArrayRef = Arc::new(
        Decimal128Array::new((0..ROWS).map(decimal).collect(), nulls(5))
            .with_precision_and_scale(30, 2)
            .unwrap(),
    );
    let wide: ArrayRef = Arc::new(
        Decimal256Array::new(
            (0..ROWS)
                .map(|r| i256::from_i128(decimal(r)).wrapping_mul(i256::from_i128(decimal(r + 4))))
                .collect(),
            nulls(8),
        )
        .with_precision_and_scale(60, 0)
        .unwrap(),
    );
    let halves: ArrayRef = Arc::new(Float16Array::new((0..ROWS).map(half).collect(), nulls(9)));
    let months: ArrayRef = Arc::new(IntervalYearMonthArray::new(
        (0..ROWS).map(|r| (r % 50) as i32 - 25).collect(),
        nulls(4),
    ));
    let days: ArrayRef = Arc::new(IntervalDayTimeArray::new(
        (0..ROWS)
            .map(|r| IntervalDayTime::new((r % 30) as i32, (r * 1_000) as i32))
            .collect(),
        nulls(3),
    ));
    let columns = [
        ("uuids", uuids),
        ("short", short),
        ("decimals", decimals),
        ("wide", wide),
        ("halves", halves),
        ("months", months),
        ("days", days),
    ];
    named_batch(columns)
}

/// Writes the columns with both encoders under `props`, in two row groups of sliced batches;
/// checks the bytes are `ArrowWriter`'s and returns the file and the native leaves.
fn assert_identical(props: &WriterProperties) -> (Vec<u8>, Vec<String>) {
    let (schema, batch) = columns();
    let groups = [
        vec![batch.slice(1, 2_000), batch.slice(2_001, 1_500)],
        vec![batch.slice(3_501, ROWS - 3_501)],
    ];
    native_identical(&schema, &groups, props, &format!("{props:?}"))
}

/// The leaves the native encoder writes under `statistics`: intervals have no bounds, which
/// leaves them to `ArrowColumnWriter` unless statistics are off.
fn native_leaves(statistics: EnabledStatistics) -> Vec<&'static str> {
    let mut leaves = vec!["uuids", "short.list.item", "decimals", "wide", "halves"];
    if statistics == EnabledStatistics::None {
        leaves.extend(["months", "days"]);
    }
    leaves
}

/// The encodings of the data pages of the file's first column chunk.
fn data_page_encodings(file: Vec<u8>) -> Vec<Encoding> {
    let pages = data_pages(bytes::Bytes::from(file), 0);
    pages.into_iter().map(|(_, encoding)| encoding).collect()
}

#[test]
fn fixed_len_pages_are_arrow_writer_s() {
    let statistics = [
        EnabledStatistics::None,
        EnabledStatistics::Chunk,
        EnabledStatistics::Page,
    ];
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        for dictionary in [false, true] {
            for (statistics, truncation) in statistics.into_iter().zip([None, Some(5), Some(3)]) {
                let props = WriterProperties::builder()
                    .set_writer_version(version)
                    .set_dictionary_enabled(dictionary)
                    .set_dictionary_page_size_limit(2 * 1024)
                    .set_data_page_size_limit(1024)
                    .set_statistics_enabled(statistics)
                    .set_statistics_truncate_length(truncation)
                    .set_column_index_truncate_length(truncation)
                    .build();
                let (file, native) = assert_identical(&props);
                assert_eq!(native, native_leaves(statistics), "{props:?}");
                let encodings = data_page_encodings(file);
                // The dictionary falls back to the version's encoding of the other values.
                let fallback = match version {
                    WriterVersion::PARQUET_1_0 => Encoding::PLAIN,
                    _ => Encoding::DELTA_BYTE_ARRAY,
                };
                assert!(encodings.contains(&fallback), "{encodings:?}");
                assert_eq!(
                    encodings.contains(&Encoding::RLE_DICTIONARY),
                    dictionary,
                    "{encodings:?}"
                );
            }
        }
    }
}

/// Pages cut inside a mini-batch, by the values' bytes (20 values of 16 bytes overflow a
/// 300-byte page) and, for `DELTA_BYTE_ARRAY`, after exactly the values that fit.
#[test]
fn fixed_len_values_cut_short_of_small_pages_are_arrow_writer_s() {
    for encoding in [
        Encoding::PLAIN,
        Encoding::DELTA_BYTE_ARRAY,
        Encoding::BYTE_STREAM_SPLIT,
    ] {
        for dictionary in [false, true] {
            let props = WriterProperties::builder()
                .set_dictionary_enabled(dictionary)
                .set_dictionary_page_size_limit(300)
                .set_data_page_size_limit(300)
                .set_write_batch_size(64)
                .set_encoding(encoding)
                .build();
            let (_, native) = assert_identical(&props);
            assert_eq!(native, native_leaves(EnabledStatistics::Page), "{encoding}");
        }
    }
}

/// Bloom filters, from the dictionary's distinct values and from the values outside it.
#[test]
fn fixed_len_bloom_filters_are_arrow_writer_s() {
    for dictionary in [false, true] {
        let props = WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .set_dictionary_page_size_limit(4 * 1024)
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_max_ndv(500)
            .build();
        assert_identical(&props);
    }
}

/// Values each larger than a `DELTA_BYTE_ARRAY` page's limit: parquet cuts each into a
/// mini-batch of its own and leaves a page's lone first value out of its size, so that the
/// page takes the next value too (fixed-size binaries and strings alike).
#[test]
fn a_lone_first_value_over_the_page_limit_is_left_out_as_in_parquet() {
    let rows = 60;
    let binaries = FixedSizeBinaryArray::try_from_iter((0..rows).map(uuid)).unwrap();
    let strings = StringArray::from_iter_values(
        (0..rows).map(|r| format!("{}-{}", "s".repeat(r % 50), r * 7_919)),
    );
    let (schema, batch) = named_batch([
        ("binaries", Arc::new(binaries) as ArrayRef),
        ("strings", Arc::new(strings) as ArrayRef),
    ]);
    for page_limit in [1, 8, 20, 45, 100] {
        let props = WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_dictionary_enabled(false)
            .set_data_page_size_limit(page_limit)
            .set_write_batch_size(7)
            .build();
        let groups = [vec![batch.slice(0, 25), batch.slice(25, rows - 25)]];
        let case = format!("{page_limit}-byte pages");
        let (_, native) = native_identical(&schema, &groups, &props, &case);
        assert_eq!(native, ["binaries", "strings"]);
    }
}

/// A decimal column given by hand at another length than `ArrowColumnWriter` writes its
/// precision at (16 bytes for 20 digits, where it writes 9) stays with `ArrowColumnWriter`.
#[test]
fn decimals_of_a_hand_given_length_go_to_arrow_column_writer() {
    let decimals = Decimal128Array::from_iter_values((0..500).map(decimal))
        .with_precision_and_scale(20, 2)
        .unwrap();
    let (schema, batch) = named_batch([("decimals", Arc::new(decimals) as ArrayRef)]);
    let column = Type::primitive_type_builder("decimals", PhysicalType::FIXED_LEN_BYTE_ARRAY)
        .with_repetition(Repetition::OPTIONAL)
        .with_length(16)
        .with_logical_type(Some(LogicalType::decimal(2, 20)))
        .with_precision(20)
        .with_scale(2)
        .build()
        .unwrap();
    let root = Type::group_type_builder("arrow_schema")
        .with_fields(vec![Arc::new(column)])
        .build()
        .unwrap();
    let options = || {
        ArrowWriterOptions::new().with_parquet_schema(SchemaDescriptor::new(Arc::new(root.clone())))
    };
    let groups = [vec![batch]];
    let expected = upstream_with(&schema, &groups, options()).unwrap();
    let (actual, native) =
        encoded_with(&schema, &groups, options(), ColumnEncoder::Native).unwrap();
    assert!(native.is_empty(), "{native:?}");
    assert!(actual == expected, "bytes differ");
}
