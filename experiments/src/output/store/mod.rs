//! Output to S3-compatible object storage: [`StoreOutput`], the object-store form of
//! [`OutputDir`](crate::output::dir::OutputDir), with the same promises. Each writer's file streams to the store
//! as a multipart upload ([`ObjectSink`]) while it is encoded, so memory stays bounded whatever
//! the file's size; an object appears under its final key only at the commit, after the checks;
//! on any error, signal or gate mismatch the uploads are aborted and the uncommitted objects
//! deleted; the manifest object is written last.

mod client;
mod read;
mod sink;
mod upload;

use std::collections::HashSet;

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

pub use client::Client;
pub use sink::ObjectSink;
pub use upload::PART_BYTES;

use read::digest_object;

use crate::error::PipelineError;
use crate::gate::{Digest, ReadBack};
use crate::output::{
    blocks_new_run, cleared_by_overwrite, is_part_file, part_name, CommittedFile, Manifest, Output,
    SinkFactory, StoreUrl,
};
use crate::shard::Shard;
use client::store_error;

/// A prefix in a bucket that receives `PREFIX-NNNNN.parquet` objects, one per writer, and
/// `PREFIXmanifest.json`, written last, as [`OutputDir`](crate::output::dir::OutputDir) does in a directory.
/// With `staged` (the data gate is on), each file uploads under a temporary key, is read back
/// from the store, and is renamed to its final key at the commit; without, it uploads straight
/// to its final key, where it appears when its upload completes at the commit.
#[derive(Debug)]
pub struct StoreOutput {
    client: Client,
    url: StoreUrl,
    prefix: String,
    staged: bool,
    nonce: String,
}

impl StoreOutput {
    /// Connects to the store of `url` (configured by the `AWS_*` environment variables, then
    /// `settings`; see [`Client::connect`]) and checks the bucket and credentials by listing the
    /// prefix. A prefix holding anything but other shards' objects is refused unless
    /// `overwrite`, as a directory is; with `overwrite`, this run's (or shard's) manifest and
    /// temporary objects left by killed runs are deleted at once, its old part objects at the
    /// commit.
    pub fn prepare(
        url: StoreUrl,
        settings: &[(String, String)],
        overwrite: bool,
        shard: Shard,
        staged: bool,
    ) -> Result<Self, PipelineError> {
        let client = Client::connect(&url, settings)?;
        let output = Self {
            client,
            url,
            prefix: shard.file_prefix(),
            staged,
            nonce: format!("{:x}", std::process::id() as u64 ^ nanos_now()),
        };
        let names = output.names()?;
        if overwrite {
            for name in names
                .iter()
                .filter(|name| cleared_by_overwrite(name, &output.prefix))
            {
                output.delete(name)?;
            }
        } else if let Some(example) = names
            .into_iter()
            .find(|name| blocks_new_run(name, &output.prefix, shard))
        {
            return Err(PipelineError::StoreNotEmpty {
                url: output.url.to_string(),
                example,
            });
        }
        Ok(output)
    }

    /// The final key of writer `index`'s file.
    pub fn part_key(&self, index: usize) -> Path {
        self.url.key(&part_name(&self.prefix, index))
    }

    /// The temporary key writer `index`'s file uploads to when staged.
    fn staging_key(&self, index: usize) -> Path {
        self.url.key(&format!(
            ".{}.{}.tmp",
            part_name(&self.prefix, index),
            self.nonce
        ))
    }

    /// The names of the objects directly under the prefix.
    fn names(&self) -> Result<Vec<String>, PipelineError> {
        let prefix = (!self.url.prefix.as_ref().is_empty()).then_some(&self.url.prefix);
        let listing = self
            .client
            .block_on(self.client.store().list_with_delimiter(prefix))
            .map_err(|e| store_error("cannot list", self.url.to_string(), &e))?;
        Ok(listing
            .objects
            .iter()
            .filter_map(|object| object.location.filename().map(str::to_string))
            .collect())
    }

    fn delete(&self, name: &str) -> Result<(), PipelineError> {
        let key = self.url.key(name);
        self.client
            .block_on(self.client.store().delete(&key))
            .map_err(|e| store_error("cannot delete", self.url.object_url(&key), &e))
    }
}

/// Nanoseconds of the wall clock, to tell one run's temporary keys from another's.
fn nanos_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Completes every sink's upload, all at once: a server may take a while to assemble each
/// object from its parts.
fn complete_all(sinks: &mut [ObjectSink]) -> Result<(), PipelineError> {
    std::thread::scope(|scope| {
        let completing: Vec<_> = sinks
            .iter_mut()
            .map(|sink| scope.spawn(move || sink.complete()))
            .collect();
        completing.into_iter().try_for_each(|thread| {
            thread
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
        })
    })
}

impl SinkFactory for StoreOutput {
    type Sink = ObjectSink;

    fn create(&self, index: usize) -> Result<ObjectSink, PipelineError> {
        let key = if self.staged {
            self.staging_key(index)
        } else {
            self.part_key(index)
        };
        ObjectSink::start(self.client.clone(), self.url.clone(), key)
    }
}

impl Output for StoreOutput {
    /// Completes every upload (under its temporary key) and reads the objects back.
    fn read_back(&self, sinks: &mut [ObjectSink]) -> Result<ReadBack, PipelineError> {
        complete_all(sinks)?;
        let mut read_back = ReadBack::default();
        for sink in sinks.iter() {
            let (key, size, name) = (sink.key(), sink.bytes(), &sink.url());
            digest_object(&self.client, key, size, name, &mut read_back)?;
        }
        Ok(read_back)
    }

    /// Every upload completed, staged objects renamed to their final keys, stale part objects
    /// deleted, the manifest written. If a step fails, the sinks' drop deletes every object
    /// this run put under a final key.
    fn commit(
        &self,
        mut sinks: Vec<ObjectSink>,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
        complete_all(&mut sinks)?;
        let mut committed = Vec::with_capacity(sinks.len());
        for (index, sink) in sinks.iter_mut().enumerate() {
            let target = self.part_key(index);
            if *sink.key() != target {
                self.client
                    .block_on(self.client.store().rename(sink.key(), &target))
                    .map_err(|e| store_error("cannot rename", sink.url(), &e))?;
                sink.moved_to(target.clone());
            }
            committed.push(CommittedFile {
                location: sink.url(),
                name: target.filename().unwrap_or_default().to_string(),
                bytes: sink.bytes(),
            });
        }
        let keep: HashSet<&str> = committed.iter().map(|f| f.name.as_str()).collect();
        for name in self.names()? {
            if is_part_file(&name, &self.prefix) && !keep.contains(name.as_str()) {
                self.delete(&name)?;
            }
        }
        let manifest = self.url.key(&Manifest::file_name(&self.prefix));
        let json = Manifest::json_of(&committed, rows, digest);
        self.client
            .block_on(self.client.store().put(&manifest, PutPayload::from(json)))
            .map_err(|e| store_error("cannot write", self.url.object_url(&manifest), &e))?;
        sinks.into_iter().for_each(ObjectSink::release);
        Ok(committed)
    }
}
