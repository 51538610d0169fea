//! shredlab's column encoder (`shredlab_writer::encode`) writes `ArrowWriter`'s bytes: random
//! nested schemas over every type the writer supports, random `WriterProperties`, random row
//! groups of sliced batches (arrays with offsets), each file compared byte for byte; and the
//! leaves it does not support go to `ArrowColumnWriter` in the same file.
//!
//! `make test` runs proptest's default of 256 cases; a longer search:
//! `PROPTEST_CASES=5000 cargo test --release -p shredlab-writer --test encode_identity`.

mod common;

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Decimal128Array, DictionaryArray, FixedSizeListArray, Int32Array, ListArray,
    RecordBatch, StringArray, StructArray, UInt8Array,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use common::encoders::{encoded, upstream};
use common::random_generator;
use common::strategies::{schema, settings};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::Encoding;
use parquet::errors::Result;
use parquet::file::properties::{CdcOptions, EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{TestCaseError, TestRunner};
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::OrderedRowGroupWriter;

/// Row groups of slices of one generated batch: `groups[g]` holds the slice lengths of group
/// `g`, taken in order after the first `skip` rows, so every array has an offset.
fn sliced_groups(
    schema: &SchemaRef,
    seed: u64,
    skip: usize,
    groups: &[Vec<usize>],
) -> Vec<Vec<RecordBatch>> {
    let rows: usize = skip + groups.iter().flatten().sum::<usize>();
    let batch = random_generator(schema, seed)
        .batch(0..rows as u64)
        .unwrap();
    let mut at = skip;
    groups
        .iter()
        .map(|sizes| {
            sizes
                .iter()
                .map(|&len| {
                    at += len;
                    batch.slice(at - len, len)
                })
                .collect()
        })
        .collect()
}

/// `settings`' properties with row groups left to the test (cut by `flush` alone).
fn properties(settings: &common::strategies::Settings, schema: &SchemaRef) -> WriterProperties {
    settings
        .properties(schema)
        .into_builder()
        .set_max_row_group_row_count(None)
        .set_max_row_group_bytes(None)
        .build()
}

fn group_sizes() -> impl Strategy<Value = Vec<Vec<usize>>> {
    let batch = prop_oneof![Just(1usize), 2usize..200, 200usize..3_000];
    prop::collection::vec(prop::collection::vec(batch, 1..4), 1..4)
}

/// The file `ArrowWriter` writes of `groups` (batches sliced from `seed`'s data, `skip` rows
/// in) equals the native encoder's, or both fail.
fn assert_same_bytes(
    schema: &SchemaRef,
    settings: &common::strategies::Settings,
    groups: &[Vec<usize>],
    skip: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let groups = sliced_groups(schema, seed, skip, groups);
    let props = properties(settings, schema);
    let expected = upstream(schema, &groups, &props);
    let actual = encoded(schema, &groups, &props, ColumnEncoder::Native);
    match (&expected, &actual) {
        (Ok(expected), Ok((actual, native))) => prop_assert!(
            actual == expected,
            "bytes differ ({} vs {} bytes); native leaves {:?}",
            actual.len(),
            expected.len(),
            native
        ),
        (Err(_), Err(_)) => {}
        _ => prop_assert!(
            false,
            "ArrowWriter gave {:?}, the native encoder {:?}",
            expected.as_ref().map(Vec::len),
            actual.as_ref().map(|(bytes, _)| bytes.len())
        ),
    }
    Ok(())
}

/// `settings` with data pages of `version`. In v1 the native encoder writes its own pages for
/// every leaf type it supports (`PLAIN` values, or a dictionary where it is on; any
/// statistics, bloom filter and codec), but for the one column that gets column-level
/// settings; in v2 as well (`DELTA_*` integers and byte arrays outside a dictionary, `RLE`
/// booleans).
fn page_settings(version: WriterVersion) -> impl Strategy<Value = common::strategies::Settings> {
    settings().prop_map(move |settings| common::strategies::Settings {
        version,
        ..settings
    })
}

proptest! {
    #[test]
    fn native_encoder_writes_arrow_writer_s_bytes(
        schema in schema(),
        settings in settings(),
        groups in group_sizes(),
        skip in 0usize..50,
        seed in any::<u64>(),
    ) {
        assert_same_bytes(&schema, &settings, &groups, skip, seed)?;
    }

    #[test]
    fn native_plain_pages_are_arrow_writer_s_bytes(
        schema in schema(),
        settings in page_settings(WriterVersion::PARQUET_1_0),
        groups in group_sizes(),
        skip in 0usize..50,
        seed in any::<u64>(),
    ) {
        assert_same_bytes(&schema, &settings, &groups, skip, seed)?;
    }

    #[test]
    fn native_v2_pages_are_arrow_writer_s_bytes(
        schema in schema(),
        settings in page_settings(WriterVersion::PARQUET_2_0),
        groups in group_sizes(),
        skip in 0usize..50,
        seed in any::<u64>(),
    ) {
        assert_same_bytes(&schema, &settings, &groups, skip, seed)?;
    }
}

/// The same for the native encoder's own pages: over 200 cases drawn as the v1 and the v2
/// property draw them, some leaf gets them in 7 cases of 10 (181 of 200 each when written).
#[test]
fn the_page_properties_cases_exercise_native_pages() {
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let mut runner = TestRunner::deterministic();
        let mut cases = 0;
        for _ in 0..200 {
            let schema = schema().new_tree(&mut runner).unwrap().current();
            let settings = page_settings(version)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            let options = ArrowWriterOptions::new().with_properties(properties(&settings, &schema));
            let writer =
                OrderedRowGroupWriter::try_new(Vec::new(), schema.clone(), options, 1).unwrap();
            cases += usize::from(!writer.leaf_encoders().native_pages.is_empty());
        }
        assert!(
            cases >= 140,
            "{version:?}: only {cases} of 200 cases have native pages"
        );
    }
}

