//! The spec generator: presets, determinism, every key honoured, every bad spec refused.

mod common;

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Float64Type, Int32Type, Int64Type,
    Time32MillisecondType, Time32SecondType, TimestampMillisecondType, TimestampSecondType,
    UInt64Type,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_schema::DataType;
use shredlab_generator::spec::{parquet_type, parse, Spec, SpecGenerator, SpecPaths, MAX_NESTING};

use common::chi_square;

const PRESETS: &[&str] = &["contacts", "otel-logs", "lineitem", "wide", "deep"];

fn preset(name: &str) -> SpecGenerator {
    let path = format!("{}/../specs/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    SpecGenerator::new(&parse(&text).unwrap(), 42).unwrap()
}

/// Why the spec `text` is refused, by the parser or the generator.
fn refusal(text: &str) -> String {
    parse(text)
        .and_then(|spec| SpecGenerator::new(&spec, 1))
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

/// Asserts that each spec of one field in `cases` is refused with a message that contains the
/// text paired with it and no Rust debug output.
fn assert_refused(cases: &[(&str, &str)]) {
    for (field, expected) in cases {
        let message = refusal(&format!("{{\"fields\": [{field}]}}"));
        assert!(message.contains(expected), "{field}: got {message}");
        assert!(!message.contains("Some("), "{message}");
    }
}

fn one_column(field: &str, rows: u64) -> RecordBatch {
    let spec = parse(&format!("{{\"fields\": [{field}]}}")).unwrap();
    SpecGenerator::new(&spec, 7)
        .unwrap()
        .batch(0..rows)
        .unwrap()
}

fn normalised(weights: &[f64]) -> Vec<f64> {
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

fn counts_of(values: impl Iterator<Item = String>) -> HashMap<String, u64> {
    let mut counts = HashMap::new();
    for v in values {
        *counts.entry(v).or_insert(0) += 1;
    }
    counts
}

#[test]
fn every_preset_is_the_same_for_any_batch_split_and_changes_with_the_seed() {
    for name in PRESETS {
        let generator = preset(name);
        generator.check_batch_rows(16_384).unwrap();
        let whole = generator.batch(10_000..12_000).unwrap();
        let first = generator.batch(10_000..10_777).unwrap();
        let rest = generator.batch(10_777..12_000).unwrap();
        assert_eq!(whole.slice(0, 777), first, "{name}");
        assert_eq!(whole.slice(777, 1_223), rest, "{name}");
        let path = format!("{}/../specs/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let spec = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let other = SpecGenerator::new(&spec, 43)
            .unwrap()
            .batch(10_000..12_000)
            .unwrap();
        assert_ne!(whole, other, "{name}");
        assert_eq!(whole.schema(), generator.schema(), "{name}");
    }
}

#[test]
fn categorical_weights_hold_by_chi_square() {
    let batch = one_column(
        r#"{"name": "level", "type": {"name": "utf8"}, "metadata": {"distribution": "categorical",
            "values": ["INFO", "WARN", "ERROR"], "weights": [8, 1.5, 0.5]}}"#,
        50_000,
    );
    let column = batch.column(0).as_string::<i32>();
    let counts = counts_of(column.iter().map(|v| v.unwrap().to_string()));
    let observed: Vec<u64> = ["INFO", "WARN", "ERROR"]
        .iter()
        .map(|k| counts[*k])
        .collect();
    // 13.8 is the 0.999 quantile of chi-square with 2 degrees of freedom.
    let statistic = chi_square(&observed, &normalised(&[8.0, 1.5, 0.5]));
    assert!(
        statistic < 13.8,
        "chi-square {statistic}, counts {observed:?}"
    );
}

#[test]
fn zipf_ranks_hold_by_chi_square() {
    let batch = one_column(
        r#"{"name": "n", "nullable": false, "type": {"name": "int", "bitWidth": 32},
            "metadata": {"distribution": "zipf", "zipf_s": 1.2, "values": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]}}"#,
        100_000,
    );
    let column = batch.column(0).as_primitive::<Int32Type>();
    let mut observed = vec![0u64; 20];
    column
        .values()
        .iter()
        .for_each(|&v| observed[v as usize] += 1);
    let weights: Vec<f64> = (1..=20).map(|k| (k as f64).powf(-1.2)).collect();
    // 43.8 is the 0.999 quantile of chi-square with 19 degrees of freedom.
    let statistic = chi_square(&observed, &normalised(&weights));
    assert!(
        statistic < 43.8,
        "chi-square {statistic}, counts {observed:?}"
    );
}

