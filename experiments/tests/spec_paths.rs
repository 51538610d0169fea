//! The spec generator's faster paths (catalog entries 37 onwards, `SpecPaths::ALL`) give the
//! rows its plain paths give, on the random spec files the random runs use: every type, nesting
//! and parameter set, hostile edits included (a spec the generator refuses has no rows to
//! compare), and every array they make passes Arrow's full validation (strings are made
//! without a UTF-8 check). In process, so it runs many more specs than the pipeline runs can.
//! `make test` runs 256 cases; a longer search:
//! `PROPTEST_CASES=5000 cargo test --release -p shredlab-experiments --test spec_paths`.

#[allow(dead_code)] // the random runs' module: this test reads only the spec's text
#[path = "random_runs/spec.rs"]
mod spec;

use proptest::prelude::*;
use shredlab_generator::spec::{parse, SpecGenerator, SpecPaths};
use spec::spec_text;

/// Cases `make test` runs unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 256;

/// The share of the generator's batch bound (1 GiB at the longest values) a case's batch may
/// take at most: one in sixteen.
const BOUND_SHARE: usize = 16;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn faster_paths_give_the_same_rows_on_random_specs(
        spec in spec_text(),
        seed in any::<u64>(),
        start in prop_oneof![Just(0u64), 0u64..1_000_000, Just(u64::MAX - 2_000)],
        rows in 1u64..2_000,
    ) {
        let Ok(parsed) = parse(&spec.text) else { return Ok(()) };
        let Ok(plain) = SpecGenerator::new(&parsed, seed) else { return Ok(()) };
        // Batches of at most a sixteenth of the generator's 1 GiB bound, so that a case takes
        // milliseconds: fewer rows for wide rows, none for a row that alone could pass 64 MiB.
        let mut rows = rows;
        while rows > 1 && plain.check_batch_rows(rows as usize * BOUND_SHARE).is_err() {
            rows /= 2;
        }
        if plain.check_batch_rows(rows as usize * BOUND_SHARE).is_err() {
            return Ok(());
        }
        let faster = plain.clone().with_paths(SpecPaths::ALL);
        let range = start..start + rows;
        match (plain.batch(range.clone()), faster.batch(range)) {
            (Ok(plain), Ok(faster)) => {
                // Arrays are made without a UTF-8 check (the generator writes text of UTF-8
                // pieces only): a full validation holds them to it.
                for column in faster.columns() {
                    let valid = column.to_data().validate_full();
                    prop_assert!(valid.is_ok(), "{}", valid.unwrap_err());
                }
                prop_assert_eq!(plain, faster)
            }
            (plain, faster) => prop_assert_eq!(
                plain.map(|_| ()).map_err(|e| e.to_string()),
                faster.map(|_| ()).map_err(|e| e.to_string())
            ),
        }
    }
}
