//! Objects read back for the data gate: a row group at a time, each with coalesced ranged GETs
//! of its column chunks, so memory holds one row group, not the file.

use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use parquet::arrow::arrow_reader::ArrowReaderOptions;
use parquet::arrow::async_reader::AsyncFileReader;
use parquet::arrow::ParquetRecordBatchStreamBuilder;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};

use super::client::Client;
use crate::gate::{GateError, ReadBack};

/// The futures `AsyncFileReader` returns.
type Fetch<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// A stored Parquet object of known size, for parquet's asynchronous reader.
struct StoredParquet {
    client: Client,
    key: Path,
    size: u64,
}

impl AsyncFileReader for StoredParquet {
    fn get_bytes(&mut self, range: Range<u64>) -> Fetch<'_, Bytes> {
        Box::pin(async move {
            let store = self.client.store();
            store.get_range(&self.key, range).await.map_err(external)
        })
    }

    fn get_byte_ranges(&mut self, ranges: Vec<Range<u64>>) -> Fetch<'_, Vec<Bytes>> {
        Box::pin(async move {
            let store = self.client.store();
            store.get_ranges(&self.key, &ranges).await.map_err(external)
        })
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> Fetch<'a, Arc<ParquetMetaData>> {
        Box::pin(async move {
            let size = self.size;
            let metadata = ParquetMetaDataReader::new()
                .with_arrow_reader_options(options)
                .load_and_finish(self, size)
                .await?;
            Ok(Arc::new(metadata))
        })
    }
}

fn external(error: object_store::Error) -> ParquetError {
    ParquetError::External(Box::new(error))
}

/// Adds the rows of the Parquet object at `key`, `size` bytes long, named `name` in errors, to
/// `read_back`.
pub fn digest_object(
    client: &Client,
    key: &Path,
    size: u64,
    name: &str,
    read_back: &mut ReadBack,
) -> Result<(), GateError> {
    let read_error = |source| GateError::Read {
        path: name.to_string(),
        source,
    };
    let object = StoredParquet {
        client: client.clone(),
        key: key.clone(),
        size,
    };
    client.block_on(async {
        let mut row_groups = ParquetRecordBatchStreamBuilder::new(object)
            .await
            .and_then(|builder| builder.with_batch_size(8192).build())
            .map_err(read_error)?;
        while let Some(batches) = row_groups.next_row_group().await.map_err(read_error)? {
            read_back.add_batches(name, batches)?;
        }
        Ok(())
    })
}
