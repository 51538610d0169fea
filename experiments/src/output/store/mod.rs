//! Output to S3-compatible object storage: [`StoreOutput`], the object-store form of
//! [`OutputDir`](crate::output::dir::OutputDir), with the same promises. Each writer's file streams to the store
//! as a multipart upload ([`ObjectSink`]) while it is encoded, so memory stays bounded whatever
//! the file's size; an object appears under its final key only at the commit, after the checks;
//! on any error, signal or gate mismatch the uploads are aborted and the uncommitted objects
//! deleted; the manifest object is written last; an earlier run under the same keys stays whole
//! until the new one is committed.

mod client;
mod connector;
mod read;
mod sink;
mod upload;

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

pub use client::Client;
pub use sink::ObjectSink;
pub use upload::PART_BYTES;

use read::digest_object;

use crate::error::PipelineError;
use crate::gate::{Digest, ReadBack};
use crate::output::identity::check_neighbours;
use crate::output::replace::{Entries, SetAside};
use crate::output::{
    blocking_entry, is_own_temporary, is_part_file, nonce, part_name, CommittedFile, Manifest,
    Output, RunIdentity, SinkFactory, StoreUrl,
};
use crate::shard::Shard;
use client::store_error;

/// A prefix in a bucket that receives `PREFIX-NNNNN.parquet` objects, one per writer, and
/// `PREFIXmanifest.json`, written last, as [`OutputDir`](crate::output::dir::OutputDir) does in a directory.
/// Staged (when the data gate is on, or an earlier run's objects are under the final keys),
/// each file uploads under a temporary key (read back from the store by the gate) and is renamed
/// to its final key at the commit; otherwise it uploads straight to its final key, where it
/// appears when its upload completes at the commit.
#[derive(Debug)]
pub struct StoreOutput {
    client: Client,
    url: StoreUrl,
    prefix: String,
    overwrite: bool,
    staged: bool,
    nonce: String,
}

impl StoreOutput {
    /// Connects to the store of `url` (configured by the `AWS_*` environment variables, then
    /// `settings`; see [`Client::connect`]) and checks the bucket and credentials by listing the
    /// prefix. A prefix holding anything but other shards' objects is refused unless
    /// `overwrite`, as a directory is; with `overwrite`, the temporary objects killed runs of
    /// this run (or shard) left are deleted at once; its earlier part objects and manifest stay
    /// until the new ones are committed. `staged` stages the uploads (the data gate reads them
    /// back); they are staged anyway when an earlier run's objects are there.
    pub fn prepare(
        url: StoreUrl,
        settings: &[(String, String)],
        overwrite: bool,
        shard: Shard,
        staged: bool,
    ) -> Result<Self, PipelineError> {
        let client = Client::connect(&url, settings)?;
        let prefix = shard.file_prefix();
        let mut output = Self {
            client,
            url,
            prefix,
            overwrite,
            staged,
            nonce: nonce(),
        };
        let names = output.names()?;
        if overwrite {
            for name in names.iter().filter(|n| is_own_temporary(n, &output.prefix)) {
                output.remove(name)?;
            }
        } else if let Some((example, found)) =
            // Objects are files.
            blocking_entry(names.clone(), &output.prefix, shard, |_| true)
        {
            return Err(PipelineError::StoreNotEmpty {
                url: output.url.to_string(),
                example,
                what: found.what(),
                fix: found.fix(),
            });
        }
        let manifest = Manifest::file_name(&output.prefix);
        output.staged |= names
            .iter()
            .any(|name| *name == manifest || is_part_file(name, &output.prefix));
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

    /// Renames every staged object to its final key, then puts the manifest.
    fn install(
        &self,
        sinks: &mut [ObjectSink],
        run: &RunIdentity,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
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
        let manifest = self.url.key(&Manifest::file_name(&self.prefix));
        let json = Manifest::json_of(&committed, run, rows, digest);
        self.client
            .block_on(self.client.store().put(&manifest, PutPayload::from(json)))
            .map_err(|e| store_error("cannot write", self.url.object_url(&manifest), &e))?;
        Ok(committed)
    }
}

/// How long [`Entries::settle`] waits: many ticks of a millisecond clock, with room for the
/// skew between the clocks of a multi-node server's nodes.
const KEY_CLOCK_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

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

