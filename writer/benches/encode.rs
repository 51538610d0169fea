//! Criterion benches of the encode step: parquet's ArrowWriter against ParallelArrowWriter on
//! named data shapes, throughput in Arrow bytes. `cargo bench -p shredlab-writer`.
// criterion_group! generates a public function that cannot carry a doc comment.
#![allow(missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use common::{batches, Kind};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use shredlab_writer::ParallelArrowWriter;

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
            group.finish();
        }
    }
}

criterion_group!(benches, encode);
criterion_main!(benches);
