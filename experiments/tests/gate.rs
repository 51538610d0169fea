//! The data gate: the same rows and seed give the same digest whatever the experiment, thread
//! counts, batch size or encoding, and the files read back match what was produced.

mod common;

use std::sync::Arc;

use arrow_array::types::UInt8Type;
use arrow_array::{Array, ArrayRef, DictionaryArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use common::verified_run;
use indicatif::ProgressBar;
use shredlab_experiments::catalog::{Optimization, CATALOG};
use shredlab_experiments::config::RunRequest;
use shredlab_experiments::gate::{Digest, OrderedDigest};
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::run::{execute, resolve};
use shredlab_experiments::shard::Shard;

const ROWS: u64 = 20_000;

fn digest_of(request: RunRequest) -> Digest {
    let report = verified_run(RunRequest {
        rows: ROWS,
        ..request
    });
    assert_eq!(report.rows, ROWS);
    report.digest.unwrap()
}

fn baseline() -> Digest {
    digest_of(RunRequest {
        experiment: 0,
        ..RunRequest::default()
    })
}

#[test]
fn every_experiment_passes_the_gate() {
    let expected = baseline();
    for experiment in CATALOG {
        let request = RunRequest {
            experiment: experiment.number,
            ..RunRequest::default()
        };
        assert_eq!(
            digest_of(request),
            expected,
            "experiment {}",
            experiment.dir_name()
        );
    }
}

#[test]
fn thread_counts_and_batch_sizes_do_not_change_the_data() {
    let expected = baseline();
    for experiment in [0, 13] {
        for (producers, writers, batch_size) in [
            (1, 1, 1_000),
            (4, 1, 4_096),
            (1, 3, 1_000),
            (4, 3, 4_096),
            (3, 2, 777),
        ] {
            let request = RunRequest {
                experiment,
                producers: Some(producers),
                writers: Some(writers),
                batch_size: Some(batch_size),
                ..RunRequest::default()
            };
            assert_eq!(
                digest_of(request),
                expected,
                "experiment {experiment}, {producers} producers, {writers} writers, batch {batch_size}"
            );
        }
    }
}

#[test]
fn single_optimizations_alone_pass_the_gate() {
    let expected = baseline();
    for &o in Optimization::ALL {
        // With what it acts through, so the path it changes is really taken.
        let mut enable = o.needs().to_vec();
        enable.push(o);
        // On the baseline: alone, with nothing else on.
        let request = RunRequest {
            experiment: 0,
            enable,
            ..RunRequest::default()
        };
        let config = resolve(&request).unwrap();
        assert_eq!(config.optimizations.inert().count(), 0, "{o}");
        assert_eq!(digest_of(request), expected, "{o} alone");
    }
}

#[test]
fn seed_and_skew_change_the_digest() {
    let expected = baseline();
    assert_ne!(
        digest_of(RunRequest {
            seed: 43,
            ..RunRequest::default()
        }),
        expected
    );
    assert_ne!(
        digest_of(RunRequest {
            zipf_exponent: Some(0.5),
            ..RunRequest::default()
        }),
        expected
    );
}

fn names_batch(names: &[Option<&str>], dictionary: bool) -> RecordBatch {
    let plain = StringArray::from(names.to_vec());
    let (column, data_type): (ArrayRef, _) = if dictionary {
        let dict: DictionaryArray<UInt8Type> = names.iter().copied().collect();
        let dt = dict.data_type().clone();
        (Arc::new(dict), dt)
    } else {
        (Arc::new(plain), DataType::Utf8)
    };
    let schema = Schema::new(vec![Field::new("name", data_type, true)]);
    RecordBatch::try_new(Arc::new(schema), vec![column]).unwrap()
}

#[test]
fn digest_ignores_order_batching_and_encoding_but_not_values() {
    let rows = [Some("a"), None, Some("b"), Some("a")];
    let whole = Digest::of_batch(&names_batch(&rows, false)).unwrap();
    assert_eq!(Digest::of_batch(&names_batch(&rows, true)).unwrap(), whole);
    let mut split = Digest::of_batch(&names_batch(&[Some("a"), Some("b")], true)).unwrap();
    split += Digest::of_batch(&names_batch(&[Some("a"), None], false)).unwrap();
    assert_eq!(split, whole);
    let changed = [Some("a"), Some(""), Some("b"), Some("a")];
    assert_ne!(
        Digest::of_batch(&names_batch(&changed, false)).unwrap(),
        whole
    );
    assert_eq!(whole.rows, 4);
}

/// Data version 1 (see "Data version 1" in docs/pipeline.md): any change to these digests changes every
/// generated row, so it must come with a new data version, documented, never unnoticed.
#[test]
fn data_version_1_is_pinned() {
    const SEED_42: &str = "20000:e58daaac1f409223bbcc0c20a04c3784";
    const SEED_7: &str = "20000:e91f122b8752e65ed2ad360b1fadc44e";
    // Experiment 00 builds rows through per-row structs, the newest straight into column buffers.
    for experiment in [0, CATALOG.len() as u32 - 1] {
        let request = RunRequest {
            experiment,
            ..RunRequest::default()
        };
        assert_eq!(
            digest_of(request).to_string(),
            SEED_42,
            "experiment {experiment}"
        );
    }
    let seeded = RunRequest {
        experiment: CATALOG.len() as u32 - 1,
        seed: 7,
        ..RunRequest::default()
    };
    assert_eq!(digest_of(seeded).to_string(), SEED_7);
}

/// Enough rows that the parallel writer moves row groups to its worker pool (its inline
/// threshold is 128 Ki leaf values), so the gate covers the pool, not only inline encoding.
#[test]
fn the_parallel_writer_s_pool_keeps_the_data() {
    const POOL_ROWS: u64 = 300_000;
    let run = |experiment, writers: Option<usize>| {
        let dir = tempfile::tempdir().unwrap();
        let output = OutputDir::prepare(dir.path(), false, Shard::WHOLE).unwrap();
        let request = RunRequest {
            experiment,
            rows: POOL_ROWS,
            writers,
            verify: true,
            ..RunRequest::default()
        };
        execute(&resolve(&request).unwrap(), &output, &ProgressBar::hidden()).unwrap()
    };
    let expected = run(0, None).digest;
    for (experiment, writers) in [(17, None), (20, None), (20, Some(2))] {
        let report = run(experiment, writers);
        assert!(
            report.pool_threads > 0,
            "experiment {experiment} never used the pool"
        );
        assert_eq!(report.digest, expected, "experiment {experiment}");
    }
}

#[test]
fn prebuilt_batches_are_the_same_data() {
    for experiment in [0, CATALOG.len() as u32 - 1] {
        let plain = RunRequest {
            experiment,
            ..RunRequest::default()
        };
        let prebuilt = RunRequest {
            prebuilt: true,
            ..plain.clone()
        };
        assert_eq!(
            digest_of(prebuilt),
            digest_of(plain),
            "experiment {experiment}"
        );
    }
}

/// The canonical form is by logical value: each physical variant a writer or reader may pick
/// for the same values digests alike, and different values do not.
#[test]
fn physical_variants_of_a_value_digest_alike() {
    use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
    use arrow_array::types::Int32Type;
    use arrow_array::*;

    fn digest(column: ArrayRef) -> Digest {
        Digest::of_batch(&RecordBatch::try_from_iter([("x", column)]).unwrap()).unwrap()
    }
    let same: Vec<(ArrayRef, ArrayRef)> = vec![
        (
            Arc::new(Int8Array::from(vec![Some(-1), None])),
            Arc::new(Int64Array::from(vec![Some(-1), None])),
        ),
        (
            Arc::new(UInt8Array::from(vec![7])),
            Arc::new(UInt64Array::from(vec![7])),
        ),
        (
            Arc::new(Float32Array::from(vec![0.5])),
            Arc::new(Float64Array::from(vec![0.5])),
        ),
        (
            Arc::new(Date32Array::from(vec![1])),
            Arc::new(Date64Array::from(vec![86_400_000])),
        ),
        (
            Arc::new(TimestampSecondArray::from(vec![-1])),
            Arc::new(TimestampNanosecondArray::from(vec![-1_000_000_000])),
        ),
        (
            Arc::new(Time32MillisecondArray::from(vec![1_000])),
            Arc::new(Time64MicrosecondArray::from(vec![1_000_000])),
        ),
        (
            Arc::new(
                Decimal128Array::from(vec![12_345])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
            Arc::new(
                Decimal256Array::from(vec![arrow_buffer::i256::from_i128(12_345)])
                    .with_precision_and_scale(40, 2)
                    .unwrap(),
            ),
        ),
        (
            Arc::new(FixedSizeBinaryArray::try_from_iter([b"ab"].into_iter()).unwrap()),
            Arc::new(LargeBinaryArray::from(vec![&b"ab"[..]])),
        ),
        (
            Arc::new(FixedSizeListArray::from_iter_primitive::<Int32Type, _, _>(
                [Some([Some(1), Some(2)])],
                2,
            )),
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>([Some([
                Some(1),
                Some(2),
            ])])),
        ),
    ];
    for (a, b) in same {
        assert_eq!(
            digest(a.clone()),
            digest(b.clone()),
            "{} vs {}",
            a.data_type(),
            b.data_type()
        );
    }

    // A map digests as its list of (key, value) entries.
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    map.keys().append_value("k");
    map.values().append_value(1);
    map.append(true).unwrap();
    let entries = StructArray::from(vec![
        (
            Arc::new(Field::new("key", DataType::Utf8, false)),
            Arc::new(StringArray::from(vec!["k"])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("value", DataType::Int32, true)),
            Arc::new(Int32Array::from(vec![1])) as ArrayRef,
        ),
    ]);
    let list = ListArray::new(
        Arc::new(Field::new("item", entries.data_type().clone(), false)),
        arrow_buffer::OffsetBuffer::from_lengths([1]),
        Arc::new(entries),
        None,
    );
    assert_eq!(digest(Arc::new(map.finish())), digest(Arc::new(list)));

    let different: Vec<(ArrayRef, ArrayRef)> = vec![
        (
            Arc::new(TimestampSecondArray::from(vec![1])),
            Arc::new(TimestampSecondArray::from(vec![1]).with_timezone("UTC")),
        ),
        (
            Arc::new(StringArray::from(vec!["ab"])),
            Arc::new(BinaryArray::from(vec![&b"ab"[..]])),
        ),
        (
            Arc::new(
                Decimal128Array::from(vec![1])
                    .with_precision_and_scale(5, 1)
                    .unwrap(),
            ),
            Arc::new(
                Decimal128Array::from(vec![1])
                    .with_precision_and_scale(5, 2)
                    .unwrap(),
            ),
        ),
        (
            Arc::new(Int32Array::from(vec![None::<i32>])),
            Arc::new(Int32Array::from(vec![0])),
        ),
    ];
    for (a, b) in different {
        assert_ne!(digest(a.clone()), digest(b), "{}", a.data_type());
    }
    let null_column: ArrayRef = Arc::new(NullArray::new(1));
    assert_eq!(
        digest(null_column),
        digest(Arc::new(Int32Array::from(vec![None::<i32>])))
    );
}

#[test]
fn unsupported_types_are_named() {
    let column: ArrayRef = Arc::new(arrow_array::DurationSecondArray::from(vec![1]));
    let batch = RecordBatch::try_from_iter([("span", column)]).unwrap();
    let error = Digest::of_batch(&batch).unwrap_err().to_string();
    assert!(error.contains("Duration"), "{error}");
}

/// A file whose dictionary column holds only NULLs has no dictionary values to read back: the
/// gate digests it (it used to panic in arrow's `normalized_keys`).
#[test]
fn runs_whose_files_hold_no_dictionary_values_pass_the_gate() {
    let tiny = RunRequest {
        rows: 1,
        seed: 2,
        ..RunRequest::default()
    };
    for experiment in CATALOG {
        let request = RunRequest {
            experiment: experiment.number,
            ..tiny.clone()
        };
        assert_eq!(verified_run(request).rows, 1, "{}", experiment.dir_name());
    }
    let one_batch_per_file = RunRequest {
        experiment: 8,
        rows: 4,
        batch_size: Some(1),
        writers: Some(4),
        ..tiny.clone()
    };
    assert_eq!(verified_run(one_batch_per_file).writers, 4);
    let spec = RunRequest {
        spec: Some(format!("{}/../specs/contacts.json", env!("CARGO_MANIFEST_DIR")).into()),
        seed: 3,
        ..tiny
    };
    assert_eq!(verified_run(spec).rows, 1);
}

/// `batch` written as one Parquet file and read back by the gate.
fn written_and_read_back(batch: &RecordBatch) -> Digest {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.parquet");
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    Digest::of_parquet_files(&[path]).unwrap()
}

/// Degenerate shapes digest as their values say, in memory and read back: dictionaries without
/// values, zero rows, all-NULL columns, empty lists.
#[test]
fn degenerate_shapes_digest_as_their_values() {
    use arrow_array::builder::{ListBuilder, StringDictionaryBuilder};
    use arrow_array::types::Int32Type;
    use arrow_array::{ListArray, NullArray, StructArray};

    let batch = |column: ArrayRef| RecordBatch::try_from_iter([("x", column)]).unwrap();
    let no_values = DictionaryArray::<UInt8Type>::new(
        vec![None::<u8>, None].into(),
        Arc::new(StringArray::new_null(0)),
    );
    let all_null: ArrayRef = Arc::new(StringArray::new_null(2));
    let no_values = batch(Arc::new(no_values));
    assert_eq!(
        Digest::of_batch(&no_values).unwrap(),
        Digest::of_batch(&batch(all_null.clone())).unwrap()
    );
    assert_eq!(
        Digest::of_batch(&no_values).unwrap(),
        Digest::of_batch(&batch(Arc::new(NullArray::new(2)))).unwrap()
    );

    // A list of dictionaries whose lists are empty or NULL: no dictionary values anywhere.
    let mut lists = ListBuilder::new(StringDictionaryBuilder::<UInt8Type>::new());
    lists.append(true);
    lists.append(false);
    let empty_lists: ArrayRef = Arc::new(lists.finish());
    let empty_ints: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>([
        Some(Vec::<Option<i32>>::new()),
        None,
    ]));
    assert_eq!(
        Digest::of_batch(&batch(empty_lists.clone())).unwrap(),
        Digest::of_batch(&batch(empty_ints)).unwrap(),
        "an empty list is an empty list whatever its item type"
    );
    let null_struct: ArrayRef = Arc::new(StructArray::new_null(
        vec![Field::new("s", DataType::Utf8, true)].into(),
        2,
    ));
    let cases = [
        no_values,
        batch(all_null.clone()),
        batch(empty_lists.clone()),
        batch(null_struct),
        batch(empty_lists.slice(0, 0)),
        batch(all_null.slice(0, 0)),
    ];
    for case in &cases {
        let in_memory = Digest::of_batch(case).unwrap();
        assert_eq!(written_and_read_back(case), in_memory, "{}", case.schema());
        assert_eq!(in_memory.rows, case.num_rows() as u64);
    }
}