#[test]
fn list_lengths_follow_their_weights_and_nulls_their_probability() {
    let batch = one_column(
        r#"{"name": "l", "type": {"name": "list"}, "metadata": {"null_probability": 0.25, "min_length": 1,
            "max_length": 4, "length_weights": [4, 3, 2, 1]},
            "children": [{"name": "item", "type": {"name": "int", "bitWidth": 8}}]}"#,
        40_000,
    );
    let lists = batch.column(0).as_list::<i32>();
    let nulls = lists.null_count() as f64 / 40_000.0;
    assert!((nulls - 0.25).abs() < 0.01, "null fraction {nulls}");
    let mut observed = vec![0u64; 4];
    for i in 0..lists.len() {
        if lists.is_valid(i) {
            observed[lists.value_length(i) as usize - 1] += 1;
        } else {
            assert_eq!(lists.value_length(i), 0);
        }
    }
    // 16.3 is the 0.999 quantile of chi-square with 3 degrees of freedom.
    let statistic = chi_square(&observed, &normalised(&[4.0, 3.0, 2.0, 1.0]));
    assert!(
        statistic < 16.3,
        "chi-square {statistic}, lengths {observed:?}"
    );
}

#[test]
fn uniform_normal_and_sequential_numbers_keep_their_parameters() {
    let batch = one_column(
        r#"{"name": "u", "nullable": false, "type": {"name": "int", "bitWidth": 64}, "metadata": {"min": -5, "max": 5}},
           {"name": "x", "type": {"name": "floatingpoint", "precision": "DOUBLE"},
            "metadata": {"distribution": "normal", "mean": 50, "stddev": 10, "null_probability": 0.2}},
           {"name": "k", "nullable": false, "type": {"name": "int", "bitWidth": 64},
            "metadata": {"distribution": "sequential", "min": 100, "step": 0.5}},
           {"name": "day", "nullable": false, "type": {"name": "date", "unit": "DAY"}, "metadata": {"min": 18000, "max": 18009}},
           {"name": "price", "nullable": false, "type": {"name": "decimal", "precision": 7, "scale": 2}, "metadata": {"min": 1, "max": 2}},
           {"name": "yes", "nullable": false, "type": {"name": "bool"}, "metadata": {"true_probability": 0.2}}"#,
        20_000,
    );
    let uniform = batch.column(0).as_primitive::<Int64Type>();
    let mut seen = [0u64; 11];
    uniform
        .values()
        .iter()
        .for_each(|&v| seen[(v + 5) as usize] += 1);
    assert!(seen.iter().all(|&n| n > 1_500), "{seen:?}");
    let normal = batch.column(1).as_primitive::<Float64Type>();
    assert!((normal.null_count() as f64 / 20_000.0 - 0.2).abs() < 0.01);
    let values: Vec<f64> = normal.iter().flatten().collect();
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt();
    assert!(
        (mean - 50.0).abs() < 0.3 && (sd - 10.0).abs() < 0.3,
        "{mean} {sd}"
    );
    let keys = batch.column(2).as_primitive::<Int64Type>();
    assert_eq!(&keys.values()[..5], &[100, 100, 101, 101, 102]);
    let days = batch.column(3).as_primitive::<Date32Type>();
    assert!(days.values().iter().all(|d| (18_000..=18_009).contains(d)));
    let prices = batch.column(4).as_primitive::<Decimal128Type>();
    assert!(prices.values().iter().all(|p| (100..=200).contains(p)));
    assert_eq!(prices.data_type(), &DataType::Decimal128(7, 2));
    let yes = batch.column(5).as_boolean().true_count() as f64 / 20_000.0;
    assert!((yes - 0.2).abs() < 0.01, "true share {yes}");
}

