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

/// What an `AsyncFileWriter`'s calls return (the `BoxFuture` of the futures crate).
type SinkFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = parquet::errors::Result<()>> + Send + 'a>>;

/// A sink that refuses its first write and takes every later one.
struct FailsOnce {
    failed: bool,
}

impl parquet::arrow::async_writer::AsyncFileWriter for FailsOnce {
    fn write(&mut self, _bytes: bytes::Bytes) -> SinkFuture<'_> {
        Box::pin(async move {
            if !self.failed {
                self.failed = true;
                return Err(parquet::errors::ParquetError::General("refused".into()));
            }
            Ok(())
        })
    }

    fn complete(&mut self) -> SinkFuture<'_> {
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_sink_error_every_call_fails() {
    let (schema, batches) = batches(&[Kind::Utf8, Kind::Int32], &[5_000; 8], 13);
    let sink = FailsOnce { failed: false };
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1_000))
        .build();
    let mut writer = AsyncParallelArrowWriter::try_new(sink, schema, Some(properties)).unwrap();
    // The first call that hands bytes over meets the refusal (row groups may still be encoding
    // after the first write, so it can be a later one).
    let mut first = None;
    for batch in &batches {
        if let Err(error) = writer.write(batch).await {
            first = Some(error.to_string());
            break;
        }
    }
    let first = first.expect("a write handed bytes to the sink");
    assert!(first.contains("refused"), "{first}");
    let later = writer.write(&batches[0]).await.unwrap_err().to_string();
    assert!(
        later.contains("an earlier hand-over to the sink failed"),
        "{later}"
    );
    let closing = writer.close().await.unwrap_err().to_string();
    assert!(
        closing.contains("this Parquet file is incomplete"),
        "{closing}"
    );
}
