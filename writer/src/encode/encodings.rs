//! Which leaves the native encoder writes the pages of ([`supported`]), and how their values
//! are encoded outside a dictionary ([`value_encoding`]): the encodings parquet's column writer
//! picks from the properties, where shredlab writes the same bytes.

use arrow_schema::DataType;
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::{ColumnDescPtr, ColumnPath};

use super::{compress, plain, stats};

/// Whether [`super::pages::PageChunkWriter`] writes the leaf `descr` (of Arrow type `data_type`) under
/// `props`: values in an encoding [`value_encoding`] writes (after a dictionary, for byte
/// arrays and numbers), a codec [`compress::supported`] lists, statistics that
/// [`stats::supported`] records (and any bloom filter); types [`plain::supported`] lists.
pub(crate) fn supported(
    descr: &ColumnDescPtr,
    data_type: &DataType,
    props: &WriterProperties,
) -> bool {
    let path = descr.path();
    let physical = descr.physical_type();
    plain::supported(data_type, descr)
        // parquet never builds a dictionary for booleans, whatever the properties say.
        && (!props.dictionary_enabled(path)
            || dictionary_type(physical)
            || physical == PhysicalType::BOOLEAN)
        && value_encoding(physical, props, path).is_some()
        && compress::supported(props.compression(path))
        && stats::supported(descr, props)
}

/// The encoding of the column `path`'s values outside a dictionary, if [`super::pages::PageChunkWriter`]
/// writes it: the one the properties set, or else parquet's default for the writer version.
pub(crate) fn value_encoding(
    physical: PhysicalType,
    props: &WriterProperties,
    path: &ColumnPath,
) -> Option<Encoding> {
    let v2 = props.writer_version() == WriterVersion::PARQUET_2_0;
    let encoding = props.encoding(path).unwrap_or(match physical {
        PhysicalType::BOOLEAN if v2 => Encoding::RLE,
        PhysicalType::INT32 | PhysicalType::INT64 if v2 => Encoding::DELTA_BINARY_PACKED,
        PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY if v2 => {
            Encoding::DELTA_BYTE_ARRAY
        }
        _ => Encoding::PLAIN,
    });
    match (encoding, physical) {
        (Encoding::PLAIN, _) => Some(encoding),
        (Encoding::DELTA_BINARY_PACKED, PhysicalType::INT32 | PhysicalType::INT64)
        | (Encoding::DELTA_LENGTH_BYTE_ARRAY, PhysicalType::BYTE_ARRAY)
        | (
            Encoding::DELTA_BYTE_ARRAY,
            PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY,
        )
        | (Encoding::RLE, PhysicalType::BOOLEAN)
        | (
            Encoding::BYTE_STREAM_SPLIT,
            PhysicalType::INT32
            | PhysicalType::INT64
            | PhysicalType::FLOAT
            | PhysicalType::DOUBLE
            | PhysicalType::FIXED_LEN_BYTE_ARRAY,
        ) => Some(encoding),
        _ => None,
    }
}

/// Whether [`super::dictionary::Dictionary`] encodes values of the physical type `physical`:
/// byte arrays, numbers of 4 or 8 bytes and fixed-length byte arrays (which parquet's
/// dictionary tells apart by their bytes, as it does floats: every NaN payload and both zeros
/// are values of their own).
pub(crate) fn dictionary_type(physical: PhysicalType) -> bool {
    matches!(
        physical,
        PhysicalType::BYTE_ARRAY
            | PhysicalType::INT32
            | PhysicalType::INT64
            | PhysicalType::FLOAT
            | PhysicalType::DOUBLE
            | PhysicalType::FIXED_LEN_BYTE_ARRAY
    )
}
