//! `OrderedRowGroupWriter`: row groups encoded on several threads, in any order, make the file
//! `ArrowWriter` writes from the same batches; failures come back as errors, with no hang.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use common::{batches, upstream, FailAfter, Kind, KINDS};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::file::properties::WriterProperties;
use shredlab_writer::OrderedRowGroupWriter;

/// `batches` in row groups of `per_group` batches each.
fn groups(batches: &[RecordBatch], per_group: usize) -> Vec<Vec<RecordBatch>> {
    batches.chunks(per_group).map(<[_]>::to_vec).collect()
}

fn options(props: &WriterProperties) -> ArrowWriterOptions {
    ArrowWriterOptions::new().with_properties(props.clone())
}

/// The file `threads` threads make of `groups`, each claiming the next row group; the claim
/// order is reversed within each window so appends really happen out of order.
fn ordered(
    schema: &SchemaRef,
    groups: &[Vec<RecordBatch>],
    props: &WriterProperties,
    threads: usize,
    window: usize,
) -> Vec<u8> {
    let writer =
        OrderedRowGroupWriter::try_new(Vec::new(), schema.clone(), options(props), window).unwrap();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let claim = next.fetch_add(1, Ordering::Relaxed);
                if claim >= groups.len() {
                    return;
                }
                // Within each window, claims run backwards: the last of a window finishes first.
                let offset = claim % window;
                let last = (claim - offset + window).min(groups.len()) - 1;
                let index = last - offset;
                assert!(writer.wait_for_room(index, &stop).unwrap());
                let mut encoder = writer.encoder(index).unwrap();
                for batch in &groups[index] {
                    encoder.write(batch).unwrap();
                }
                writer.append(encoder).unwrap();
            });
        }
    });
    writer.into_inner().unwrap()
}

fn row_group_props(rows: usize) -> WriterProperties {
    WriterProperties::builder()
        .set_max_row_group_row_count(Some(rows))
        .set_data_page_row_count_limit(300)
        .build()
}

#[test]
fn any_thread_count_writes_arrow_writers_bytes() {
    let (schema, batches) = batches(&KINDS, &[500; 12], 11);
    let props = row_group_props(1_500);
    let expected = upstream(&schema, &batches, &props);
    for (threads, window) in [(1, 1), (2, 2), (3, 4), (4, 3)] {
        let got = ordered(&schema, &groups(&batches, 3), &props, threads, window);
        assert!(
            got == expected,
            "{threads} threads, window {window}: bytes differ"
        );
    }
}

#[test]
fn a_short_last_row_group_and_zstd_change_nothing() {
    let (schema, batches) = batches(
        &[Kind::Utf8, Kind::ListStruct, Kind::Int64NonNull],
        &[700; 7],
        5,
    );
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1_400))
        .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
        .build();
    let expected = upstream(&schema, &batches, &props);
    assert!(ordered(&schema, &groups(&batches, 2), &props, 2, 2) == expected);
}

#[test]
fn a_failing_sink_fails_every_later_call_and_wakes_waiting_threads() {
    // Row groups far larger than the writer's 1 MiB sink buffer, so appending one reaches the
    // sink.
    let (schema, batches) = batches(&[Kind::Utf8, Kind::Int32], &[300_000; 2], 2);
    let groups = groups(&batches, 1);
    let props = row_group_props(300_000);
    let writer =
        OrderedRowGroupWriter::try_new(FailAfter { left: 10_000 }, schema, options(&props), 2)
            .unwrap();
    let stop = AtomicBool::new(false);
    // Row group 3 waits for room (window 2) until the failure wakes it with an error.
    let (appended, waited) = thread::scope(|scope| {
        let waiter = scope.spawn(|| writer.wait_for_room(3, &stop));
        let mut first = writer.encoder(0).unwrap();
        first.write(&groups[0][0]).unwrap();
        let appended = writer.append(first);
        // Never hang, even if the append wrongly succeeded: the waiter would then say `false`.
        stop.store(true, Ordering::SeqCst);
        (appended, waiter.join().unwrap())
    });
    let error = appended.unwrap_err().to_string();
    assert!(error.contains("os error 28"), "{error}");
    let error = waited.unwrap_err().to_string();
    assert!(
        error.contains("incomplete") && error.contains("os error 28"),
        "{error}"
    );
    let mut second = writer.encoder(1).unwrap();
    second.write(&groups[1][0]).unwrap();
    assert!(writer.append(second).is_err());
    assert!(writer.into_inner().is_err());
}

#[test]
fn a_missing_row_group_or_a_second_append_is_an_error() {
    let (schema, batches) = batches(&[Kind::Int32], &[100; 3], 4);
    let props = row_group_props(100);
    let writer =
        OrderedRowGroupWriter::try_new(Vec::new(), schema.clone(), options(&props), 4).unwrap();
    let mut later = writer.encoder(1).unwrap();
    later.write(&batches[1]).unwrap();
    writer.append(later).unwrap();
    let error = writer.into_inner().unwrap_err().to_string();
    assert!(error.contains("row group 0 never came"), "{error}");

    let writer = OrderedRowGroupWriter::try_new(Vec::new(), schema, options(&props), 4).unwrap();
    let mut first = writer.encoder(0).unwrap();
    first.write(&batches[0]).unwrap();
    writer.append(first).unwrap();
    let mut again = writer.encoder(0).unwrap();
    again.write(&batches[0]).unwrap();
    let error = writer.append(again).unwrap_err().to_string();
    assert!(error.contains("appended twice"), "{error}");
    assert!(writer.into_inner().is_err());
}

#[test]
fn a_raised_stop_flag_ends_a_wait_without_error() {
    let (schema, _) = batches(&[Kind::Int32], &[1], 1);
    let writer = OrderedRowGroupWriter::try_new(
        Vec::new(),
        schema,
        options(&WriterProperties::default()),
        1,
    )
    .unwrap();
    let stop = AtomicBool::new(true);
    assert!(!writer.wait_for_room(5, &stop).unwrap());
    assert!(writer.wait_for_room(0, &stop).unwrap());
}
