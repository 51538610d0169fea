//! Where writers put their bytes: [`SinkFactory`] and [`Output`], and [`OutputDir`], their
//! on-disk form (the object-store form is [`crate::store::StoreOutput`]).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shredlab_writer::PendingFile;

use crate::build_info::{BuildInfo, BUILD};
use crate::error::PipelineError;
use crate::gate::Digest;
use crate::shard::Shard;
use crate::store::StoreUrl;

/// One finished output file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedFile {
    /// Where it is: a path, or an object's URL.
    pub location: String,
    /// Its name beside the manifest.
    pub name: String,
    /// Its size.
    pub bytes: u64,
}

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
    /// The digest of the rows in the finished, uncommitted sinks, read back from where they
    /// were written (the data gate's read-back).
    fn read_back(&self, sinks: &mut [Self::Sink]) -> Result<Digest, PipelineError>;

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

/// What `PREFIXmanifest.json` says: the run's files, and what they hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// File names in the directory, in writer order, with their sizes.
    pub files: Vec<ManifestFile>,
    /// Rows in all the files together.
    pub rows: u64,
    /// The gate's digest of the files, when the run was verified.
    pub digest: Option<Digest>,
    /// The binary that wrote them.
    pub build: BuildInfo,
}

impl Manifest {
    /// The manifest of a run that committed `files`, as the bytes of its JSON.
    pub fn json_of(files: &[CommittedFile], rows: u64, digest: Option<Digest>) -> Vec<u8> {
        let manifest = Manifest {
            files: files
                .iter()
                .map(|f| ManifestFile {
                    name: f.name.clone(),
                    bytes: f.bytes,
                })
                .collect(),
            rows,
            digest,
            build: BUILD,
        };
        serde_json::to_vec_pretty(&manifest).expect("a manifest serializes")
    }

    /// The manifest of `shard`'s last committed run in `dir`, if there is one. Readers trust the
    /// files it lists: part files without a manifest are not a finished run.
    pub fn read(dir: &Path, shard: Shard) -> Result<Option<Manifest>, PipelineError> {
        let path = dir.join(manifest_name(&shard.file_prefix()));
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(PipelineError::OutputDirectory {
                    dir: dir.to_path_buf(),
                    source,
                })
            }
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| PipelineError::BadManifest {
                path,
                message: error.to_string(),
            })
    }

    /// The paths of the files it lists, in `dir`.
    pub fn paths(&self, dir: &Path) -> Vec<PathBuf> {
        self.files.iter().map(|f| dir.join(&f.name)).collect()
    }
}

/// The manifest's file name for files named `prefix...`.
pub(crate) fn manifest_name(prefix: &str) -> String {
    format!("{prefix}manifest.json")
}

/// One file of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFile {
    /// Its name in the output directory.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// A directory of `PREFIX-NNNNN.parquet` files, one per writer, each written under a temporary
/// name and renamed only after the whole run succeeded, then `PREFIXmanifest.json`, written last,
/// which lists them: a set of part files without its manifest is not a finished run. The prefix
/// is `part-` for a whole run and names the shard otherwise, so the shards of one run can share a
/// directory.
#[derive(Debug, Clone)]
pub struct OutputDir {
    dir: PathBuf,
    shard: Shard,
    prefix: String,
    writeback_step: Option<u64>,
    sync: SyncMode,
}

impl std::fmt::Display for SyncMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::End => "end",
            Self::None => "none",
        })
    }
}

/// Where `--output` points: a local directory (a path, or a `file://` URL), or a prefix in an
/// S3-compatible object store (`s3://bucket/prefix`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A directory.
    Dir(PathBuf),
    /// A bucket and prefix.
    Store(StoreUrl),
}

impl Destination {
    /// The destination `text` names.
    pub fn parse(text: &str) -> Result<Destination, PipelineError> {
        if let Some(url) = StoreUrl::parse(text) {
            return url.map(Destination::Store);
        }
        Ok(Destination::Dir(PathBuf::from(
            text.strip_prefix("file://").unwrap_or(text),
        )))
    }
}

