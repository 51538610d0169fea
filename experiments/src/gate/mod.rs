//! The data gate: a content digest of table rows that ignores everything but the logical values.
//!
//! Each row is serialised into a canonical byte form, column after column, and hashed with
//! 128-bit XXH3. The digest is the row count plus the wrapping sum of the row hashes, so it does
//! not depend on row order, batch boundaries, how rows are split across files, or encoding.
//! The gate knows Arrow, not contacts: any schema made of the supported types works.
//!
//! The canonical form is by logical value, so every physical variant a writer or reader may pick
//! for the same data gives the same bytes (`scripts/peers/shredlab_peers/digest.py` is the same
//! in Python; change both together):
//!
//! | value | tag | bytes after the tag |
//! |---|---|---|
//! | NULL of any type, at any depth | 0 | none |
//! | string: Utf8, LargeUtf8, Utf8View, dictionary of strings | 1 | length (u64 LE), UTF-8 bytes |
//! | list: List, LargeList, FixedSizeList; a Map as its (key, value) entries | 2 | item count (u64 LE), the items |
//! | struct | 3 | every field in order (names are not part of it) |
//! | integer of any width, signed or not | 4 | the value as i128 LE |
//! | boolean | 5 | one byte, 0 or 1 |
//! | float: Float16, Float32 widened exactly, Float64 | 6 | the f64 bits (u64 LE) |
//! | binary: Binary, LargeBinary, BinaryView, FixedSizeBinary | 7 | length (u64 LE), bytes |
//! | decimal of any width | 8 | scale (i8), unscaled value as i256 LE |
//! | date: Date32, Date64 | 9 | milliseconds since the epoch (i64 LE) |
//! | time: Time32, Time64 | 10 | nanoseconds since midnight (i64 LE) |
//! | timestamp, any unit | 11 | 1 if it has a time zone (an instant) else 0, whole seconds since the epoch (i64 LE), nanoseconds (u32 LE) |
//!
//! Beside that multiset [`Digest`], reading files back also gives an [`OrderedDigest`]: the same
//! row hashes chained in the order the rows are read (rows in file order, files in the order
//! given), so two runs can be checked to have written the same rows in the same order.
//! [`ReadBack`] computes both in one read.

use std::fmt;
use std::ops::AddAssign;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_buffer::i256;
use arrow_schema::{ArrowError, DataType, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::ChunkReader;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_128;

/// Why a digest could not be computed.
#[derive(Debug, Error)]
pub enum GateError {
    /// A column type the canonical row form does not cover.
    #[error("the data gate cannot digest columns of type {0}")]
    UnsupportedType(DataType),
    /// A Parquet file could not be read back.
    #[error("cannot read {path} back for the data gate: {source}")]
    Read {
        /// The file.
        path: String,
        /// The reader's error.
        source: parquet::errors::ParquetError,
    },
    /// A Parquet file could not be opened.
    #[error("cannot open {path} for the data gate: {source}")]
    Open {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// An order-independent digest of a multiset of rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// Number of rows digested.
    pub rows: u64,
    /// Wrapping sum of the rows' 128-bit hashes.
    #[serde(with = "hex_u128")]
    pub sum: u128,
}

impl AddAssign for Digest {
    fn add_assign(&mut self, other: Digest) {
        self.rows += other.rows;
        self.sum = self.sum.wrapping_add(other.sum);
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:032x}", self.rows, self.sum)
    }
}

mod hex_u128 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{value:032x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        u128::from_str_radix(&text, 16).map_err(serde::de::Error::custom)
    }
}

impl Digest {
    /// The digest of every row of `batch`.
    pub fn of_batch(batch: &RecordBatch) -> Result<Digest, GateError> {
        let mut digest = Digest::default();
        for_each_row_hash(batch, |hash| digest.add_row(hash))?;
        Ok(digest)
    }

    /// The digest of every row of the Parquet files `paths`, read back with the parquet crate's
    /// Arrow reader.
    pub fn of_parquet_files<P: AsRef<Path>>(paths: &[P]) -> Result<Digest, GateError> {
        Ok(ReadBack::of_parquet_files(paths)?.digest)
    }

