//! `ParallelOptions::with_worker_observer`: told once on each worker thread as it starts, its
//! guard dropped on that thread as the worker ends; never for work done inline.

mod common;

use std::any::Any;
use std::sync::{Arc, Mutex};

use common::{batches, Kind};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::file::properties::WriterProperties;
use shredlab_writer::{ParallelArrowWriter, ParallelOptions, WorkerObserver};

/// Records the thread each worker started and ended on.
#[derive(Default)]
struct Recorder {
    started: Mutex<Vec<String>>,
    ended: Arc<Mutex<Vec<String>>>,
}

/// Dropped as a worker ends: records the thread it is dropped on.
struct EndGuard(Arc<Mutex<Vec<String>>>);

impl Drop for EndGuard {
    fn drop(&mut self) {
        self.0.lock().unwrap().push(thread_name());
    }
}

fn thread_name() -> String {
    std::thread::current().name().unwrap_or("?").to_string()
}

impl WorkerObserver for Recorder {
    fn worker_started(&self) -> Box<dyn Any> {
        self.started.lock().unwrap().push(thread_name());
        Box::new(EndGuard(Arc::clone(&self.ended)))
    }
}

/// Writes four row groups with `options` plus the recorder, and returns it.
fn write_with(options: ParallelOptions) -> Arc<Recorder> {
    let recorder = Arc::new(Recorder::default());
    let (schema, batches) = batches(&[Kind::Utf8, Kind::ListStruct, Kind::Int32], &[2_000; 4], 1);
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(2_000))
        .build();
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        Vec::new(),
        schema,
        ArrowWriterOptions::new().with_properties(properties),
        options.with_worker_observer(Arc::clone(&recorder) as Arc<dyn WorkerObserver>),
    )
    .unwrap();
    for batch in &batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();
    recorder
}

#[test]
fn every_worker_is_observed_once_on_its_own_thread() {
    let recorder = write_with(
        ParallelOptions::new()
            .with_threads(3)
            .with_inline_threshold(0),
    );
    let mut started = recorder.started.lock().unwrap().clone();
    let mut ended = recorder.ended.lock().unwrap().clone();
    started.sort();
    ended.sort();
    assert_eq!(
        started,
        [
            "parquet-encoder-0",
            "parquet-encoder-1",
            "parquet-encoder-2"
        ]
    );
    assert_eq!(
        ended, started,
        "each guard is dropped on its worker's thread"
    );
}

#[test]
fn inline_work_is_not_observed() {
    let recorder = write_with(ParallelOptions::new().with_threads(1));
    assert!(recorder.started.lock().unwrap().is_empty());
}
