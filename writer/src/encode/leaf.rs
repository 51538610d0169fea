//! [`LeafWriter`] and [`LeafChunk`]: one leaf column chunk, from whichever encoder writes it.

use std::io::Write;

use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn};
use parquet::errors::{ParquetError, Result};
use parquet::file::writer::SerializedRowGroupWriter;

use super::column::{NativeColumnChunk, NativeColumnWriter};
use super::levels::LeafLevels;
use super::pages::PageChunkWriter;

/// The writer of one leaf column of one row group.
#[derive(Debug)]
pub(crate) enum LeafWriter {
    /// shredlab's levels, parquet's typed column writer for the pages.
    Native(NativeColumnWriter),
    /// shredlab's levels and pages.
    Pages(PageChunkWriter),
    /// parquet's `ArrowColumnWriter`, for every leaf the native encoder does not support.
    Arrow(ArrowColumnWriter),
}

/// One batch's share of a leaf, in the form its [`LeafWriter`] takes.
#[derive(Debug)]
pub(crate) enum LeafData<'a> {
    /// Levels computed by [`super::levels`].
    Native(&'a LeafLevels),
    /// Levels computed by parquet's `compute_leaves`.
    Arrow(&'a ArrowLeafColumn),
}

impl LeafWriter {
    /// Encodes one batch's share of the leaf.
    ///
    /// # Errors
    ///
    /// What the column writer fails on, or data computed for the other encoder.
    pub fn write(&mut self, data: LeafData<'_>) -> Result<()> {
        match (self, data) {
            (Self::Native(writer), LeafData::Native(levels)) => writer.write(levels),
            (Self::Pages(writer), LeafData::Native(levels)) => writer.write(levels),
            (Self::Arrow(writer), LeafData::Arrow(leaf)) => writer.write(leaf),
            _ => Err(ParquetError::General(
                "a leaf's data was computed for the other encoder".to_string(),
            )),
        }
    }

    /// Memory held: buffered pages, dictionaries, values and levels (estimated for parquet's
    /// typed writer: see `NativeColumnWriter::memory_size`).
    pub fn memory_size(&self) -> usize {
        match self {
            Self::Native(writer) => writer.memory_size(),
            Self::Pages(writer) => writer.memory_size(),
            Self::Arrow(writer) => writer.memory_size(),
        }
    }

    /// The chunk's encoded size so far, estimated: `ArrowColumnWriter`'s own estimate, or for
    /// the native encoder the memory it holds, which its pages' bytes seldom outgrow (not a
    /// bound). Only the former cuts row groups where `ArrowWriter` does (`max_row_group_bytes`).
    pub fn estimated_total_bytes(&self) -> usize {
        match self {
            Self::Arrow(writer) => writer.get_estimated_total_bytes(),
            native => native.memory_size(),
        }
    }

    /// Finishes the column chunk.
    ///
    /// # Errors
    ///
    /// What the column writer fails on when closing.
    pub fn close(self) -> Result<LeafChunk> {
        Ok(match self {
            Self::Native(writer) => LeafChunk::Native(writer.close()?),
            Self::Pages(writer) => LeafChunk::Native(writer.close()?),
            Self::Arrow(writer) => LeafChunk::Arrow(writer.close()?),
        })
    }
}

/// A finished leaf column chunk, ready to be appended to its row group.
#[derive(Debug)]
pub(crate) enum LeafChunk {
    /// Written by shredlab's encoder.
    Native(NativeColumnChunk),
    /// Written by parquet's `ArrowColumnWriter`.
    Arrow(ArrowColumnChunk),
}

impl LeafChunk {
    /// Appends the chunk to `row_group`, whose next column it must be.
    ///
    /// # Errors
    ///
    /// The chunk is not the row group's next column, or writing failed.
    pub fn append_to_row_group<W: Write + Send>(
        self,
        row_group: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        match self {
            Self::Native(chunk) => chunk.append_to_row_group(row_group),
            Self::Arrow(chunk) => chunk.append_to_row_group(row_group),
        }
    }
}