    fn add_row(&mut self, hash: u128) {
        self.rows += 1;
        self.sum = self.sum.wrapping_add(hash);
    }
}

/// An order-sensitive digest of a sequence of rows: the row count and the rows' 128-bit hashes
/// (the same as [`Digest`]'s) chained in order. It starts at 0 and each row makes it
/// `XXH3-128(chain as 16 bytes LE, then the row's hash as 16 bytes LE)`. Unlike [`Digest`] it
/// changes when rows are reordered; like it, it ignores batch boundaries and encoding, and the
/// split of one sequence of rows into files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderedDigest {
    /// Number of rows digested.
    pub rows: u64,
    /// The chained hash after the last row.
    #[serde(with = "hex_u128")]
    pub hash: u128,
}

impl fmt::Display for OrderedDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:032x}", self.rows, self.hash)
    }
}

impl OrderedDigest {
    /// The ordered digest of the rows of the Parquet files `paths`: rows in file order, files
    /// in the order of `paths` (for a run's part files, writer order).
    pub fn of_parquet_files<P: AsRef<Path>>(paths: &[P]) -> Result<OrderedDigest, GateError> {
        Ok(ReadBack::of_parquet_files(paths)?.file_order)
    }

    fn add_row(&mut self, hash: u128) {
        let mut link = [0; 32];
        link[..16].copy_from_slice(&self.hash.to_le_bytes());
        link[16..].copy_from_slice(&hash.to_le_bytes());
        self.rows += 1;
        self.hash = xxh3_128(&link);
    }
}

/// Both digests of rows read back in order, from one read: the data gate's read-back. Start
/// from `ReadBack::default()` and add files, or batches, in order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadBack {
    /// The order-independent digest, compared with the digest of what was produced.
    pub digest: Digest,
    /// The digest of the same rows in the order they were read.
    pub file_order: OrderedDigest,
}

impl ReadBack {
    /// Both digests of the rows of the Parquet files `paths`, read in that order with the
    /// parquet crate's Arrow reader.
    pub fn of_parquet_files<P: AsRef<Path>>(paths: &[P]) -> Result<ReadBack, GateError> {
        let mut read_back = ReadBack::default();
        for path in paths {
            let path = path.as_ref();
            let name = path.display().to_string();
            let file = std::fs::File::open(path).map_err(|source| GateError::Open {
                path: name.clone(),
                source,
            })?;
            read_back.add_parquet(&name, file)?;
        }
        Ok(read_back)
    }

    /// Adds the rows of one Parquet file read from `reader`, named `name` in errors.
    pub fn add_parquet<R: ChunkReader + 'static>(
        &mut self,
        name: &str,
        reader: R,
    ) -> Result<(), GateError> {
        let batches = ParquetRecordBatchReaderBuilder::try_new(reader)
            .and_then(|builder| builder.with_batch_size(8192).build())
            .map_err(|source| GateError::Read {
                path: name.to_string(),
                source,
            })?;
        self.add_batches(name, batches)
    }

    /// Adds the rows of `batches`, read from the file `name`.
    pub fn add_batches(
        &mut self,
        name: &str,
        batches: impl IntoIterator<Item = Result<RecordBatch, ArrowError>>,
    ) -> Result<(), GateError> {
        for batch in batches {
            let batch = batch.map_err(|e| GateError::Read {
                path: name.to_string(),
                source: e.into(),
            })?;
            for_each_row_hash(&batch, |hash| {
                self.digest.add_row(hash);
                self.file_order.add_row(hash);
            })?;
        }
        Ok(())
    }
}

