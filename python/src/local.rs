//! Where `write_parquet` puts a local file, checked before anything is read or encoded: the
//! CLI's rules (no file replaced without `overwrite`), a directory path refused at once, a
//! replaced file's mode kept, and a symbolic link followed: the file it points to is replaced
//! and the link stays.

use std::fs::{self, Permissions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyOSError};
use pyo3::PyResult;
use shredlab_writer::PendingFile;

use crate::errors;

/// A checked local destination.
pub struct LocalFile {
    /// The file to write: the path given, or the file its symbolic link points to.
    pub path: PathBuf,
    /// The permissions of the file it replaces, if one is there.
    mode: Option<Permissions>,
}

impl LocalFile {
    /// Checks `path` for a write: refused if it names a directory or anything else but a
    /// regular file (a device, a pipe), if its directory does not exist, or if a file is there
    /// and `overwrite` is off.
    pub fn prepare(path: &str, overwrite: bool) -> PyResult<Self> {
        if path.ends_with(std::path::MAIN_SEPARATOR) {
            return Err(PyIsADirectoryError::new_err(format!(
                "{path} ends with '{}': give a file name",
                std::path::MAIN_SEPARATOR
            )));
        }
        let given = Path::new(path);
        let target = follow_link(given)?;
        match fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => Err(PyIsADirectoryError::new_err(format!(
                "{path} is a directory: give a file name inside it"
            ))),
            Ok(meta) if !meta.is_file() => Err(PyOSError::new_err(format!(
                "{path} is not a regular file (a device, a pipe or a socket): write_parquet writes a new file and renames it into place, which would replace it; give the path of a regular file"
            ))),
            Ok(_) if !overwrite => Err(PyFileExistsError::new_err(format!(
                "{path} exists: pass overwrite=True to replace it"
            ))),
            Ok(meta) => Ok(Self {
                path: target,
                mode: Some(meta.permissions()),
            }),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                check_directory(&target)?;
                Ok(Self {
                    path: target,
                    mode: None,
                })
            }
            Err(e) => Err(errors::io(e.kind(), format!("cannot use {path}: {e}"))),
        }
    }

    /// Gives the new file the mode of the one it replaces.
    pub fn keep_mode(&self, file: &PendingFile) -> PyResult<()> {
        let Some(mode) = &self.mode else {
            return Ok(());
        };
        file.file().set_permissions(mode.clone()).map_err(|e| {
            errors::io(
                e.kind(),
                format!("cannot give {} its earlier mode: {e}", self.path.display()),
            )
        })
    }
}

/// `path`, or the file its symbolic link (through any chain of links) points to; a link that
/// points nowhere is refused.
fn follow_link(path: &Path) -> PyResult<PathBuf> {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(path.to_path_buf());
    }
    fs::canonicalize(path).map_err(|e| {
        PyFileNotFoundError::new_err(format!(
            "{} is a symbolic link whose target cannot be reached ({e}): fix the link or give another path",
            path.display()
        ))
    })
}

/// Fails unless the directory `file` would go in exists.
fn check_directory(file: &Path) -> PyResult<()> {
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if dir.is_dir() {
        return Ok(());
    }
    Err(PyFileNotFoundError::new_err(format!(
        "the directory {} does not exist: create it first, or give a path in an existing one",
        dir.display()
    )))
}
