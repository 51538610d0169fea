//! What `--output` names: a local directory or a prefix in an S3-compatible object store.

use std::fmt;
use std::path::PathBuf;

use object_store::path::Path;

use crate::error::PipelineError;

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

/// An `s3://bucket/prefix` output location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreUrl {
    /// The bucket.
    pub bucket: String,
    /// The key prefix the run's objects go under (no leading or trailing `/`; may be empty).
    pub prefix: Path,
}

impl StoreUrl {
    /// `s3://bucket/prefix` or `s3a://bucket/prefix`; `None` for anything else (a local path).
    pub fn parse(text: &str) -> Option<Result<StoreUrl, PipelineError>> {
        let rest = text
            .strip_prefix("s3://")
            .or_else(|| text.strip_prefix("s3a://"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bad = |message: String| PipelineError::StoreUrl {
            url: text.to_string(),
            message,
        };
        if bucket.is_empty() {
            return Some(Err(bad("it names no bucket".to_string())));
        }
        Some(
            Path::parse(prefix.trim_end_matches('/'))
                .map(|prefix| StoreUrl {
                    bucket: bucket.to_string(),
                    prefix,
                })
                .map_err(|e| bad(e.to_string())),
        )
    }

    /// The URL of the object at `key`.
    pub fn object_url(&self, key: &Path) -> String {
        format!("s3://{}/{key}", self.bucket)
    }

    /// The key of `name` under the prefix.
    pub fn key(&self, name: &str) -> Path {
        self.prefix.clone().join(name)
    }
}

impl fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s3://{}/{}", self.bucket, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
