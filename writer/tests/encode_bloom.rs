//! Bloom filters written by the native encoder's own pages: `ArrowWriter`'s bytes for chunks
//! that stay dictionary-encoded (with and without a filter, as
//! `bloom_filter_for_dictionary_encoded_chunks` says), chunks that fall back to `PLAIN`, and
//! chunks without a dictionary; numbers, byte arrays and values inside lists; and a reader
//! finds every value written in the filter.

mod common;

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int32Array, ListArray, RecordBatch, StringArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use common::encoders::{encoded, upstream};
use parquet::bloom_filter::Sbbf;
use parquet::file::properties::{BloomFilterPosition, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use shredlab_writer::encode::ColumnEncoder;

const ROWS: usize = 3_000;

fn schema() -> SchemaRef {
    let item = Arc::new(Field::new("item", DataType::Float64, true));
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("scores", DataType::List(item), true),
    ]))
}

/// Ids from 0 to 499, names from 300 words with every seventh null, lists of 0 to 3 scores from 89 values (prime: none only under null lists).
fn batch() -> RecordBatch {
    let ids = Int32Array::from_iter_values((0..ROWS).map(|row| (row * 37 % 500) as i32));
    let names = StringArray::from_iter(
        (0..ROWS).map(|row| (row % 7 != 0).then(|| format!("name-{}", row * 13 % 300))),
    );
    let lengths = || (0..ROWS).map(|row| row % 4);
    let scores = Float64Array::from_iter_values((0..lengths().sum()).map(|i| (i % 89) as f64));
    let item = Arc::new(Field::new("item", DataType::Float64, true));
    let offsets = OffsetBuffer::from_lengths(lengths());
    let nulls = NullBuffer::from_iter((0..ROWS).map(|row| row % 5 != 0));
    let scores = ListArray::new(item, offsets, Arc::new(scores), Some(nulls));
    let columns: Vec<ArrayRef> = vec![Arc::new(ids), Arc::new(names), Arc::new(scores)];
    RecordBatch::try_new(schema(), columns).unwrap()
}

/// Each leaf's bloom filter in the first row group of `file`, if it has one.
fn filters(file: Vec<u8>) -> Vec<Option<Sbbf>> {
    let bytes = Bytes::from(file);
    let reader = SerializedFileReader::new(bytes.clone()).unwrap();
    reader
        .metadata()
        .row_group(0)
        .columns()
        .iter()
        .map(|column| Sbbf::read_from_column_chunk(column, &bytes).unwrap())
        .collect()
}

#[test]
fn bloom_filters_of_native_pages_are_arrow_writer_s() {
    let groups = vec![vec![batch().slice(0, 1_000), batch().slice(1_000, 2_000)]];
    // (dictionary, its page limit, whether a dictionary-only chunk keeps its filter)
    let cases = [
        (true, 1 << 20, true),
        (true, 1 << 20, false),
        (true, 600, false),
        (false, 1 << 20, false),
    ];
    for (dictionary, limit, dictionary_chunks) in cases {
        let props = WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .set_dictionary_page_size_limit(limit)
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_max_ndv(2_000)
            .set_bloom_filter_fpp(0.01)
            .set_bloom_filter_position(BloomFilterPosition::End)
            .set_bloom_filter_for_dictionary_encoded_chunks(dictionary_chunks)
            .build();
        let case = format!("dictionary {dictionary}, limit {limit}, chunks {dictionary_chunks}");
        let expected = upstream(&schema(), &groups, &props).unwrap();
        let (actual, native) = encoded(&schema(), &groups, &props, ColumnEncoder::Native).unwrap();
        assert_eq!(native, ["id", "name", "scores.list.item"], "{case}");
        assert!(actual == expected, "bytes differ: {case}");
        let found = filters(actual);
        // Every chunk stays dictionary-encoded under the large limit; under 600 bytes the
        // strings and ids fall back, the 89 scores' dictionary (712 bytes) too.
        let kept = !dictionary || dictionary_chunks || limit == 600;
        assert!(found.iter().all(|f| f.is_some() == kept), "{case}");
        if let [Some(id), Some(name), Some(score)] = &found[..] {
            assert!((0..500i32).all(|i| id.check(&i)), "{case}");
            assert!(
                (0..300).all(|i| name.check(format!("name-{i}").as_str())),
                "{case}"
            );
            assert!((0..89).all(|i| score.check(&(i as f64))), "{case}");
        }
    }
}