/// Where the writers' batches go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SinkKind {
    /// Encoded as Parquet into files in the output directory.
    #[default]
    File,
    /// Dropped unencoded: the run measures generating and building the batches alone.
    Null,
    /// Encoded as Parquet into a sink that only counts the bytes: no disk, no files.
    Count,
}

/// Sinks that keep nothing and count the bytes, for [`SinkKind::Null`] and [`SinkKind::Count`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingSinks;

/// A sink that keeps nothing and counts the bytes written to it.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingSink {
    /// Bytes written so far.
    pub bytes: u64,
}

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SinkFactory for CountingSinks {
    type Sink = CountingSink;

    fn create(&self, _index: usize) -> Result<CountingSink, PipelineError> {
        Ok(CountingSink::default())
    }
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

/// Whether `name` is `prefix` followed by digits and `.parquet`.
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
    name == manifest_name(prefix) || is_own_temporary(name, prefix)
}

/// Whether `name` keeps a run of `shard` (files named `prefix...`) from starting without
/// `--overwrite`: anything does, except, for a sharded run, the files of other shards.
pub(crate) fn blocks_new_run(name: &str, prefix: &str, shard: Shard) -> bool {
    shard.count() == 1 || !is_other_shard(name, prefix)
}

impl OutputDir {
    /// Checks `dir` and creates it if missing. A directory holding anything but other shards'
    /// files is refused unless `overwrite`, so no earlier output is replaced by accident. With
    /// `overwrite`, this run's (or shard's) manifest and temporary files left by killed runs are
    /// removed at once; its old part files go when the new ones are committed.
    pub fn prepare(
        dir: impl Into<PathBuf>,
        overwrite: bool,
        shard: Shard,
    ) -> Result<Self, PipelineError> {
        let dir = dir.into();
        if dir.exists() && !dir.is_dir() {
            return Err(PipelineError::OutputNotDirectory(dir));
        }
        std::fs::create_dir_all(&dir).map_err(|source| PipelineError::OutputDirectory {
            dir: dir.clone(),
            source,
        })?;
        let output = Self {
            dir,
            shard,
            prefix: shard.file_prefix(),
            writeback_step: None,
            sync: SyncMode::End,
        };
        if overwrite {
            // From here until this run's commit, the old part files are not vouched for.
            output.remove_where(|name| cleared_by_overwrite(name, &output.prefix))?;
        } else if let Some(example) = output
            .names()?
            .into_iter()
            .find(|name| blocks_new_run(name, &output.prefix, shard))
        {
            return Err(PipelineError::OutputNotEmpty {
                example,
                dir: output.dir,
            });
        }
        Ok(output)
    }

    /// Files that start their writeback to disk every `step` bytes (`None`: at the final sync).
    pub fn with_early_writeback(self, step: Option<u64>) -> Self {
        Self {
            writeback_step: step,
            ..self
        }
    }

