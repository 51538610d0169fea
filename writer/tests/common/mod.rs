//! Batches from the spec generator over a matrix of types, and the byte-for-byte comparison
//! with ArrowWriter.

#![allow(dead_code)]

pub mod columns;
pub mod encoders;
pub mod strategies;

use std::io::{self, Write};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus as StdRng;
use shredlab_generator::spec::{Distribution, Params, Spec, SpecGenerator};
use shredlab_writer::encode::ColumnEncoder;
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
    ListUtf8View,
    Dictionary,
    ListInt32,
    Struct,
    ListStruct,
    Map,
    AllNull,
    Decimal,
    /// A decimal of 38 digits: a 16-byte fixed-length byte array.
    WideDecimal,
    /// Half floats: 2-byte fixed-length byte arrays.
    Float16,
    Timestamp,
    FixedSizeBinary,
    LargeListBinary,
    FixedSizeListFloat,
}

pub const KINDS: [Kind; 21] = [
    Kind::Int32,
    Kind::Int64NonNull,
    Kind::Float64,
    Kind::Boolean,
    Kind::Utf8,
    Kind::Utf8NonNull,
    Kind::Utf8View,
    Kind::ListUtf8View,
    Kind::Dictionary,
    Kind::ListInt32,
    Kind::Struct,
    Kind::ListStruct,
    Kind::Map,
    Kind::AllNull,
    Kind::Decimal,
    Kind::WideDecimal,
    Kind::Float16,
    Kind::Timestamp,
    Kind::FixedSizeBinary,
    Kind::LargeListBinary,
    Kind::FixedSizeListFloat,
];

fn struct_fields() -> Fields {
    Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ])
}

fn item(data_type: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", data_type, true))
}

impl Kind {
    pub fn field(self, name: &str) -> Field {
        let (data_type, nullable) = match self {
            Kind::Int32 => (DataType::Int32, true),
            Kind::Int64NonNull => (DataType::Int64, false),
            Kind::Float64 => (DataType::Float64, true),
            Kind::Boolean => (DataType::Boolean, true),
            Kind::Utf8 | Kind::AllNull => (DataType::Utf8, true),
            Kind::Utf8NonNull => (DataType::Utf8, false),
            Kind::Utf8View => (DataType::Utf8View, true),
            Kind::ListUtf8View => (DataType::List(item(DataType::Utf8View)), true),
            Kind::Dictionary => (
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                true,
            ),
            Kind::ListInt32 => (DataType::List(item(DataType::Int32)), true),
            Kind::Struct => (DataType::Struct(struct_fields()), true),
            Kind::ListStruct => (
                DataType::List(item(DataType::Struct(struct_fields()))),
                true,
            ),
            Kind::Map => {
                let entries = Fields::from(vec![
                    Field::new("keys", DataType::Utf8, false),
                    Field::new("values", DataType::Int64, true),
                ]);
                let entries = Arc::new(Field::new("entries", DataType::Struct(entries), false));
                (DataType::Map(entries, false), true)
            }
            Kind::Decimal => (DataType::Decimal128(18, 3), true),
            Kind::WideDecimal => (DataType::Decimal128(38, 4), true),
            Kind::Float16 => (DataType::Float16, true),
            Kind::Timestamp => (
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                true,
            ),
            Kind::FixedSizeBinary => (DataType::FixedSizeBinary(6), true),
            Kind::LargeListBinary => (DataType::LargeList(item(DataType::Binary)), true),
            Kind::FixedSizeListFloat => (DataType::FixedSizeList(item(DataType::Float32), 3), true),
        };
        Field::new(name, data_type, nullable)
    }
}

pub fn schema_of(kinds: &[Kind]) -> SchemaRef {
    let fields: Vec<Field> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| k.field(&format!("c{i}")))
        .collect();
    Arc::new(Schema::new(fields))
}

/// Random generator parameters for `field`: a null rate, and for strings a vocabulary small
/// enough to repeat (dictionary pages) or large enough to overflow them; floats hold NaN,
/// signed zeros and infinities half the time.
pub fn random_params(field: &Field, rng: &mut StdRng) -> Params {
    let mut params = Params::default();
    if field.is_nullable() {
        params.null_probability = [0.0, 0.1, 0.5, 1.0][rng.random_range(0..4)];
    }
    match field.data_type() {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => {
            params.cardinality = Some([5, 200, 5_000][rng.random_range(0..3)]);
            params.distribution = Distribution::Zipf { s: 1.0 };
            params.max_length = Some(if rng.random_bool(0.2) { 40 } else { 12 });
        }
        DataType::Float16 | DataType::Float32 | DataType::Float64 if rng.random_bool(0.5) => {
            params.values = ["NaN", "-NaN", "-0.0", "0.0", "inf", "-inf", "0.5", "-7.25"]
                .map(String::from)
                .to_vec();
        }
        _ => {}
    }
    params
}

/// The generator of `schema` with random parameters chosen from `seed`.
pub fn random_generator(schema: &Schema, seed: u64) -> SpecGenerator {
    let mut rng = StdRng::seed_from_u64(seed);
    let spec = Spec::from_schema(schema, |field| random_params(field, &mut rng));
    SpecGenerator::new(&spec, seed).unwrap()
}

/// Consecutive batches of the sizes in `sizes` from `generator`.
pub fn batches_of(generator: &SpecGenerator, sizes: &[usize]) -> Vec<RecordBatch> {
    let mut start = 0;
    sizes
        .iter()
        .map(|&rows| {
            let batch = generator.batch(start..start + rows as u64).unwrap();
            start += rows as u64;
            batch
        })
        .collect()
}

/// Batches of sizes `sizes` over `kinds` (column `c{i}` of kind `kinds[i]`; `AllNull` columns
/// entirely NULL).
pub fn batches(kinds: &[Kind], sizes: &[usize], seed: u64) -> (SchemaRef, Vec<RecordBatch>) {
    batches_with(kinds, sizes, seed, |field, params| {
        let all_null = kinds
            .iter()
            .enumerate()
            .any(|(i, k)| *k == Kind::AllNull && field.name() == &format!("c{i}"));
        if all_null {
            params.null_probability = 1.0;
        }
    })
}

/// [`batches`] with each field's random parameters changed by `adjust`.
pub fn batches_with(
    kinds: &[Kind],
    sizes: &[usize],
    seed: u64,
    mut adjust: impl FnMut(&Field, &mut Params),
) -> (SchemaRef, Vec<RecordBatch>) {
    let schema = schema_of(kinds);
    let mut rng = StdRng::seed_from_u64(seed);
    let spec = Spec::from_schema(&schema, |field| {
        let mut params = random_params(field, &mut rng);
        adjust(field, &mut params);
        params
    });
    let generator = SpecGenerator::new(&spec, seed).unwrap();
    (schema, batches_of(&generator, sizes))
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
/// one and three row groups in flight; shredlab's column encoder (the default) and arrow-rs's.
pub fn parallel_settings() -> Vec<ParallelOptions> {
    vec![
        ParallelOptions::new().with_threads(1),
        ParallelOptions::new()
            .with_threads(2)
            .with_inline_threshold(0),
        ParallelOptions::new()
            .with_threads(3)
            .with_inline_threshold(5_000)
            .with_row_groups_in_flight(1)
            .with_encoder(ColumnEncoder::ArrowRs),
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

/// A sink that accepts `left` bytes, then fails like a full disk.
pub struct FailAfter {
    pub left: usize,
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() > self.left {
            return Err(io::Error::from_raw_os_error(28));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