/// The faster paths (`with_paths`: digits written in place, vocabulary entries moved as
/// blocks, draws resolved once per batch) give the rows the plain paths give: every preset,
/// and sequential strings with negative, huge and over-wide numbers, fixed-width binaries,
/// unique ones, vocabularies with entries around the block's length, integers over whole
/// 64-bit ranges and 2^64 values away from a type's bounds, windows at the ends of 38-digit
/// decimals, and NULL probabilities of 1, one half and the smallest float; ranges wider than
/// 64 bits, day-granular dates and converted second timestamps, which keep the plain path.
#[test]
fn faster_paths_give_the_same_rows() {
    let columns = r#"{"name": "n", "nullable": true, "type": {"name": "utf8"},
            "metadata": {"distribution": "sequential", "digits": 6, "min": -1234, "step": 997}},
           {"name": "h", "nullable": false, "type": {"name": "largeutf8"},
            "metadata": {"distribution": "sequential", "digits": 3, "min": 99999999999999999999999999999999999900, "step": -3}},
           {"name": "f", "nullable": false, "type": {"name": "fixedsizebinary", "byteWidth": 5},
            "metadata": {"distribution": "sequential", "prefix": "ab", "digits": 4}},
           {"name": "u", "nullable": false, "type": {"name": "utf8"}, "metadata": {"unique": true, "prefix": "id-"}},
           {"name": "w", "nullable": true, "type": {"name": "utf8"},
            "metadata": {"values": ["", "a", "fifteen-bytes-x", "sixteen-bytes-xy", "seventeen-bytes-z", "é"]}},
           {"name": "b", "nullable": false, "type": {"name": "fixedsizebinary", "byteWidth": 3},
            "metadata": {"values": ["abcdef", "x"]}},
           {"name": "r", "nullable": false, "type": {"name": "binary"},
            "metadata": {"cardinality": 50, "min_length": 10, "max_length": 30}},
           {"name": "i64", "nullable": true, "type": {"name": "int", "bitWidth": 64},
            "metadata": {"null_probability": 0.5}},
           {"name": "u64", "nullable": false, "type": {"name": "int", "bitWidth": 64, "isSigned": false}},
           {"name": "u64_from_1", "nullable": false, "type": {"name": "int", "bitWidth": 64, "isSigned": false},
            "metadata": {"min": 1}},
           {"name": "i8", "nullable": true, "type": {"name": "int", "bitWidth": 8},
            "metadata": {"null_probability": 5e-324}},
           {"name": "all_null", "nullable": true, "type": {"name": "int", "bitWidth": 32},
            "metadata": {"null_probability": 1, "min": -5, "max": 7}},
           {"name": "small", "nullable": true, "type": {"name": "int", "bitWidth": 32},
            "metadata": {"null_probability": 0.5, "min": -5, "max": 7}},
           {"name": "wide_decimal", "nullable": false, "type": {"name": "decimal", "precision": 38, "scale": 0}},
           {"name": "top_decimal", "nullable": false, "type": {"name": "decimal", "precision": 38, "scale": 0},
            "metadata": {"min": "99999999999999999999999999999999999000", "max": "99999999999999999999999999999999999999"}},
           {"name": "bottom_decimal", "nullable": false, "type": {"name": "decimal", "precision": 38, "scale": 0},
            "metadata": {"min": "-99999999999999999999999999999999999999", "max": "-99999999999999999999999999999999999000"}},
           {"name": "decimal_2_64", "nullable": false, "type": {"name": "decimal", "precision": 20, "scale": 0},
            "metadata": {"min": 0, "max": "18446744073709551615"}},
           {"name": "millis", "nullable": false, "type": {"name": "timestamp", "unit": "MILLISECOND"}},
           {"name": "days", "nullable": false, "type": {"name": "date", "unit": "MILLISECOND"}},
           {"name": "seconds", "nullable": false, "type": {"name": "timestamp", "unit": "SECOND"}}"#;
    let spec = parse(&format!("{{\"fields\": [{columns}]}}")).unwrap();
    let generators = [("columns", SpecGenerator::new(&spec, 5).unwrap())]
        .into_iter()
        .chain(PRESETS.iter().map(|name| (*name, preset(name))));
    for (name, generator) in generators {
        let formatted = generator.batch(0..3_000).unwrap();
        let direct = generator
            .with_paths(SpecPaths::ALL)
            .batch(0..3_000)
            .unwrap();
        assert_eq!(formatted, direct, "{name}");
    }
}

#[test]
fn strings_keep_lengths_prefixes_and_uniqueness() {
    let batch = one_column(
        r#"{"name": "r", "nullable": false, "type": {"name": "utf8"}, "metadata": {"min_length": 3, "max_length": 5}},
           {"name": "s", "nullable": false, "type": {"name": "utf8"},
            "metadata": {"distribution": "sequential", "prefix": "+91-", "digits": 10, "min": 7}},
           {"name": "u", "nullable": false, "type": {"name": "utf8"}, "metadata": {"unique": true, "prefix": "id-"}},
           {"name": "w", "nullable": false, "type": {"name": "utf8"},
            "metadata": {"distribution": "zipf", "zipf_s": 1, "vocabulary": ["first_names", "last_names"]}}"#,
        10_000,
    );
    let random = batch.column(0).as_string::<i32>();
    assert!(random.iter().all(|v| (3..=5).contains(&v.unwrap().len())));
    let sequential = batch.column(1).as_string::<i32>();
    assert_eq!(sequential.value(0), "+91-0000000007");
    assert_eq!(sequential.value(12), "+91-0000000019");
    let unique = batch.column(2).as_string::<i32>();
    let distinct: std::collections::HashSet<_> = unique.iter().collect();
    assert_eq!(distinct.len(), 10_000);
    assert!(unique.value(0).starts_with("id-"));
    let names = batch.column(3).as_string::<i32>();
    let counts = counts_of(
        names
            .iter()
            .map(|v| v.unwrap().split(' ').next().unwrap().to_string()),
    );
    let top = shredlab_generator::vocab::first_names()[0];
    let second = shredlab_generator::vocab::first_names()[1];
    // Zipf with s = 1: rank 1 twice as frequent as rank 2.
    let ratio = counts[top] as f64 / counts[second] as f64;
    assert!((ratio - 2.0).abs() < 0.3, "{ratio}");
    assert!(names.iter().all(|v| v.unwrap().split(' ').count() == 2));
}

