//! Data page v2 and the value encodings other than `PLAIN` on the native encoder's own pages
//! (`DELTA_*`, `RLE`, `BYTE_STREAM_SPLIT`), as `ArrowWriter` writes them: for every codec,
//! integers at the edges of their width (whose deltas wrap), strings sharing prefixes of every
//! length, booleans, dictionaries that fall back mid-chunk, block layouts other than the
//! default, pages cut inside a mini-batch, nested leaves, and v2 values left uncompressed where
//! compressing saves too little.

mod common;

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, ListArray, RecordBatch,
    StringArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, SchemaRef};
use bytes::Bytes;
use common::columns::{data_pages, named_batch};
use common::encoders::{built_codecs, native_identical};
use parquet::basic::{Compression, Encoding, PageType};
use parquet::file::properties::{
    DeltaBinaryPackedEncoderOptions, WriterProperties, WriterPropertiesBuilder, WriterVersion,
};
use parquet::schema::types::ColumnPath;

const ROWS: usize = 30_000;

/// Integers that wander over their whole width: deltas of every size, wrapping ones among them.
fn wide_i64(row: usize) -> i64 {
    match row % 7 {
        0 => i64::MIN,
        1 => i64::MAX,
        _ => (row as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as i64 >> (row % 60),
    }
}

/// Strings of 0 to 60 bytes sharing prefixes of every length with the one before, some long
/// enough that a few fill a small page.
fn string(row: usize) -> String {
    let key = row.wrapping_mul(2_654_435_761) % 100_000;
    format!("customer-{key:05}-{}", "x".repeat(row % 47))
}

/// A schema of every native v2 leaf kind: `INT64` and `INT32` integers, doubles, strings,
/// booleans (in runs of growing length, so both kinds of `RLE` run), and 32-bit integers in a
/// list, each with nulls.
fn columns() -> (SchemaRef, RecordBatch) {
    let nulls = |every: usize| Some(NullBuffer::from_iter((0..ROWS).map(|r| r % every != 0)));
    let wide: ArrayRef = Arc::new(Int64Array::new((0..ROWS).map(wide_i64).collect(), nulls(5)));
    let narrow: ArrayRef = Arc::new(Int32Array::new(
        (0..ROWS).map(|r| (wide_i64(r) >> 32) as i32).collect(),
        nulls(3),
    ));
    let doubles: ArrayRef = Arc::new(Float64Array::new(
        (0..ROWS).map(|r| (r % 1_000) as f64 / 8.0).collect(),
        nulls(4),
    ));
    let items = Int32Array::from_iter_values((0..ROWS * 2).map(|i| (i % 500) as i32));
    let lengths = (0..ROWS).map(|r| (r % 5) - (r % 5) / 4);
    let item = Arc::new(Field::new("item", DataType::Int32, false));
    let offsets: OffsetBuffer<i32> = OffsetBuffer::from_lengths(lengths);
    let values = items.slice(0, offsets.last() as usize);
    let list: ArrayRef = Arc::new(ListArray::new(item, offsets, Arc::new(values), nulls(6)));
    let strings: ArrayRef = Arc::new(StringArray::from_iter(
        (0..ROWS).map(|r| (r % 7 != 0).then(|| string(r))),
    ));
    let flags: ArrayRef = Arc::new(BooleanArray::new(
        (0..ROWS)
            .map(|r| (r / (1 + r % 29)).is_multiple_of(2))
            .collect(),
        nulls(9),
    ));
    let columns = [
        ("wide", wide),
        ("narrow", narrow),
        ("doubles", doubles),
        ("strings", strings),
        ("flags", flags),
        ("list", list),
    ];
    named_batch(columns)
}

/// Writes the columns with both encoders under `props` in two row groups of sliced batches,
/// checks every leaf went to the native pages and the bytes are `ArrowWriter`'s, and returns
/// the file.
fn assert_identical(props: &WriterProperties) -> Bytes {
    let (schema, batch) = columns();
    let groups = [
        vec![batch.slice(1, 10_000), batch.slice(10_001, 7_000)],
        vec![batch.slice(17_001, ROWS - 17_001)],
    ];
    let (actual, native) = native_identical(&schema, &groups, props, &format!("{props:?}"));
    assert_eq!(
        native,
        [
            "wide",
            "narrow",
            "doubles",
            "strings",
            "flags",
            "list.list.item"
        ]
    );
    Bytes::from(actual)
}

fn v2() -> WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_data_page_size_limit(4 * 1024)
}

