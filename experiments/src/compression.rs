//! The `--compression` option: `none`, `snappy`, `lz4` or `zstd(LEVEL)`.

use std::fmt;
use std::str::FromStr;

use parquet::basic::{Compression, ZstdLevel};
use serde::{Serialize, Serializer};
use thiserror::Error;

/// A Parquet compression codec chosen on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompressionSpec {
    /// Uncompressed pages, as in the study.
    #[default]
    None,
    /// Snappy.
    Snappy,
    /// LZ4 (the Parquet `LZ4_RAW` codec).
    Lz4,
    /// Zstandard at a level from 1 to 22.
    Zstd(i32),
}

/// A compression spec that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid compression '{0}': use none, snappy, lz4, or zstd(LEVEL) with LEVEL from 1 to 22, e.g. zstd(3)")]
pub struct CompressionParseError(String);

impl FromStr for CompressionSpec {
    type Err = CompressionParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let spec = text.trim().to_ascii_lowercase();
        let invalid = || CompressionParseError(text.to_string());
        match spec.as_str() {
            "none" | "uncompressed" => Ok(Self::None),
            "snappy" => Ok(Self::Snappy),
            "lz4" | "lz4_raw" => Ok(Self::Lz4),
            "zstd" => Ok(Self::Zstd(1)),
            _ => {
                let level = spec
                    .strip_prefix("zstd(")
                    .and_then(|rest| rest.strip_suffix(')'))
                    .and_then(|level| level.trim().parse::<i32>().ok())
                    .filter(|level| (1..=22).contains(level))
                    .ok_or_else(invalid)?;
                Ok(Self::Zstd(level))
            }
        }
    }
}

impl fmt::Display for CompressionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("none"),
            Self::Snappy => f.write_str("snappy"),
            Self::Lz4 => f.write_str("lz4"),
            Self::Zstd(level) => write!(f, "zstd({level})"),
        }
    }
}

impl Serialize for CompressionSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl CompressionSpec {
    /// The parquet crate's codec.
    pub fn codec(self) -> Compression {
        match self {
            Self::None => Compression::UNCOMPRESSED,
            Self::Snappy => Compression::SNAPPY,
            Self::Lz4 => Compression::LZ4_RAW,
            Self::Zstd(level) => {
                Compression::ZSTD(ZstdLevel::try_new(level).expect("level checked when parsed"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_codec() {
        assert_eq!("none".parse(), Ok(CompressionSpec::None));
        assert_eq!("Snappy".parse(), Ok(CompressionSpec::Snappy));
        assert_eq!("lz4".parse(), Ok(CompressionSpec::Lz4));
        assert_eq!("zstd(3)".parse(), Ok(CompressionSpec::Zstd(3)));
        assert_eq!("zstd".parse(), Ok(CompressionSpec::Zstd(1)));
        assert_eq!(CompressionSpec::Zstd(3).to_string(), "zstd(3)");
    }

    #[test]
    fn rejects_bad_specs_with_the_fix() {
        for bad in ["gzip", "zstd(0)", "zstd(23)", "zstd(x)", "zstd(3", ""] {
            let err = bad.parse::<CompressionSpec>().unwrap_err().to_string();
            assert!(err.contains("zstd(LEVEL)"), "{bad}: {err}");
        }
    }
}
