//! [`PendingFile`]: a file that appears under its final name only when committed.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;
use thiserror::Error;

/// Failure to create or commit a [`PendingFile`].
#[derive(Debug, Error)]
pub enum PendingFileError {
    /// The temporary file could not be created in the destination directory.
    #[error("cannot create a temporary file in {dir}: {source} (check that the directory exists and is writable)")]
    Create {
        /// The destination directory.
        dir: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The finished file could not be synced or renamed to its final name.
    #[error("cannot commit {path}: {source}")]
    Commit {
        /// The final path.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// A file written under a hidden temporary name next to `path`, renamed to `path` by
/// [`PendingFile::commit`]. Dropped without a commit, the temporary file is deleted.
#[derive(Debug)]
pub struct PendingFile {
    temp: NamedTempFile,
    path: PathBuf,
}

impl PendingFile {
    /// Starts a file that will become `path`. The temporary name is `.<file name>.<random>.tmp`
    /// in the same directory, so the final rename never crosses file systems.
    pub fn create(path: impl Into<PathBuf>) -> Result<Self, PendingFileError> {
        let path = path.into();
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let prefix = format!(
            ".{}.",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let temp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|source| PendingFileError::Create { dir, source })?;
        Ok(Self { temp, path })
    }

    /// The name the file will have once committed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file's handle.
    pub fn file(&self) -> &File {
        self.temp.as_file()
    }

    /// Flushes the data to disk and renames the file to its final name, replacing any file there.
    pub fn commit(self) -> Result<PathBuf, PendingFileError> {
        let Self { temp, path } = self;
        let commit_error = |source| PendingFileError::Commit {
            path: path.clone(),
            source,
        };
        temp.as_file().sync_data().map_err(commit_error)?;
        temp.persist(&path)
            .map_err(|error| commit_error(error.error))?;
        Ok(path)
    }
}

impl Write for PendingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn appears_only_after_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("part-0.parquet");
        let mut file = PendingFile::create(&target).unwrap();
        file.write_all(b"data").unwrap();
        assert!(!target.exists());
        let listed = entries(dir.path());
        assert!(listed[0].starts_with(".part-0.parquet.") && listed[0].ends_with(".tmp"));
        file.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"data");
        assert_eq!(entries(dir.path()), ["part-0.parquet"]);
    }

    #[test]
    fn dropped_without_commit_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = PendingFile::create(dir.path().join("x.parquet")).unwrap();
        file.write_all(b"half").unwrap();
        drop(file);
        assert!(entries(dir.path()).is_empty());
    }

    #[test]
    fn missing_directory_is_a_clear_error() {
        let err = PendingFile::create("/nonexistent/dir/x.parquet").unwrap_err();
        assert!(err.to_string().contains("/nonexistent/dir"), "{err}");
    }
}
