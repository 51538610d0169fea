//! Random Arrow batches over a matrix of types, and the byte-for-byte comparison with ArrowWriter.

#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, ListBuilder, MapBuilder,
    StringBuilder, StringDictionaryBuilder, StringViewBuilder, StructBuilder,
};
use arrow_array::types::Int32Type;
use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus as StdRng;
use shredlab_writer::{ParallelArrowWriter, ParallelOptions};

/// One column kind of the matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Int32,
    Int64NonNull,
    Float64,
    Boolean,
    Utf8,
    Utf8NonNull,
    Utf8View,
    Dictionary,
    ListInt32,
    Struct,
    ListStruct,
    Map,
    AllNull,
}

pub const KINDS: [Kind; 13] = [
    Kind::Int32,
    Kind::Int64NonNull,
    Kind::Float64,
    Kind::Boolean,
    Kind::Utf8,
    Kind::Utf8NonNull,
    Kind::Utf8View,
    Kind::Dictionary,
    Kind::ListInt32,
    Kind::Struct,
    Kind::ListStruct,
    Kind::Map,
    Kind::AllNull,
];

fn struct_fields() -> Fields {
    Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ])
}

fn struct_builder() -> StructBuilder {
    StructBuilder::new(
        struct_fields(),
        vec![
            Box::new(Int64Builder::new()),
            Box::new(StringBuilder::new()),
        ],
    )
}

impl Kind {
    pub fn field(self, name: &str) -> Field {
        let (data_type, nullable) = match self {
            Kind::Int32 => (DataType::Int32, true),
            Kind::Int64NonNull => (DataType::Int64, false),
            Kind::Float64 => (DataType::Float64, true),
            Kind::Boolean => (DataType::Boolean, true),
            Kind::Utf8 => (DataType::Utf8, true),
            Kind::Utf8NonNull => (DataType::Utf8, false),
            Kind::Utf8View => (DataType::Utf8View, true),
            Kind::Dictionary => (
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                true,
            ),
            Kind::ListInt32 => (
                DataType::List(Arc::new(Field::new("item", DataType::Int32, true))),
                true,
            ),
            Kind::Struct => (DataType::Struct(struct_fields()), true),
            Kind::ListStruct => (
                DataType::List(Arc::new(Field::new(
                    "item",
                    DataType::Struct(struct_fields()),
                    true,
                ))),
                true,
            ),
            Kind::Map => (
                MapBuilder::new(None, StringBuilder::new(), Int64Builder::new())
                    .finish()
                    .data_type()
                    .clone(),
                true,
            ),
            Kind::AllNull => (DataType::Utf8, true),
        };
        Field::new(name, data_type, nullable)
    }

