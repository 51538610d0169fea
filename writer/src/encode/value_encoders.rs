//! [`ValueEncoder`]: a data page's values in an encoding other than `PLAIN` and the dictionary,
//! with the bytes parquet's encoders give: `DELTA_BINARY_PACKED` integers,
//! `DELTA_LENGTH_BYTE_ARRAY` (the lengths delta-packed, then the bytes), `DELTA_BYTE_ARRAY`
//! (each value's prefix shared with the one before, the suffixes' lengths, then the suffixes)
//! and `RLE` booleans (the RLE / bit-packing hybrid after its 4-byte length).
//!
//! `ArrowColumnWriter` packs a byte array's lengths in parquet's default `INT32` block layout
//! whatever the properties set (its byte-array writer does not read
//! `delta_binary_packed_encoder_options`); integers and the prefixes and suffixes of
//! fixed-length byte arrays (written by parquet's typed writer) take the layout set.

use std::ops::Range;

use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::file::properties::DeltaBinaryPackedEncoderOptions;

use super::delta::DeltaBinaryPacked;
use super::plain::PlainValues;
use super::rle::HybridRle;

/// The bytes of the length in front of `RLE` values.
const RLE_LENGTH: usize = 4;

/// One data page's values in an encoding other than `PLAIN`, encoded as they come.
#[derive(Debug)]
pub(crate) enum ValueEncoder {
    DeltaIntegers(DeltaBinaryPacked),
    DeltaLengths {
        lengths: DeltaBinaryPacked,
        bytes: Vec<u8>,
    },
    DeltaPrefixed(Prefixed),
    /// Booleans, one bit each.
    Rle(HybridRle),
}

/// `DELTA_BYTE_ARRAY`'s state: each value's prefix shared with the one before and its
/// suffix's length, delta-packed, and the suffixes.
#[derive(Debug)]
pub(crate) struct Prefixed {
    prefixes: DeltaBinaryPacked,
    suffixes: DeltaBinaryPacked,
    bytes: Vec<u8>,
    /// The value before, whose prefix the next one may share.
    last: Vec<u8>,
}

impl Prefixed {
    fn new(layout: Option<DeltaBinaryPackedEncoderOptions>) -> Self {
        Self {
            prefixes: DeltaBinaryPacked::new(PhysicalType::INT32, layout),
            suffixes: DeltaBinaryPacked::new(PhysicalType::INT32, layout),
            bytes: Vec::new(),
            last: Vec::new(),
        }
    }

    fn put(&mut self, value: &[u8]) {
        let shared = self
            .last
            .iter()
            .zip(value)
            .take_while(|(a, b)| a == b)
            .count();
        self.prefixes.put_value(shared as i64);
        self.suffixes.put_value((value.len() - shared) as i64);
        self.bytes.extend_from_slice(&value[shared..]);
        self.last.clear();
        self.last.extend_from_slice(value);
    }

    fn estimated_size(&self) -> usize {
        self.bytes.len() + self.prefixes.estimated_size() + self.suffixes.estimated_size()
    }

    fn finish_into(&mut self, sink: &mut Vec<u8>) {
        self.prefixes.finish_into(sink);
        self.suffixes.finish_into(sink);
        sink.extend_from_slice(&self.bytes);
        self.bytes.clear();
        self.last.clear();
    }

    fn memory_size(&self) -> usize {
        let bytes = self.bytes.capacity() + self.last.capacity();
        self.prefixes.memory_size() + self.suffixes.memory_size() + bytes
    }
}

