//! The async writer writes what parquet's AsyncArrowWriter writes.
#![cfg(feature = "tokio")]

mod common;

use common::{batches, Kind};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::AsyncArrowWriter;
use parquet::file::properties::WriterProperties;
use shredlab_writer::{AsyncParallelArrowWriter, ParallelOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matches_async_arrow_writer_byte_for_byte() {
    let (schema, batches) = batches(
        &[Kind::Utf8, Kind::ListStruct, Kind::Int32, Kind::Map],
        &[3_000, 10, 2_500, 0, 4_000],
        11,
    );
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(2_000))
        .build();
    let mut upstream =
        AsyncArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone())).unwrap();
    for batch in &batches {
        upstream.write(batch).await.unwrap();
    }
    upstream.finish().await.unwrap();
    let expected = upstream.into_inner();

    for options in [
        ParallelOptions::new().with_threads(1),
        ParallelOptions::new()
            .with_threads(3)
            .with_inline_threshold(0),
    ] {
        let arrow_options = ArrowWriterOptions::new().with_properties(props.clone());
        let mut writer = AsyncParallelArrowWriter::try_new_with_parallel_options(
            Vec::new(),
            schema.clone(),
            arrow_options,
            options,
        )
        .unwrap();
        for batch in &batches {
            writer.write(batch).await.unwrap();
        }
        assert!(writer.bytes_written() > 0);
        let metadata = writer.finish().await.unwrap();
        assert_eq!(metadata.file_metadata().num_rows(), 9_510);
        assert!(
            writer.into_inner() == expected,
            "async output differs from AsyncArrowWriter's"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sink_errors_come_back() {
    let (schema, batches) = batches(&[Kind::Utf8, Kind::Int32], &[5_000], 12);
    let full = tokio::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .await
        .unwrap();
    let mut writer = AsyncParallelArrowWriter::try_new(full, schema, None).unwrap();
    writer.write(&batches[0]).await.unwrap();
    let err = writer.close().await.unwrap_err().to_string();
    assert!(err.contains("No space left"), "{err}");
}
