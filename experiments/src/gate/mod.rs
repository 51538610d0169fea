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

mod node;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::ChunkReader;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_128;

use node::Node;

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
