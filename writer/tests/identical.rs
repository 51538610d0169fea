//! Byte-for-byte identity with parquet's ArrowWriter over types, properties and random schemas.

mod common;

use common::{assert_identical, batches, Kind, KINDS};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus as StdRng;

fn properties() -> Vec<(&'static str, WriterProperties)> {
    vec![
        ("default", WriterProperties::default()),
        (
            "bloom filter",
            WriterProperties::builder()
                .set_bloom_filter_enabled(true)
                .build(),
        ),
        (
            "parquet 2.0",
            WriterProperties::builder()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .build(),
        ),
        (
            "zstd",
            WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap()))
                .build(),
        ),
        (
            "small row groups by rows",
            WriterProperties::builder()
                .set_max_row_group_row_count(Some(777))
                .build(),
        ),
        (
            "small row groups by bytes",
            WriterProperties::builder()
                .set_max_row_group_row_count(None)
                .set_max_row_group_bytes(Some(40_000))
                .build(),
        ),
        (
            "no dictionary, page statistics, small pages",
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .set_statistics_enabled(EnabledStatistics::Page)
                .set_data_page_row_count_limit(100)
                .build(),
        ),
    ]
}

#[test]
fn every_type_under_every_property_set() {
    let sizes = [1, 500, 0, 2_345, 64, 1_800];
    for kind in KINDS {
        let (schema, batches) = batches(&[kind, Kind::Int64NonNull, kind], &sizes, kind as u64);
        for (name, props) in properties() {
            assert_identical(&schema, &batches, &props, &format!("{kind:?} / {name}"));
        }
    }
}

#[test]
fn all_types_together_in_one_wide_schema() {
    let (schema, batches) = batches(&KINDS, &[3_000, 10, 4_000, 1], 7);
    for (name, props) in properties() {
        assert_identical(&schema, &batches, &props, &format!("wide / {name}"));
    }
}

#[test]
fn empty_and_single_batches() {
    let (schema, batches) = batches(&[Kind::Utf8, Kind::Int32], &[0, 0], 3);
    assert_identical(
        &schema,
        &batches,
        &WriterProperties::default(),
        "only empty batches",
    );
    assert_identical(&schema, &[], &WriterProperties::default(), "no batches");
    let (schema, one) = common::batches(&[Kind::Utf8], &[1_000], 3);
    assert_identical(&schema, &one, &WriterProperties::default(), "one leaf");
}

/// Property-based: random schemas, batch sizes and row-group limits, many seeds.
#[test]
fn random_schemas_and_batches() {
    for seed in 0..24u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let width = rng.random_range(1..8);
        let kinds: Vec<Kind> = (0..width)
            .map(|_| KINDS[rng.random_range(0..KINDS.len())])
            .collect();
        let sizes: Vec<usize> = (0..rng.random_range(1..6))
            .map(|_| rng.random_range(0..3_000))
            .collect();
        let (schema, batches) = batches(&kinds, &sizes, seed);
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(rng.random_range(50..5_000)))
            .set_max_row_group_bytes(
                rng.random_bool(0.5)
                    .then(|| rng.random_range(5_000..200_000)),
            )
            .set_dictionary_enabled(rng.random_bool(0.7))
            .build();
        assert_identical(
            &schema,
            &batches,
            &props,
            &format!("seed {seed}: {kinds:?} {sizes:?}"),
        );
    }
}