/// A fixed-size binary drawn at random lengths is each length's random bytes cut to its width
/// (zero-padded when shorter): the binary of the same lengths cut short. Lengths far past the
/// width draw no more than the width: 4 GiB lengths generate as fast as short ones, and the
/// same bytes as any length past the width.
#[test]
fn fixed_size_binaries_cut_random_values_to_their_width() {
    let column = |data_type: &str, lengths: &str| {
        let field = format!(
            r#"{{"name": "b", "nullable": false, "type": {data_type}, "metadata": {{{lengths}}}}}"#
        );
        one_column(&field, 2_000).column(0).clone()
    };
    let fixed = |lengths| column(r#"{"name": "fixedsizebinary", "byteWidth": 4}"#, lengths);
    let binary = column(
        r#"{"name": "binary"}"#,
        r#""min_length": 2, "max_length": 7"#,
    );
    let binary = binary.as_binary::<i32>();
    let short = fixed(r#""min_length": 2, "max_length": 7"#);
    for (row, value) in short.as_fixed_size_binary().iter().enumerate() {
        let mut expected = binary.value(row).to_vec();
        expected.resize(4, 0);
        assert_eq!(value, Some(&expected[..]), "row {row}");
    }
    let long = fixed(r#""min_length": 10, "max_length": 12"#);
    let longest = fixed(r#""min_length": 4294967295"#);
    assert_eq!(&long, &longest);
}

#[test]
fn map_keys_are_distinct_within_each_map_and_dictionaries_hold_the_vocabulary() {
    let batch = one_column(
        r#"{"name": "m", "type": {"name": "map", "keysSorted": false}, "metadata": {"min_length": 3, "max_length": 3},
            "children": [{"name": "entries", "nullable": false, "type": {"name": "struct"}, "children": [
              {"name": "key", "nullable": false, "type": {"name": "utf8"}, "metadata": {"distribution": "zipf", "zipf_s": 2, "cardinality": 5}},
              {"name": "value", "type": {"name": "bool"}}]}]},
           {"name": "d", "type": {"name": "utf8"}, "dictionary": {"id": 0, "indexType": {"name": "int", "bitWidth": 8}},
            "metadata": {"distribution": "categorical", "values": ["a", "b", "c"], "null_probability": 0.5}}"#,
        5_000,
    );
    let maps = batch.column(0).as_map();
    let mut shortened = 0;
    for i in 0..maps.len() {
        let entries = maps.value(i);
        let keys = entries.column(0).as_string::<i32>();
        let distinct: std::collections::HashSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), keys.len(), "row {i}");
        shortened += usize::from(keys.len() < 3);
    }
    // With s = 2 over 5 keys, rank 1 has 68% of the weight: duplicates are common and dropped.
    assert!(shortened > 1_000, "{shortened}");
    let dictionary = batch
        .column(1)
        .as_dictionary::<arrow_array::types::Int8Type>();
    assert_eq!(dictionary.values().len(), 3);
    assert!((dictionary.null_count() as f64 / 5_000.0 - 0.5).abs() < 0.03);
}

#[test]
fn every_type_of_the_deep_preset_is_generated() {
    let batch = preset("deep").batch(0..2_000).unwrap();
    let text =
        std::fs::read_to_string(format!("{}/../specs/deep.json", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    let declared = parse(&text).unwrap();
    for (field, spec) in batch.schema().fields().iter().zip(&declared.fields) {
        assert_eq!(field.data_type(), &parquet_type(spec.field.data_type()));
    }
    let mut types = Vec::new();
    fn walk(data_type: &DataType, types: &mut Vec<String>) {
        let name = format!("{data_type:?}");
        types.push(name.split('(').next().unwrap().to_string());
        match data_type {
            DataType::List(f)
            | DataType::LargeList(f)
            | DataType::FixedSizeList(f, _)
            | DataType::Map(f, _) => walk(f.data_type(), types),
            DataType::Struct(fields) => fields.iter().for_each(|f| walk(f.data_type(), types)),
            _ => {}
        }
    }
    declared
        .fields
        .iter()
        .for_each(|f| walk(f.field.data_type(), &mut types));
    for expected in [
        "Int64",
        "Struct",
        "LargeList",
        "Utf8View",
        "List",
        "LargeUtf8",
        "FixedSizeList",
        "Float32",
        "Map",
        "Utf8",
        "Int16",
        "BinaryView",
        "Date64",
        "Boolean",
        "LargeBinary",
        "Binary",
        "Time64",
        "Time32",
        "Float16",
        "UInt8",
        "Decimal256",
        "Dictionary",
        "Timestamp",
        "Null",
        "UInt64",
    ] {
        assert!(
            types.iter().any(|t| t == expected),
            "{expected} missing from {types:?}"
        );
    }
    assert_eq!(batch.num_rows(), 2_000);
}

#[test]
fn parameters_that_do_not_fit_the_type_are_refused_with_the_path() {
    let cases = [
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"distribution": "normal", "mean": 1, "stddev": 1}}"#,
            "fields[0]: mean does not apply to strings and binaries",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "dictionary": {"indexType": {"name": "int", "bitWidth": 8}}}"#,
            "fields[0]: a dictionary-encoded field draws from a vocabulary",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "dictionary": {"indexType": {"name": "int", "bitWidth": 8}}, "metadata": {"cardinality": 300}}"#,
            "300 dictionary entries do not fit Int8 keys",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 8}, "metadata": {"min": -300}}"#,
            "fields[0]: min -300 is outside what Int8 holds",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 8}, "metadata": {"cardinality": 1000}}"#,
            "cardinality 1000 is more than the 256 values",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 32}, "metadata": {"values": ["a"]}}"#,
            "value \"a\" is not a number",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 32}, "metadata": {"unique": true}}"#,
            "unique does not apply to numbers",
        ),
        (
            r#"{"name": "x", "type": {"name": "bool"}, "metadata": {"distribution": "sequential"}}"#,
            "booleans take true_probability",
        ),
        (
            r#"{"name": "x", "type": {"name": "struct"}, "children": [{"name": "y", "type": {"name": "utf8"}, "metadata": {"true_probability": 0.2}}]}"#,
            "fields[0].children[0]: true_probability does not apply to strings",
        ),
        (
            r#"{"name": "m", "type": {"name": "map"}, "children": [{"name": "entries", "nullable": false, "type": {"name": "struct"}, "children": [
            {"name": "key", "nullable": false, "type": {"name": "utf8"}}, {"name": "value", "type": {"name": "utf8"}}]}]}"#,
            "fields[0]: a map's keys must be distinct",
        ),
        (
            r#"{"name": "m", "type": {"name": "map", "keysSorted": true}, "children": [{"name": "entries", "nullable": false, "type": {"name": "struct"}, "children": [
            {"name": "key", "nullable": false, "type": {"name": "utf8"}, "metadata": {"unique": true}}, {"name": "value", "type": {"name": "utf8"}}]}]}"#,
            "keysSorted",
        ),
    ];
    assert_refused(&cases);
}

