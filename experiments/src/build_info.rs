//! Which code this binary was built from, stamped by the build script.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// The commit and work-tree state a binary was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// Abbreviated commit hash, or `"unknown"` outside a git checkout.
    pub commit: Cow<'static, str>,
    /// Whether sources differed from that commit: `"true"`, `"false"` or `"unknown"`.
    pub dirty: Cow<'static, str>,
}

/// The build this binary came from.
pub const BUILD: BuildInfo = BuildInfo {
    commit: Cow::Borrowed(env!("SHREDLAB_COMMIT")),
    dirty: Cow::Borrowed(env!("SHREDLAB_DIRTY")),
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
