//! Criterion benches of the encode step: parquet's ArrowWriter against ParallelArrowWriter on
//! named data shapes, and on one thread the two column encoders (`encode::ColumnEncoder`) in
//! an `OrderedRowGroupWriter`, on those shapes and on each leaf kind of the test matrix alone
//! (`leaf/<kind>`; numbers and strings again with data page v2, `leaf-v2/<kind>`); throughput in
//! Arrow bytes. `cargo bench -p shredlab-writer`, or `cargo bench -p shredlab-writer --bench
//! encode -- '^leaf'` for the leaf kinds only.
// criterion_group! generates a public function that cannot carry a doc comment.
#![allow(missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use common::{batches, batches_with, Kind, KINDS};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::{OrderedRowGroupWriter, ParallelArrowWriter};

fn shapes() -> Vec<(&'static str, SchemaRef, Vec<RecordBatch>)> {
    let simple: Vec<Kind> = [Kind::Int64NonNull, Kind::Utf8].repeat(5);
    let nested: Vec<Kind> = [
        Kind::Int32,
        Kind::Utf8,
        Kind::ListInt32,
        Kind::Struct,
        Kind::ListStruct,
        Kind::Boolean,
    ]
    .repeat(2);
    [("simple-10", simple), ("nested-12", nested)]
        .into_iter()
        .map(|(name, kinds)| {
            let (schema, data) = batches(&kinds, &[8_192; 24], 1);
            (name, schema, data)
        })
        .collect()
}

fn settings() -> Vec<(&'static str, WriterProperties)> {
    vec![
        ("default", WriterProperties::default()),
        // What the native encoder writes pages for: no dictionary, no statistics.
        (
            "plain",
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .set_statistics_enabled(EnabledStatistics::None)
                .build(),
        ),
        (
            "zstd1",
            WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap()))
                .build(),
        ),
    ]
}

fn encode(c: &mut Criterion) {
    for (shape, schema, data) in shapes() {
        let bytes: usize = data.iter().map(RecordBatch::get_array_memory_size).sum();
        for (setting, props) in settings() {
            let mut group = c.benchmark_group(format!("encode/{shape}/{setting}"));
            group
                .throughput(Throughput::Bytes(bytes as u64))
                .sample_size(10);
            group.bench_function(BenchmarkId::new("ArrowWriter", shape), |b| {
                b.iter(|| {
                    let mut writer =
                        ArrowWriter::try_new(std::io::sink(), schema.clone(), Some(props.clone()))
                            .unwrap();
                    data.iter().for_each(|batch| writer.write(batch).unwrap());
                    black_box(writer.close().unwrap())
                })
            });
            group.bench_function(BenchmarkId::new("ParallelArrowWriter", shape), |b| {
                b.iter(|| {
                    let mut writer = ParallelArrowWriter::try_new(
                        std::io::sink(),
                        schema.clone(),
                        Some(props.clone()),
                    )
                    .unwrap();
                    data.iter().for_each(|batch| writer.write(batch).unwrap());
                    black_box(writer.close().unwrap())
                })
            });
            for encoder in [ColumnEncoder::ArrowRs, ColumnEncoder::Native] {
                let name = format!("one-thread-{encoder:?}");
                group.bench_function(BenchmarkId::new(name, shape), |b| {
                    b.iter(|| black_box(one_row_group(&schema, &data, &props, encoder)))
                });
            }
            group.finish();
        }
    }
}

/// Each leaf kind alone (a column of 196,608 rows, one null in ten at every nullable level,
/// default properties), one thread: where each encoder's time goes by type (a leaf the native
/// encoder left to arrow-rs would time the same on both). `AllNull` is a column
/// of nulls only. Then the numeric kinds, strings and fixed-size binaries with data page v2,
/// whose integers, strings and fixed-length byte arrays fall back from the dictionary to
/// `DELTA_BINARY_PACKED` and `DELTA_BYTE_ARRAY`.
fn leaf(c: &mut Criterion) {
    leaf_kinds(c, "leaf", &KINDS, &WriterProperties::default());
    let v2 = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .build();
    let v2_kinds = [
        Kind::Int32,
        Kind::Int64NonNull,
        Kind::Float64,
        Kind::Decimal,
        Kind::WideDecimal,
        Kind::Timestamp,
        Kind::ListInt32,
        Kind::Utf8,
        Kind::FixedSizeBinary,
    ];
    leaf_kinds(c, "leaf-v2", &v2_kinds, &v2);
}

/// The benches `<prefix>/<kind>` of each of `kinds` alone under `props`.
fn leaf_kinds(c: &mut Criterion, prefix: &str, kinds: &[Kind], props: &WriterProperties) {
    for &kind in kinds {
        let (schema, data) = batches_with(&[kind], &[8_192; 24], 1, |field, params| {
            params.null_probability = match (kind, field.is_nullable()) {
                (Kind::AllNull, _) => 1.0,
                (_, true) => 0.1,
                (_, false) => 0.0,
            };
        });
        let bytes: usize = data.iter().map(RecordBatch::get_array_memory_size).sum();
        let mut group = c.benchmark_group(format!("{prefix}/{kind:?}"));
        group
            .throughput(Throughput::Bytes(bytes as u64))
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(2));
        for encoder in [ColumnEncoder::ArrowRs, ColumnEncoder::Native] {
            group.bench_function(format!("{encoder:?}"), |b| {
                b.iter(|| black_box(one_row_group(&schema, &data, props, encoder)))
            });
        }
        group.finish();
    }
}

/// `data` encoded as one row group on the calling thread by `encoder`.
fn one_row_group(
    schema: &SchemaRef,
    data: &[RecordBatch],
    props: &WriterProperties,
    encoder: ColumnEncoder,
) -> usize {
    let options = ArrowWriterOptions::new().with_properties(props.clone());
    let writer = OrderedRowGroupWriter::try_new_with_encoder(
        std::io::sink(),
        schema.clone(),
        options,
        1,
        encoder,
    )
    .unwrap();
    let mut row_group = writer.encoder(0).unwrap();
    data.iter()
        .for_each(|batch| row_group.write(batch).unwrap());
    writer.append(row_group).unwrap();
    writer.appended()
}

criterion_group!(benches, encode, leaf);
criterion_main!(benches);
