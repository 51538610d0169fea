//! Specs at the edges of what their keys say: ranges wider than f64 reaches, one end of a
//! range past the other's default, lengths below the default minimum, fractional steps of
//! sequential strings, and specs that Arrow or arrow-rs's Parquet reader would fail on only
//! once rows were made. Each is generated as its keys say, or refused up front with the fix.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float16Type, Float64Type, Int32Type};
use arrow_array::{Array, RecordBatch};
use shredlab_generator::spec::{parse, SpecGenerator};

fn generated(fields: &str, rows: u64) -> RecordBatch {
    let spec = parse(&format!("{{\"fields\": [{fields}]}}")).unwrap();
    SpecGenerator::new(&spec, 7)
        .unwrap()
        .batch(0..rows)
        .unwrap()
}

fn refusal(fields: &str) -> String {
    parse(&format!("{{\"fields\": [{fields}]}}"))
        .and_then(|spec| SpecGenerator::new(&spec, 1))
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

fn doubles(batch: &RecordBatch, column: usize) -> Vec<f64> {
    let values = batch.column(column).as_primitive::<Float64Type>();
    values.values().to_vec()
}

#[test]
fn float_ranges_past_f64_max_give_finite_values_within_them() {
    let batch = generated(
        r#"{"name": "x", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"min": -1e308, "max": 1e308}},
           {"name": "y", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"min": -1e308, "max": 1e308, "cardinality": 5}}"#,
        2_000,
    );
    for column in 0..2 {
        let values = doubles(&batch, column);
        let within = |v: &f64| v.is_finite() && (-1e308..=1e308).contains(v);
        assert!(values.iter().all(within), "column {column}");
        assert!(values.iter().any(|v| *v < -1e307) && values.iter().any(|v| *v > 1e307));
    }
}

#[test]
fn float_sequences_wrap_within_their_range_and_count_down_from_max() {
    let batch = generated(
        r#"{"name": "up", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"distribution": "sequential", "min": 0, "max": 10, "step": 3}},
           {"name": "down", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"distribution": "sequential", "min": 0, "max": 10, "step": -1}},
           {"name": "open", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"distribution": "sequential", "min": 5, "step": 0.5}},
           {"name": "half", "nullable": false, "type": {"name": "floatingpoint", "precision": "HALF"}, "metadata": {"distribution": "sequential", "step": 100}},
           {"name": "one", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"distribution": "sequential", "min": 2, "max": 2, "step": 1}},
           {"name": "below", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"distribution": "sequential", "step": -1}}"#,
        1_000,
    );
    // One value, not NaN; without a max, a negative step counts down from 0.
    assert!(doubles(&batch, 4).iter().all(|&v| v == 2.0));
    assert_eq!(doubles(&batch, 5)[..3], [0.0, -1.0, -2.0]);
    assert_eq!(doubles(&batch, 0)[..6], [0.0, 3.0, 6.0, 9.0, 2.0, 5.0]);
    assert_eq!(doubles(&batch, 1)[..3], [10.0, 9.0, 8.0]);
    for column in 0..2 {
        assert!(doubles(&batch, column)
            .iter()
            .all(|v| (0.0..=10.0).contains(v)));
    }
    // Without a max, a float sequence counts through the type, as an integer one does.
    assert_eq!(doubles(&batch, 2)[999], 5.0 + 999.0 * 0.5);
    let half = batch.column(3).as_primitive::<Float16Type>();
    assert!(half.values().iter().all(|v| v.is_finite()));
}