#[test]
fn batches_beyond_32_bit_offsets_are_refused_before_generation() {
    let spec = parse(
        r#"{"fields": [{"name": "l", "type": {"name": "list"}, "metadata": {"max_length": 100000},
             "children": [{"name": "item", "type": {"name": "utf8"}, "metadata": {"max_length": 1000}}]}]}"#,
    )
    .unwrap();
    let generator = SpecGenerator::new(&spec, 1).unwrap();
    generator.check_batch_rows(10).unwrap();
    let message = generator.check_batch_rows(100_000).unwrap_err().to_string();
    assert!(
        message.starts_with("fields[0]: a batch could hold"),
        "{message}"
    );
    assert!(message.contains("Large variant"), "{message}");
}

/// The one column of `batch` as u64 values.
fn u64_values(batch: &RecordBatch) -> Vec<u64> {
    batch
        .column(0)
        .as_primitive::<UInt64Type>()
        .values()
        .to_vec()
}

#[test]
fn integers_keep_every_digit_of_their_bounds_and_values() {
    let range = one_column(
        r#"{"name": "x", "nullable": false, "type": {"name": "int", "bitWidth": 64, "isSigned": false},
            "metadata": {"min": 18446744073709551614, "max": 18446744073709551615}}"#,
        1_000,
    );
    let values = u64_values(&range);
    assert!(values.iter().all(|v| *v >= u64::MAX - 1), "{values:?}");
    assert!(values.contains(&u64::MAX) && values.contains(&(u64::MAX - 1)));
    let sequential = one_column(
        r#"{"name": "x", "nullable": false, "type": {"name": "int", "bitWidth": 64, "isSigned": false},
            "metadata": {"distribution": "sequential", "min": 18446744073709551610}}"#,
        7,
    );
    let start = u64::MAX - 5;
    assert_eq!(
        u64_values(&sequential),
        [
            start,
            start + 1,
            start + 2,
            start + 3,
            start + 4,
            start + 5,
            start
        ]
    );
    let exact = one_column(
        r#"{"name": "x", "nullable": false, "type": {"name": "int", "bitWidth": 64},
            "metadata": {"min": 9007199254740993, "max": 9007199254740993}},
           {"name": "y", "nullable": false, "type": {"name": "int", "bitWidth": 64},
            "metadata": {"values": [9007199254740993, "-9223372036854775808"]}},
           {"name": "z", "nullable": false, "type": {"name": "decimal", "precision": 38, "scale": 2},
            "metadata": {"min": "123456789012345678901234567890.01", "max": "123456789012345678901234567890.01"}}"#,
        100,
    );
    let x = exact.column(0).as_primitive::<Int64Type>();
    assert!(x.values().iter().all(|v| *v == 9_007_199_254_740_993));
    let y = exact.column(1).as_primitive::<Int64Type>();
    assert!(y
        .values()
        .iter()
        .all(|v| [9_007_199_254_740_993, i64::MIN].contains(v)));
    let z = exact.column(2).as_primitive::<Decimal128Type>();
    assert!(z
        .values()
        .iter()
        .all(|v| *v == 12_345_678_901_234_567_890_123_456_789_001));
}

