//! Sink and usage failures surface as errors from write/flush/close: no panic, no hang.

mod common;

use std::io::Write;

use common::{batches, FailAfter, Kind};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use shredlab_writer::{ParallelArrowWriter, ParallelOptions};

fn pooled() -> ParallelOptions {
    ParallelOptions::new()
        .with_threads(2)
        .with_inline_threshold(0)
}

fn small_row_groups() -> ArrowWriterOptions {
    ArrowWriterOptions::new().with_properties(
        WriterProperties::builder()
            .set_max_row_group_row_count(Some(1_000))
            .build(),
    )
}

/// Writes every batch then closes; returns the first error.
fn write_all<W: Write + Send>(sink: W, options: ParallelOptions) -> parquet::errors::Result<()> {
    let (schema, batches) = batches(&[Kind::Utf8, Kind::ListStruct, Kind::Int32], &[2_000; 5], 1);
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        sink,
        schema,
        small_row_groups(),
        options,
    )?;
    for batch in &batches {
        writer.write(batch)?;
    }
    writer.close().map(|_| ())
}

#[test]
fn dev_full_is_an_error() {
    for options in [pooled(), ParallelOptions::new().with_threads(1)] {
        let sink = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let err = write_all(sink, options).unwrap_err().to_string();
        assert!(err.contains("No space left"), "{err}");
    }
}

#[test]
fn a_sink_failing_after_n_bytes_is_an_error_at_every_point() {
    for left in [0, 3, 100, 5_000, 40_000, 120_000] {
        for options in [
            pooled(),
            ParallelOptions::new()
                .with_threads(3)
                .with_row_groups_in_flight(1),
        ] {
            let err = write_all(FailAfter { left }, options)
                .unwrap_err()
                .to_string();
            assert!(err.contains("os error 28"), "after {left} bytes: {err}");
        }
    }
}

#[test]
fn calls_after_a_failure_are_refused() {
    let (schema, batches) = batches(&[Kind::Utf8, Kind::Int32], &[2_000; 3], 2);
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        FailAfter { left: 10 },
        schema,
        small_row_groups(),
        pooled(),
    )
    .unwrap();
    let mut first_error = None;
    for batch in &batches {
        if let Err(e) = writer.write(batch) {
            first_error = Some(e);
            break;
        }
    }
    let first = first_error
        .or_else(|| writer.flush().err())
        .expect("the sink fails");
    assert!(first.to_string().contains("os error 28"), "{first}");
    let later = writer.flush().unwrap_err().to_string();
    assert!(later.contains("incomplete"), "{later}");
}

#[test]
fn dropping_with_row_groups_in_flight_does_not_hang() {
    let (schema, batches) = batches(&[Kind::Utf8, Kind::ListInt32], &[3_000; 4], 3);
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        Vec::new(),
        schema,
        small_row_groups(),
        pooled().with_row_groups_in_flight(4),
    )
    .unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    drop(writer);
}

#[test]
fn mismatched_batches_are_errors_not_panics() {
    let (schema, _) = batches(&[Kind::Utf8, Kind::Int32], &[1], 4);
    let (_, other) = batches(&[Kind::Int32], &[10], 4);
    let mut writer = ParallelArrowWriter::try_new(Vec::new(), schema, None).unwrap();
    assert!(writer.write(&other[0]).is_err());
}

#[test]
fn accessors_track_progress_like_arrow_writer() {
    let (schema, batches) = batches(&[Kind::Utf8, Kind::Int64NonNull], &[1_500, 1_500], 5);
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(2_000))
        .build();
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        Vec::new(),
        schema.clone(),
        ArrowWriterOptions::new().with_properties(props.clone()),
        pooled(),
    )
    .unwrap();
    writer.write(&batches[0]).unwrap();
    assert_eq!(writer.in_progress_rows(), 1_500);
    assert!(writer.in_progress_size() > 0);
    assert!(writer.memory_size() > 0);
    writer.write(&batches[1]).unwrap();
    assert_eq!(writer.in_progress_rows(), 1_000);
    writer.flush().unwrap();
    assert_eq!(writer.flushed_row_groups().len(), 2);
    assert_eq!(writer.in_progress_rows(), 0);
    assert!(writer.bytes_written() > 0);
    let kv = KeyValue::new("origin".to_string(), "shredlab".to_string());
    writer.append_key_value_metadata(kv.clone());
    let parallel_bytes = writer.into_inner().unwrap();

    let mut upstream =
        parquet::arrow::ArrowWriter::try_new(Vec::new(), schema, Some(props)).unwrap();
    batches.iter().for_each(|b| upstream.write(b).unwrap());
    upstream.flush().unwrap();
    upstream.append_key_value_metadata(kv);
    assert_eq!(parallel_bytes, upstream.into_inner().unwrap());
}
