//! [`ColumnWriting`]: how a spec asks the Parquet writer to write a column (a field's
//! `"parquet"` object), the same keys with the same meaning as `write_parquet`'s per-column
//! `properties` in the Python package. The generator only reads and checks them; the pipeline
//! turns them into writer properties.

use serde_json::{Map, Value};

/// The keys of a field's `"parquet"` object.
pub const WRITING_KEYS: &[&str] = &[
    "dictionary",
    "dictionary_page_size",
    "data_page_size",
    "data_page_row_count_limit",
    "statistics",
    "encoding",
    "bloom_filter",
    "bloom_filter_fpp",
    "bloom_filter_ndv",
    "compression",
];

/// Writer settings for a column: each `None` leaves the writer's own (or, in a spec, the
/// enclosing field's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnWriting {
    /// Whether values go through a dictionary first.
    pub dictionary: Option<bool>,
    /// Bytes the dictionary page may reach before the writer falls back to `encoding`.
    pub dictionary_page_size: Option<usize>,
    /// Bytes after which a data page is closed.
    pub data_page_size: Option<usize>,
    /// Rows after which a data page is closed.
    pub data_page_row_count_limit: Option<usize>,
    /// Which min/max statistics are kept.
    pub statistics: Option<StatisticsLevel>,
    /// The values' encoding: with the dictionary on, the one its data pages fall back to.
    pub encoding: Option<ValueEncoding>,
    /// Whether a bloom filter is written.
    pub bloom_filter: Option<bool>,
    /// The bloom filter's false-positive probability (turns it on).
    pub bloom_filter_fpp: Option<f64>,
    /// The distinct values the bloom filter is sized for (turns it on).
    pub bloom_filter_ndv: Option<u64>,
    /// The codec, as `pipeline --compression` takes it (`"zstd(3)"`).
    pub compression: Option<String>,
}

/// Which statistics a column keeps: parquet's `EnabledStatistics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatisticsLevel {
    /// None.
    None,
    /// The column chunk's.
    Chunk,
    /// The chunk's and every page's (the column index).
    Page,
}

/// A value encoding a column may ask for: parquet's non-dictionary encodings. Which apply
/// depends on the column's physical type; the pipeline checks that with parquet's writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueEncoding {
    /// `PLAIN`.
    Plain,
    /// `DELTA_BINARY_PACKED` (integers).
    DeltaBinaryPacked,
    /// `DELTA_LENGTH_BYTE_ARRAY` (strings and binaries).
    DeltaLengthByteArray,
    /// `DELTA_BYTE_ARRAY` (strings and binaries).
    DeltaByteArray,
    /// `BYTE_STREAM_SPLIT` (floats, and fixed-width values).
    ByteStreamSplit,
    /// `RLE` (booleans).
    Rle,
}

impl ValueEncoding {
    /// Every encoding with its name, as a spec and `properties` spell it.
    pub const ALL: [(Self, &'static str); 6] = [
        (Self::Plain, "plain"),
        (Self::DeltaBinaryPacked, "delta_binary_packed"),
        (Self::DeltaLengthByteArray, "delta_length_byte_array"),
        (Self::DeltaByteArray, "delta_byte_array"),
        (Self::ByteStreamSplit, "byte_stream_split"),
        (Self::Rle, "rle"),
    ];

    /// The encoding's name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(encoding, _)| *encoding == self)
            .map_or("plain", |(_, name)| name)
    }
}

impl ColumnWriting {
    /// Sets `key` (one of [`WRITING_KEYS`]) to `value`. The error says what `key` takes.
    ///
    /// # Errors
    ///
    /// An unknown key, or a value of the wrong kind or out of range.
    pub fn set(&mut self, key: &str, value: &Value) -> Result<(), String> {
        match key {
            "dictionary" => self.dictionary = Some(flag(value)?),
            "dictionary_page_size" => self.dictionary_page_size = Some(positive(value)?),
            "data_page_size" => self.data_page_size = Some(positive(value)?),
            "data_page_row_count_limit" => self.data_page_row_count_limit = Some(positive(value)?),
            "statistics" => self.statistics = Some(statistics(value)?),
            "encoding" => self.encoding = Some(encoding(value)?),
            "bloom_filter" => self.bloom_filter = Some(flag(value)?),
            "bloom_filter_fpp" => self.bloom_filter_fpp = Some(probability(value)?),
            "bloom_filter_ndv" => self.bloom_filter_ndv = Some(positive(value)? as u64),
            "compression" => self.compression = Some(text(value)?.to_string()),
            _ => {
                return Err(format!(
                    "is not a writer setting: use one of {}",
                    WRITING_KEYS.join(", ")
                ))
            }
        }
        Ok(())
    }

    /// The settings of a `"parquet"` object; errors name the key, as `("key", message)`.
    ///
    /// # Errors
    ///
    /// `value` is not an object, or one of its keys fails [`Self::set`].
    pub fn read(value: &Value) -> Result<Self, (Option<String>, String)> {
        let object: &Map<String, Value> = value.as_object().ok_or((
            None,
            "\"parquet\" must be an object of writer settings, e.g. {\"dictionary\": false}"
                .to_string(),
        ))?;
        let mut writing = Self::default();
        for (key, value) in object {
            writing
                .set(key, value)
                .map_err(|message| (Some(key.clone()), message))?;
        }
        Ok(writing)
    }

