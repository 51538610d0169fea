//! Per-column writer settings ([`ColumnWriting`]: a spec's `"parquet"` objects, or
//! `write_parquet`'s `properties` in the Python package) as parquet writer properties, and the
//! encodings checked against the columns' Parquet types before anything is written.

use arrow_schema::SchemaRef;
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::{Compression, Encoding, Type as PhysicalType};
use parquet::bloom_filter::{BITSET_MAX_LENGTH, BITSET_MIN_LENGTH};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesBuilder};
use parquet::schema::types::{ColumnDescriptor, ColumnPath, SchemaDescriptor};
use shredlab_generator::spec::{ColumnWriting, Spec, StatisticsLevel, ValueEncoding};

use crate::compression::CompressionSpec;

/// The smallest bloom filter false-positive rate taken: below it, parquet's sizing formula
/// loses the rate to rounding.
const SMALLEST_BLOOM_FPP: f64 = 1e-12;

/// The most bytes the bloom filters of one row group may hold together: the writer keeps
/// every column's in memory until the row group closes, each up to 128 MiB.
const BLOOM_FILTER_BUDGET: u64 = 1 << 30;

/// Settings checked for what parquet's builder would panic on or cannot take: a codec that
/// does not parse, a false-positive rate outside (0, 1), a bloom filter both switched off and
/// sized.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedWriting {
    writing: ColumnWriting,
    codec: Option<Compression>,
}

/// Leaf columns' checked settings, by their Parquet paths.
pub type ColumnSettings = Vec<(ColumnPath, CheckedWriting)>;

impl CheckedWriting {
    /// `writing`, checked.
    ///
    /// # Errors
    ///
    /// What is wrong, naming the key.
    pub fn new(writing: ColumnWriting) -> Result<Self, String> {
        // Parquet's setter panics outside (0, 1); a spec or dict read by `ColumnWriting::set`
        // never gets here with one, a hand-made `ColumnWriting` might.
        if let Some(fpp) = writing.bloom_filter_fpp.filter(|p| !(*p > 0.0 && *p < 1.0)) {
            return Err(format!(
                "\"bloom_filter_fpp\" {fpp} must be above 0 and below 1"
            ));
        }
        if let Some(fpp) = writing.bloom_filter_fpp.filter(|p| *p < SMALLEST_BLOOM_FPP) {
            return Err(format!(
                "\"bloom_filter_fpp\" {fpp:e} is below {SMALLEST_BLOOM_FPP:e}: parquet's sizing rounds so small a rate away (1e-300 gave a 32-byte filter, 1e-100 its 128 MiB ceiling); use {SMALLEST_BLOOM_FPP:e} or more"
            ));
        }
        let sized = writing.bloom_filter_fpp.is_some() || writing.bloom_filter_ndv.is_some();
        if writing.bloom_filter == Some(false) && sized {
            return Err("bloom_filter_fpp and bloom_filter_ndv turn the bloom filter on: drop them, or drop \"bloom_filter\": false".into());
        }
        let codec = match &writing.compression {
            Some(text) => Some(
                text.parse::<CompressionSpec>()
                    .map_err(|e| format!("\"compression\": {e}"))?
                    .codec(),
            ),
            None => None,
        };
        Ok(Self { writing, codec })
    }