#[test]
fn decimal_ranges_hold_at_the_column_scale() {
    let batch = one_column(
        r#"{"name": "x", "nullable": false, "type": {"name": "decimal", "precision": 5, "scale": 2},
            "metadata": {"min": 0.001, "max": 0.019}}"#,
        100,
    );
    let values = batch.column(0).as_primitive::<Decimal128Type>();
    assert!(values.values().iter().all(|v| *v == 1), "{values:?}");
    let cases = [
        (
            r#"{"name": "x", "type": {"name": "decimal", "precision": 5, "scale": 2}, "metadata": {"min": 0.001, "max": 0.009}}"#,
            "fields[0]: min 0.001 and max 0.009 hold no value of Decimal128(5, 2) (its values have 2 decimal places): widen the range",
        ),
        (
            r#"{"name": "x", "type": {"name": "decimal", "precision": 5, "scale": 2}, "metadata": {"values": [0.5, 0.001]}}"#,
            "fields[0]: value 0.001 has more decimal places than Decimal128(5, 2) holds",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 32}, "metadata": {"min": 1.2, "max": 1.8}}"#,
            "hold no value of Int32 (its values are whole numbers)",
        ),
        (
            r#"{"name": "x", "type": {"name": "decimal", "precision": 38}, "metadata": {"max": 123456789012345678901234567890}}"#,
            "max 1.2345678901234568e+29: a JSON number beyond 64-bit integers keeps only 15 significant digits for sure: write it as a string",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 64, "isSigned": false}, "metadata": {"max": "18446744073709551616"}}"#,
            "max 18446744073709551616 is outside what UInt64 holds",
        ),
        (
            r#"{"name": "x", "type": {"name": "decimal", "precision": 40, "bitWidth": 256}, "metadata": {"max": "170141183460469231731687303715884105728"}}"#,
            "max 170141183460469231731687303715884105728 is outside what Decimal256(40, 0) values are drawn in: 128-bit integers",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 8}, "metadata": {"distribution": "sequential", "step": 1e300}}"#,
            "fields[0]: step 1e300 of Int8 is larger than its whole range: use a step of at most 127",
        ),
    ];
    assert_refused(&cases);
}

#[test]
fn sizes_beyond_arrow_or_memory_are_refused_before_anything_is_generated() {
    let cases = [
        (
            r#"{"name": "x", "type": {"name": "fixedsizebinary", "byteWidth": 2147483647}}"#,
            "fields[0]: one row could take 2147483647 bytes, beyond the 1 GiB a batch may take",
        ),
        (
            r#"{"name": "x", "type": {"name": "largeutf8"}, "metadata": {"min_length": 3000000000, "max_length": 3000000000}}"#,
            "fields[0]: one row could take 3000000008 bytes",
        ),
        (
            r#"{"name": "l", "type": {"name": "fixedsizelist", "listSize": 100000000}, "children": [{"name": "item", "type": {"name": "int", "bitWidth": 32}}]}"#,
            "fields[0]: one row could take 3600000000 bytes",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"cardinality": 4194304, "min_length": 1000, "max_length": 1000}}"#,
            "fields[0]: its vocabulary could take 4496293888 bytes, beyond the 1 GiB a spec's vocabularies may take together",
        ),
    ];
    assert_refused(&cases);
    let spec = parse(
        r#"{"fields": [{"name": "id", "type": {"name": "int", "bitWidth": 64}},
            {"name": "l", "type": {"name": "fixedsizelist", "listSize": 100000}, "children": [{"name": "item", "type": {"name": "int", "bitWidth": 32}}]},
            {"name": "b", "type": {"name": "fixedsizebinary", "byteWidth": 1000000}}]}"#,
    )
    .unwrap();
    let generator = SpecGenerator::new(&spec, 1).unwrap();
    generator.check_batch_rows(150).unwrap();
    let message = generator.check_batch_rows(1_024).unwrap_err().to_string();
    assert_eq!(
        message,
        "fields[1]: a batch of 1024 rows could take 4710408192 bytes (4600008 a row), beyond the 1 GiB a batch may take: use batches of at most 233 rows"
    );
    let message = generator.check_batch_rows(4_096).unwrap_err().to_string();
    assert!(message.starts_with("fields[2]: a batch could hold 4096000000 bytes, beyond the 2^31 that FixedSizeBinary(1000000) addresses"), "{message}");
}