    /// These settings over `outer`'s: a field's own win over the field it is inside.
    pub fn within(&self, outer: &Self) -> Self {
        Self {
            dictionary: self.dictionary.or(outer.dictionary),
            dictionary_page_size: self.dictionary_page_size.or(outer.dictionary_page_size),
            data_page_size: self.data_page_size.or(outer.data_page_size),
            data_page_row_count_limit: self
                .data_page_row_count_limit
                .or(outer.data_page_row_count_limit),
            statistics: self.statistics.or(outer.statistics),
            encoding: self.encoding.or(outer.encoding),
            bloom_filter: self.bloom_filter.or(outer.bloom_filter),
            bloom_filter_fpp: self.bloom_filter_fpp.or(outer.bloom_filter_fpp),
            bloom_filter_ndv: self.bloom_filter_ndv.or(outer.bloom_filter_ndv),
            compression: self
                .compression
                .clone()
                .or_else(|| outer.compression.clone()),
        }
    }

    /// Whether no setting is given.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

fn flag(value: &Value) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| format!("must be true or false, not {value}"))
}

fn positive(value: &Value) -> Result<usize, String> {
    match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(format!("must be a whole number of at least 1, not {value}")),
    }
}

fn probability(value: &Value) -> Result<f64, String> {
    match value.as_f64() {
        Some(p) if p > 0.0 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "must be a probability above 0 and below 1 (0.05 is parquet's default), not {value}"
        )),
    }
}

fn text(value: &Value) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("must be a string, not {value}"))
}

fn statistics(value: &Value) -> Result<StatisticsLevel, String> {
    match text(value)? {
        "none" => Ok(StatisticsLevel::None),
        "chunk" => Ok(StatisticsLevel::Chunk),
        "page" => Ok(StatisticsLevel::Page),
        other => Err(format!("is '{other}': use 'none', 'chunk' or 'page'")),
    }
}

fn encoding(value: &Value) -> Result<ValueEncoding, String> {
    let name = text(value)?;
    let lower = name.to_lowercase();
    if let Some((encoding, _)) = ValueEncoding::ALL.iter().find(|(_, n)| *n == lower) {
        return Ok(*encoding);
    }
    let names: Vec<&str> = ValueEncoding::ALL.iter().map(|(_, n)| *n).collect();
    let dictionary = if lower.contains("dictionary") {
        " (a dictionary is \"dictionary\": true; \"encoding\" is what its pages fall back to)"
    } else {
        ""
    };
    Err(format!(
        "is '{name}': use one of {}{dictionary}",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_every_key_and_inner_settings_win() {
        let outer = ColumnWriting::read(&json!({
            "dictionary": false, "statistics": "chunk", "encoding": "DELTA_BYTE_ARRAY",
            "bloom_filter_fpp": 0.01, "bloom_filter_ndv": 1000, "compression": "zstd(3)",
            "dictionary_page_size": 4096, "data_page_size": 65536, "data_page_row_count_limit": 100,
            "bloom_filter": true
        }))
        .unwrap();
        assert_eq!(outer.encoding, Some(ValueEncoding::DeltaByteArray));
        assert_eq!(outer.statistics, Some(StatisticsLevel::Chunk));
        let inner = ColumnWriting::read(&json!({"dictionary": true})).unwrap();
        let merged = inner.within(&outer);
        assert_eq!(merged.dictionary, Some(true));
        assert_eq!(merged.bloom_filter_fpp, Some(0.01));
        assert_eq!(merged.compression.as_deref(), Some("zstd(3)"));
        assert!(ColumnWriting::default().is_empty());
    }

    #[test]
    fn bad_settings_say_what_the_key_takes() {
        let cases = [
            (json!({"dictionary": "no"}), "dictionary", "true or false"),
            (json!({"data_page_size": 0}), "data_page_size", "at least 1"),
            (
                json!({"data_page_size": -5}),
                "data_page_size",
                "at least 1",
            ),
            (
                json!({"bloom_filter_fpp": 1.0}),
                "bloom_filter_fpp",
                "below 1",
            ),
            (
                json!({"statistics": "all"}),
                "statistics",
                "'none', 'chunk' or 'page'",
            ),
            (
                json!({"encoding": "rle_dictionary"}),
                "encoding",
                "fall back to",
            ),
            (
                json!({"encoding": "zigzag"}),
                "encoding",
                "delta_binary_packed",
            ),
            (
                json!({"dictonary": true}),
                "dictonary",
                "one of dictionary,",
            ),
        ];
        for (object, key, expected) in cases {
            let (found, message) = ColumnWriting::read(&object).unwrap_err();
            assert_eq!(found.as_deref(), Some(key));
            assert!(message.contains(expected), "{object}: {message}");
        }
        assert!(ColumnWriting::read(&json!([1])).unwrap_err().0.is_none());
    }
}