    pub fn array(self, rows: usize, rng: &mut StdRng) -> ArrayRef {
        let null_rate = rng.random_range(0.0..0.5);
        let is_null = |rng: &mut StdRng| rng.random_bool(null_rate);
        let vocabulary = rng.random_range(1..5000);
        let word = |rng: &mut StdRng| format!("w{}", rng.random_range(0..vocabulary));
        match self {
            Kind::Int32 => {
                let mut b = Int32Builder::new();
                (0..rows).for_each(|_| b.append_option((!is_null(rng)).then(|| rng.random())));
                Arc::new(b.finish())
            }
            Kind::Int64NonNull => {
                let mut b = Int64Builder::new();
                (0..rows).for_each(|_| b.append_value(rng.random_range(0..1_000_000)));
                Arc::new(b.finish())
            }
            Kind::Float64 => {
                let mut b = Float64Builder::new();
                for _ in 0..rows {
                    let value = if rng.random_bool(0.05) {
                        f64::NAN
                    } else {
                        rng.random()
                    };
                    b.append_option((!is_null(rng)).then_some(value));
                }
                Arc::new(b.finish())
            }
            Kind::Boolean => {
                let mut b = BooleanBuilder::new();
                (0..rows).for_each(|_| b.append_option((!is_null(rng)).then(|| rng.random())));
                Arc::new(b.finish())
            }
            Kind::Utf8 | Kind::Utf8NonNull => {
                let nullable = self == Kind::Utf8;
                let mut b = StringBuilder::new();
                for _ in 0..rows {
                    let value = word(rng);
                    b.append_option((!(nullable && is_null(rng))).then_some(value));
                }
                Arc::new(b.finish())
            }
            Kind::Utf8View => {
                let mut b = StringViewBuilder::new();
                for _ in 0..rows {
                    let value = format!("{}-a-longer-tail-past-twelve-bytes", word(rng));
                    b.append_option((!is_null(rng)).then_some(value));
                }
                Arc::new(b.finish())
            }
            Kind::Dictionary => {
                let mut b = StringDictionaryBuilder::<Int32Type>::new();
                for _ in 0..rows {
                    let value = format!("k{}", rng.random_range(0..20));
                    b.append_option((!is_null(rng)).then_some(value));
                }
                Arc::new(b.finish())
            }
            Kind::ListInt32 => {
                let mut b = ListBuilder::new(Int32Builder::new());
                for _ in 0..rows {
                    if is_null(rng) {
                        b.append_null();
                        continue;
                    }
                    for _ in 0..rng.random_range(0..4) {
                        b.values()
                            .append_option(rng.random_bool(0.9).then(|| rng.random()));
                    }
                    b.append(true);
                }
                Arc::new(b.finish())
            }
            Kind::Struct => {
                let mut b = struct_builder();
                for _ in 0..rows {
                    let valid = !is_null(rng);
                    append_struct_fields(&mut b, rng);
                    b.append(valid);
                }
                Arc::new(b.finish())
            }
            Kind::ListStruct => {
                let mut b = ListBuilder::new(struct_builder());
                for _ in 0..rows {
                    if is_null(rng) {
                        b.append_null();
                        continue;
                    }
                    for _ in 0..rng.random_range(0..3) {
                        append_struct_fields(b.values(), rng);
                        b.values().append(true);
                    }
                    b.append(true);
                }
                Arc::new(b.finish())
            }
            Kind::Map => {
                let mut b = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
                for _ in 0..rows {
                    if is_null(rng) {
                        b.append(false).unwrap();
                        continue;
                    }
                    for k in 0..rng.random_range(0..3) {
                        b.keys().append_value(format!("key{k}"));
                        b.values().append_value(rng.random_range(0..100));
                    }
                    b.append(true).unwrap();
                }
                Arc::new(b.finish())
            }
            Kind::AllNull => new_null_array(&DataType::Utf8, rows),
        }
    }
}

fn append_struct_fields(b: &mut StructBuilder, rng: &mut StdRng) {
    let a = rng.random_bool(0.8).then(|| rng.random_range(0..1000));
    b.field_builder::<Int64Builder>(0).unwrap().append_option(a);
    let s = rng
        .random_bool(0.8)
        .then(|| format!("s{}", rng.random_range(0..50)));
    b.field_builder::<StringBuilder>(1)
        .unwrap()
        .append_option(s);
}

pub fn schema_of(kinds: &[Kind]) -> SchemaRef {
    let fields: Vec<Field> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| k.field(&format!("c{i}")))
        .collect();
    Arc::new(Schema::new(fields))
}

/// Batches of random sizes in `sizes` over `kinds`.
pub fn batches(kinds: &[Kind], sizes: &[usize], seed: u64) -> (SchemaRef, Vec<RecordBatch>) {
    let schema = schema_of(kinds);
    let mut rng = StdRng::seed_from_u64(seed);
    let batches = sizes
        .iter()
        .map(|&rows| {
            let columns = kinds.iter().map(|k| k.array(rows, &mut rng)).collect();
            RecordBatch::try_new(Arc::clone(&schema), columns).unwrap()
        })
        .collect();
    (schema, batches)
}

