//! Experiment 29 stores `name` as dictionary indices over one dictionary page per row group,
//! without falling back to plain pages, up to 1,048,576-row row groups; its data is 28's, and
//! 30 (its revert) writes 28's bytes.

mod common;

use std::path::{Path, PathBuf};

use common::run_ok;
use parquet::basic::Encoding;
use parquet::column::page::Page;
use parquet::file::reader::{FileReader, SerializedFileReader};

/// Runs `pipeline ARGS` into `dir`, returning its one file and its JSON report.
fn write(args: &[&str], dir: &Path) -> (PathBuf, serde_json::Value) {
    let out = run_ok(&[args, &["--json"]].concat(), dir);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (dir.join("part-00000.parquet"), report)
}

/// For each row group of `file`: whether `name` has a dictionary page, and the encodings of
/// its data pages.
fn name_pages(file: &Path) -> Vec<(bool, Vec<Encoding>)> {
    let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
    let name = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|column| column.path().string() == "name")
        .expect("a name column");
    (0..reader.num_row_groups())
        .map(|group| {
            let pages = reader
                .get_row_group(group)
                .unwrap()
                .get_column_page_reader(name)
                .unwrap();
            let (mut dictionary, mut encodings) = (false, Vec::new());
            for page in pages {
                match page.unwrap() {
                    Page::DictionaryPage { .. } => dictionary = true,
                    Page::DataPage { encoding, .. } | Page::DataPageV2 { encoding, .. } => {
                        encodings.push(encoding)
                    }
                }
            }
            (dictionary, encodings)
        })
        .collect()
}

#[test]
fn names_stay_dictionary_encoded_in_every_page_of_every_row_group() {
    let dir = tempfile::tempdir().unwrap();
    // Two row groups of the default 262,144 rows, then one of 1,048,576.
    for (rows, group_rows, groups) in [("524288", "262144", 2), ("1048576", "1048576", 1)] {
        let args = ["-n", rows, "--row-group-rows", group_rows];
        let (fused, plain) = write(
            &[&args[..], &["-e", "28"]].concat(),
            &dir.path().join(format!("28-{rows}")),
        );
        let (dictionary, encoded) = write(
            &[&args[..], &["-e", "29"]].concat(),
            &dir.path().join(format!("29-{rows}")),
        );

        let pages = name_pages(&dictionary);
        assert_eq!(pages.len(), groups);
        for (has_dictionary, encodings) in pages {
            assert!(
                has_dictionary,
                "{group_rows}-row groups: no dictionary page"
            );
            assert!(
                !encodings.is_empty() && encodings.iter().all(|e| *e == Encoding::RLE_DICTIONARY),
                "{group_rows}-row groups fell back: {encodings:?}"
            );
        }
        for (has_dictionary, encodings) in name_pages(&fused) {
            assert!(!has_dictionary && encodings.iter().all(|e| *e == Encoding::PLAIN));
        }
        assert_eq!(encoded["digest"], plain["digest"], "the same data");
        assert!(
            encoded["output_bytes"].as_u64() < plain["output_bytes"].as_u64(),
            "{} against {}",
            encoded["output_bytes"],
            plain["output_bytes"]
        );
    }
}

#[test]
fn the_revert_writes_fused_row_groups_files() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-n", "300000"];
    let (fused, _) = write(&[&args[..], &["-e", "28"]].concat(), &dir.path().join("28"));
    let (reverted, _) = write(&[&args[..], &["-e", "30"]].concat(), &dir.path().join("30"));
    assert!(std::fs::read(fused).unwrap() == std::fs::read(reverted).unwrap());
}
