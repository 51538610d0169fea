//! The two writers every encoder test compares: `ArrowWriter`, the oracle, and an
//! `OrderedRowGroupWriter` with a chosen column encoder, on the same row groups.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::OrderedRowGroupWriter;

/// Every codec the project builds parquet with, Zstandard at `zstd_level`.
pub fn built_codecs(zstd_level: i32) -> [Compression; 5] {
    [
        Compression::UNCOMPRESSED,
        Compression::SNAPPY,
        Compression::ZSTD(ZstdLevel::try_new(zstd_level).unwrap()),
        Compression::LZ4_RAW,
        Compression::LZ4,
    ]
}

/// `ArrowWriter`'s bytes for `groups`, one row group each (cut with `flush`).
pub fn upstream(
    schema: &SchemaRef,
    groups: &[Vec<RecordBatch>],
    props: &WriterProperties,
) -> Result<Vec<u8>> {
    let options = ArrowWriterOptions::new().with_properties(props.clone());
    upstream_with(schema, groups, options)
}

/// [`upstream`] under any `ArrowWriterOptions`.
pub fn upstream_with(
    schema: &SchemaRef,
    groups: &[Vec<RecordBatch>],
    options: ArrowWriterOptions,
) -> Result<Vec<u8>> {
    let mut writer = ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options)?;
    for group in groups {
        for batch in group {
            writer.write(batch)?;
        }
        writer.flush()?;
    }
    writer.into_inner()
}

/// The bytes of `OrderedRowGroupWriter` with `encoder` for `groups`, and the leaves it wrote
/// natively.
pub fn encoded(
    schema: &SchemaRef,
    groups: &[Vec<RecordBatch>],
    props: &WriterProperties,
    encoder: ColumnEncoder,
) -> Result<(Vec<u8>, Vec<String>)> {
    let options = ArrowWriterOptions::new().with_properties(props.clone());
    encoded_with(schema, groups, options, encoder)
}

/// [`encoded`] with the native encoder, checked against [`upstream`]: the file (which must be
/// `ArrowWriter`'s byte for byte, else a panic naming `case`) and the leaves written natively.
pub fn native_identical(
    schema: &SchemaRef,
    groups: &[Vec<RecordBatch>],
    props: &WriterProperties,
    case: &str,
) -> (Vec<u8>, Vec<String>) {
    let expected = upstream(schema, groups, props).unwrap();
    let (actual, native) = encoded(schema, groups, props, ColumnEncoder::Native).unwrap();
    assert!(
        actual == expected,
        "{case}: bytes differ from ArrowWriter's"
    );
    (actual, native)
}

/// [`encoded`] under any `ArrowWriterOptions` (a Parquet schema given by hand, say).
pub fn encoded_with(
    schema: &SchemaRef,
    groups: &[Vec<RecordBatch>],
    options: ArrowWriterOptions,
    encoder: ColumnEncoder,
) -> Result<(Vec<u8>, Vec<String>)> {
    let writer = OrderedRowGroupWriter::try_new_with_encoder(
        Vec::new(),
        schema.clone(),
        options,
        1,
        encoder,
    )?;
    let native = writer.leaf_encoders().native().cloned().collect();
    for (index, group) in groups.iter().enumerate() {
        let mut row_group = writer.encoder(index)?;
        for batch in group {
            row_group.write(batch)?;
        }
        writer.append(row_group)?;
    }
    Ok((writer.into_inner()?, native))
}