/// The property above is only as good as the share of its cases the native encoder takes part
/// in: over 500 schemas and settings drawn as it draws them, some leaf is native in 2 cases of 5.
#[test]
fn the_property_s_cases_exercise_the_native_encoder() {
    let mut runner = TestRunner::deterministic();
    let (mut cases, mut native_leaves, mut leaves) = (0, 0, 0);
    for _ in 0..500 {
        let schema = schema().new_tree(&mut runner).unwrap().current();
        let settings = settings().new_tree(&mut runner).unwrap().current();
        let options = ArrowWriterOptions::new().with_properties(properties(&settings, &schema));
        let writer =
            OrderedRowGroupWriter::try_new(Vec::new(), schema.clone(), options, 1).unwrap();
        let native = writer.leaf_encoders().native().count();
        cases += usize::from(native > 0);
        native_leaves += native;
        leaves += ArrowSchemaConverter::new()
            .convert(&schema)
            .unwrap()
            .num_columns();
    }
    assert!(cases >= 200, "only {cases} of 500 cases have a native leaf");
    assert!(
        native_leaves * 5 >= leaves,
        "only {native_leaves} of {leaves} leaves are native"
    );
}

/// A struct of lists with a flat leaf beside them ([`FLOATS`]: the test of the fallback makes
/// it unsupported), and a flat leaf.
fn mixed_schema() -> SchemaRef {
    let item = |t: DataType| DataType::List(Arc::new(Field::new("item", t, true)));
    let inner = DataType::Struct(
        vec![
            Field::new("ints", item(DataType::Int32), true),
            Field::new("floats", DataType::Float64, true),
            Field::new("names", item(DataType::Utf8), false),
        ]
        .into(),
    );
    Arc::new(Schema::new(vec![
        Field::new("flat", DataType::Int64, true),
        Field::new("nested", inner, true),
    ]))
}

