//! Where a run's files go and how they become visible.
//!
//! A run writes one file per writer through a [`SinkFactory`]'s sinks, and an [`Output`] makes
//! them visible only once the run has succeeded and passed its checks: nothing appears under a
//! final name before [`Output::commit`], the [`Manifest`] that lists the files is written last,
//! and sinks dropped uncommitted leave nothing behind. The forms:
//!
//! - [`dir::OutputDir`]: a local directory, each file written under a temporary name and renamed
//!   at the commit;
//! - [`store::StoreOutput`]: a prefix in an S3-compatible object store, each file a multipart
//!   upload completed at the commit;
//! - [`counting::CountingSinks`]: no files, only byte counts (`--sink null|count`).
//!
//! This module holds what they share: the traits, the file naming and overwrite rules, the
//! manifest, and the [`Destination`] that `--output` names. It imports none of its forms.

mod destination;
mod manifest;

pub mod counting;
pub mod dir;
pub mod store;

use std::io::Write;

use serde::Serialize;

pub use destination::{Destination, StoreUrl};
pub use manifest::{CommittedFile, Manifest, ManifestFile};

use crate::error::PipelineError;
use crate::gate::{Digest, ReadBack};
use crate::shard::Shard;

/// Creates one sink per writer. Committing the finished sinks is the caller's step, taken only
/// once the run has succeeded and passed its checks.
pub trait SinkFactory: Sync {
    /// A writer's byte sink.
    type Sink: Write + Send;
    /// The sink of writer `index`.
    fn create(&self, index: usize) -> Result<Self::Sink, PipelineError>;
}

/// Where a run's files go and how they become visible: nothing appears under a final name
/// before [`Output::commit`], and sinks dropped uncommitted leave nothing behind.
pub trait Output: SinkFactory {
    /// The digests of the rows in the finished, uncommitted sinks, read back from where they
    /// were written, in writer order (the data gate's read-back).
    fn read_back(&self, sinks: &mut [Self::Sink]) -> Result<ReadBack, PipelineError>;

    /// Makes a finished run visible: every file under its final name, files of earlier runs
    /// that this one did not replace removed, then the manifest, last. If a step fails, the
    /// files already committed are removed again, so no partial set is left.
    fn commit(
        &self,
        sinks: Vec<Self::Sink>,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError>;
}

/// Where the writers' batches go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SinkKind {
    /// Encoded as Parquet into the files of `--output`: a directory or an object store.
    #[default]
    File,
    /// Dropped unencoded: the run measures generating and building the batches alone.
    Null,
    /// Encoded as Parquet into a sink that only counts the bytes: no disk, no files.
    Count,
}

/// Whether a run makes its files durable before it reports success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    /// Sync every file's data and the directory at the commit: a finished run survives a crash.
    #[default]
    End,
    /// No syncs: the kernel writes the files back when it likes. Only for comparing with tools
    /// that never sync; a crash soon after the run can lose its files.
    None,
}

impl std::fmt::Display for SyncMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::End => "end",
            Self::None => "none",
        })
    }
}

/// The final name of writer `index`'s file among files named `prefix...`.
pub(crate) fn part_name(prefix: &str, index: usize) -> String {
    format!("{prefix}{index:05}.parquet")
}

/// Whether `name` is `prefix` followed by digits and `.parquet`, as [`part_name`] makes them.
pub(crate) fn is_part_file(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(".parquet"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` belongs to another shard of a sharded run (finished or in progress).
fn is_other_shard(name: &str, prefix: &str) -> bool {
    let name = name.strip_prefix('.').unwrap_or(name);
    name.starts_with("shard-") && !name.starts_with(prefix)
}

/// Whether `name` is a temporary file of ours, `.PREFIX...tmp`, left by a run that was killed.
fn is_own_temporary(name: &str, prefix: &str) -> bool {
    name.strip_prefix('.')
        .is_some_and(|rest| rest.starts_with(prefix) && rest.ends_with(".tmp"))
}

/// Whether `--overwrite` removes `name` before the run: the manifest of the run (or shard)
/// with files named `prefix...`, or a temporary file a killed run of it left. Its old part
/// files go only at the commit. Shared by directories and object stores.
pub(crate) fn cleared_by_overwrite(name: &str, prefix: &str) -> bool {
    name == Manifest::file_name(prefix) || is_own_temporary(name, prefix)
}

/// Whether `name` keeps a run of `shard` (files named `prefix...`) from starting without
/// `--overwrite`: anything does, except, for a sharded run, the files of other shards.
pub(crate) fn blocks_new_run(name: &str, prefix: &str, shard: Shard) -> bool {
    shard.count() == 1 || !is_other_shard(name, prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_only_its_own_files() {
        assert!(is_part_file(&part_name("part-", 1), "part-"));
        assert!(is_part_file("part-00001.parquet", "part-"));
        assert!(!is_part_file("part-.parquet", "part-"));
        assert!(!is_part_file(".part-00001.parquet.abc.tmp", "part-"));
        assert!(!is_part_file("notes.txt", "part-"));
        let mine = "shard-00001-of-00002-part-";
        assert!(is_part_file(
            "shard-00001-of-00002-part-00000.parquet",
            mine
        ));
        assert!(!is_part_file(
            "shard-00000-of-00002-part-00000.parquet",
            mine
        ));
        assert!(is_other_shard(
            "shard-00000-of-00002-part-00000.parquet",
            mine
        ));
        assert!(is_other_shard(
            ".shard-00000-of-00002-part-00000.parquet.x.tmp",
            mine
        ));
        assert!(!is_other_shard(
            "shard-00001-of-00002-part-00000.parquet",
            mine
        ));
        assert!(!is_other_shard("notes.txt", mine));
    }

    #[test]
    fn recognises_its_own_temporaries() {
        assert!(is_own_temporary(".part-00001.parquet.Ab12.tmp", "part-"));
        assert!(is_own_temporary(".part-manifest.json.Ab12.tmp", "part-"));
        assert!(!is_own_temporary("part-00001.parquet", "part-"));
        assert!(!is_own_temporary(
            ".shard-00000-of-00002-part-00000.parquet.x.tmp",
            "shard-00001-of-00002-part-"
        ));
    }
}
