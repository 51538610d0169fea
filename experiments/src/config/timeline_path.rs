//! Where `--timeline` may write: checked before the run, so that a timeline never replaces
//! the run's own files and a path it cannot be written at is found before the commit.

use crate::error::PipelineError;

/// Refuses a `--timeline` path that is the output directory `dir` (which need not exist yet:
/// the run makes it, and the timeline could then not be written at its end, after the commit).
///
/// # Errors
///
/// [`PipelineError::TimelinePath`].
pub fn refuse_timeline_at_output(
    timeline: Option<&std::path::Path>,
    dir: &std::path::Path,
) -> Result<(), PipelineError> {
    // Through symbolic links and `..` where the path exists (the output directory may not yet).
    let absolute = |path: &std::path::Path| {
        path.canonicalize()
            .ok()
            .or_else(|| std::path::absolute(path).ok())
    };
    let Some(path) = timeline else {
        return Ok(());
    };
    let inside = path.parent().and_then(|parent| {
        let parent = if parent.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            parent
        };
        absolute(parent)
    });
    let name = path.file_name().map(|name| name.to_string_lossy());
    let problem = if absolute(path).is_some() && absolute(path) == absolute(dir) {
        Some("is the output directory")
    } else if inside.is_some()
        && inside == absolute(dir)
        && name.is_some_and(|n| run_s_own_name(&n))
    {
        Some("takes a name of the run's own files in the output directory (a part file, a manifest or a temporary)")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(PipelineError::TimelinePath {
            path: path.to_path_buf(),
            problem,
        }),
        None => Ok(()),
    }
}

/// Whether a file named `name` in an output directory may be one the run writes, sets aside or
/// cleans up: a part file, a manifest, a hidden temporary.
fn run_s_own_name(name: &str) -> bool {
    name.ends_with(".parquet") || name.ends_with("manifest.json") || name.starts_with('.')
}

/// Refuses a `--timeline` path the run could not write at its end, or whose replacement would
/// destroy something other than an earlier timeline: a directory, a file in a directory that
/// does not exist, a symbolic link (the rename would replace the link, not its target), or
/// anything that is not a regular file (`/dev/null`, a pipe).
pub(super) fn check_timeline_path(path: &std::path::Path) -> Result<(), PipelineError> {
    let existing = std::fs::symlink_metadata(path).ok().map(|m| m.file_type());
    let problem = match existing {
        Some(kind) if kind.is_dir() => Some("is a directory"),
        Some(kind) if kind.is_symlink() => Some("is a symbolic link (name the file itself)"),
        Some(kind) if !kind.is_file() => Some("is not a regular file"),
        _ if path.file_name().is_none() => Some("names no file"),
        _ => match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => {
                Some("its directory does not exist")
            }
            // Found now, not after the run has committed its files: a directory the run
            // cannot create a file in (permissions, a read-only file system, /proc).
            Some(dir) if !writable(dir) => Some("its directory cannot take a new file"),
            _ => None,
        },
    };
    match problem {
        Some(problem) => Err(PipelineError::TimelinePath {
            path: path.to_path_buf(),
            problem,
        }),
        None => Ok(()),
    }
}

/// Whether a file can be created in `dir` (the current directory when empty): a temporary is
/// made there and removed.
fn writable(dir: &std::path::Path) -> bool {
    let dir = if dir.as_os_str().is_empty() {
        std::path::Path::new(".")
    } else {
        dir
    };
    tempfile::Builder::new()
        .prefix(".timeline-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .is_ok()
}