/// The flat leaf of [`mixed_schema`]'s struct.
const FLOATS: [&str; 2] = ["nested", "floats"];

#[test]
fn unsupported_leaves_fall_back_in_the_same_file() {
    let schema = mixed_schema();
    let groups = sliced_groups(&schema, 7, 3, &[vec![500, 1], vec![1_200]]);
    // Without a dictionary, so that the strings go to the native encoder too; ALP, which the
    // native pages do not write, on a leaf without repetition levels for the typed writer.
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_column_encoding(
            ColumnPath::new(FLOATS.map(String::from).to_vec()),
            Encoding::ALP,
        )
        .build();
    let expected = upstream(&schema, &groups, &props).unwrap();
    let (actual, native) = encoded(&schema, &groups, &props, ColumnEncoder::Native).unwrap();
    assert_eq!(
        native,
        ["flat", "nested.ints.list.item", "nested.names.list.item"],
        "the ALP floats go to ArrowColumnWriter"
    );
    assert!(actual == expected, "bytes differ");
}

#[test]
fn arrow_rs_encoder_and_arrow_only_properties_take_every_leaf() {
    let schema = mixed_schema();
    let groups = sliced_groups(&schema, 8, 0, &[vec![300]]);
    let plain = WriterProperties::builder().build();
    let chunked = WriterProperties::builder()
        .set_content_defined_chunking(Some(CdcOptions::default()))
        .build();
    for (props, encoder) in [
        (&plain, ColumnEncoder::ArrowRs),
        (&chunked, ColumnEncoder::Native),
    ] {
        let writer = OrderedRowGroupWriter::try_new_with_encoder(
            Vec::new(),
            schema.clone(),
            ArrowWriterOptions::new().with_properties(props.clone()),
            1,
            encoder,
        );
        // Content-defined chunking is refused by the writer itself; otherwise no leaf is native.
        if let Ok(writer) = writer {
            let encoders = writer.leaf_encoders();
            assert_eq!(encoders.native().count(), 0);
        }
    }
    let expected = upstream(&schema, &groups, &plain).unwrap();
    let (actual, _) = encoded(&schema, &groups, &plain, ColumnEncoder::ArrowRs).unwrap();
    assert!(actual == expected, "bytes differ");
}

/// `list<utf8>` with one of two strings per row and a 257-byte page limit: `ArrowColumnWriter`
/// estimates a dictionary page one byte larger than the typed writer, so it cuts a page where
/// the typed writer would not (found in review; such leaves stay with `ArrowColumnWriter`).
#[test]
fn dictionary_byte_array_leaves_keep_arrow_writer_s_page_cuts() {
    let item = Arc::new(Field::new("item", DataType::Utf8, true));
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c0",
        DataType::List(item.clone()),
        true,
    )]));
    let rows = 3_000;
    let values = StringArray::from_iter_values((0..rows).map(|i| ["a", "b"][i % 2]));
    let offsets = OffsetBuffer::from_lengths(std::iter::repeat_n(1, rows));
    let list = ListArray::new(item, offsets, Arc::new(values), None);
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(list)]).unwrap();
    let props = WriterProperties::builder()
        .set_data_page_size_limit(257)
        .set_write_batch_size(1024)
        .build();
    let groups = vec![vec![batch]];
    let expected = upstream(&schema, &groups, &props).unwrap();
    let (actual, _) = encoded(&schema, &groups, &props, ColumnEncoder::Native).unwrap();
    assert!(actual == expected, "bytes differ");
}