/// Calls `f` with the hash of each row of `batch`'s canonical form, in row order.
fn for_each_row_hash(batch: &RecordBatch, mut f: impl FnMut(u128)) -> Result<(), GateError> {
    let columns = batch
        .columns()
        .iter()
        .map(|c| Node::new(c.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut row_bytes = Vec::with_capacity(256);
    for row in 0..batch.num_rows() {
        row_bytes.clear();
        for column in &columns {
            column.encode(row, &mut row_bytes);
        }
        f(xxh3_128(&row_bytes));
    }
    Ok(())
}

// Tags of the canonical row form (see the module doc and scripts/peers/shredlab_peers/digest.py).
const NULL: u8 = 0;
const STRING: u8 = 1;
const LIST: u8 = 2;
const STRUCT: u8 = 3;
const INT: u8 = 4;
const BOOL: u8 = 5;
const FLOAT: u8 = 6;
const BINARY: u8 = 7;
const DECIMAL: u8 = 8;
const DATE: u8 = 9;
const TIME: u8 = 10;
const TIMESTAMP: u8 = 11;

const MILLIS_PER_DAY: i64 = 86_400_000;

/// Nanoseconds per unit of a time or timestamp.
fn nanos_per(unit: &TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// A value read as `T` from a row index: each arm of [`Node::new`] downcasts once per batch.
type Reader<'a, T> = Box<dyn Fn(usize) -> T + 'a>;

/// One column, downcast once per batch, that writes any row's canonical bytes.
enum Node<'a> {
    /// Always NULL: the Null type, or a dictionary without values.
    Null,
    Bytes(&'a dyn Array, u8, Reader<'a, &'a [u8]>),
    Dictionary {
        array: &'a dyn Array,
        keys: Vec<usize>,
        values: Box<Node<'a>>,
    },
    List {
        array: &'a dyn Array,
        offsets: Vec<usize>,
        values: Box<Node<'a>>,
    },
    Struct(&'a dyn Array, Vec<Node<'a>>),
    Int(&'a dyn Array, Reader<'a, i128>),
    Bool(&'a arrow_array::BooleanArray),
    Float(&'a dyn Array, Reader<'a, f64>),
    Decimal(&'a dyn Array, i8, Reader<'a, i256>),
    /// A tag and an i64: dates (milliseconds) and times (nanoseconds).
    Scaled(&'a dyn Array, u8, Reader<'a, i64>),
    /// Whether it has a time zone, and (whole seconds, nanoseconds) since the epoch.
    Timestamp(&'a dyn Array, bool, Reader<'a, (i64, u32)>),
}

/// A primitive column as a reader of its values mapped by `f`.
fn values<'a, T: ArrowPrimitiveType, V>(
    array: &'a dyn Array,
    f: impl Fn(T::Native) -> V + 'a,
) -> Reader<'a, V> {
    let a = array.as_primitive::<T>();
    Box::new(move |i| f(a.value(i)))
}

/// A timestamp `value` in `unit` as (whole seconds, nanoseconds): no unit overflows.
fn seconds_and_nanos(value: i64, unit: &TimeUnit) -> (i64, u32) {
    let per_second = 1_000_000_000 / nanos_per(unit);
    let nanos = value.rem_euclid(per_second) * nanos_per(unit);
    (value.div_euclid(per_second), nanos as u32)
}

fn list_node<'a>(
    array: &'a dyn Array,
    offsets: Vec<usize>,
    values: &'a ArrayRef,
) -> Result<Node<'a>, GateError> {
    Ok(Node::List {
        array,
        offsets,
        values: Box::new(Node::new(values.as_ref())?),
    })
}