impl ValueEncoder {
    /// The encoder of `encoding` for values of the physical type `physical`, or `None` for
    /// `PLAIN` (or an encoding not written: [`super::encodings::value_encoding`] lists the
    /// pairs written).
    pub(crate) fn new(
        encoding: Encoding,
        physical: PhysicalType,
        options: Option<DeltaBinaryPackedEncoderOptions>,
    ) -> Option<Self> {
        Some(match encoding {
            Encoding::DELTA_BINARY_PACKED => {
                Self::DeltaIntegers(DeltaBinaryPacked::new(physical, options))
            }
            Encoding::DELTA_LENGTH_BYTE_ARRAY => Self::DeltaLengths {
                lengths: DeltaBinaryPacked::new(PhysicalType::INT32, None),
                bytes: Vec::new(),
            },
            Encoding::DELTA_BYTE_ARRAY => {
                let fixed_len = physical == PhysicalType::FIXED_LEN_BYTE_ARRAY;
                Self::DeltaPrefixed(Prefixed::new(options.filter(|_| fixed_len)))
            }
            Encoding::RLE => Self::Rle(HybridRle::new(1)),
            _ => return None,
        })
    }

    /// The encoding.
    pub(crate) fn encoding(&self) -> Encoding {
        match self {
            Self::DeltaIntegers(_) => Encoding::DELTA_BINARY_PACKED,
            Self::DeltaLengths { .. } => Encoding::DELTA_LENGTH_BYTE_ARRAY,
            Self::DeltaPrefixed(_) => Encoding::DELTA_BYTE_ARRAY,
            Self::Rle(_) => Encoding::RLE,
        }
    }

    /// Whether a value's bytes depend on the value before (`DELTA_BYTE_ARRAY`): parquet then
    /// cuts a mini-batch too large for the page after exactly as many values as fit.
    pub(crate) fn compares_with_previous(&self) -> bool {
        matches!(self, Self::DeltaPrefixed(_))
    }

    /// Encodes the values in `range`, returning their unencoded length (for byte arrays; the
    /// page's other values have none).
    pub(crate) fn put(&mut self, values: &PlainValues<'_>, range: Range<usize>) -> i64 {
        let mut total = 0usize;
        match self {
            Self::DeltaIntegers(integers) => integers.put(values.fixed_bytes(range)),
            Self::Rle(booleans) => booleans.put_values(values.fixed_bytes(range), u64::from),
            Self::DeltaLengths { lengths, bytes } => values.for_each_value_bytes(range, |value| {
                lengths.put_value(value.len() as i64);
                bytes.extend_from_slice(value);
                total += value.len();
            }),
            Self::DeltaPrefixed(prefixed) => values.for_each_value_bytes(range, |value| {
                prefixed.put(value);
                total += value.len();
            }),
        }
        total as i64
    }

    /// The page's bytes as parquet measures them before it is finished.
    pub(crate) fn estimated_size(&self) -> usize {
        match self {
            Self::DeltaIntegers(integers) => integers.estimated_size(),
            Self::DeltaLengths { lengths, bytes } => bytes.len() + lengths.estimated_size(),
            Self::DeltaPrefixed(prefixed) => prefixed.estimated_size(),
            // parquet counts the length in front from the page's first value on.
            Self::Rle(booleans) => RLE_LENGTH + booleans.estimated_len(),
        }
    }

    /// Appends the page's values to `sink` and starts the next page.
    pub(crate) fn finish_into(&mut self, sink: &mut Vec<u8>) {
        match self {
            Self::DeltaIntegers(integers) => integers.finish_into(sink),
            Self::DeltaLengths { lengths, bytes } => {
                lengths.finish_into(sink);
                sink.extend_from_slice(bytes);
                bytes.clear();
            }
            Self::DeltaPrefixed(prefixed) => prefixed.finish_into(sink),
            Self::Rle(booleans) => {
                let start = sink.len();
                sink.extend_from_slice(&[0; RLE_LENGTH]);
                booleans.finish_into(sink);
                let length = (sink.len() - start - RLE_LENGTH) as u32;
                sink[start..start + RLE_LENGTH].copy_from_slice(&length.to_le_bytes());
            }
        }
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        match self {
            Self::DeltaIntegers(integers) => integers.memory_size(),
            Self::Rle(booleans) => booleans.memory_size(),
            Self::DeltaLengths { lengths, bytes } => lengths.memory_size() + bytes.capacity(),
            Self::DeltaPrefixed(prefixed) => prefixed.memory_size(),
        }
    }
}
