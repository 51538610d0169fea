//! Where writers put their bytes: [`SinkFactory`], and [`OutputDir`], its on-disk form.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use shredlab_writer::PendingFile;

use crate::error::PipelineError;

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

/// A directory of `part-NNNNN.parquet` files, one per writer, each written under a temporary
/// name and renamed only after the whole run succeeded.
#[derive(Debug, Clone)]
pub struct OutputDir {
    dir: PathBuf,
}

/// Whether `name` is one of ours: `part-` followed by digits and `.parquet`.
fn is_part_file(name: &str) -> bool {
    name.strip_prefix("part-")
        .and_then(|rest| rest.strip_suffix(".parquet"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

impl OutputDir {
    /// Checks `dir` and creates it if missing. An existing non-empty directory is refused
    /// unless `overwrite`, so no earlier output is replaced by accident.
    pub fn prepare(dir: impl Into<PathBuf>, overwrite: bool) -> Result<Self, PipelineError> {
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
            if let Some(entry) = std::fs::read_dir(&dir).map_err(io_error)?.next() {
                let example = entry.map_err(io_error)?.file_name();
                return Err(PipelineError::OutputNotEmpty {
                    example: example.to_string_lossy().into_owned(),
                    dir,
                });
            }
        }
        Ok(Self { dir })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The final path of writer `index`'s file.
    pub fn part_path(&self, index: usize) -> PathBuf {
        self.dir.join(format!("part-{index:05}.parquet"))
    }

    /// Every committed part file in the directory, sorted.
    pub fn part_files(&self) -> Result<Vec<PathBuf>, PipelineError> {
        let io_error = |source| PipelineError::OutputDirectory {
            dir: self.dir.clone(),
            source,
        };
        let mut parts = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(io_error)? {
            let entry = entry.map_err(io_error)?;
            if is_part_file(&entry.file_name().to_string_lossy()) {
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
        Ok(PendingFile::create(self.part_path(index))?)
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
    fn recognises_only_part_files() {
        assert!(is_part_file("part-00001.parquet"));
        assert!(!is_part_file("part-.parquet"));
        assert!(!is_part_file(".part-00001.parquet.abc.tmp"));
        assert!(!is_part_file("notes.txt"));
    }
}
