//! Dictionaries that outgrow the CPU's caches: the native encoder then computes a batch's hashes
//! ahead of its lookups and prefetches their slots, and its table grows many times over. The
//! indices (first-seen order), the fallback point and so every byte must stay parquet's.

mod common;

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use common::encoders::native_identical;
use parquet::basic::Encoding;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};

const ROWS: usize = 300_000;

/// How many distinct values the columns hold: later rows repeat earlier ones, found in a table
/// far larger than the cache.
const DISTINCT: usize = 220_000;

/// Distinct values in a scattered order (a multiplicative hash of the row), every seventh row
/// NULL.
fn scattered(row: usize) -> Option<u32> {
    let value = (row % DISTINCT) as u32;
    (!row.is_multiple_of(7)).then_some(value.wrapping_mul(2_654_435_761))
}

fn columns() -> Vec<(&'static str, ArrayRef)> {
    let int32: Int32Array = (0..ROWS).map(|r| scattered(r).map(|v| v as i32)).collect();
    let int64: Int64Array = (0..ROWS)
        .map(|r| scattered(r).map(|v| i64::from(v) << 20))
        .collect();
    let strings: StringArray = (0..ROWS)
        .map(|r| scattered(r).map(|v| format!("value-{v:x}")))
        .collect();
    vec![
        ("int32", Arc::new(int32)),
        ("int64", Arc::new(int64)),
        ("strings", Arc::new(strings)),
    ]
}

/// Each column alone, in batches of 8,192 rows (the last one sliced), with the default
/// dictionary page limit (numbers of 8 bytes and the strings fall back to `PLAIN` part way) and
/// with one that holds every value (the tables grow to hundreds of thousands of slots).
#[test]
fn dictionaries_past_the_cache_keep_parquet_s_indices_and_fallback() {
    let limits = [1 << 20, 16 << 20];
    for (name, column) in columns() {
        let schema = Arc::new(Schema::new(vec![Field::new(
            name,
            column.data_type().clone(),
            true,
        )]));
        let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
        let batches: Vec<_> = (0..ROWS)
            .step_by(8_192)
            .map(|start| batch.slice(start, 8_192.min(ROWS - start)))
            .collect();
        for limit in limits {
            let props = WriterProperties::builder()
                .set_dictionary_page_size_limit(limit)
                .set_data_page_size_limit(limit)
                .build();
            let case = format!("{name}, dictionary page limit {limit}");
            let (file, native) =
                native_identical(&schema, std::slice::from_ref(&batches), &props, &case);
            assert_eq!(
                native,
                [name],
                "{case}: the native encoder did not write it"
            );
            let fell_back = limit == 1 << 20 && name != "int32";
            assert_eq!(has_plain_data_pages(file), fell_back, "{case}: fallback");
        }
    }
}

/// Whether any of the file's data pages is `PLAIN`: a page after a dictionary's fallback.
fn has_plain_data_pages(file: Vec<u8>) -> bool {
    let reader = SerializedFileReader::new(Bytes::from(file)).unwrap();
    let column = reader.metadata().row_group(0).column(0);
    column
        .page_encoding_stats_mask()
        .expect("ArrowWriter writes page encoding stats")
        .is_set(Encoding::PLAIN)
}