    fn check_neighbours(&self, run: &RunIdentity) -> Result<(), PipelineError> {
        check_neighbours(self, &self.prefix, run, self.overwrite)
    }

    /// Every upload completed, the earlier run set aside (staged uploads only: unstaged ones
    /// found no earlier run), staged objects renamed to their final keys, the manifest written,
    /// the earlier run deleted (see [`Output::commit`]). If a step fails, the sinks' drop
    /// deletes every object this run put under a final key, and the earlier run is put back.
    fn commit(
        &self,
        mut sinks: Vec<ObjectSink>,
        run: &RunIdentity,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
        complete_all(&mut sinks)?;
        let earlier = if self.staged {
            let names: Vec<String> = (0..sinks.len())
                .map(|index| part_name(&self.prefix, index))
                .collect();
            Some(SetAside::begin(self, &self.prefix, &self.nonce, &names)?)
        } else {
            None
        };
        match self.install(&mut sinks, run, rows, digest) {
            Ok(committed) => {
                sinks.into_iter().for_each(ObjectSink::release);
                if let Some(earlier) = earlier {
                    earlier.discard();
                }
                Ok(committed)
            }
            Err(error) => {
                drop(sinks);
                // A put that failed may still have stored the manifest.
                let _ = self.remove(&Manifest::file_name(&self.prefix));
                if let Some(earlier) = earlier {
                    earlier.restore();
                }
                Err(error)
            }
        }
    }
}

impl Entries for StoreOutput {
    /// The names of the objects directly under the prefix.
    fn names(&self) -> Result<Vec<String>, PipelineError> {
        let prefix = (!self.url.prefix.as_ref().is_empty()).then_some(&self.url.prefix);
        let listing = self
            .client
            .until_signal(self.client.store().list_with_delimiter(prefix))
            .map_err(|e| store_error("cannot list", self.url.to_string(), &e))?;
        Ok(listing
            .objects
            .iter()
            .filter_map(|object| object.location.filename().map(str::to_string))
            .collect())
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, PipelineError> {
        let key = self.url.key(name);
        let store = self.client.store();
        self.client
            .until_signal(async { store.get(&key).await?.bytes().await })
            .map(|bytes| bytes.to_vec())
            .map_err(|e| store_error("cannot read", self.url.object_url(&key), &e))
    }

    /// A copy and a delete: S3 has no rename.
    fn rename(&self, from: &str, to: &str) -> Result<(), PipelineError> {
        let (from, to) = (self.url.key(from), self.url.key(to));
        self.client
            .block_on(self.client.store().rename(&from, &to))
            .map_err(|e| store_error("cannot rename", self.url.object_url(&from), &e))
    }

    fn remove(&self, name: &str) -> Result<(), PipelineError> {
        let key = self.url.key(name);
        self.client
            .block_on(self.client.store().delete(&key))
            .map_err(|e| store_error("cannot delete", self.url.object_url(&key), &e))
    }

    /// A completed request is durable, but some servers (Garage) order the versions of a key
    /// by their own millisecond clock, and not every request takes a newer tick than the
    /// key's last change: a copy onto a key deleted in the same millisecond can lose to the
    /// delete. A pause between the changes keeps them in order.
    fn settle(&self) -> Result<(), PipelineError> {
        std::thread::sleep(KEY_CLOCK_PAUSE);
        Ok(())
    }

    fn location(&self, name: &str) -> String {
        self.url.object_url(&self.url.key(name))
    }
}
