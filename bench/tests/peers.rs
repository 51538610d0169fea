//! The Rust side of `make peers`: the hand-over file keeps every row, the two Rust writers write
//! byte-identical files through it, and `peers inspect` reports what is in a file.

use std::fs::File;
use std::os::unix::fs::PermissionsExt;

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use shredlab_bench::peers::{ipc, layout, timed_write};
use shredlab_bench::writer_bench::Contender;
use shredlab_experiments::gate::Digest;
use shredlab_generator::{contact_schema, PhoneTypeEncoding};
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::FileOptions;

fn digest(batches: &[RecordBatch]) -> Digest {
    let mut total = Digest::default();
    for batch in batches {
        total += Digest::of_batch(batch).unwrap();
    }
    total
}

#[test]
fn the_hand_over_file_keeps_every_row_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("contacts.arrow");
    let exported = ipc::export(&path, 40_000, 9, None).unwrap();
    assert_eq!(exported.rows, 40_000);
    let (schema, batches) = ipc::load(&path).unwrap();
    assert_eq!(schema, contact_schema(PhoneTypeEncoding::Dictionary));
    assert_eq!(digest(&batches), exported);
    assert_eq!(batches[0].num_rows() as u64, ipc::BATCH_ROWS);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_ne!(
        mode & 0o777,
        0o600,
        "an ordinary file's mode, not a temporary file's"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "only the finished file"
    );
    // Same seed, same data; another seed, other data.
    assert_eq!(
        ipc::export(&dir.path().join("again.arrow"), 40_000, 9, None).unwrap(),
        exported
    );
    assert_ne!(
        ipc::export(&dir.path().join("other.arrow"), 40_000, 10, None).unwrap(),
        exported
    );
}

#[test]
fn a_spec_workload_is_handed_over_with_its_digest() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../specs/otel-logs.json"
    ));
    let path = dir.path().join("logs.arrow");
    let exported = ipc::export(&path, 20_000, 3, Some(&spec)).unwrap();
    let (schema, batches) = ipc::load(&path).unwrap();
    assert_eq!(schema.field(0).name(), "timestamp");
    assert_eq!(digest(&batches), exported);
    assert_eq!(exported.rows, 20_000);
}

#[test]
fn a_missing_hand_over_file_is_named() {
    let error = ipc::load(std::path::Path::new("/nonexistent/contacts.arrow")).unwrap_err();
    assert!(
        format!("{error:#}").contains("/nonexistent/contacts.arrow"),
        "{error:#}"
    );
    assert!(format!("{error:#}").contains("peers export"), "{error:#}");
}

#[test]
fn both_rust_writers_write_the_same_bytes_and_report_them() {
    let dir = tempfile::tempdir().unwrap();
    let hand_over = dir.path().join("contacts.arrow");
    ipc::export(&hand_over, 30_000, 1, None).unwrap();
    let (schema, batches) = ipc::load(&hand_over).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(7_000))
        .build();
    let mut files = Vec::new();
    for (name, contender) in [
        ("arrow", Contender::ArrowWriter),
        ("parallel", Contender::Parallel(2, ColumnEncoder::default())),
    ] {
        let path = dir.path().join(format!("{name}.parquet"));
        let options = FileOptions {
            writeback_step: matches!(contender, Contender::Parallel(..)).then_some(1 << 20),
            ..FileOptions::default()
        };
        let record =
            timed_write::timed_write(contender, &path, &schema, &batches, &props, &options)
                .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(record.file_bytes, bytes.len() as u64);
        assert!(record.wall_s > 0.0);
        files.push(bytes);
    }
    assert!(
        files[0] == files[1],
        "ParallelArrowWriter's file differs from ArrowWriter's"
    );
    let digest_back = Digest::of_parquet_files(&[dir.path().join("parallel.parquet")]).unwrap();
    assert_eq!(digest_back, digest(&batches));
}

#[test]
fn inspect_reports_row_groups_pages_statistics_page_index_and_bloom_filters() {
    let dir = tempfile::tempdir().unwrap();
    let hand_over = dir.path().join("contacts.arrow");
    ipc::export(&hand_over, 10_000, 2, None).unwrap();
    let (schema, batches) = ipc::load(&hand_over).unwrap();
    let number = ColumnPath::from(vec![
        "phones".into(),
        "list".into(),
        "item".into(),
        "number".into(),
    ]);
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(4_000))
        .set_data_page_row_count_limit(1_000)
        .set_write_batch_size(500)
        .set_column_bloom_filter_enabled("name".into(), true)
        .set_column_statistics_enabled(number.clone(), EnabledStatistics::Chunk)
        .set_column_dictionary_enabled(number, false)
        .build();
    let path = dir.path().join("file.parquet");
    let mut writer =
        ArrowWriter::try_new(File::create(&path).unwrap(), schema, Some(props)).unwrap();
    for batch in &batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();

    let found = layout::inspect(&path).unwrap();
    assert_eq!(found.rows, 10_000);
    assert_eq!(found.row_groups, 3);
    assert_eq!(found.bytes, std::fs::metadata(&path).unwrap().len());
    let paths: Vec<&str> = found.columns.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "name",
            "phones.list.item.number",
            "phones.list.item.phone_type"
        ]
    );
    let (name, number, phone_type) = (&found.columns[0], &found.columns[1], &found.columns[2]);
    assert!(name.bloom_filter && !number.bloom_filter && !phone_type.bloom_filter);
    assert!(name.column_index && !number.column_index && phone_type.column_index);
    assert!(name.statistics && number.statistics && name.offset_index);
    // A page per 1,000 rows at most: at least 10 data pages of names over the three groups.
    assert!(name.data_pages >= 10, "{name:?}");
    assert_eq!(name.dictionary_pages, 3);
    assert_eq!(number.dictionary_pages, 0);
    assert!(found.created_by.unwrap().starts_with("parquet-rs"));
}

#[test]
fn inspect_names_a_file_that_is_not_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not.parquet");
    std::fs::write(&path, b"hello").unwrap();
    let error = layout::inspect(&path).unwrap_err();
    assert!(
        format!("{error:#}").contains("not a readable Parquet file"),
        "{error:#}"
    );
}
