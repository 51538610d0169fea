//! Where writers put their bytes: [`SinkFactory`], and [`OutputDir`], its on-disk form.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use shredlab_writer::PendingFile;

use crate::error::PipelineError;
use crate::shard::Shard;

/// One finished output file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
}

/// Creates one sink per writer, and commits them all once every writer has succeeded.
pub trait SinkFactory: Sync {
    /// A writer's byte sink.
    type Sink: Write + Send;
    /// The sink of writer `index`.
    fn create(&self, index: usize) -> Result<Self::Sink, PipelineError>;
    /// Makes the finished sinks visible. Called only when the whole run succeeded.
    fn commit(&self, sinks: Vec<Self::Sink>) -> Result<Vec<CommittedFile>, PipelineError>;
}

/// A directory of `PREFIX-NNNNN.parquet` files, one per writer, each written under a temporary
/// name and renamed only after the whole run succeeded. The prefix is `part-` for a whole run and
/// names the shard otherwise, so the shards of one run can share a directory.
#[derive(Debug, Clone)]
pub struct OutputDir {
    dir: PathBuf,
    prefix: String,
    writeback_step: Option<u64>,
}

/// Whether `name` is `prefix` followed by digits and `.parquet`.
fn is_part_file(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(".parquet"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` belongs to another shard of a sharded run (finished or in progress).
fn is_other_shard(name: &str, prefix: &str) -> bool {
    let name = name.strip_prefix('.').unwrap_or(name);
    name.starts_with("shard-") && !name.starts_with(prefix)
}

impl OutputDir {
    /// Checks `dir` and creates it if missing. A directory holding anything but other shards'
    /// files is refused unless `overwrite`, so no earlier output is replaced by accident.
    pub fn prepare(
        dir: impl Into<PathBuf>,
        overwrite: bool,
        shard: Shard,
    ) -> Result<Self, PipelineError> {
        let prefix = shard.file_prefix();
        let dir = dir.into();
        let io_error = |source| PipelineError::OutputDirectory {
            dir: dir.clone(),
            source,
        };
        if dir.exists() && !dir.is_dir() {
            return Err(PipelineError::OutputNotDirectory(dir));
        }
        std::fs::create_dir_all(&dir).map_err(io_error)?;
        if !overwrite {
            for entry in std::fs::read_dir(&dir).map_err(io_error)? {
                let name = entry
                    .map_err(io_error)?
                    .file_name()
                    .to_string_lossy()
                    .into_owned();
                if shard.count() == 1 || !is_other_shard(&name, &prefix) {
                    return Err(PipelineError::OutputNotEmpty { example: name, dir });
                }
            }
        }
        Ok(Self {
            dir,
            prefix,
            writeback_step: None,
        })
    }

    /// Files that start their writeback to disk every `step` bytes (`None`: at the final sync).
    pub fn with_early_writeback(self, step: Option<u64>) -> Self {
        Self {
            writeback_step: step,
            ..self
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The final path of writer `index`'s file.
    pub fn part_path(&self, index: usize) -> PathBuf {
        self.dir.join(format!("{}{index:05}.parquet", self.prefix))
    }

    /// Every committed file of this run (or shard) in the directory, sorted.
    pub fn part_files(&self) -> Result<Vec<PathBuf>, PipelineError> {
        let io_error = |source| PipelineError::OutputDirectory {
            dir: self.dir.clone(),
            source,
        };
        let mut parts = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(io_error)? {
            let entry = entry.map_err(io_error)?;
            if is_part_file(&entry.file_name().to_string_lossy(), &self.prefix) {
                parts.push(entry.path());
            }
        }
        parts.sort();
        Ok(parts)
    }

    /// Removes part files an earlier run with more writers left behind.
    fn remove_stale_parts(&self, keep: &HashSet<PathBuf>) -> Result<(), PipelineError> {
        for path in self.part_files()? {
            if !keep.contains(&path) {
                std::fs::remove_file(&path)
                    .map_err(|source| PipelineError::RemoveStale { path, source })?;
            }
        }
        Ok(())
    }
}

impl SinkFactory for OutputDir {
    type Sink = PendingFile;

    fn create(&self, index: usize) -> Result<PendingFile, PipelineError> {
        let file = PendingFile::create(self.part_path(index))?;
        Ok(match self.writeback_step {
            Some(step) => file.with_early_writeback(step),
            None => file,
        })
    }

    fn commit(&self, sinks: Vec<PendingFile>) -> Result<Vec<CommittedFile>, PipelineError> {
        let mut committed = Vec::with_capacity(sinks.len());
        for sink in sinks {
            let bytes = sink
                .file()
                .metadata()
                .map_err(|source| PipelineError::OutputDirectory {
                    dir: self.dir.clone(),
                    source,
                })?
                .len();
            committed.push(CommittedFile {
                path: sink.commit()?,
                bytes,
            });
        }
        let keep: HashSet<PathBuf> = committed.iter().map(|f| f.path.clone()).collect();
        self.remove_stale_parts(&keep)?;
        Ok(committed)
    }
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
}