/// The bytes `ArrowWriter` writes for `batches`.
pub fn upstream(schema: &SchemaRef, batches: &[RecordBatch], props: &WriterProperties) -> Vec<u8> {
    let mut writer =
        ArrowWriter::try_new(Vec::new(), Arc::clone(schema), Some(props.clone())).unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    writer.into_inner().unwrap()
}

/// The bytes `ParallelArrowWriter` writes for `batches`. Asserts that settings meant to use
/// the pool did, so the identity checks cannot pass by encoding everything inline.
pub fn parallel(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    options: ParallelOptions,
) -> Vec<u8> {
    let arrow_options = ArrowWriterOptions::new().with_properties(props.clone());
    let force_pool = options_force_pool(&options);
    let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
        Vec::new(),
        Arc::clone(schema),
        arrow_options,
        options,
    )
    .unwrap();
    batches.iter().for_each(|b| writer.write(b).unwrap());
    let has_rows = batches.iter().any(|b| b.num_rows() > 0);
    if force_pool && has_rows && schema_leaves(schema) > 1 {
        assert!(
            writer.worker_threads() > 0,
            "the work never reached the pool"
        );
    }
    writer.into_inner().unwrap()
}

/// Whether `options` sends every row group to the pool as soon as it holds any rows.
fn options_force_pool(options: &ParallelOptions) -> bool {
    options.inline_threshold() == 0 && options.resolve_threads().unwrap() > 1
}

/// Parquet leaf columns of `schema`.
fn schema_leaves(schema: &SchemaRef) -> usize {
    parquet::arrow::ArrowSchemaConverter::new()
        .convert(schema)
        .unwrap()
        .num_columns()
}

/// Parallel settings that exercise every path: inline only, always pooled, migration midway,
/// one and three row groups in flight.
pub fn parallel_settings() -> Vec<ParallelOptions> {
    vec![
        ParallelOptions::new().with_threads(1),
        ParallelOptions::new()
            .with_threads(2)
            .with_inline_threshold(0),
        ParallelOptions::new()
            .with_threads(3)
            .with_inline_threshold(5_000)
            .with_row_groups_in_flight(1),
        ParallelOptions::new()
            .with_threads(4)
            .with_inline_threshold(0)
            .with_row_groups_in_flight(3)
            .with_memory_budget(64 * 1024),
    ]
}

/// Asserts both writers produce identical bytes under every parallel setting.
pub fn assert_identical(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    what: &str,
) {
    let expected = upstream(schema, batches, props);
    for options in parallel_settings() {
        let actual = parallel(schema, batches, props, options.clone());
        assert!(
            actual == expected,
            "{what}: bytes differ with {options:?} ({} vs {} bytes)",
            actual.len(),
            expected.len()
        );
    }
}

/// One call on a writer, in a write pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `write` a batch of this many rows.
    Write(usize),
    /// `flush`: close the row group in progress.
    Flush,
    /// `append_key_value_metadata` with [`mid_file_metadata`].
    AppendMetadata,
}

/// The key-value pair a write pattern appends mid-file.
pub fn mid_file_metadata() -> parquet::file::metadata::KeyValue {
    parquet::file::metadata::KeyValue::new("appended".to_string(), "mid-file".to_string())
}

/// The bytes `ArrowWriter` writes for `steps` (`batches[i]` is the batch of step `i` when it
/// writes one), or its first error.
pub fn upstream_steps(
    schema: &SchemaRef,
    batches: &[Option<RecordBatch>],
    steps: &[Step],
    props: &WriterProperties,
) -> parquet::errors::Result<Vec<u8>> {
    let mut writer = ArrowWriter::try_new(Vec::new(), Arc::clone(schema), Some(props.clone()))?;
    for (step, batch) in steps.iter().zip(batches) {
        match step {
            Step::Write(_) => writer.write(batch.as_ref().expect("a batch per write"))?,
            Step::Flush => writer.flush()?,
            Step::AppendMetadata => writer.append_key_value_metadata(mid_file_metadata()),
        }
    }
    writer.into_inner()
}