#[test]
fn one_end_of_a_range_past_the_other_s_default_is_refused_with_the_fix() {
    let cases = [
        (
            r#"{"name": "f", "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"min": 5}}"#,
            "fields[0]: min 5 is above the default range of Float64",
        ),
        (
            r#"{"name": "f", "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"max": -1}}"#,
            "fields[0]: max -1 is below the default range of Float64",
        ),
        (
            r#"{"name": "t", "type": {"name": "timestamp", "unit": "SECOND"}, "metadata": {"min": 1900000000}}"#,
            "min 1900000000 is above the default range",
        ),
        (
            r#"{"name": "d", "type": {"name": "date", "unit": "DAY"}, "metadata": {"max": 0}}"#,
            "give min too",
        ),
    ];
    for (field, expected) in cases {
        let message = refusal(field);
        assert!(message.contains(expected), "{field}: {message}");
    }
    // Within the defaults, one end is enough.
    generated(
        r#"{"name": "f", "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"min": 0.5}}"#,
        10,
    );
}

#[test]
fn a_max_length_below_the_default_minimum_is_kept() {
    let batch = generated(
        r#"{"name": "empty", "nullable": false, "type": {"name": "utf8"}, "metadata": {"max_length": 0}},
           {"name": "short", "nullable": false, "type": {"name": "utf8"}, "metadata": {"max_length": 3}},
           {"name": "weighted", "nullable": false, "type": {"name": "utf8"}, "metadata": {"max_length": 3, "length_weights": [0, 0, 0, 1]}},
           {"name": "cut", "nullable": false, "type": {"name": "fixedsizebinary", "byteWidth": 16}, "metadata": {"max_length": 3}}"#,
        500,
    );
    let lengths = |column: usize| -> Vec<usize> {
        let values = batch.column(column).as_string::<i32>();
        values.iter().map(|v| v.unwrap().len()).collect()
    };
    assert!(lengths(0).iter().all(|&l| l == 0));
    // The default minimum (8), lowered to the maximum given.
    assert!(lengths(1).iter().all(|&l| l == 3));
    // Weights count lengths from 0, as the parser checks them.
    assert!(lengths(2).iter().all(|&l| l == 3));
    let cut = batch.column(3).as_fixed_size_binary();
    assert!(cut.iter().all(|v| v.unwrap()[3..].iter().all(|&b| b == 0)));
}

#[test]
fn sequential_strings_round_fractional_steps_down_and_refuse_runaway_ones() {
    let batch = generated(
        r#"{"name": "s", "nullable": false, "type": {"name": "utf8"}, "metadata": {"distribution": "sequential", "step": 0.25}}"#,
        9,
    );
    let values: Vec<&str> = batch
        .column(0)
        .as_string::<i32>()
        .iter()
        .flatten()
        .collect();
    assert_eq!(values, ["0", "0", "0", "0", "1", "1", "1", "1", "2"]);
    let message = refusal(
        r#"{"name": "s", "type": {"name": "utf8"}, "metadata": {"distribution": "sequential", "step": 1e308}}"#,
    );
    assert!(
        message.contains("fields[0]: step 1e308: sequential strings count in steps below 2^63"),
        "{message}"
    );
    let message = refusal(
        r#"{"name": "f", "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"distribution": "sequential", "step": 1e300}}"#,
    );
    assert!(
        message.contains("times a row number (up to 2^64) would pass the largest float"),
        "{message}"
    );
}

#[test]
fn maps_and_dictionaries_that_would_fail_later_are_refused_up_front() {
    let map = r#"{"name": "attrs", "type": {"name": "map"}, "children": [
        {"name": "entries", "type": {"name": "struct"}, "children": [
          {"name": "key", "nullable": false, "type": {"name": "utf8"}, "metadata": {"cardinality": 50}},
          {"name": "value", "type": {"name": "int", "bitWidth": 8}}]}]}"#;
    let message = refusal(map);
    assert!(
        message.starts_with(
            "fields[0].children[0]: a map's entries are never NULL: set \"nullable\": false"
        ),
        "{message}"
    );
    let dictionary = |data_type: &str| {
        format!(
            r#"{{"name": "x", "type": {data_type}, "dictionary": {{"id": 0, "indexType": {{"name": "int", "bitWidth": 16}}}}, "metadata": {{"cardinality": 5}}}}"#
        )
    };
    for data_type in [
        r#"{"name": "floatingpoint", "precision": "HALF"}"#,
        r#"{"name": "decimal", "precision": 19, "scale": 2}"#,
        r#"{"name": "decimal", "precision": 30, "scale": 2, "bitWidth": 256}"#,
    ] {
        let message = refusal(&dictionary(data_type));
        assert!(message.contains("stored as fixed-length byte arrays, which arrow-rs's Parquet reader cannot read back as a dictionary: drop the dictionary"), "{message}");
    }
    generated(
        &dictionary(r#"{"name": "decimal", "precision": 18, "scale": 2}"#),
        10,
    );
}