/// Byte arrays with a dictionary in the native encoder's own pages: strings and an Arrow
/// dictionary of them, inside lists with nulls, their dictionary kept for a whole chunk or
/// falling back to `PLAIN` part way through, and pages cut by the estimated index size.
#[test]
fn dictionary_pages_and_their_fallback_are_arrow_writer_s() {
    let string_item = Arc::new(Field::new("item", DataType::Utf8, true));
    let keyed = DataType::Dictionary(Box::new(DataType::UInt8), Box::new(DataType::Utf8));
    let keyed_item = Arc::new(Field::new("item", keyed, true));
    let schema = Arc::new(Schema::new(vec![
        Field::new("strings", DataType::List(string_item.clone()), true),
        Field::new("keyed", DataType::List(keyed_item.clone()), true),
    ]));
    let rows = 4_000;
    let lengths = || (0..rows).map(|row| row % 4);
    let entries: usize = lengths().sum();
    let word = |i: usize| (i % 3 != 2).then(|| format!("value-{}", (i * 7919) % 600));
    let strings = StringArray::from_iter((0..entries).map(word));
    let keys = UInt8Array::from_iter((0..entries).map(|i| (i % 5 != 4).then_some((i % 7) as u8)));
    let words = StringArray::from_iter_values((0..7).map(|i| format!("type-{i}")));
    let keyed = DictionaryArray::try_new(keys, Arc::new(words)).unwrap();
    let nulls = NullBuffer::from_iter((0..rows).map(|row| row % 11 != 0));
    let list = |item: &Arc<Field>, values: ArrayRef| {
        let offsets = OffsetBuffer::from_lengths(lengths());
        Arc::new(ListArray::new(
            item.clone(),
            offsets,
            values,
            Some(nulls.clone()),
        )) as ArrayRef
    };
    let columns = vec![
        list(&string_item, Arc::new(strings)),
        list(&keyed_item, Arc::new(keyed)),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let groups = vec![vec![batch.slice(0, 1_500), batch.slice(1_500, 2_500)]];
    for (dictionary_limit, page_limit) in [(1 << 20, 1 << 20), (700, 300), (64, 257)] {
        let props = WriterProperties::builder()
            .set_statistics_enabled(EnabledStatistics::None)
            .set_dictionary_page_size_limit(dictionary_limit)
            .set_data_page_size_limit(page_limit)
            .set_write_batch_size(100)
            .build();
        let options = ArrowWriterOptions::new().with_properties(props.clone());
        let writer =
            OrderedRowGroupWriter::try_new(Vec::new(), schema.clone(), options, 1).unwrap();
        assert_eq!(
            writer.leaf_encoders().native_pages,
            ["strings.list.item", "keyed.list.item"]
        );
        let expected = upstream(&schema, &groups, &props).unwrap();
        let (actual, _) = encoded(&schema, &groups, &props, ColumnEncoder::Native).unwrap();
        assert!(
            actual == expected,
            "bytes differ at {dictionary_limit}/{page_limit}"
        );
    }
}

/// A dictionary of more than 2^16 values packs its indices 17 bits wide (found in review: the
/// packing stopped at 16 bits).
#[test]
fn a_dictionary_past_65536_values_is_arrow_writer_s() {
    let item = Arc::new(Field::new("item", DataType::Utf8, true));
    let schema = Arc::new(Schema::new(vec![Field::new(
        "ids",
        DataType::List(item.clone()),
        true,
    )]));
    let rows = 70_000;
    let values = StringArray::from_iter_values((0..rows).map(|i| format!("{i:x}")));
    let offsets = OffsetBuffer::from_lengths(std::iter::repeat_n(1, rows));
    let list = ListArray::new(item, offsets, Arc::new(values), None);
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(list)]).unwrap();
    let props = WriterProperties::builder()
        .set_statistics_enabled(EnabledStatistics::None)
        .build();
    let groups = vec![vec![batch]];
    let expected = upstream(&schema, &groups, &props).unwrap();
    let (actual, _) = encoded(&schema, &groups, &props, ColumnEncoder::Native).unwrap();
    assert!(actual == expected, "bytes differ");
}

