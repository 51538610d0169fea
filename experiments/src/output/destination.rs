//! What `--output` names: a local directory or a prefix in an S3-compatible object store.

use std::fmt;
use std::path::PathBuf;

use object_store::path::Path;

use crate::error::PipelineError;

/// Where `--output` points: a local directory (a path, or a `file://` URL), or a prefix in an
/// S3-compatible object store (`s3://bucket/prefix`). Any other `SCHEME://` is refused rather
/// than taken for a directory of that name.
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
        if text.is_empty() {
            return Err(PipelineError::OutputUrl {
                url: "''".to_string(),
                problem: "names no directory".to_string(),
                fix: "give a directory, such as out".to_string(),
            });
        }
        let Some((scheme, rest)) = split_scheme(text) else {
            return Ok(Destination::Dir(PathBuf::from(text)));
        };
        let refused = |problem: String, fix: String| PipelineError::OutputUrl {
            url: text.to_string(),
            problem,
            fix,
        };
        match scheme {
            "s3" | "s3a" => StoreUrl::from_parts(text, rest).map(Destination::Store),
            "file" => file_path(rest)
                .map(Destination::Dir)
                .map_err(|(problem, fix)| refused(problem, fix.to_string())),
            _ if ["s3", "s3a", "file"].contains(&scheme.to_ascii_lowercase().as_str()) => {
                Err(refused(
                    format!("the scheme {scheme}:// is not lower case"),
                    format!("write {}://{rest}", scheme.to_ascii_lowercase()),
                ))
            }
            _ => Err(refused(
                format!("{scheme}:// is not a destination this program writes to"),
                "give a directory (a path, or file:///PATH) or S3-compatible storage (s3://BUCKET/PREFIX, with AWS_ENDPOINT for a server other than AWS)".to_string(),
            )),
        }
    }
}

/// The scheme and the rest of `text` when it starts like a URL, `SCHEME://` (RFC 3986: a letter,
/// then letters, digits, `+`, `-` or `.`).
fn split_scheme(text: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    well_formed.then_some((scheme, rest))
}

/// The local path of a `file://` URL whose part after `file://` is `rest`: `/PATH` or
/// `localhost/PATH`, percent-decoded. Otherwise what is wrong, and the fix.
fn file_path(rest: &str) -> Result<PathBuf, (String, &'static str)> {
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(slash) if rest[..slash].eq_ignore_ascii_case("localhost") => &rest[slash..],
        _ => {
            let host = rest.split('/').next().unwrap_or_default();
            let problem = if host.is_empty() {
                "it names no path".to_string()
            } else {
                format!("a file:// URL names a local path, not the host '{host}'")
            };
            return Err((
                problem,
                "write file:///PATH (three slashes), or give the path itself",
            ));
        }
    };
    percent_decode(path).map(PathBuf::from)
}

/// `text` with every `%XX` replaced by the byte it encodes.
fn percent_decode(text: &str) -> Result<String, (String, &'static str)> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        rest = tail;
        if byte != b'%' {
            bytes.push(byte);
            continue;
        }
        let code = rest.get(..2).unwrap_or(rest);
        let decoded = std::str::from_utf8(code)
            .ok()
            .filter(|hex| hex.len() == 2)
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        let Some(decoded) = decoded else {
            return Err((
                format!(
                    "%{} is not a percent-encoded byte",
                    String::from_utf8_lossy(code)
                ),
                "write %25 for a % sign, or give the path itself",
            ));
        };
        bytes.push(decoded);
        rest = &rest[2..];
    }
    String::from_utf8(bytes).map_err(|_| {
        (
            "its percent-encoded bytes are not UTF-8".to_string(),
            "give the path itself",
        )
    })
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
    /// `s3://bucket/prefix` or `s3a://bucket/prefix`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Result<StoreUrl, PipelineError>> {
        let rest = text
            .strip_prefix("s3://")
            .or_else(|| text.strip_prefix("s3a://"))?;
        Some(Self::from_parts(text, rest))
    }

    /// The URL `text`, whose part after `s3://` or `s3a://` is `rest`.
    fn from_parts(text: &str, rest: &str) -> Result<StoreUrl, PipelineError> {
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bad = |message: String| PipelineError::StoreUrl {
            url: text.to_string(),
            message,
        };
        if bucket.is_empty() {
            return Err(bad("it names no bucket".to_string()));
        }
        Path::parse(prefix.trim_end_matches('/'))
            .map(|prefix| StoreUrl {
                bucket: bucket.to_string(),
                prefix,
            })
            .map_err(|e| bad(e.to_string()))
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
        assert_eq!(dir("file:///data/pct%20x"), PathBuf::from("/data/pct x"));
        assert_eq!(
            dir("file://LocalHost/data/%C3%A9"),
            PathBuf::from("/data/é")
        );
        assert_eq!(dir("a:b/c"), PathBuf::from("a:b/c"));
        assert_eq!(dir("./x://y"), PathBuf::from("./x://y"));
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

    #[test]
    fn other_urls_are_refused_with_the_fix() {
        let refused = |text| Destination::parse(text).unwrap_err().to_string();
        assert!(refused("").contains("--output '': names no directory"));
        let err = refused("S3://bucket/p");
        assert!(
            err.contains("not lower case") && err.contains("write s3://bucket/p"),
            "{err}"
        );
        for text in ["gs://bucket/p", "http://127.0.0.1:1/x", "hdfs+x://h/p"] {
            let err = refused(text);
            assert!(
                err.contains("is not a destination this program writes to")
                    && err.contains("s3://BUCKET/PREFIX"),
                "{err}"
            );
        }
        for text in ["file://host/x", "file://out", "file://"] {
            let err = refused(text);
            assert!(err.contains("file:///PATH"), "{text}: {err}");
        }
        assert!(refused("file:///a%2").contains("%2 is not a percent-encoded byte"));
        assert!(refused("file:///a%zz").contains("%zz is not"));
        assert!(refused("file:///a%ff").contains("not UTF-8"));
    }
}
