//! [`AsyncParallelArrowWriter`]: the asynchronous drop-in for `parquet::arrow::AsyncArrowWriter`.
//! Encoding runs on tokio's blocking pool and the writer's own workers, never on the async
//! runtime's threads; encoded bytes go to any [`AsyncFileWriter`] after every call.

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::async_writer::AsyncFileWriter;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::WriterProperties;

use crate::encode::LeafEncoders;
use crate::{ParallelArrowWriter, ParallelOptions};

/// Bytes the synchronous writer has produced and the async sink has not yet taken.
#[derive(Debug, Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Like [`parquet::arrow::AsyncArrowWriter`], with columns encoded in parallel and byte-for-byte
/// the same output.
///
/// It wraps a [`ParallelArrowWriter`] that writes into a buffer in memory. Each call runs the
/// synchronous call on tokio's blocking pool (the encoding itself on the writer's workers),
/// never on the runtime's threads, then hands the bytes it produced to the [`AsyncFileWriter`]
/// before returning. Memory, type support and refusals are [`ParallelArrowWriter`]'s (see its
/// [Memory usage and limiting](ParallelArrowWriter#memory-usage-and-limiting) and
/// [Type support](ParallelArrowWriter#type-support)), plus the bytes of one call on their way
/// to the sink.
///
/// # Example
///
/// ```
/// # #[tokio::main(flavor = "multi_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch};
/// use shredlab_writer::AsyncParallelArrowWriter;
///
/// let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1000));
/// let batch = RecordBatch::try_from_iter([("id", ids)])?;
/// let mut writer = AsyncParallelArrowWriter::try_new(Vec::new(), batch.schema(), None)?;
/// writer.write(&batch).await?;
/// let metadata = writer.close().await?;
/// assert_eq!(metadata.file_metadata().num_rows(), 1000);
/// # Ok(())
/// # }
/// ```
///
/// # After an error
///
/// - An error of the synchronous writer (encoding, a worker's panic, a refusal) follows
///   [`ParallelArrowWriter`]'s rule ([After an error](ParallelArrowWriter#after-an-error)):
///   every later `write`, `flush`, `finish` or `close` fails with
///   `"an earlier write failed; this Parquet file is incomplete"`.
/// - If the blocking task of a call dies (a panic while encoding on it: the call fails with
///   `"the encoding task failed: ..."`), or the call's future is dropped while it encodes, the
///   synchronous writer is gone: every later call fails with
///   `"an earlier encoding task failed; this Parquet file is incomplete"`, and the accessors
///   answer 0 (no row groups).
/// - If the sink fails ([`AsyncFileWriter::write`] or [`AsyncFileWriter::complete`] returns an
///   error, which the call returns), or a call's future is dropped while it hands bytes to the
///   sink, the bytes on their way are lost: every later call fails with
///   `"an earlier hand-over to the sink failed or was cancelled; this Parquet file is
///   incomplete"`.
pub struct AsyncParallelArrowWriter<W> {
    /// `None` only while a blocking task holds it, or after that task panicked.
    sync_writer: Option<ParallelArrowWriter<SharedBuffer>>,
    buffer: SharedBuffer,
    sink: W,
    /// False from the moment bytes leave the buffer until the sink has taken them: a sink error
    /// or a future dropped in between leaves it false, and every later call fails.
    sink_intact: bool,
}

impl<W: AsyncFileWriter> AsyncParallelArrowWriter<W> {
    /// Like `AsyncArrowWriter::try_new`.
    ///
    /// # Errors
    ///
    /// As [`ParallelArrowWriter::try_new`]. The sink is not used here, so it cannot fail here.
    pub fn try_new(
        sink: W,
        schema: SchemaRef,
        properties: Option<WriterProperties>,
    ) -> Result<Self> {
        let options = ArrowWriterOptions::new().with_properties(properties.unwrap_or_default());
        Self::try_new_with_options(sink, schema, options)
    }

    /// Like `AsyncArrowWriter::try_new_with_options`.
    ///
    /// # Errors
    ///
    /// As [`ParallelArrowWriter::try_new_with_options`]; the sink is not used here.
    pub fn try_new_with_options(
        sink: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
    ) -> Result<Self> {
        Self::try_new_with_parallel_options(sink, schema, options, ParallelOptions::default())
    }

    /// With explicit parallel settings, as
    /// [`ParallelArrowWriter::try_new_with_parallel_options`].
    ///
    /// # Errors
    ///
    /// As [`ParallelArrowWriter::try_new_with_parallel_options`]; the sink is not used here.
    pub fn try_new_with_parallel_options(
        sink: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        parallel: ParallelOptions,
    ) -> Result<Self> {
        let buffer = SharedBuffer::default();
        // The shared buffer is memory, not a file: gathering writes for it would only hold
        // bytes back from the sink.
        let sync_writer = ParallelArrowWriter::try_new_with_parallel_options(
            buffer.clone(),
            schema,
            options,
            parallel.with_sink_buffer(0),
        )?;
        Ok(Self {
            sync_writer: Some(sync_writer),
            buffer,
            sink,
            sink_intact: true,
        })
    }