#[test]
fn specs_that_would_write_other_data_than_they_say_are_refused() {
    let cases = [
        (
            r#"{"name": "x", "type": {"name": "utf8"}}, {"name": "x", "type": {"name": "int", "bitWidth": 8}}"#,
            "fields[1]: name \"x\" is already the name of fields[0]",
        ),
        (
            r#"{"name": "s", "type": {"name": "struct"}, "children": [{"name": "a", "type": {"name": "utf8"}}, {"name": "a", "type": {"name": "bool"}}]}"#,
            "fields[0].children[1]: name \"a\" is already the name of fields[0].children[0]",
        ),
        (r#"{"name": "", "type": {"name": "utf8"}}"#, "fields[0]: \"name\" must not be empty"),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"values": []}}"#,
            "fields[0]: values is an empty list",
        ),
        (
            r#"{"name": "x", "nulable": false, "type": {"name": "utf8"}}"#,
            "fields[0]: unknown field key \"nulable\": did you mean \"nullable\"?",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"null_probabilty": 0.5}}"#,
            "fields[0]: unknown metadata key \"null_probabilty\": did you mean \"null_probability\"?",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 32, "issigned": false}}"#,
            "fields[0]: unknown int type key \"issigned\": did you mean \"isSigned\"?",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 32}, "metadata": {"prefix": "id-"}}"#,
            "fields[0]: prefix does not apply to numbers, dates and times: drop it",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"unique": true, "min_length": 4294967297}}"#,
            "fields[0]: min_length sets the length of random values and of a generated vocabulary's; unique values have their own: drop min_length",
        ),
        (
            r#"{"name": "x", "type": {"name": "binary"}, "metadata": {"distribution": "sequential", "max_length": 3}}"#,
            "fields[0]: max_length sets the length of random values and of a generated vocabulary's; sequential values have their own: drop max_length",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"values": ["a"], "length_weights": [1]}}"#,
            "listed values have their own: drop length_weights",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"vocabulary": "first_names", "max_length": 3}}"#,
            "word-list values have their own: drop max_length",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"zipf_s": 1.2, "cardinality": 10}}"#,
            "fields[0]: zipf_s is a parameter of distribution zipf, and this field's is uniform",
        ),
        (
            r#"{"name": "x", "type": {"name": "timestamp", "unit": "MILLISECOND", "timezone": "Mars/Olympus"}}"#,
            "fields[0]: timezone \"Mars/Olympus\" is neither an IANA time zone name",
        ),
        (
            r#"{"name": "x", "type": {"name": "decimal", "precision": 5, "scale": -2}}"#,
            "fields[0]: scale -2 must be between 0 and the precision 5",
        ),
        (
            r#"{"name": "x", "nullable": false, "type": {"name": "null"}}"#,
            "fields[0]: a null field holds only NULLs: make it nullable",
        ),
        (
            r#"{"name": "x", "nullable": false, "type": {"name": "utf8"}, "metadata": {"values": ["a", null]}}"#,
            "fields[0]: values[1] is null: values lists what a field holds; NULLs come from null_probability",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 32}, "metadata": {"values": [1, 2], "max": 1}}"#,
            "fields[0]: values lists every value a field holds: drop min and max",
        ),
    ];
    assert_refused(&cases);
    for zone in ["+02:00", "-0930", "Europe/Paris", "UTC"] {
        let spec = parse(&format!(
            r#"{{"fields": [{{"name": "t", "type": {{"name": "timestamp", "unit": "MILLISECOND", "timezone": "{zone}"}}}}]}}"#
        ));
        assert!(spec.is_ok(), "{zone}: {spec:?}");
    }
}

