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
//! manifest and the identity of the run it records, how a commit replaces an earlier run, and
//! the [`Destination`] that `--output` names. It imports none of its forms.

mod destination;
mod identity;
mod manifest;
mod replace;

pub mod counting;
pub mod dir;
pub mod store;

use std::io::Write;

use serde::Serialize;

pub use destination::{Destination, StoreUrl};
pub use identity::RunIdentity;
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

    /// Checks the manifests beside this run's (other shards', or a whole run's) against `run`:
    /// one that belongs to another run (another seed, row count, part count or workload) is an
    /// error, or with `--overwrite` a warning, so that no folder silently mixes two runs.
    fn check_neighbours(&self, run: &RunIdentity) -> Result<(), PipelineError>;

    /// Makes a finished run visible, replacing the earlier run of the same files if there is
    /// one: the earlier run's manifest withdrawn and its part files set aside, every new file
    /// under its final name, then the new manifest, last, for the `rows` of `run` (with their
    /// `digest` when the gate checked them); only then are the earlier run's files removed. If
    /// a step fails, the files already committed are removed and the earlier run is put back
    /// whole.
    fn commit(
        &self,
        sinks: Vec<Self::Sink>,
        run: &RunIdentity,
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

/// Whether `name` is a manifest: a whole run's or a shard's.
fn is_manifest_file(name: &str) -> bool {
    name == Manifest::file_name(&Shard::WHOLE.file_prefix())
        || (name.starts_with("shard-") && name.ends_with("-part-manifest.json"))
}

/// Whether `name` is a temporary file of ours, `.PREFIX...tmp`: one a run writes before its
/// commit, or a file of an earlier run set aside during a commit. Found before a run starts, a
/// killed run left it, and `--overwrite` removes it (the earlier run's part files and manifest
/// go only at the commit). Shared by directories and object stores.
pub(crate) fn is_own_temporary(name: &str, prefix: &str) -> bool {
    name.strip_prefix('.')
        .is_some_and(|rest| rest.starts_with(prefix) && rest.ends_with(".tmp"))
}

/// The name a commit gives the earlier run's file `name` while it sets it aside: hidden, and a
/// temporary file of the run (see [`is_own_temporary`]).
fn set_aside_name(name: &str, nonce: &str) -> String {
    format!(".{name}.{nonce}{SET_ASIDE_SUFFIX}")
}

/// How the names [`set_aside_name`] makes end.
const SET_ASIDE_SUFFIX: &str = ".old.tmp";

/// A token that tells this process's temporary names from those of other runs.
pub(crate) fn nonce() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!("{:x}", u64::from(std::process::id()) ^ nanos)
}

/// What an entry that keeps a new run from starting is, so the refusal can name the fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Leftover {
    /// A file of the earlier run set aside by a run killed while it committed.
    SetAside,
    /// A temporary file of a run that was killed (or of one still running: nothing tells
    /// them apart).
    Temporary,
    /// Anything else: a finished run's file, or a file of the user's.
    File,
}

impl Leftover {
    /// What `name` is, for a run (or shard) with files named `prefix...`; `file`: it is a
    /// regular file (a directory named like a temporary file is not one of ours).
    fn of(name: &str, prefix: &str, file: bool) -> Self {
        if !file || !is_own_temporary(name, prefix) {
            Self::File
        } else if name.ends_with(SET_ASIDE_SUFFIX) {
            Self::SetAside
        } else {
            Self::Temporary
        }
    }

    /// What to add after the entry's name to say what it is.
    pub fn what(self) -> &'static str {
        match self {
            Self::SetAside => {
                ", a file of the earlier run, set aside by a run killed while it committed"
            }
            Self::Temporary => {
                ", a temporary file of a run that was killed, or of one still writing here"
            }
            Self::File => "",
        }
    }

    /// What to do about it.
    pub fn fix(self) -> &'static str {
        match self {
            Self::SetAside => "to restore the earlier run, rename every .NAME.XXXX.old.tmp file back to NAME; or pass --overwrite to remove them",
            Self::Temporary => "if no other run is writing to this directory, pass --overwrite to remove it and replace the part files",
            Self::File => "pass --overwrite to replace its part files",
        }
    }
}

/// The entry among `names` that keeps a run of `shard` (files named `prefix...`) from starting
/// without `--overwrite`, and what it is: anything does, except, for a sharded run, the files of
/// other shards. A file set aside by a killed commit is named first, then a temporary file;
/// `is_file` tells regular files from the rest, which are never ours.
pub(crate) fn blocking_entry(
    names: Vec<String>,
    prefix: &str,
    shard: Shard,
    is_file: impl Fn(&str) -> bool,
) -> Option<(String, Leftover)> {
    names
        .into_iter()
        .filter(|name| shard.count() == 1 || !is_other_shard(name, prefix))
        .map(|name| {
            let found = Leftover::of(&name, prefix, is_file(&name));
            (name, found)
        })
        .min_by_key(|(_, found)| *found)
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
        assert!(is_own_temporary(
            &set_aside_name("part-00001.parquet", "f00"),
            "part-"
        ));
        assert!(!is_own_temporary("part-00001.parquet", "part-"));
        assert!(!is_own_temporary(
            ".shard-00000-of-00002-part-00000.parquet.x.tmp",
            "shard-00001-of-00002-part-"
        ));
        assert!(is_manifest_file("part-manifest.json"));
        assert!(is_manifest_file("shard-00001-of-00002-part-manifest.json"));
        assert!(!is_manifest_file(".part-manifest.json.x.tmp"));
    }

    #[test]
    fn a_refusal_names_what_a_killed_run_left_first() {
        let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let left = names(&[
            "notes.txt",
            ".part-00000.parquet.Ab12.tmp",
            ".part-00000.parquet.f00.old.tmp",
        ]);
        assert_eq!(
            blocking_entry(left, "part-", Shard::WHOLE, |_| true),
            Some((".part-00000.parquet.f00.old.tmp".into(), Leftover::SetAside))
        );
        let left = names(&["notes.txt", ".part-00000.parquet.Ab12.tmp"]);
        assert_eq!(
            blocking_entry(left.clone(), "part-", Shard::WHOLE, |_| true)
                .unwrap()
                .1,
            Leftover::Temporary
        );
        // Named like a temporary file but not a file: the user's, not a run's.
        let files_only = |name: &str| name == "notes.txt";
        assert_eq!(
            blocking_entry(left, "part-", Shard::WHOLE, files_only)
                .unwrap()
                .1,
            Leftover::File
        );
        let shard = Shard::try_new(1, 2).unwrap();
        let other = names(&["shard-00000-of-00002-part-00000.parquet"]);
        let found = blocking_entry(other, &shard.file_prefix(), shard, |_| true);
        assert_eq!(found, None);
    }
}