    /// `builder` with these settings for `column`, or for every column without one.
    pub fn set(
        &self,
        mut builder: WriterPropertiesBuilder,
        column: Option<&ColumnPath>,
    ) -> WriterPropertiesBuilder {
        let writing = &self.writing;
        macro_rules! set {
            ($value:expr, $all:ident, $one:ident) => {
                if let Some(value) = $value {
                    builder = match column {
                        Some(c) => builder.$one(c.clone(), value),
                        None => builder.$all(value),
                    };
                }
            };
        }
        set!(
            writing.dictionary,
            set_dictionary_enabled,
            set_column_dictionary_enabled
        );
        set!(
            writing.dictionary_page_size,
            set_dictionary_page_size_limit,
            set_column_dictionary_page_size_limit
        );
        set!(
            writing.data_page_size,
            set_data_page_size_limit,
            set_column_data_page_size_limit
        );
        set!(
            writing.data_page_row_count_limit,
            set_data_page_row_count_limit,
            set_column_data_page_row_count_limit
        );
        set!(
            writing.statistics.map(statistics),
            set_statistics_enabled,
            set_column_statistics_enabled
        );
        set!(
            writing.encoding.map(encoding),
            set_encoding,
            set_column_encoding
        );
        set!(
            writing.bloom_filter,
            set_bloom_filter_enabled,
            set_column_bloom_filter_enabled
        );
        set!(
            writing.bloom_filter_fpp,
            set_bloom_filter_fpp,
            set_column_bloom_filter_fpp
        );
        set!(
            writing.bloom_filter_ndv,
            set_bloom_filter_max_ndv,
            set_column_bloom_filter_max_ndv
        );
        set!(self.codec, set_compression, set_column_compression);
        builder
    }
}

/// `settings` set on `builder`, each for its column.
pub fn apply_columns(
    settings: &ColumnSettings,
    builder: WriterPropertiesBuilder,
) -> WriterPropertiesBuilder {
    settings.iter().fold(builder, |builder, (column, writing)| {
        writing.set(builder, Some(column))
    })
}

/// The settings `spec` gives its leaf columns, by their paths in `schema` (the spec's batches'
/// schema) written as Parquet, checked: an encoding the column's Parquet type has no form for
/// fails here, before a run.
///
/// # Errors
///
/// The place in the spec file and what is wrong.
pub fn spec_columns(spec: &Spec, schema: &SchemaRef) -> Result<ColumnSettings, String> {
    let parquet = ArrowSchemaConverter::new()
        .convert(schema)
        .map_err(|e| format!("cannot map the spec's schema to Parquet: {e}"))?;
    let leaves = spec.leaf_writings();
    if leaves.len() != parquet.num_columns() {
        return Err(format!(
            "the spec has {} leaf fields, its Parquet schema {} columns",
            leaves.len(),
            parquet.num_columns()
        ));
    }
    let mut settings = ColumnSettings::new();
    for (leaf, descr) in leaves.into_iter().zip(parquet.columns()) {
        if leaf.writing.is_empty() {
            continue;
        }
        let fail = |message: String| format!("{}: {message}", leaf.path);
        if let Some(chosen) = leaf.writing.encoding.map(encoding) {
            check_encoding(descr, chosen).map_err(fail)?;
        }
        let checked = CheckedWriting::new(leaf.writing).map_err(fail)?;
        settings.push((descr.path().clone(), checked));
    }
    let props = apply_columns(&settings, WriterProperties::builder()).build();
    check_bloom_filters(&props, &parquet)?;
    Ok(settings)
}

/// Fails for the first leaf of `parquet` whose encoding under `props` its Parquet type has no
/// form for.
///
/// # Errors
///
/// The column, its type, the encoding and the ones it takes.
pub fn check_encodings(props: &WriterProperties, parquet: &SchemaDescriptor) -> Result<(), String> {
    parquet
        .columns()
        .iter()
        .try_for_each(|descr| match props.encoding(descr.path()) {
            Some(chosen) => check_encoding(descr, chosen),
            None => Ok(()),
        })
}