/// A spec of one int column nested in `levels` lists.
fn nested_lists(levels: usize) -> String {
    let mut field = r#"{"name": "item", "type": {"name": "int", "bitWidth": 32}}"#.to_string();
    for _ in 0..levels {
        field = format!(
            r#"{{"name": "item", "type": {{"name": "list"}}, "metadata": {{"max_length": 1}}, "children": [{field}]}}"#
        );
    }
    format!(r#"{{"fields": [{field}]}}"#)
}

#[test]
fn fields_nest_as_deep_as_parquet_readers_take() {
    let deepest = parse(&nested_lists(MAX_NESTING)).unwrap();
    SpecGenerator::new(&deepest, 1)
        .unwrap()
        .batch(0..10)
        .unwrap();
    let message = parse(&nested_lists(MAX_NESTING + 1))
        .unwrap_err()
        .to_string();
    let path = format!("fields[0]{}", ".children[0]".repeat(MAX_NESTING + 1));
    assert!(
        message.starts_with(&format!(
            "{path}: nested 50 levels deep, beyond the 49 a spec may have"
        )),
        "{message}"
    );
    let message = parse(&nested_lists(100)).unwrap_err().to_string();
    assert!(
        message.starts_with("spec: fields nest deeper than the 49 levels a spec may have"),
        "{message}"
    );
}

#[test]
fn types_parquet_has_no_form_for_are_stored_as_ones_that_keep_their_values() {
    let spec = parse(
        r#"{"fields": [
            {"name": "ts", "type": {"name": "timestamp", "unit": "SECOND", "timezone": "Europe/Paris"}},
            {"name": "at", "type": {"name": "time", "unit": "SECOND"}},
            {"name": "day", "type": {"name": "date", "unit": "MILLISECOND"}},
            {"name": "l", "type": {"name": "list"}, "children": [
                {"name": "item", "type": {"name": "timestamp", "unit": "SECOND"}, "metadata": {"distribution": "sequential", "min": 100}}]}
        ]}"#,
    )
    .unwrap();
    let stored = SpecGenerator::new(&spec, 9).unwrap().batch(0..500).unwrap();
    let declared = Spec {
        parquet_types: false,
        ..spec
    };
    let as_declared = SpecGenerator::new(&declared, 9)
        .unwrap()
        .batch(0..500)
        .unwrap();
    let types: Vec<String> = stored
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().to_string())
        .collect();
    assert_eq!(
        types[..3],
        ["Timestamp(ms, \"Europe/Paris\")", "Time32(ms)", "Date32"],
    );
    assert!(types[3].starts_with("List(Timestamp(ms)"), "{}", types[3]);
    let seconds_to_ms = |s: i64| s * 1_000;
    assert_stored_as::<TimestampSecondType, TimestampMillisecondType>(
        as_declared.column(0),
        stored.column(0),
        seconds_to_ms,
    );
    assert_stored_as::<Time32SecondType, Time32MillisecondType>(
        as_declared.column(1),
        stored.column(1),
        |s| s * 1_000,
    );
    assert_stored_as::<Date64Type, Date32Type>(as_declared.column(2), stored.column(2), |ms| {
        (ms / 86_400_000) as i32
    });
    let items = stored.column(3).as_list::<i32>().values();
    assert_stored_as::<TimestampSecondType, TimestampMillisecondType>(
        as_declared.column(3).as_list::<i32>().values(),
        items,
        seconds_to_ms,
    );
    let millis = items.as_primitive::<TimestampMillisecondType>().values();
    assert!(!millis.is_empty() && millis.iter().all(|ms| *ms >= 100_000));
}

/// Asserts that `stored` holds the values of `declared`, converted by `convert`.
fn assert_stored_as<D: ArrowPrimitiveType, S: ArrowPrimitiveType>(
    declared: &ArrayRef,
    stored: &ArrayRef,
    convert: impl Fn(D::Native) -> S::Native,
) {
    let (declared, stored) = (declared.as_primitive::<D>(), stored.as_primitive::<S>());
    assert_eq!(declared.nulls(), stored.nulls());
    let converted: Vec<S::Native> = declared.values().iter().map(|v| convert(*v)).collect();
    assert_eq!(converted, stored.values().to_vec());
}

#[test]
fn errors_say_the_key_as_written_and_a_readable_value() {
    let cases = [
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 8}, "metadata": {"min": 1e300}}"#,
            "fields[0]: min 1e+300 is outside what Int8 holds",
        ),
        (
            r#"{"name": "x", "type": {"name": "floatingpoint", "precision": "SINGLE"}, "metadata": {"max": "-1e300"}}"#,
            "fields[0]: max -1e300 is outside what Float32 holds",
        ),
        (
            r#"{"name": "x", "type": {"name": "utf8"}, "metadata": {"null_probability": "1e300"}}"#,
            "fields[0]: null_probability 1e300 must be in [0, 1]",
        ),
        (
            r#"{"name": "x", "type": {"name": "timestamp", "unit": "FORTNIGHT"}}"#,
            "fields[0]: unit \"FORTNIGHT\": use SECOND, MILLISECOND, MICROSECOND, NANOSECOND",
        ),
        (
            r#"{"name": "x", "type": {"name": "floatingpoint"}}"#,
            "fields[0]: precision missing: use HALF, SINGLE, DOUBLE",
        ),
        (
            r#"{"name": "x", "type": {"name": "int", "bitWidth": 16, "isSigned": "no"}}"#,
            "fields[0]: \"isSigned\" \"no\" must be true or false",
        ),
    ];
    assert_refused(&cases);
}