#[test]
fn v2_pages_of_every_codec_are_arrow_writer_s() {
    for codec in built_codecs(1) {
        for dictionary in [false, true] {
            let props = v2()
                .set_compression(codec)
                .set_dictionary_enabled(dictionary)
                .set_dictionary_page_size_limit(16 * 1024)
                .build();
            let file = assert_identical(&props);
            // The integers and strings that do not fit a 16 KiB dictionary fall back to
            // parquet's v2 encodings; booleans are always RLE.
            for (column, encoding) in [
                (0, Encoding::DELTA_BINARY_PACKED),
                (3, Encoding::DELTA_BYTE_ARRAY),
                (4, Encoding::RLE),
            ] {
                let pages = data_pages(file.clone(), column);
                assert!(
                    pages.contains(&(PageType::DATA_PAGE_V2, encoding)),
                    "{codec}, dictionary {dictionary}: {pages:?}"
                );
            }
        }
    }
}

#[test]
fn v2_values_stay_uncompressed_unless_they_shrink_enough() {
    for threshold in [0.05, 0.5, 1.0, 4.0] {
        let props = v2()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_data_page_v2_compression_ratio_threshold(threshold)
            .build();
        assert_identical(&props);
    }
}

#[test]
fn delta_binary_packed_v1_pages_in_every_block_layout_are_arrow_writer_s() {
    let layouts = [None, Some((128, 1)), Some((256, 8)), Some((1024, 4))];
    for layout in layouts {
        let mut builder = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_data_page_size_limit(2 * 1024)
            .set_encoding(Encoding::DELTA_BINARY_PACKED)
            // The doubles, strings and booleans keep PLAIN: DELTA_BINARY_PACKED is for
            // integers.
            .set_column_encoding(ColumnPath::from("doubles"), Encoding::PLAIN)
            .set_column_encoding(ColumnPath::from("strings"), Encoding::PLAIN)
            .set_column_encoding(ColumnPath::from("flags"), Encoding::PLAIN);
        if let Some((block, mini_blocks)) = layout {
            let options = DeltaBinaryPackedEncoderOptions::try_new(block, mini_blocks).unwrap();
            builder = builder.set_delta_binary_packed_encoder_options(options);
        }
        let file = assert_identical(&builder.build());
        let pages = data_pages(file, 1);
        assert!(
            pages
                .iter()
                .all(|&page| page == (PageType::DATA_PAGE, Encoding::DELTA_BINARY_PACKED)),
            "{layout:?}: {pages:?}"
        );
    }
}

/// Strings `DELTA_LENGTH_BYTE_ARRAY` and `DELTA_BYTE_ARRAY`, with pages small enough that
/// parquet cuts mini-batches short of them (after exactly the values that fit, for
/// `DELTA_BYTE_ARRAY`), and after a dictionary that falls back.
#[test]
fn delta_byte_array_pages_are_arrow_writer_s() {
    for encoding in [
        Encoding::DELTA_LENGTH_BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY,
    ] {
        for (page_limit, dictionary) in [(300, false), (8 * 1024, false), (8 * 1024, true)] {
            let props = WriterProperties::builder()
                .set_dictionary_enabled(dictionary)
                .set_dictionary_page_size_limit(4 * 1024)
                .set_data_page_size_limit(page_limit)
                .set_column_encoding(ColumnPath::from("strings"), encoding)
                .build();
            let file = assert_identical(&props);
            let pages = data_pages(file, 3);
            assert!(
                pages.contains(&(PageType::DATA_PAGE, encoding)),
                "{encoding}, {page_limit}-byte pages: {pages:?}"
            );
        }
    }
}

/// Integers and doubles `BYTE_STREAM_SPLIT`, flat and in a list, in v1 and v2 pages, with the
/// dictionary off and falling back.
#[test]
fn byte_stream_split_pages_are_arrow_writer_s() {
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        for dictionary in [false, true] {
            let mut builder = WriterProperties::builder()
                .set_writer_version(version)
                .set_dictionary_enabled(dictionary)
                .set_dictionary_page_size_limit(4 * 1024)
                .set_data_page_size_limit(4 * 1024);
            for column in ["wide", "narrow", "doubles"] {
                builder = builder.set_column_encoding(column.into(), Encoding::BYTE_STREAM_SPLIT);
            }
            let item = ColumnPath::new(["list", "list", "item"].map(String::from).to_vec());
            let props = builder
                .set_column_encoding(item, Encoding::BYTE_STREAM_SPLIT)
                .build();
            let pages = data_pages(assert_identical(&props), 2);
            assert!(
                pages
                    .iter()
                    .any(|page| page.1 == Encoding::BYTE_STREAM_SPLIT),
                "{version:?}, dictionary {dictionary}: {pages:?}"
            );
        }
    }
}