/// Fails when the bloom filters `props` gives the leaves of `parquet` would hold more than
/// [`BLOOM_FILTER_BUDGET`] in memory for each row group written.
///
/// # Errors
///
/// Their total, the largest column's, and the fix.
pub fn check_bloom_filters(
    props: &WriterProperties,
    parquet: &SchemaDescriptor,
) -> Result<(), String> {
    let filters = parquet.columns().iter().filter_map(|descr| {
        let settings = props.bloom_filter_properties(descr.path())?;
        Some((
            descr.path(),
            bloom_filter_bytes(settings.ndv(), settings.fpp()),
        ))
    });
    let (mut total, mut largest) = (0u64, None);
    for (path, bytes) in filters {
        total = total.saturating_add(bytes);
        if largest.is_none_or(|(_, most)| bytes > most) {
            largest = Some((path, bytes));
        }
    }
    match largest {
        Some((path, bytes)) if total > BLOOM_FILTER_BUDGET => Err(format!(
            "the bloom filters would hold {} MiB in memory for each row group written, beyond {} MiB (column '{}' alone {} MiB): lower bloom_filter_ndv or raise bloom_filter_fpp",
            total >> 20,
            BLOOM_FILTER_BUDGET >> 20,
            path.string(),
            bytes >> 20
        )),
        _ => Ok(()),
    }
}

/// The bytes parquet's writer gives a bloom filter sized for `ndv` distinct values at a
/// false-positive rate of `fpp`: its formula, between its 32-byte floor and 128 MiB ceiling,
/// rounded up to a power of two.
fn bloom_filter_bytes(ndv: u64, fpp: f64) -> u64 {
    let bits = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
    // A float cast saturates: no overflow, whatever the bits.
    let bytes = ((bits / 8.0) as usize).clamp(BITSET_MIN_LENGTH, BITSET_MAX_LENGTH);
    bytes.next_power_of_two() as u64
}

/// Fails unless parquet's writer has `chosen` for `descr`'s values: its column writer panics
/// as it opens on any other, so this is asked first.
fn check_encoding(descr: &ColumnDescriptor, chosen: Encoding) -> Result<(), String> {
    let physical = descr.physical_type();
    if encodes(chosen, physical) {
        return Ok(());
    }
    let takes: Vec<&str> = ValueEncoding::ALL
        .iter()
        .filter(|(e, _)| encodes(encoding(*e), physical))
        .map(|(_, name)| *name)
        .collect();
    Err(format!(
        "column '{}' ({physical}) has no {chosen} encoding: it takes {}",
        descr.path().string(),
        takes.join(", ")
    ))
}

/// Whether parquet's writer (60.1) encodes values of `physical` type in `encoding`.
fn encodes(encoding: Encoding, physical: PhysicalType) -> bool {
    use PhysicalType::*;
    match encoding {
        Encoding::PLAIN => true,
        Encoding::RLE => physical == BOOLEAN,
        Encoding::DELTA_BINARY_PACKED => matches!(physical, INT32 | INT64),
        Encoding::DELTA_LENGTH_BYTE_ARRAY => physical == BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY => matches!(physical, BYTE_ARRAY | FIXED_LEN_BYTE_ARRAY),
        Encoding::BYTE_STREAM_SPLIT => {
            matches!(
                physical,
                INT32 | INT64 | FLOAT | DOUBLE | FIXED_LEN_BYTE_ARRAY
            )
        }
        _ => false,
    }
}

fn statistics(level: StatisticsLevel) -> EnabledStatistics {
    match level {
        StatisticsLevel::None => EnabledStatistics::None,
        StatisticsLevel::Chunk => EnabledStatistics::Chunk,
        StatisticsLevel::Page => EnabledStatistics::Page,
    }
}

fn encoding(encoding: ValueEncoding) -> Encoding {
    match encoding {
        ValueEncoding::Plain => Encoding::PLAIN,
        ValueEncoding::DeltaBinaryPacked => Encoding::DELTA_BINARY_PACKED,
        ValueEncoding::DeltaLengthByteArray => Encoding::DELTA_LENGTH_BYTE_ARRAY,
        ValueEncoding::DeltaByteArray => Encoding::DELTA_BYTE_ARRAY,
        ValueEncoding::ByteStreamSplit => Encoding::BYTE_STREAM_SPLIT,
        ValueEncoding::Rle => Encoding::RLE,
    }
}