#[test]
fn short_float_literals_are_read_as_written() {
    let batch = generated(
        r#"{"name": "x", "nullable": false, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"min": 0, "max": 2.5e-30}}"#,
        100,
    );
    assert!(doubles(&batch, 0)
        .iter()
        .all(|v| (0.0..=2.5e-30).contains(v)));
}

/// Keys that can repeat a value though drawn apart: listed twice, wrapping past a short
/// range, rounded to one half float, cut to one width, NaN twice, one random character, one
/// day in milliseconds, a dictionary listing a value twice.
#[test]
fn map_keys_of_equal_values_count_as_one() {
    let keys = [
        r#"{"type": {"name": "utf8"}, "metadata": {"values": ["a", "a", "b", "c"]}}"#,
        r#"{"type": {"name": "int", "bitWidth": 8}, "metadata": {"distribution": "sequential", "min": 0, "max": 3}}"#,
        r#"{"type": {"name": "floatingpoint", "precision": "HALF"}, "metadata": {"values": [1.0001, 1.0002, 2]}}"#,
        r#"{"type": {"name": "fixedsizebinary", "byteWidth": 1}, "metadata": {"values": ["a", "ab", "b"]}}"#,
        r#"{"type": {"name": "floatingpoint", "precision": "DOUBLE"}, "metadata": {"values": ["NaN", "NaN", 1]}}"#,
        r#"{"type": {"name": "utf8"}, "metadata": {"cardinality": 3000, "min_length": 1, "max_length": 1}}"#,
        r#"{"type": {"name": "date", "unit": "MILLISECOND"}, "metadata": {"distribution": "sequential"}}"#,
        r#"{"type": {"name": "utf8"}, "dictionary": {"id": 0, "indexType": {"name": "int", "bitWidth": 16}}, "metadata": {"values": ["x", "x", "y"]}}"#,
        r#"{"type": {"name": "bool"}, "metadata": {"values": [true, false, true]}}"#,
    ];
    let maps: Vec<String> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let key = key.replacen('{', r#"{"name": "key", "nullable": false, "#, 1);
            format!(
                r#"{{"name": "m{i}", "type": {{"name": "map"}}, "metadata": {{"min_length": 5, "max_length": 5}}, "children": [
                    {{"name": "entries", "nullable": false, "type": {{"name": "struct"}}, "children": [
                      {key}, {{"name": "value", "type": {{"name": "int", "bitWidth": 8}}}}]}}]}}"#
            )
        })
        .collect();
    let batch = generated(&maps.join(", "), 1_000);
    for (column, key) in keys.iter().enumerate() {
        let maps = batch.column(column).as_map();
        let mut dropped = 0;
        for row in 0..maps.len() {
            let entries = maps.value(row);
            let keys = entries.column(0);
            // Each key as it prints: equal values (NaN too) print alike.
            let printed: Vec<String> = (0..keys.len())
                .map(|k| format!("{:?}", keys.slice(k, 1)))
                .collect();
            let distinct: std::collections::HashSet<_> = printed.iter().collect();
            assert_eq!(
                distinct.len(),
                printed.len(),
                "{key}, row {row}: {printed:?}"
            );
            dropped += 5 - keys.len();
        }
        assert!(dropped > 0, "{key}: no key repeated, so nothing was tested");
    }
}

