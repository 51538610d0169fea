//! [`ObjectSink`]: one Parquet file streamed to the store as a multipart upload.

use std::io::{self, Write};

use object_store::path::Path;
use object_store::ObjectStoreExt;

use super::client::{hint, store_error, Client};
use super::upload::{PartUpload, ABORT_PATIENCE};
use crate::error::PipelineError;
use crate::output::StoreUrl;

/// Where an [`ObjectSink`] is in its life.
enum State {
    /// Parts are uploading; dropping the sink aborts the upload.
    Uploading(PartUpload),
    /// The upload completed; dropping the sink before it is committed deletes the object.
    Stored,
    /// Committed (or gone): dropping the sink does nothing.
    Released,
}

/// A writer's byte sink: a multipart upload to `key`, whose parts upload in the background
/// while the writer encodes. Nothing is visible at `key` until [`ObjectSink::complete`];
/// dropped before, the upload is aborted; completed but dropped before the commit, the object
/// is deleted.
pub struct ObjectSink {
    client: Client,
    url: StoreUrl,
    key: Path,
    state: State,
    bytes: u64,
}

impl ObjectSink {
    /// Starts a multipart upload to `key`.
    pub fn start(client: Client, url: StoreUrl, key: Path) -> Result<Self, PipelineError> {
        let upload = PartUpload::start(client.clone(), key.clone())
            .map_err(|e| store_error("cannot start an upload to", url.object_url(&key), &e))?;
        Ok(Self {
            state: State::Uploading(upload),
            client,
            url,
            key,
            bytes: 0,
        })
    }

    /// The key it uploads to.
    pub fn key(&self) -> &Path {
        &self.key
    }

    /// Bytes written to it.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The object's URL.
    pub fn url(&self) -> String {
        self.url.object_url(&self.key)
    }

    /// Uploads the last part and completes the upload: the object appears at its key. Does
    /// nothing if it already completed.
    pub fn complete(&mut self) -> Result<(), PipelineError> {
        let url = self.url();
        let State::Uploading(upload) = &mut self.state else {
            return Ok(());
        };
        // On an error it stays an upload, which the drop aborts.
        upload
            .finish()
            .map_err(|e| store_error("cannot complete the upload of", url, &e))?;
        self.state = State::Stored;
        Ok(())
    }

    /// Records that the completed object was renamed to `key`: the key a drop deletes.
    pub fn moved_to(&mut self, key: Path) {
        self.key = key;
    }

    /// Marks the completed object as committed: dropping the sink leaves it.
    pub fn release(mut self) {
        self.state = State::Released;
    }

    /// Aborts the upload, telling the user while it waits for a server that does not answer
    /// and what was left if it never does.
    fn abort(&self, upload: PartUpload) {
        let id = upload.id().to_string();
        let url = self.url();
        let announce = |error: &object_store::Error| {
            eprintln!(
                "warning: cannot abort the upload of {url} yet ({error}); retrying for up to {} s",
                ABORT_PATIENCE.as_secs()
            );
        };
        if let Err(error) = upload.abort(announce) {
            eprintln!(
                "warning: the upload of {url} could not be aborted ({error}{}): its parts stay on the server until `aws s3api abort-multipart-upload --bucket {} --key {} --upload-id {id}`, or a lifecycle rule, removes them",
                hint(&error),
                self.url.bucket,
                self.key,
            );
        }
    }
}

impl Write for ObjectSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let State::Uploading(upload) = &mut self.state else {
            return Err(io::Error::other(format!(
                "{} was already completed",
                self.url()
            )));
        };
        upload.write(buf).map_err(|e| {
            io::Error::other(format!("upload of {} failed: {e}{}", self.url(), hint(&e)))
        })?;
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for ObjectSink {
    fn drop(&mut self) {
        match std::mem::replace(&mut self.state, State::Released) {
            State::Uploading(upload) => self.abort(upload),
            State::Stored => {
                let deleted = self.client.block_on(self.client.store().delete(&self.key));
                if let Err(error) = deleted {
                    // A drop cannot fail the run (it is already failing): say what is left.
                    eprintln!(
                        "warning: cannot delete the uncommitted object {}: {error}{}; remove it by hand",
                        self.url(),
                        hint(&error)
                    );
                }
            }
            State::Released => {}
        }
    }
}
