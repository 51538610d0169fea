//! Writer properties reach the right Parquet columns.

use std::path::PathBuf;

use indicatif::ProgressBar;
use parquet::file::reader::{FileReader, SerializedFileReader};
use shredlab_experiments::config::RunRequest;
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::properties::{phone_number_path, phone_type_path};
use shredlab_experiments::run::{execute, resolve};
use shredlab_experiments::shard::Shard;
use shredlab_experiments::workload::SpecWorkload;
use shredlab_generator::spec::SpecPaths;

/// (column path, has a dictionary page, has statistics) of each leaf in the first row group.
fn leaves(experiment: u32, compression: &str) -> Vec<(String, bool, bool, String)> {
    leaves_of(experiment, compression, None)
}

/// [`leaves`] of the workload of `spec` (a preset's name), or of the contacts.
fn leaves_of(
    experiment: u32,
    compression: &str,
    spec: Option<&str>,
) -> Vec<(String, bool, bool, String)> {
    let dir = tempfile::tempdir().unwrap();
    let output = OutputDir::prepare(dir.path(), false, Shard::WHOLE).unwrap();
    let request = RunRequest {
        experiment,
        rows: 5_000,
        writers: Some(1),
        compression: compression.parse().unwrap(),
        spec: spec.map(|name| {
            PathBuf::from(format!(
                "{}/../specs/{name}.json",
                env!("CARGO_MANIFEST_DIR")
            ))
        }),
        ..RunRequest::default()
    };
    execute(&resolve(&request).unwrap(), &output, &ProgressBar::hidden()).unwrap();
    let file = std::fs::File::open(output.part_path(0)).unwrap();
    let reader = SerializedFileReader::new(file).unwrap();
    let row_group = reader.metadata().row_group(0);
    row_group
        .columns()
        .iter()
        .map(|c| {
            (
                c.column_path().string(),
                c.dictionary_page_offset().is_some(),
                c.statistics().is_some(),
                c.compression().to_string(),
            )
        })
        .collect()
}

#[test]
fn fitted_properties_reach_their_columns() {
    let number = phone_number_path().string();
    for (path, dictionary, statistics, _) in leaves(0, "none") {
        assert!(dictionary && statistics, "{path} at the baseline");
    }
    let fitted = leaves(14, "none");
    assert_eq!(fitted.len(), 3, "{fitted:?}");
    for (path, dictionary, statistics, _) in fitted {
        let expected = match path.as_str() {
            "name" => (false, false),
            p if p == number => (false, false),
            _ => (true, true),
        };
        assert_eq!((dictionary, statistics), expected, "{path}");
    }
}

#[test]
fn type_statistics_are_dropped_at_25_and_kept_before() {
    let phone_type = phone_type_path().string();
    let statistics_of = |experiment| {
        leaves(experiment, "none")
            .into_iter()
            .find(|(path, ..)| *path == phone_type)
            .map(|(_, dictionary, statistics, _)| (dictionary, statistics))
    };
    assert_eq!(statistics_of(24), Some((true, true)));
    assert_eq!(statistics_of(25), Some((true, false)));
}

/// The contacts preset's `"parquet"` settings write the layout entries 14 and 25 chose for the
/// hand-written contacts, whatever the experiment: they override its properties.
#[test]
fn the_contacts_preset_carries_the_fitted_layout() {
    let layout = |leaves: Vec<(String, bool, bool, String)>| -> Vec<(String, bool, bool)> {
        leaves.into_iter().map(|(p, d, s, _)| (p, d, s)).collect()
    };
    let hand = layout(leaves(25, "none"));
    assert_eq!(layout(leaves_of(0, "none", Some("contacts"))), hand);
    assert_eq!(layout(leaves_of(36, "none", Some("contacts"))), hand);
}

/// A spec's setting parquet cannot write (an integer encoding on strings) fails when the spec
/// is read, naming the field and the encodings the column takes.
#[test]
fn a_spec_encoding_of_another_type_names_the_field_and_the_choices() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"fields": [{"name": "id", "type": {"name": "int", "bitWidth": 64}},
            {"name": "tags", "type": {"name": "list"}, "parquet": {"encoding": "delta_binary_packed"},
             "children": [{"name": "item", "type": {"name": "utf8"}}]}]}"#,
    )
    .unwrap();
    let message = SpecWorkload::load(&path, 1, SpecPaths::ALL)
        .unwrap_err()
        .to_string();
    for expected in [
        "fields[1]:",
        "column 'tags.list.item' (BYTE_ARRAY) has no DELTA_BINARY_PACKED encoding",
        "it takes plain, delta_length_byte_array, delta_byte_array",
    ] {
        assert!(message.contains(expected), "{expected}: {message}");
    }
}

/// Bloom filters the writer would size past use (a rate parquet's formula rounds away) or
/// past memory (each row group's filters held together) are refused when the spec is read;
/// filters within both are taken.
#[test]
fn bloom_filters_past_use_or_memory_are_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let load = |columns: usize, writing: &str| {
        let fields: Vec<String> = (0..columns)
            .map(|i| format!(r#"{{"name": "c{i}", "type": {{"name": "int", "bitWidth": 32}}, "parquet": {writing}}}"#))
            .collect();
        let path = dir.path().join("bloom.json");
        std::fs::write(&path, format!(r#"{{"fields": [{}]}}"#, fields.join(", "))).unwrap();
        SpecWorkload::load(&path, 1, SpecPaths::ALL).map(|_| ())
    };
    let message = load(1, r#"{"bloom_filter_fpp": 1e-300}"#)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("fields[0]: \"bloom_filter_fpp\" 1e-300 is below 1e-12"),
        "{message}"
    );
    // 128 MiB each, parquet's ceiling: 8 fit in 1 GiB, 9 do not.
    let huge = r#"{"bloom_filter_ndv": 1000000000}"#;
    load(8, huge).unwrap();
    let message = load(9, huge).unwrap_err().to_string();
    assert!(message.contains("the bloom filters would hold 1152 MiB in memory for each row group written, beyond 1024 MiB (column 'c0' alone 128 MiB): lower bloom_filter_ndv or raise bloom_filter_fpp"), "{message}");
    load(20, r#"{"bloom_filter_fpp": 1e-12}"#).unwrap();
}

#[test]
fn compression_reaches_every_column() {
    for (spec, codec) in [
        ("snappy", "SNAPPY"),
        ("zstd(3)", "ZSTD"),
        ("lz4", "LZ4_RAW"),
    ] {
        for (path, _, _, compression) in leaves(0, spec) {
            assert!(
                compression.starts_with(codec),
                "{path}: {compression} for {spec}"
            );
        }
    }
}