impl<'a> Node<'a> {
    fn new(array: &'a dyn Array) -> Result<Self, GateError> {
        use DataType as T;
        Ok(match array.data_type() {
            T::Null => Node::Null,
            T::Utf8 => {
                let a = array.as_string::<i32>();
                Node::Bytes(array, STRING, Box::new(move |i| a.value(i).as_bytes()))
            }
            T::LargeUtf8 => {
                let a = array.as_string::<i64>();
                Node::Bytes(array, STRING, Box::new(move |i| a.value(i).as_bytes()))
            }
            T::Utf8View => {
                let a = array.as_string_view();
                Node::Bytes(array, STRING, Box::new(move |i| a.value(i).as_bytes()))
            }
            T::Binary => {
                let a = array.as_binary::<i32>();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::LargeBinary => {
                let a = array.as_binary::<i64>();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::BinaryView => {
                let a = array.as_binary_view();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::FixedSizeBinary(_) => {
                let a = array.as_fixed_size_binary();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::Dictionary(_, _) => {
                let dictionary = array.as_any_dictionary();
                if dictionary.values().is_empty() {
                    // Keys index the values, so with none every key is NULL (a column chunk of
                    // NULLs reads back so); `normalized_keys` would panic on it.
                    Node::Null
                } else {
                    Node::Dictionary {
                        array,
                        keys: dictionary.normalized_keys(),
                        values: Box::new(Node::new(dictionary.values().as_ref())?),
                    }
                }
            }
            T::List(_) => {
                let list = array.as_list::<i32>();
                let offsets = list.offsets().iter().map(|&o| o as usize).collect();
                list_node(array, offsets, list.values())?
            }
            T::LargeList(_) => {
                let list = array.as_list::<i64>();
                let offsets = list.offsets().iter().map(|&o| o as usize).collect();
                list_node(array, offsets, list.values())?
            }
            T::FixedSizeList(_, size) => {
                let list = array.as_fixed_size_list();
                let size = *size as usize;
                let offsets = (0..=list.len())
                    .map(|i| (list.offset() + i) * size)
                    .collect();
                list_node(array, offsets, list.values())?
            }
            // A map is its entries: a list of (key, value) structs, as readers without a map
            // type (polars) return it.
            T::Map(_, _) => {
                let map = array.as_map();
                let offsets = map.offsets().iter().map(|&o| o as usize).collect();
                Node::List {
                    array,
                    offsets,
                    values: Box::new(Node::Struct(
                        map.entries(),
                        vec![
                            Node::new(map.keys().as_ref())?,
                            Node::new(map.values().as_ref())?,
                        ],
                    )),
                }
            }
            T::Struct(_) => Node::Struct(
                array,
                array
                    .as_struct()
                    .columns()
                    .iter()
                    .map(|c| Node::new(c.as_ref()))
                    .collect::<Result<_, _>>()?,
            ),
            T::Int8 => Node::Int(array, values::<Int8Type, _>(array, i128::from)),
            T::Int16 => Node::Int(array, values::<Int16Type, _>(array, i128::from)),
            T::Int32 => Node::Int(array, values::<Int32Type, _>(array, i128::from)),
            T::Int64 => Node::Int(array, values::<Int64Type, _>(array, i128::from)),
            T::UInt8 => Node::Int(array, values::<UInt8Type, _>(array, i128::from)),
            T::UInt16 => Node::Int(array, values::<UInt16Type, _>(array, i128::from)),
            T::UInt32 => Node::Int(array, values::<UInt32Type, _>(array, i128::from)),
            T::UInt64 => Node::Int(array, values::<UInt64Type, _>(array, i128::from)),
            T::Boolean => Node::Bool(array.as_boolean()),
            T::Float16 => Node::Float(array, values::<Float16Type, _>(array, |v| v.to_f64())),
            T::Float32 => Node::Float(array, values::<Float32Type, _>(array, f64::from)),
            T::Float64 => Node::Float(array, values::<Float64Type, _>(array, |v| v)),
            T::Decimal32(_, scale) => {
                Node::Decimal(array, *scale, values::<Decimal32Type, _>(array, i256::from))
            }
            T::Decimal64(_, scale) => {
                Node::Decimal(array, *scale, values::<Decimal64Type, _>(array, i256::from))
            }
            T::Decimal128(_, scale) => Node::Decimal(
                array,
                *scale,
                values::<Decimal128Type, _>(array, i256::from_i128),
            ),
            T::Decimal256(_, scale) => {
                Node::Decimal(array, *scale, values::<Decimal256Type, _>(array, |v| v))
            }
            T::Date32 => Node::Scaled(
                array,
                DATE,
                values::<Date32Type, _>(array, |days| i64::from(days) * MILLIS_PER_DAY),
            ),
            T::Date64 => Node::Scaled(array, DATE, values::<Date64Type, _>(array, |ms| ms)),
            T::Time32(unit) => {
                let scale = nanos_per(unit);
                let nanos = move |v: i32| i64::from(v) * scale;
                Node::Scaled(
                    array,
                    TIME,
                    match unit {
                        TimeUnit::Second => values::<Time32SecondType, _>(array, nanos),
                        _ => values::<Time32MillisecondType, _>(array, nanos),
                    },
                )
            }
            T::Time64(unit) => {
                let scale = nanos_per(unit);
                let nanos = move |v: i64| v * scale;
                Node::Scaled(
                    array,
                    TIME,
                    match unit {
                        TimeUnit::Microsecond => values::<Time64MicrosecondType, _>(array, nanos),
                        _ => values::<Time64NanosecondType, _>(array, nanos),
                    },
                )
            }
            T::Timestamp(unit, zone) => {
                let unit = *unit;
                let split = move |v: i64| seconds_and_nanos(v, &unit);
                let reader = match unit {
                    TimeUnit::Second => values::<TimestampSecondType, _>(array, split),
                    TimeUnit::Millisecond => values::<TimestampMillisecondType, _>(array, split),
                    TimeUnit::Microsecond => values::<TimestampMicrosecondType, _>(array, split),
                    TimeUnit::Nanosecond => values::<TimestampNanosecondType, _>(array, split),
                };
                Node::Timestamp(array, zone.is_some(), reader)
            }
            other => return Err(GateError::UnsupportedType(other.clone())),
        })
    }

    fn is_null(&self, i: usize) -> bool {
        match self {
            Node::Null => true,
            Node::Bytes(a, ..)
            | Node::Dictionary { array: a, .. }
            | Node::List { array: a, .. }
            | Node::Struct(a, _)
            | Node::Int(a, _)
            | Node::Float(a, _)
            | Node::Decimal(a, ..)
            | Node::Scaled(a, ..)
            | Node::Timestamp(a, ..) => a.is_null(i),
            Node::Bool(a) => a.is_null(i),
        }
    }

    fn encode(&self, i: usize, out: &mut Vec<u8>) {
        if self.is_null(i) {
            out.push(NULL);
            return;
        }
        match self {
            Node::Null => unreachable!("a Null column has only nulls"),
            Node::Bytes(_, tag, value) => {
                let bytes = value(i);
                out.push(*tag);
                out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                out.extend_from_slice(bytes);
            }
            Node::Dictionary { keys, values, .. } => values.encode(keys[i], out),
            Node::List {
                offsets, values, ..
            } => {
                let (start, end) = (offsets[i], offsets[i + 1]);
                out.push(LIST);
                out.extend_from_slice(&((end - start) as u64).to_le_bytes());
                (start..end).for_each(|item| values.encode(item, out));
            }
            Node::Struct(_, fields) => {
                out.push(STRUCT);
                fields.iter().for_each(|field| field.encode(i, out));
            }
            Node::Int(_, value) => {
                out.push(INT);
                out.extend_from_slice(&value(i).to_le_bytes());
            }
            Node::Bool(a) => out.extend_from_slice(&[BOOL, u8::from(a.value(i))]),
            Node::Float(_, value) => {
                out.push(FLOAT);
                out.extend_from_slice(&value(i).to_bits().to_le_bytes());
            }
            Node::Decimal(_, scale, value) => {
                out.extend_from_slice(&[DECIMAL, *scale as u8]);
                out.extend_from_slice(&value(i).to_le_bytes());
            }
            Node::Scaled(_, tag, value) => {
                out.push(*tag);
                out.extend_from_slice(&value(i).to_le_bytes());
            }
            Node::Timestamp(_, zoned, value) => {
                let (seconds, nanos) = value(i);
                out.extend_from_slice(&[TIMESTAMP, u8::from(*zoned)]);
                out.extend_from_slice(&seconds.to_le_bytes());
                out.extend_from_slice(&nanos.to_le_bytes());
            }
        }
    }
}