#[test]
fn counts_written_as_floats_and_weights_as_strings_are_read_as_numbers() {
    let batch = generated(
        r#"{"name": "s", "nullable": false, "type": {"name": "utf8"}, "metadata": {"min_length": 2.0, "max_length": 1e1}},
           {"name": "w", "nullable": false, "type": {"name": "utf8"}, "metadata": {"values": ["a", "b"], "distribution": "categorical", "weights": ["0", "2"]}}"#,
        200,
    );
    let lengths = batch
        .column(0)
        .as_string::<i32>()
        .iter()
        .flatten()
        .map(str::len);
    assert!(lengths.clone().all(|l| (2..=10).contains(&l)) && lengths.clone().any(|l| l == 10));
    assert!(batch
        .column(1)
        .as_string::<i32>()
        .iter()
        .all(|v| v == Some("b")));
    let cases = [
        (
            r#""max_length": 1e12"#,
            "max_length must be at most 4294967295",
        ),
        (
            r#""max_length": 2.5"#,
            "max_length 2.5 must be a whole number >= 0",
        ),
        (
            r#""cardinality": 1e300"#,
            "cardinality 1e+300 is above 18446744073709551615",
        ),
        (
            r#""cardinality": 1e17"#,
            "cardinality 1e+17 is too large to be exact as a float: write it as an integer",
        ),
        (
            r#""values": ["a", "b"], "distribution": "categorical", "weights": "[1e309, 1]""#,
            "weights must be a JSON array: number out of range",
        ),
    ];
    for (metadata, expected) in cases {
        let message = refusal(&format!(
            r#"{{"name": "s", "type": {{"name": "utf8"}}, "metadata": {{{metadata}}}}}"#
        ));
        assert!(message.contains(expected), "{metadata}: {message}");
    }
}

