//! `ParallelArrowWriter` with shredlab's column encoder, its default: which leaves it takes, the
//! bytes (`ArrowWriter`'s, with either encoder), and the sizes it reports while they encode.

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::Encoding;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder};
use parquet::schema::types::ColumnPath;
use shredlab_writer::encode::{ColumnEncoder, LeafEncoders};
use shredlab_writer::{ParallelArrowWriter, ParallelOptions};

/// `weight` (a flat double), `names` (a list of strings) and `scores` (a list of doubles),
/// `rows` rows.
fn batch(rows: usize) -> RecordBatch {
    let mut names = ListBuilder::new(StringBuilder::new());
    let mut scores = ListBuilder::new(Float64Builder::new());
    for row in 0..rows {
        for entry in 0..row % 4 {
            names
                .values()
                .append_value(format!("name-{}", (row * 7 + entry) % 50));
            scores
                .values()
                .append_value((row % 13) as f64 + entry as f64 / 4.0);
        }
        names.append(row % 9 != 0);
        scores.append(true);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Float64Array::from_iter_values(
            (0..rows).map(|row| row as f64 / 2.0),
        )),
        Arc::new(names.finish()),
        Arc::new(scores.finish()),
    ];
    RecordBatch::try_new(schema(), columns).unwrap()
}

fn schema() -> SchemaRef {
    let item = |t: DataType| Arc::new(Field::new("item", t, true));
    Arc::new(Schema::new(vec![
        Field::new("weight", DataType::Float64, false),
        Field::new("names", DataType::List(item(DataType::Utf8)), true),
        Field::new("scores", DataType::List(item(DataType::Float64)), true),
    ]))
}

fn upstream(batches: &[RecordBatch], props: &WriterProperties) -> Vec<u8> {
    let mut writer = ArrowWriter::try_new(Vec::new(), schema(), Some(props.clone())).unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    writer.into_inner().unwrap()
}

/// The file and the leaves' encoders of a `ParallelArrowWriter` with `options`.
fn parallel(
    batches: &[RecordBatch],
    props: &WriterProperties,
    options: ParallelOptions,
) -> (Vec<u8>, LeafEncoders) {
    let arrow = ArrowWriterOptions::new().with_properties(props.clone());
    let mut writer =
        ParallelArrowWriter::try_new_with_parallel_options(Vec::new(), schema(), arrow, options)
            .unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    let encoders = writer.leaf_encoders();
    (writer.into_inner().unwrap(), encoders)
}

fn path(parts: &[&str]) -> ColumnPath {
    ColumnPath::new(parts.iter().map(|p| p.to_string()).collect())
}

/// `ALP` for `weight` and `scores`: the native encoder writes no page of that encoding
/// itself, so the flat `weight` goes to arrow-rs's encoder and the doubles inside `scores` to
/// parquet's typed writer with levels the native encoder computes.
fn with_alp(builder: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
    builder
        .set_column_encoding(path(&["weight"]), Encoding::ALP)
        .set_column_encoding(path(&["scores", "list", "item"]), Encoding::ALP)
}

fn batches() -> Vec<RecordBatch> {
    [3_000, 1, 5_000, 0, 2_500].map(batch).to_vec()
}

#[test]
fn the_default_encodes_leaves_inside_lists_itself_and_writes_arrow_writer_s_bytes() {
    let props = with_alp(WriterProperties::builder())
        .set_max_row_group_row_count(Some(4_000))
        .build();
    let expected = upstream(&batches(), &props);
    for options in [
        ParallelOptions::new().with_threads(1),
        ParallelOptions::new()
            .with_threads(2)
            .with_inline_threshold(0),
    ] {
        let (bytes, encoders) = parallel(&batches(), &props, options);
        assert_eq!(encoders.native_pages, ["names.list.item"]);
        assert_eq!(encoders.native_levels, ["scores.list.item"]);
        assert_eq!(encoders.arrow_rs, ["weight"]);
        assert!(bytes == expected, "bytes differ");
    }
    // With PLAIN values every leaf gets the native encoder's own pages, bloom filters too.
    let plain = WriterProperties::builder()
        .set_max_row_group_row_count(Some(4_000))
        .set_column_bloom_filter_enabled(path(&["weight"]), true)
        .set_column_bloom_filter_enabled(path(&["names", "list", "item"]), true)
        .build();
    let (bytes, encoders) = parallel(&batches(), &plain, ParallelOptions::new());
    assert_eq!(
        encoders.native_pages,
        ["weight", "names.list.item", "scores.list.item"]
    );
    assert!(bytes == upstream(&batches(), &plain), "bytes differ");
    let arrow_rs = ParallelOptions::new().with_encoder(ColumnEncoder::ArrowRs);
    let (bytes, encoders) = parallel(&batches(), &props, arrow_rs);
    assert_eq!(encoders.arrow_rs.len(), 3, "{encoders:?}");
    assert!(bytes == expected, "bytes differ with arrow-rs's encoder");
}

/// `ArrowWriter` cuts row groups on `ArrowColumnWriter`'s size estimate, which the native
/// encoder does not reproduce: with a byte limit every leaf stays with arrow-rs.
#[test]
fn a_row_group_byte_limit_keeps_arrow_rs_s_encoder_for_every_leaf() {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(None)
        .set_max_row_group_bytes(Some(30_000))
        .build();
    let (bytes, encoders) = parallel(&batches(), &props, ParallelOptions::new());
    assert_eq!(encoders.arrow_rs.len(), 3, "{encoders:?}");
    assert!(encoders.native().next().is_none());
    assert!(bytes == upstream(&batches(), &props), "bytes differ");
}

/// The typed writer behind a `native_levels` leaf keeps a dictionary and its pages until the
/// chunk closes; the sizes the writer reports must still grow with what it holds, as they do
/// with arrow-rs's encoder, or a caller flushing on them would never flush.
#[test]
fn memory_and_in_progress_size_grow_with_the_native_encoder_s_buffers() {
    let props = with_alp(WriterProperties::builder())
        .set_max_row_group_row_count(None)
        .build();
    let arrow = ArrowWriterOptions::new().with_properties(props);
    let options = ParallelOptions::new().with_threads(1);
    let scores = batch(20_000).project(&[2]).unwrap();
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        Vec::new(),
        scores.schema(),
        arrow,
        options,
    )
    .unwrap();
    assert_eq!(writer.leaf_encoders().native_levels, ["scores.list.item"]);
    let mut sizes = Vec::new();
    for _ in 0..4 {
        writer.write(&scores).unwrap();
        sizes.push((writer.memory_size(), writer.in_progress_size()));
    }
    for pair in sizes.windows(2) {
        assert!(
            pair[1].0 > pair[0].0 && pair[1].1 > pair[0].1,
            "sizes do not grow: {sizes:?}"
        );
    }
    // 80,000 rows hold 120,000 doubles (960,000 bytes): the estimate must see most of them.
    assert!(sizes[3].0 > 960_000, "{sizes:?}");
}