    fn writer(&self) -> Result<&ParallelArrowWriter<SharedBuffer>> {
        self.sync_writer.as_ref().ok_or_else(lost)
    }

    /// Runs `step` on the synchronous writer on tokio's blocking pool.
    async fn blocking<T: Send + 'static>(
        &mut self,
        step: impl FnOnce(&mut ParallelArrowWriter<SharedBuffer>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.check_sink()?;
        let mut writer = self.sync_writer.take().ok_or_else(lost)?;
        let (writer, result) = tokio::task::spawn_blocking(move || {
            let result = step(&mut writer);
            (writer, result)
        })
        .await
        .map_err(|e| ParquetError::General(format!("the encoding task failed: {e}")))?;
        self.sync_writer = Some(writer);
        result
    }

    /// Hands the bytes encoded so far to the async sink.
    async fn drain(&mut self) -> Result<()> {
        let bytes = self.buffer.take();
        if !bytes.is_empty() {
            self.sink_intact = false;
            self.sink.write(Bytes::from(bytes)).await?;
            self.sink_intact = true;
        }
        Ok(())
    }

    /// Fails if an earlier hand-over to the sink did not complete.
    fn check_sink(&self) -> Result<()> {
        if self.sink_intact {
            Ok(())
        } else {
            Err(ParquetError::General(
                "an earlier hand-over to the sink failed or was cancelled; this Parquet file is incomplete"
                    .to_string(),
            ))
        }
    }

    /// Encodes `batch`; finished row groups go to the sink before this returns.
    ///
    /// # Errors
    ///
    /// As [`ParallelArrowWriter::write`], or the sink's error; after an error see
    /// [After an error](Self#after-an-error).
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let batch = batch.clone();
        self.blocking(move |w| w.write(&batch)).await?;
        self.drain().await
    }

    /// Writes the buffered rows as a row group, through to the sink.
    ///
    /// # Errors
    ///
    /// As [`ParallelArrowWriter::flush`], or the sink's error; after an error see
    /// [After an error](Self#after-an-error).
    pub async fn flush(&mut self) -> Result<()> {
        self.blocking(|w| w.flush()).await?;
        self.drain().await
    }

    /// Writes the footer and completes the sink, returning the file's metadata.
    ///
    /// # Errors
    ///
    /// As [`ParallelArrowWriter::finish`], or the sink's error; after an error see
    /// [After an error](Self#after-an-error).
    pub async fn finish(&mut self) -> Result<ParquetMetaData> {
        let metadata = self.blocking(|w| w.finish()).await?;
        self.drain().await?;
        self.sink_intact = false;
        self.sink.complete().await?;
        self.sink_intact = true;
        Ok(metadata)
    }

    /// Like [`Self::finish`], consuming the writer.
    ///
    /// # Errors
    ///
    /// As [`Self::finish`].
    pub async fn close(mut self) -> Result<ParquetMetaData> {
        self.finish().await
    }

    /// Adds key-value metadata to the footer.
    pub fn append_key_value_metadata(&mut self, kv_metadata: KeyValue) {
        if let Some(writer) = self.sync_writer.as_mut() {
            writer.append_key_value_metadata(kv_metadata);
        }
    }

    /// Row groups written so far.
    pub fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.writer().map_or(&[], |w| w.flushed_row_groups())
    }

    /// See [`ParallelArrowWriter::memory_size`].
    pub fn memory_size(&self) -> usize {
        self.writer().map_or(0, |w| w.memory_size())
    }

    /// See [`ParallelArrowWriter::in_progress_size`].
    pub fn in_progress_size(&self) -> usize {
        self.writer().map_or(0, |w| w.in_progress_size())
    }

    /// See [`ParallelArrowWriter::in_progress_rows`].
    pub fn in_progress_rows(&self) -> usize {
        self.writer().map_or(0, |w| w.in_progress_rows())
    }

    /// See [`ParallelArrowWriter::leaf_encoders`].
    pub fn leaf_encoders(&self) -> LeafEncoders {
        self.writer()
            .map_or_else(|_| LeafEncoders::default(), |w| w.leaf_encoders())
    }

    /// Bytes encoded so far.
    pub fn bytes_written(&self) -> usize {
        self.writer().map_or(0, |w| w.bytes_written())
    }

    /// The async sink.
    pub fn into_inner(self) -> W {
        self.sink
    }
}

fn lost() -> ParquetError {
    ParquetError::General(
        "an earlier encoding task failed; this Parquet file is incomplete".to_string(),
    )
}
