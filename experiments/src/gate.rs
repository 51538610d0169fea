//! The data gate: a content digest of table rows that ignores everything but the logical values.
//!
//! Each row is serialised into a canonical byte form (strings as strings whether plain, large,
//! view or dictionary-encoded; lists and structs recursively; NULL as its own tag) and hashed with
//! 128-bit XXH3. The digest is the row count plus the wrapping sum of the row hashes, so it does
//! not depend on row order, batch boundaries, how rows are split across files, or encoding.
//! The gate knows Arrow, not contacts: any schema made of the supported types works.

use std::fmt;
use std::ops::AddAssign;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
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
        let columns = batch
            .columns()
            .iter()
            .map(|c| Node::new(c.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut digest = Digest::default();
        let mut row_bytes = Vec::with_capacity(256);
        for row in 0..batch.num_rows() {
            row_bytes.clear();
            for column in &columns {
                column.encode(row, &mut row_bytes);
            }
            digest.rows += 1;
            digest.sum = digest.sum.wrapping_add(xxh3_128(&row_bytes));
        }
        Ok(digest)
    }

    /// The digest of every row of the Parquet files `paths`, read back with the parquet crate's
    /// Arrow reader.
    pub fn of_parquet_files<P: AsRef<Path>>(paths: &[P]) -> Result<Digest, GateError> {
        let mut digest = Digest::default();
        for path in paths {
            let path = path.as_ref();
            let name = path.display().to_string();
            let file = std::fs::File::open(path).map_err(|source| GateError::Open {
                path: name.clone(),
                source,
            })?;
            let read_error = |source| GateError::Read {
                path: name.clone(),
                source,
            };
            let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                .map_err(read_error)?
                .with_batch_size(8192)
                .build()
                .map_err(read_error)?;
            for batch in reader {
                let batch = batch.map_err(|e| read_error(e.into()))?;
                digest += Digest::of_batch(&batch)?;
            }
        }
        Ok(digest)
    }
}

// Tags of the canonical row form.
const NULL: u8 = 0;
const STRING: u8 = 1;
const LIST: u8 = 2;
const STRUCT: u8 = 3;
const INT: u8 = 4;
const BOOL: u8 = 5;
const FLOAT: u8 = 6;

/// One column, downcast once per batch, that writes any row's canonical bytes.
enum Node<'a> {
    Utf8(&'a dyn Array, Box<dyn Fn(usize) -> &'a str + 'a>),
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
    Int(&'a dyn Array, Box<dyn Fn(usize) -> i128 + 'a>),
    Bool(&'a arrow_array::BooleanArray),
    Float(&'a arrow_array::Float64Array),
}

impl<'a> Node<'a> {
    fn new(array: &'a dyn Array) -> Result<Self, GateError> {
        Ok(match array.data_type() {
            DataType::Utf8 => {
                let a = array.as_string::<i32>();
                Node::Utf8(array, Box::new(move |i| a.value(i)))
            }
            DataType::LargeUtf8 => {
                let a = array.as_string::<i64>();
                Node::Utf8(array, Box::new(move |i| a.value(i)))
            }
            DataType::Utf8View => {
                let a = array.as_string_view();
                Node::Utf8(array, Box::new(move |i| a.value(i)))
            }
            DataType::Dictionary(_, _) => {
                let dictionary = array.as_any_dictionary();
                Node::Dictionary {
                    array,
                    keys: dictionary.normalized_keys(),
                    values: Box::new(Node::new(dictionary.values().as_ref())?),
                }
            }
            DataType::List(_) => {
                let list = array.as_list::<i32>();
                Node::List {
                    array,
                    offsets: list.offsets().iter().map(|&o| o as usize).collect(),
                    values: Box::new(Node::new(list.values().as_ref())?),
                }
            }
            DataType::LargeList(_) => {
                let list = array.as_list::<i64>();
                Node::List {
                    array,
                    offsets: list.offsets().iter().map(|&o| o as usize).collect(),
                    values: Box::new(Node::new(list.values().as_ref())?),
                }
            }
            DataType::Struct(_) => Node::Struct(
                array,
                array
                    .as_struct()
                    .columns()
                    .iter()
                    .map(|c| Node::new(c.as_ref()))
                    .collect::<Result<_, _>>()?,
            ),
            DataType::Int32 => {
                let a = array.as_primitive::<Int32Type>();
                Node::Int(array, Box::new(move |i| i128::from(a.value(i))))
            }
            DataType::Int64 => {
                let a = array.as_primitive::<Int64Type>();
                Node::Int(array, Box::new(move |i| i128::from(a.value(i))))
            }
            DataType::UInt64 => {
                let a = array.as_primitive::<UInt64Type>();
                Node::Int(array, Box::new(move |i| i128::from(a.value(i))))
            }
            DataType::Boolean => Node::Bool(array.as_boolean()),
            DataType::Float64 => Node::Float(array.as_primitive::<Float64Type>()),
            other => return Err(GateError::UnsupportedType(other.clone())),
        })
    }

    fn array(&self) -> &dyn Array {
        match self {
            Node::Utf8(a, _)
            | Node::Dictionary { array: a, .. }
            | Node::List { array: a, .. }
            | Node::Struct(a, _)
            | Node::Int(a, _) => *a,
            Node::Bool(a) => *a,
            Node::Float(a) => *a,
        }
    }

    fn encode(&self, i: usize, out: &mut Vec<u8>) {
        if self.array().is_null(i) {
            out.push(NULL);
            return;
        }
        match self {
            Node::Utf8(_, value) => {
                let text = value(i);
                out.push(STRING);
                out.extend_from_slice(&(text.len() as u64).to_le_bytes());
                out.extend_from_slice(text.as_bytes());
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
            Node::Float(a) => {
                out.push(FLOAT);
                out.extend_from_slice(&a.value(i).to_bits().to_le_bytes());
            }
        }
    }
}
