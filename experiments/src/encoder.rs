//! One Parquet stream's encoder: parquet's own `ArrowWriter`, the parallel writer of
//! `shredlab-writer`, or none (`--sink null`). The pipeline's writer threads and the Python
//! package's `write_parquet` both encode through it.

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use shredlab_writer::{ParallelArrowWriter, ParallelOptions};

/// Which encoder a [`FileEncoder`] is.
#[derive(Debug, Clone)]
pub enum EncoderKind {
    /// parquet's `ArrowWriter`, on the calling thread.
    Upstream,
    /// `ParallelArrowWriter` with these settings.
    Parallel(ParallelOptions),
    /// Batches are dropped unencoded; the sink is handed back untouched.
    Discard,
}

/// A Parquet encoder writing into a sink `W`.
pub enum FileEncoder<W: Write + Send> {
    /// parquet's own writer.
    Upstream(Box<ArrowWriter<W>>),
    /// The parallel writer.
    Parallel(Box<ParallelArrowWriter<W>>),
    /// `--sink null`: batches are dropped unencoded.
    Discard(W),
}

impl<W: Write + Send> FileEncoder<W> {
    /// An encoder of `schema` into `sink` with `properties`.
    ///
    /// # Errors
    ///
    /// What the chosen writer's constructor fails on, chiefly a schema parquet cannot convert.
    pub fn try_new(
        sink: W,
        schema: SchemaRef,
        properties: WriterProperties,
        kind: EncoderKind,
    ) -> Result<Self, ParquetError> {
        Ok(match kind {
            EncoderKind::Discard => Self::Discard(sink),
            EncoderKind::Upstream => {
                shredlab_writer::refuse_unions(&schema)?;
                Self::Upstream(Box::new(ArrowWriter::try_new(
                    sink,
                    schema,
                    Some(properties),
                )?))
            }
            EncoderKind::Parallel(parallel) => {
                let options = ArrowWriterOptions::new().with_properties(properties);
                Self::Parallel(Box::new(
                    ParallelArrowWriter::try_new_with_parallel_options(
                        sink, schema, options, parallel,
                    )?,
                ))
            }
        })
    }

    /// Encodes `batch`.
    ///
    /// # Errors
    ///
    /// The writer's: an encoding or sink failure, or a batch of another schema.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ParquetError> {
        match self {
            Self::Upstream(writer) => writer.write(batch),
            Self::Parallel(writer) => writer.write(batch),
            Self::Discard(_) => Ok(()),
        }
    }

    /// Writes the row group in progress to the sink (as [`Self::into_inner`] does first).
    ///
    /// # Errors
    ///
    /// An encoding or sink failure.
    pub fn flush(&mut self) -> Result<(), ParquetError> {
        match self {
            Self::Upstream(writer) => writer.flush(),
            Self::Parallel(writer) => writer.flush(),
            Self::Discard(_) => Ok(()),
        }
    }

    /// Encoder threads the parallel writer started (0 for parquet's own writer).
    pub fn pool_threads(&self) -> usize {
        match self {
            Self::Upstream(_) | Self::Discard(_) => 0,
            Self::Parallel(writer) => writer.worker_threads(),
        }
    }

    /// Rows of the row group being filled.
    pub fn in_progress_rows(&self) -> usize {
        match self {
            Self::Upstream(writer) => writer.in_progress_rows(),
            Self::Parallel(writer) => writer.in_progress_rows(),
            Self::Discard(_) => 0,
        }
    }

    /// Row groups written to the sink so far (all of them once [`Self::into_inner`] ran).
    pub fn row_groups(&self) -> usize {
        match self {
            Self::Upstream(writer) => writer.flushed_row_groups().len(),
            Self::Parallel(writer) => writer.flushed_row_groups().len(),
            Self::Discard(_) => 0,
        }
    }

    /// Writes the footer and hands the sink back.
    ///
    /// # Errors
    ///
    /// An encoding or sink failure while the last row groups and the footer are written.
    pub fn into_inner(self) -> Result<W, ParquetError> {
        match self {
            Self::Upstream(writer) => writer.into_inner(),
            Self::Parallel(writer) => writer.into_inner(),
            Self::Discard(sink) => Ok(sink),
        }
    }
}
