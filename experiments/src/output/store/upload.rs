//! [`PartUpload`]: a multipart upload fed a byte stream, cut into equal parts that upload in the
//! background, a bounded number at a time. It keeps the upload's id, so an abort can be retried
//! until the server answers (and named, if it never does).

use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::aws::AmazonS3;
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path;
use object_store::{MultipartId, PutPayload};
use tokio::task::JoinSet;

use super::client::Client;

/// Bytes per part: equal parts (some S3-compatible stores require it) above S3's 5 MiB
/// minimum, small enough that a writer's buffers (one part filling, [`PARTS_IN_FLIGHT`]
/// uploading) stay a few tens of MiB.
pub const PART_BYTES: usize = 8 * 1024 * 1024;
/// Parts of one file uploading at once before the writer waits.
pub const PARTS_IN_FLIGHT: usize = 2;
/// How long an abort is retried while the server does not answer (it may be restarting).
pub const ABORT_PATIENCE: Duration = Duration::from_secs(30);

/// One multipart upload in progress.
pub struct PartUpload {
    client: Client,
    key: Path,
    id: MultipartId,
    filling: Vec<u8>,
    in_flight: JoinSet<(usize, object_store::Result<PartId>)>,
    parts: Vec<Option<PartId>>,
}

impl PartUpload {
    /// Creates the upload of `key` on the server.
    pub fn start(client: Client, key: Path) -> object_store::Result<Self> {
        // Run to its end: cut short after the server made the upload, its id would be lost
        // and the upload left behind.
        let id = client.block_on(client.store().create_multipart(&key))?;
        Ok(Self {
            client,
            key,
            id,
            filling: Vec::with_capacity(PART_BYTES),
            in_flight: JoinSet::new(),
            parts: Vec::new(),
        })
    }

    /// The upload's id on the server.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Takes `bytes`; each full part starts uploading, and this waits while
    /// [`PARTS_IN_FLIGHT`] are. Returns the error of any part that failed.
    pub fn write(&mut self, mut bytes: &[u8]) -> object_store::Result<()> {
        while !bytes.is_empty() {
            let taken = bytes.len().min(PART_BYTES - self.filling.len());
            self.filling.extend_from_slice(&bytes[..taken]);
            bytes = &bytes[taken..];
            if self.filling.len() == PART_BYTES {
                self.send_part()?;
            }
        }
        Ok(())
    }

    /// Uploads the last part, waits for every part, and completes the upload: the object
    /// appears at its key. On an error the upload is still there, to be aborted.
    pub fn finish(&mut self) -> object_store::Result<()> {
        if !self.filling.is_empty() || self.parts.is_empty() {
            self.send_part()?;
        }
        while !self.in_flight.is_empty() {
            self.collect_one()?;
        }
        let parts: Vec<PartId> = self.parts.iter().flatten().cloned().collect();
        let store = Arc::clone(self.client.store());
        self.client
            .block_on(store.complete_multipart(&self.key, &self.id, parts))
            .map(|_| ())
    }

    /// Stops the parts in flight and aborts the upload, retrying for up to
    /// [`ABORT_PATIENCE`] while the server does not answer; `on_retry` is called once, with
    /// the first error, before the retries. Returns the last error if it never answered.
    pub fn abort(
        mut self,
        on_retry: impl FnOnce(&object_store::Error),
    ) -> object_store::Result<()> {
        self.in_flight.abort_all();
        let store: Arc<AmazonS3> = Arc::clone(self.client.store());
        let (key, id) = (&self.key, &self.id);
        self.client.block_on(async {
            while self.in_flight.join_next().await.is_some() {}
            let started = Instant::now();
            let mut on_retry = Some(on_retry);
            let mut pause = Duration::from_millis(200);
            loop {
                match store.abort_multipart(key, id).await {
                    Ok(()) => return Ok(()),
                    Err(error) if started.elapsed() >= ABORT_PATIENCE => return Err(error),
                    Err(error) => {
                        if let Some(report) = on_retry.take() {
                            report(&error);
                        }
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_secs(5));
                    }
                }
            }
        })
    }

    /// Starts uploading the filled part, after waiting for one in flight if there are
    /// [`PARTS_IN_FLIGHT`] already.
    fn send_part(&mut self) -> object_store::Result<()> {
        while self.in_flight.len() >= PARTS_IN_FLIGHT {
            self.collect_one()?;
        }
        let data = PutPayload::from(std::mem::replace(
            &mut self.filling,
            Vec::with_capacity(PART_BYTES),
        ));
        let index = self.parts.len();
        self.parts.push(None);
        let (store, key, id) = (
            Arc::clone(self.client.store()),
            self.key.clone(),
            self.id.clone(),
        );
        self.in_flight.spawn_on(
            async move { (index, store.put_part(&key, &id, index, data).await) },
            self.client.runtime().handle(),
        );
        Ok(())
    }

    /// Waits for one part in flight and records its id.
    fn collect_one(&mut self) -> object_store::Result<()> {
        let in_flight = &mut self.in_flight;
        let joined = self
            .client
            .until_signal(async { Ok(in_flight.join_next().await) })?;
        match joined {
            Some(Ok((index, part))) => {
                self.parts[index] = Some(part?);
                Ok(())
            }
            Some(Err(join_error)) => Err(object_store::Error::Generic {
                store: "S3",
                source: Box::new(join_error),
            }),
            None => Ok(()),
        }
    }
}
