//! The Rust side of `make peers`: the contacts handed to every writer as one Arrow IPC file,
//! the two Rust writers timed over it ([`timed_write`]), and the layout of any writer's Parquet
//! file as its readers will meet it ([`layout`]). The Python peers, the read-back digests and the
//! scans live in `scripts/peers/`; the report is drawn by [`report`] (`results peers`).

pub mod ipc;
pub mod layout;
pub mod report;
pub mod timed_write;

use std::path::Path;

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

/// A temporary file beside `path`, for [`publish`] to rename once complete.
fn temporary_beside(path: &Path) -> Result<NamedTempFile> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))
}

/// Syncs a finished temporary file, makes it readable like any new file (0644) and renames it to
/// `path`: a file under `path` is always complete.
fn publish(temporary: NamedTempFile, path: &Path) -> Result<u64> {
    use std::os::unix::fs::PermissionsExt;
    let file = temporary.as_file();
    file.sync_all()?;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))?;
    let bytes = file.metadata()?.len();
    temporary
        .persist(path)
        .with_context(|| format!("cannot rename the finished file to {}", path.display()))?;
    Ok(bytes)
}
