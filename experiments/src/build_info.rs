//! Which code this binary was built from, stamped by the build script.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// The commit and work-tree state a binary was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// Abbreviated commit hash, or `"unknown"` outside a git checkout.
    pub commit: Cow<'static, str>,
    /// Whether sources differed from that commit (`None`, JSON `null`: unknown, outside a git
    /// checkout).
    pub dirty: Option<bool>,
}

impl BuildInfo {
    /// [`BuildInfo::dirty`] as text: `true`, `false` or `unknown`.
    pub fn dirty_text(&self) -> &'static str {
        match self.dirty {
            Some(true) => "true",
            Some(false) => "false",
            None => "unknown",
        }
    }
}

/// The build script's `true` / `false` / `unknown` as a flag.
const fn flag(text: &str) -> Option<bool> {
    match text.as_bytes() {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    }
}

/// The build this binary came from.
pub const BUILD: BuildInfo = BuildInfo {
    commit: Cow::Borrowed(env!("SHREDLAB_COMMIT")),
    dirty: flag(env!("SHREDLAB_DIRTY")),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirty_is_a_json_boolean() {
        let json = |dirty| {
            let build = BuildInfo {
                commit: Cow::Borrowed("abc"),
                dirty,
            };
            serde_json::to_string(&build).unwrap()
        };
        assert_eq!(json(Some(false)), r#"{"commit":"abc","dirty":false}"#);
        assert_eq!(json(Some(true)), r#"{"commit":"abc","dirty":true}"#);
        assert_eq!(json(None), r#"{"commit":"abc","dirty":null}"#);
        assert_eq!(flag("true"), Some(true));
        assert_eq!(flag("unknown"), None);
    }
}
