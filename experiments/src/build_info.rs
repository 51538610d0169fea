//! Which code this binary was built from, stamped by the build script.

use serde::Serialize;

/// The commit and work-tree state a binary was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BuildInfo {
    /// Abbreviated commit hash, or `"unknown"` outside a git checkout.
    pub commit: &'static str,
    /// Whether sources differed from that commit: `"true"`, `"false"` or `"unknown"`.
    pub dirty: &'static str,
}

/// The build this binary came from.
pub const BUILD: BuildInfo = BuildInfo {
    commit: env!("SHREDLAB_COMMIT"),
    dirty: env!("SHREDLAB_DIRTY"),
};

/// `--version` text: crate version, commit, and whether the tree was dirty.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("SHREDLAB_COMMIT"),
    ", dirty: ",
    env!("SHREDLAB_DIRTY"),
    ")"
);