/// A row group of no rows, whose dictionary leaves hold an empty dictionary page and no data
/// page, is `ArrowColumnWriter`'s (found in review: the data pages' offset was 0, not after the
/// dictionary page), on both of the native encoder's paths.
#[test]
fn an_empty_row_group_with_dictionaries_is_arrow_column_writer_s() {
    let text = Arc::new(Field::new("item", DataType::Utf8, true));
    // ALP-encoded numbers take parquet's typed writer: the native encoder's other path.
    let number = Arc::new(Field::new("item", DataType::Float64, true));
    let schema = Arc::new(Schema::new(vec![
        Field::new("texts", DataType::List(text), true),
        Field::new("numbers", DataType::List(number), true),
    ]));
    let props = WriterProperties::builder()
        .set_statistics_enabled(EnabledStatistics::None)
        .set_column_encoding(
            ColumnPath::new(["numbers", "list", "item"].map(String::from).to_vec()),
            Encoding::ALP,
        )
        .build();
    let file = |encoder| {
        let options = ArrowWriterOptions::new().with_properties(props.clone());
        let writer = OrderedRowGroupWriter::try_new_with_encoder(
            Vec::new(),
            schema.clone(),
            options,
            1,
            encoder,
        )
        .unwrap();
        writer.append(writer.encoder(0).unwrap()).unwrap();
        (writer.leaf_encoders(), writer.into_inner().unwrap())
    };
    let (encoders, native) = file(ColumnEncoder::Native);
    assert_eq!(encoders.native_pages, ["texts.list.item"]);
    assert_eq!(encoders.native_levels, ["numbers.list.item"]);
    assert!(native == file(ColumnEncoder::ArrowRs).1, "bytes differ");
}

/// A fixed-size list of size 0 cut down to its leaf for `ArrowColumnWriter` keeps its length.
#[test]
fn a_fixed_size_list_of_size_zero_keeps_its_rows_when_cut() {
    let inner = Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Decimal128(10, 2), true),
    ]);
    let item = Arc::new(Field::new("item", DataType::Struct(inner), true));
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c0",
        DataType::FixedSizeList(item, 0),
        false,
    )]));
    let DataType::FixedSizeList(item, _) = schema.field(0).data_type() else {
        unreachable!("the schema above")
    };
    let DataType::Struct(inner) = item.data_type() else {
        unreachable!("the schema above")
    };
    let decimals = Decimal128Array::from(Vec::<i128>::new()).with_precision_and_scale(10, 2);
    let children: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(Vec::<i32>::new())),
        Arc::new(decimals.unwrap()),
    ];
    let values = StructArray::new(inner.clone(), children, None);
    let list = FixedSizeListArray::try_new_with_length(item.clone(), 0, Arc::new(values), None, 40);
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(list.unwrap())]).unwrap();
    let groups = vec![vec![batch]];
    let props = WriterProperties::builder().build();
    let expected = upstream(&schema, &groups, &props).unwrap();
    let (actual, native) = encoded(&schema, &groups, &props, ColumnEncoder::Native).unwrap();
    assert_eq!(native, ["c0.list.item.a", "c0.list.item.b"]);
    assert!(actual == expected, "bytes differ");
}

/// A batch whose column is not of the writer's type is an error, not a panic.
#[test]
fn a_column_of_another_type_is_refused() {
    let list = |t: DataType| DataType::List(Arc::new(Field::new("item", t, true)));
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c0",
        list(DataType::Int64),
        true,
    )]));
    let other = Arc::new(Schema::new(vec![Field::new(
        "c0",
        list(DataType::Int32),
        true,
    )]));
    let batch = random_generator(&other, 1).batch(0..10).unwrap();
    let options = ArrowWriterOptions::new();
    let writer = OrderedRowGroupWriter::try_new(Vec::new(), schema, options, 1).unwrap();
    let mut row_group = writer.encoder(0).unwrap();
    let error = row_group.write(&batch).unwrap_err().to_string();
    assert!(error.contains("the writer's schema says"), "{error}");
}