/// The ordered digest follows the row order: two runs that write the same rows in the same
/// order agree, and a run that writes them in another order does not, though its multiset
/// digest does.
#[test]
fn the_file_order_digest_follows_the_order_of_the_rows() {
    let run = |writers| {
        verified_run(RunRequest {
            experiment: 19,
            rows: 50_000,
            batch_size: Some(4096),
            producers: Some(1),
            writers: Some(writers),
            ..RunRequest::default()
        })
    };
    let (first, again, two_files) = (run(1), run(1), run(2));
    let ordered = first.file_order_digest.unwrap();
    assert_eq!(again.file_order_digest, Some(ordered));
    assert_eq!(ordered.rows, 50_000);
    assert_eq!(two_files.digest, first.digest);
    assert_ne!(two_files.file_order_digest, Some(ordered));
    assert_eq!(ordered.to_string().len(), "50000:".len() + 32);
}

/// Batch and file boundaries do not count, the order of rows does.
#[test]
fn the_file_order_digest_ignores_boundaries_but_not_order() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, rows: &[Option<&str>]| {
        let path = dir.path().join(name);
        let batch = names_batch(rows, false);
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        path
    };
    let whole = [write("whole", &[Some("a"), None, Some("b")])];
    let split = [write("one", &[Some("a")]), write("two", &[None, Some("b")])];
    let reversed = [write("reversed", &[Some("b"), None, Some("a")])];
    let ordered = |paths: &[std::path::PathBuf]| OrderedDigest::of_parquet_files(paths).unwrap();
    assert_eq!(ordered(&split), ordered(&whole));
    assert_ne!(ordered(&reversed), ordered(&whole));
    assert_eq!(
        Digest::of_parquet_files(&reversed).unwrap(),
        Digest::of_parquet_files(&whole).unwrap()
    );
    assert_eq!(
        ordered(&[] as &[std::path::PathBuf]),
        OrderedDigest::default()
    );
}
