//! [`FallbackFactory`]: parquet's `ArrowColumnWriter`s for the top-level columns that have a
//! leaf the native encoder leaves to parquet, and for no other.
//!
//! parquet's factory for the whole file makes a writer for every leaf, each with its page
//! buffers, encoders and codec (for Zstandard, a compression and a decompression context).
//! Made for a leaf the native encoder writes, all of it was dropped unused once per row group:
//! on a row group of 1,000 rows that set-up cost more than the native encoder saved, with
//! Zstandard pages.

use std::io;
use std::sync::Arc;

use arrow_schema::{Schema, SchemaRef};
use parquet::arrow::arrow_writer::{
    ArrowColumnWriter, ArrowRowGroupWriterFactory, ArrowWriterOptions,
};
use parquet::arrow::ArrowWriter;
use parquet::errors::Result;
use parquet::schema::types::{SchemaDescriptor, Type};

/// Makes each row group's parquet column writers for the top-level columns it was made for.
#[derive(Debug)]
pub(crate) struct FallbackFactory {
    /// parquet's factory for a file of only those columns; `None` when there are none.
    factory: Option<ArrowRowGroupWriterFactory>,
}

impl FallbackFactory {
    /// The factory for the top-level columns of `schema` that `needed` marks, under the file's
    /// `options` (properties, page store) and `parquet_schema` (the file's conversion of
    /// `schema`). Each writer it makes is the one parquet's factory for the whole file makes
    /// for that leaf: the same descriptor, properties and page store.
    ///
    /// # Errors
    ///
    /// What parquet fails on when it opens a file writer for those columns (nothing is
    /// written: its sink discards).
    pub fn new(
        options: &ArrowWriterOptions,
        schema: &SchemaRef,
        parquet_schema: &SchemaDescriptor,
        needed: &[bool],
    ) -> Result<Self> {
        if !needed.contains(&true) {
            return Ok(Self { factory: None });
        }
        let root = parquet_schema.root_schema();
        let parquet_fields = kept(root.get_fields(), needed);
        let arrow_fields = kept(schema.fields(), needed);
        let root = Type::group_type_builder(root.name())
            .with_fields(parquet_fields)
            .build()?;
        // The writers' settings come from the properties alone: the Arrow schema is not stored.
        let options = options
            .clone()
            .with_skip_arrow_metadata(true)
            .with_parquet_schema(SchemaDescriptor::new(Arc::new(root)));
        let (_, factory) = ArrowWriter::try_new_with_options(
            io::sink(),
            Arc::new(Schema::new(arrow_fields)),
            options,
        )?
        .into_serialized_writer()?;
        Ok(Self {
            factory: Some(factory),
        })
    }

    /// Row group `row_group`'s writers: one per leaf of the columns this factory was made for,
    /// in file order.
    ///
    /// # Errors
    ///
    /// What parquet's factory fails on.
    pub fn create(&self, row_group: usize) -> Result<Vec<ArrowColumnWriter>> {
        match &self.factory {
            Some(factory) => factory.create_column_writers(row_group),
            None => Ok(Vec::new()),
        }
    }
}

/// The items of `all` that `needed` marks, in order.
fn kept<T: Clone>(all: &[T], needed: &[bool]) -> Vec<T> {
    all.iter()
        .zip(needed)
        .filter(|(_, needed)| **needed)
        .map(|(item, _)| item.clone())
        .collect()
}