#[test]
fn a_dictionary_object_says_only_what_is_kept() {
    let field = |dictionary: &str| {
        format!(
            r#"{{"name": "d", "type": {{"name": "utf8"}}, "dictionary": {dictionary}, "metadata": {{"values": ["a"]}}}}"#
        )
    };
    let index = r#""indexType": {"name": "int", "bitWidth": 8}"#;
    for (dictionary, expected) in [
        (
            format!(r#"{{"id": "zero", {index}}}"#),
            "fields[0]: dictionary id must be an integer",
        ),
        (
            format!(r#"{{"id": 0, "isOrdered": true, {index}}}"#),
            "Parquet stores no dictionary order; drop isOrdered",
        ),
        (
            format!(r#"{{"id": 0, "isOrdered": 1, {index}}}"#),
            "dictionary isOrdered must be true or false",
        ),
    ] {
        let message = refusal(&field(&dictionary));
        assert!(message.contains(expected), "{dictionary}: {message}");
    }
    generated(
        &field(&format!(r#"{{"id": 0, "isOrdered": false, {index}}}"#)),
        10,
    );
}

/// A millisecond date's vocabulary is spread over whole days, each entry its own day.
#[test]
fn a_millisecond_date_s_cardinality_counts_days() {
    let field = |metadata: &str| {
        format!(
            r#"{{"name": "d", "nullable": false, "type": {{"name": "date", "unit": "MILLISECOND"}}, "metadata": {{{metadata}}}}}"#
        )
    };
    let batch = generated(
        &field(r#""min": 0, "max": 86400001, "cardinality": 2"#),
        200,
    );
    let days: std::collections::HashSet<String> = (0..200)
        .map(|row| format!("{:?}", batch.column(0).slice(row, 1)))
        .collect();
    assert_eq!(days.len(), 2, "{days:?}");
    let message = refusal(&field(r#""min": 0, "max": 86400001, "cardinality": 3"#));
    assert!(
        message.contains("cardinality 3 is more than the 2 values in [min, max]"),
        "{message}"
    );
    let message = refusal(&field(r#""cardinality": 4000"#));
    assert!(
        message.contains("cardinality 4000 is more than the 2192 values"),
        "{message}"
    );
}

/// A map's key vocabulary counts twice in the vocabulary bound: it is made a second time while
/// its entries are compared by value.
#[test]
fn a_map_key_s_vocabulary_counts_twice() {
    let map = |cardinality: u64| {
        format!(
            r#"{{"name": "m", "type": {{"name": "map"}}, "children": [
                {{"name": "entries", "nullable": false, "type": {{"name": "struct"}}, "children": [
                  {{"name": "key", "nullable": false, "type": {{"name": "utf8"}}, "metadata": {{"cardinality": {cardinality}, "min_length": 100, "max_length": 100}}}},
                  {{"name": "value", "type": {{"name": "int", "bitWidth": 8}}}}]}}]}}"#
        )
    };
    // 4,194,304 entries of 172 bytes: 721 MB once (within the 1 GiB bound), 1.44 GB twice.
    let message = refusal(&map(4_194_304));
    assert!(
        message.contains("fields[0].children[0].children[0]: the spec's vocabularies could take"),
        "{message}"
    );
}

#[test]
fn sequential_keys_cut_to_a_fixed_width_are_refused() {
    let message = refusal(
        r#"{"name": "m", "type": {"name": "map"}, "children": [
            {"name": "entries", "nullable": false, "type": {"name": "struct"}, "children": [
              {"name": "key", "nullable": false, "type": {"name": "fixedsizebinary", "byteWidth": 2}, "metadata": {"distribution": "sequential", "prefix": "k"}},
              {"name": "value", "type": {"name": "int", "bitWidth": 8}}]}]}"#,
    );
    assert!(
        message.contains("fields[0].children[0].children[0]: sequential fixedsizebinary keys are cut to the width, and cut keys repeat"),
        "{message}"
    );
}

/// Maps longer than a word of key marks, over a vocabulary of several words, keep each key's
/// first item and only that: the same keys a list of the same entries draws, less the repeats.
#[test]
fn long_maps_keep_the_first_item_of_each_key() {
    let key = r#"{"name": "key", "nullable": false, "type": {"name": "utf8"}, "metadata": {"distribution": "zipf", "zipf_s": 0.6, "cardinality": 300}}"#;
    let value = r#"{"name": "value", "nullable": false, "type": {"name": "int", "bitWidth": 32}}"#;
    let lengths = r#""metadata": {"min_length": 0, "max_length": 150}"#;
    // The same entries as a map and as a list: one stream each, as both sit at field 0.
    let column = |kind: &str| {
        let field = format!(
            r#"{{"name": "m", "type": {{"name": "{kind}"}}, {lengths}, "children": [
                {{"name": "entries", "nullable": false, "type": {{"name": "struct"}}, "children": [{key}, {value}]}}]}}"#
        );
        generated(&field, 400)
    };
    let (map, list) = (column("map"), column("list"));
    let (maps, lists) = (map.column(0).as_map(), list.column(0).as_list::<i32>());
    let mut dropped = 0;
    for row in 0..maps.len() {
        let drawn = lists.value(row);
        let mut seen = std::collections::HashSet::new();
        let first: Vec<(&str, i32)> = key_values(drawn.as_struct())
            .into_iter()
            .filter(|(key, _)| seen.insert(*key))
            .collect();
        let kept = maps.value(row);
        assert_eq!(key_values(&kept), first, "row {row}");
        dropped += drawn.len() - kept.len();
    }
    assert!(dropped > 1_000, "{dropped}");
}

/// The (key, value) pairs of map entries or of list items of the same struct.
fn key_values(entries: &arrow_array::StructArray) -> Vec<(&str, i32)> {
    let keys = entries.column(0).as_string::<i32>();
    let values = entries.column(1).as_primitive::<Int32Type>().values();
    keys.iter()
        .zip(values.iter())
        .map(|(key, &value)| (key.unwrap(), value))
        .collect()
}
