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