    /// Files committed with `sync` (the default is [`SyncMode::End`]).
    pub fn with_sync(self, sync: SyncMode) -> Self {
        Self { sync, ..self }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The final path of writer `index`'s file.
    pub fn part_path(&self, index: usize) -> PathBuf {
        self.dir.join(format!("{}{index:05}.parquet", self.prefix))
    }

    /// The manifest's file name: `part-manifest.json`, or the shard's prefix and `manifest.json`.
    pub fn manifest_name(&self) -> String {
        manifest_name(&self.prefix)
    }

    /// The manifest of the last committed run (or shard), if there is one.
    pub fn manifest(&self) -> Result<Option<Manifest>, PipelineError> {
        Manifest::read(&self.dir, self.shard)
    }

    /// Every committed part file of this run (or shard) in the directory, sorted.
    pub fn part_files(&self) -> Result<Vec<PathBuf>, PipelineError> {
        let mut parts: Vec<PathBuf> = self
            .names()?
            .into_iter()
            .filter(|name| is_part_file(name, &self.prefix))
            .map(|name| self.dir.join(name))
            .collect();
        parts.sort();
        Ok(parts)
    }

    fn write_manifest(
        &self,
        files: &[CommittedFile],
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<(), PipelineError> {
        let mut file = self.pending(self.dir.join(self.manifest_name()))?;
        file.write_all(&Manifest::json_of(files, rows, digest))
            .map_err(|e| self.io_error(e))?;
        file.commit()?;
        Ok(())
    }

    /// The names of the directory's entries.
    fn names(&self) -> Result<Vec<String>, PipelineError> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(|e| self.io_error(e))? {
            let entry = entry.map_err(|e| self.io_error(e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    /// Removes the entries whose names match `doomed`.
    fn remove_where(&self, doomed: impl Fn(&str) -> bool) -> Result<(), PipelineError> {
        for name in self.names()?.into_iter().filter(|n| doomed(n)) {
            let path = self.dir.join(name);
            std::fs::remove_file(&path)
                .map_err(|source| PipelineError::RemoveStale { path, source })?;
        }
        Ok(())
    }

    /// A pending file at `path` that honours the sync mode.
    fn pending(&self, path: PathBuf) -> Result<PendingFile, PipelineError> {
        let file = PendingFile::create(path)?;
        Ok(match self.sync {
            SyncMode::End => file,
            SyncMode::None => file.without_sync(),
        })
    }

    fn io_error(&self, source: std::io::Error) -> PipelineError {
        PipelineError::OutputDirectory {
            dir: self.dir.clone(),
            source,
        }
    }
}

impl SinkFactory for OutputDir {
    type Sink = PendingFile;

    fn create(&self, index: usize) -> Result<PendingFile, PipelineError> {
        let file = self.pending(self.part_path(index))?;
        Ok(match self.writeback_step {
            Some(step) => file.with_early_writeback(step),
            None => file,
        })
    }
}

impl Output for OutputDir {
    fn read_back(&self, sinks: &mut [PendingFile]) -> Result<Digest, PipelineError> {
        let paths: Vec<_> = sinks.iter().map(PendingFile::temp_path).collect();
        Ok(Digest::of_parquet_files(&paths)?)
    }

    /// Every file synced, then renamed, then the manifest written (see [`Output::commit`]).
    fn commit(
        &self,
        sinks: Vec<PendingFile>,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
        let mut sized = Vec::with_capacity(sinks.len());
        for mut sink in sinks {
            sink.sync()?;
            let bytes = sink.file().metadata().map_err(|e| self.io_error(e))?.len();
            sized.push((sink, bytes));
        }
        let mut renamed: Vec<PathBuf> = Vec::with_capacity(sized.len());
        let mut committed = Vec::with_capacity(sized.len());
        for (sink, bytes) in sized {
            match sink.commit() {
                Ok(path) => {
                    committed.push(CommittedFile {
                        location: path.display().to_string(),
                        name: file_name(&path),
                        bytes,
                    });
                    renamed.push(path);
                }
                Err(error) => {
                    for path in &renamed {
                        // Best effort: the rename error below is what the user must see.
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(error.into());
                }
            }
        }
        let keep: HashSet<&str> = committed.iter().map(|f| f.name.as_str()).collect();
        self.remove_where(|name| is_part_file(name, &self.prefix) && !keep.contains(name))?;
        self.write_manifest(&committed, rows, digest)?;
        Ok(committed)
    }
}

/// The last component of `path`, as text.
fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_only_its_own_files() {
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
    fn output_urls_name_a_directory_or_a_bucket_and_prefix() {
        let dir = |text| match Destination::parse(text).unwrap() {
            Destination::Dir(dir) => dir,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(dir("out"), PathBuf::from("out"));
        assert_eq!(dir("file:///data/run"), PathBuf::from("/data/run"));
        for (text, bucket, prefix) in [
            ("s3://b/runs/one/", "b", "runs/one"),
            ("s3a://b/x", "b", "x"),
            ("s3://b", "b", ""),
        ] {
            match Destination::parse(text).unwrap() {
                Destination::Store(url) => {
                    assert_eq!((url.bucket.as_str(), url.prefix.as_ref()), (bucket, prefix));
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let err = Destination::parse("s3:///x").unwrap_err().to_string();
        assert!(
            err.contains("names no bucket") && err.contains("s3://BUCKET/PREFIX"),
            "{err}"
        );
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
