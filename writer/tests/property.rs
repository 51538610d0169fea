//! Byte identity with parquet's `ArrowWriter` as a property: random nested schemas over every
//! type the writer supports, random `WriterProperties` and random write patterns (batches of 0, 1
//! or many rows, `flush()` anywhere, key-value metadata appended mid-file), each case compared byte
//! for byte under every pool setting, with shrinking to a minimal failing case.
//!
//! `make test` runs proptest's default of 256 cases; a longer search:
//! `PROPTEST_CASES=5000 cargo test --release -p shredlab-writer --test property`.

mod common;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use common::strategies::{schema, settings};
use common::{parallel_settings, random_generator, upstream_steps, Step};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::file::properties::WriterProperties;
use proptest::prelude::*;
use shredlab_writer::ParallelArrowWriter;

/// A write pattern: batch sizes (0 and 1 included), flushes and metadata appended mid-file.
fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        6 => prop_oneof![Just(0usize), Just(1), 2usize..300, 300usize..3_000].prop_map(Step::Write),
        1 => Just(Step::Flush),
        1 => Just(Step::AppendMetadata),
    ];
    prop::collection::vec(step, 1..8)
}

/// The bytes `ParallelArrowWriter` writes for `steps`, or its first error.
fn parallel_steps(
    schema: &SchemaRef,
    batches: &[Option<RecordBatch>],
    steps: &[Step],
    properties: &WriterProperties,
    options: shredlab_writer::ParallelOptions,
) -> parquet::errors::Result<Vec<u8>> {
    let arrow_options = ArrowWriterOptions::new().with_properties(properties.clone());
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        Vec::new(),
        Arc::clone(schema),
        arrow_options,
        options,
    )?;
    for (step, batch) in steps.iter().zip(batches) {
        match step {
            Step::Write(_) => writer.write(batch.as_ref().expect("a batch per write"))?,
            Step::Flush => writer.flush()?,
            Step::AppendMetadata => writer.append_key_value_metadata(common::mid_file_metadata()),
        }
    }
    writer.into_inner()
}

proptest! {
    #[test]
    fn parallel_writer_writes_arrow_writer_s_bytes(
        schema in schema(),
        settings in settings(),
        steps in steps(),
        seed in any::<u64>(),
    ) {
        let generator = random_generator(&schema, seed);
        let mut start = 0;
        let batches: Vec<Option<RecordBatch>> = steps
            .iter()
            .map(|step| match step {
                Step::Write(rows) => {
                    let batch = generator.batch(start..start + *rows as u64).unwrap();
                    start += *rows as u64;
                    Some(batch)
                }
                _ => None,
            })
            .collect();
        let properties = settings.properties(&schema);
        let expected = upstream_steps(&schema, &batches, &steps, &properties);
        for options in parallel_settings() {
            let actual = parallel_steps(&schema, &batches, &steps, &properties, options.clone());
            match (&expected, &actual) {
                (Ok(expected), Ok(actual)) => prop_assert!(
                    actual == expected,
                    "bytes differ with {:?} ({} vs {} bytes)",
                    options,
                    actual.len(),
                    expected.len()
                ),
                // Settings ArrowWriter refuses must be refused too.
                (Err(_), Err(_)) => {}
                _ => prop_assert!(
                    false,
                    "ArrowWriter gave {:?}, ParallelArrowWriter {:?} with {:?}",
                    expected.as_ref().map(Vec::len),
                    actual.as_ref().map(Vec::len),
                    options
                ),
            }
        }
    }
}
