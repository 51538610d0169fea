//! Dictionaries that outgrow the CPU's caches: the native encoder then computes a batch's hashes
//! ahead of its lookups and prefetches their slots, and its table grows many times over; numbers
//! of a narrow range are looked up in an array instead, until one falls outside it. The
//! indices (first-seen order), the fallback point and so every byte must stay parquet's.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::types::Float16Type;
use arrow_array::ArrowPrimitiveType;
use arrow_array::{
    ArrayRef, FixedSizeBinaryArray, Float16Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use common::encoders::native_identical;
use parquet::basic::Encoding;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};

type F16 = <Float16Type as ArrowPrimitiveType>::Native;

const ROWS: usize = 300_000;

/// The dictionary page limits each column is written with: parquet's default and one that
/// holds every value (its table then grows to hundreds of thousands of slots).
const LIMITS: [usize; 2] = [1 << 20, 16 << 20];

/// One column, written alone.
struct Case {
    column: ArrayRef,
    /// The `PLAIN` size of its distinct values, the dictionary page they need: whether the
    /// column falls back at a limit.
    dictionary_bytes: usize,
}

/// Row `row`'s value among `distinct` ones in a scattered order (a multiplicative hash, which
/// keeps them distinct), every seventh row NULL: later rows repeat earlier ones.
fn scattered(row: usize, distinct: usize) -> Option<u32> {
    let value = (row % distinct) as u32;
    (!row.is_multiple_of(7)).then_some(value.wrapping_mul(2_654_435_761))
}

/// A column of `values` (made an array by `array`) whose values are stored as `plain` gives
/// their `PLAIN` bytes.
fn case<T>(
    values: Vec<Option<T>>,
    plain: impl Fn(&T) -> Vec<u8>,
    array: impl FnOnce(Vec<Option<T>>) -> ArrayRef,
) -> Case {
    let distinct: HashSet<Vec<u8>> = values.iter().flatten().map(plain).collect();
    Case {
        dictionary_bytes: distinct.iter().map(Vec::len).sum(),
        column: array(values),
    }
}

/// Cycles long enough to fall back at parquet's default limit before any value repeats, and
/// cycles that fit it and repeat for most of the rows, both in tables that are prefetched (of
/// more than 1 MiB, past the 256 KiB from which lookups are: 65,536 distinct numbers, or
/// 32,768 byte arrays). Fixed-length values of 16
/// bytes are interned as byte arrays are, half floats as numbers (every one of their 65,536
/// bit patterns, NaNs included). Numbers in a narrow range (scattered, rising, then past any
/// window) take the dense index, and move from it to the hash table mid-chunk.
fn cases() -> Vec<(&'static str, Case)> {
    let rows = |distinct| (0..ROWS).map(move |row| scattered(row, distinct));
    let int32 = |v: Option<u32>| v.map(|v| v as i32);
    let int64 = |v: Option<u32>| v.map(|v| i64::from(v) << 20);
    let string = |v: Option<u32>| v.map(|v| format!("value-{v:x}"));
    let half = |v: Option<u32>| v.map(|v| F16::from_bits(v as u16));
    let wide = |v: Option<u32>| v.map(|v| (u128::from(v) * WIDE_MULTIPLIER).to_le_bytes());
    let length_prefixed = |s: &String| [&(s.len() as u32).to_le_bytes()[..], s.as_bytes()].concat();
    let int64s = |values| Arc::new(Int64Array::from(values)) as ArrayRef;
    let strings = |values| Arc::new(StringArray::from(values)) as ArrayRef;
    let fixed_16 = |values: Vec<Option<[u8; 16]>>| {
        let array = FixedSizeBinaryArray::try_from_sparse_iter_with_size(values.into_iter(), 16);
        Arc::new(array.unwrap()) as ArrayRef
    };
    vec![
        (
            "int32",
            case(
                rows(220_000).map(int32).collect(),
                |v| v.to_le_bytes().to_vec(),
                |v| Arc::new(Int32Array::from(v)),
            ),
        ),
        (
            "int64",
            case(
                rows(220_000).map(int64).collect(),
                |v| v.to_le_bytes().to_vec(),
                int64s,
            ),
        ),
        (
            "int64_repeating",
            case(
                rows(100_000).map(int64).collect(),
                |v| v.to_le_bytes().to_vec(),
                int64s,
            ),
        ),
        (
            "strings",
            case(
                rows(220_000).map(string).collect(),
                length_prefixed,
                strings,
            ),
        ),
        (
            "strings_repeating",
            case(rows(50_000).map(string).collect(), length_prefixed, strings),
        ),
        (
            "half_floats",
            case(
                rows(1 << 16).map(half).collect(),
                |v| v.to_le_bytes().to_vec(),
                |v| Arc::new(Float16Array::from(v)),
            ),
        ),
        (
            "fixed_16",
            case(rows(60_000).map(wide).collect(), |v| v.to_vec(), fixed_16),
        ),
        (
            "int64_narrow",
            case(narrow().map(int64_at(1 << 40)).collect(), plain_i64, int64s),
        ),
        (
            "int64_narrow_then_wide",
            case(
                (0..ROWS)
                    .map(|row| match row < ROWS / 2 {
                        true => narrow_value(row).map(|v| i64::from(v) + 1_000),
                        false => scattered(row, 220_000).map(|v| i64::from(v) << 20),
                    })
                    .collect(),
                plain_i64,
                int64s,
            ),
        ),
        (
            "int32_rising",
            case(
                (0..ROWS).map(|row| Some((row / 4) as i32)).collect(),
                |v| v.to_le_bytes().to_vec(),
                |v| Arc::new(Int32Array::from(v)),
            ),
        ),
        (
            "int32_signed_small",
            case(
                narrow()
                    .map(|v| v.map(|v| (v % 2_000) as i32 - 1_000))
                    .collect(),
                |v| v.to_le_bytes().to_vec(),
                |v| Arc::new(Int32Array::from(v)),
            ),
        ),
    ]
}

/// Row `row`'s value among 200,000 consecutive numbers in a scattered order (more than fit a
/// dictionary page of parquet's default limit), every seventh row NULL: numbers that the
/// encoder's dense index looks up.
fn narrow_value(row: usize) -> Option<u32> {
    (!row.is_multiple_of(7)).then_some((row as u32).wrapping_mul(7_919) % 200_000)
}

fn narrow() -> impl Iterator<Item = Option<u32>> {
    (0..ROWS).map(narrow_value)
}

/// Narrow numbers as 64-bit ones from `base` on.
fn int64_at(base: i64) -> impl Fn(Option<u32>) -> Option<i64> {
    move |v| v.map(|v| base + i64::from(v))
}

fn plain_i64(v: &i64) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

/// An odd 128-bit multiplier: it keeps the 16-byte values distinct and spreads their bytes.
const WIDE_MULTIPLIER: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835;

/// Each column alone, in batches of 8,192 rows (the last one sliced), at each of [`LIMITS`].
#[test]
fn dictionaries_past_the_cache_keep_parquet_s_indices_and_fallback() {
    for (
        name,
        Case {
            column,
            dictionary_bytes,
        },
    ) in cases()
    {
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
        for limit in LIMITS {
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
            let fell_back = dictionary_bytes > limit;
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
