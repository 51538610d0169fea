//! [`DeltaBinaryPacked`]: the `DELTA_BINARY_PACKED` encoding of 32- and 64-bit integers, with
//! the bytes parquet's `DeltaBitPackEncoder` gives for the same values and block layout.
//!
//! A page is a header (block size, mini blocks per block, value count, first value), then
//! blocks of deltas between consecutive values: each block's smallest delta, one bit width per
//! mini block, and the mini blocks' deltas less that smallest one, bit-packed. parquet flushes a
//! block once it holds a whole block of deltas and measures the page by the blocks flushed so
//! far, which decides where pages are cut: [`DeltaBinaryPacked::estimated_size`] counts the same.

use parquet::basic::Type as PhysicalType;
use parquet::file::properties::DeltaBinaryPackedEncoderOptions;

use super::rle::put_uleb;

/// Mini blocks per block in parquet's default layout.
const DEFAULT_MINI_BLOCKS: usize = 4;

/// One data page's `DELTA_BINARY_PACKED` values, encoded as they come.
#[derive(Debug)]
pub(crate) struct DeltaBinaryPacked {
    /// Whether the values are 32-bit: their deltas wrap at 32 bits, as parquet's do.
    narrow: bool,
    block_size: usize,
    mini_block_size: usize,
    mini_blocks: usize,
    /// Values put into the page so far.
    count: usize,
    first: i64,
    previous: i64,
    /// The open block's deltas: fewer than `block_size`.
    deltas: Vec<i64>,
    /// The blocks flushed so far.
    blocks: Vec<u8>,
    /// One mini block's distances from the block's smallest delta, to be packed.
    packed: Vec<u64>,
}

impl DeltaBinaryPacked {
    /// An encoder of values of the physical type `physical` (`INT32` or `INT64`), in blocks
    /// laid out as `options` say, or as parquet's default for the type: 4 mini blocks of 32
    /// values for `INT32`, of 64 for `INT64`.
    pub(crate) fn new(
        physical: PhysicalType,
        options: Option<DeltaBinaryPackedEncoderOptions>,
    ) -> Self {
        let narrow = physical == PhysicalType::INT32;
        let (block_size, mini_blocks) = match options {
            Some(options) => (options.block_size(), options.mini_blocks_per_block()),
            None if narrow => (32 * DEFAULT_MINI_BLOCKS, DEFAULT_MINI_BLOCKS),
            None => (64 * DEFAULT_MINI_BLOCKS, DEFAULT_MINI_BLOCKS),
        };
        Self {
            narrow,
            block_size,
            mini_block_size: block_size / mini_blocks,
            mini_blocks,
            count: 0,
            first: 0,
            previous: 0,
            // Grown as values come, not sized for the block: the properties may ask for blocks
            // far larger than a page holds.
            deltas: Vec::new(),
            blocks: Vec::new(),
            packed: Vec::new(),
        }
    }

    /// Encodes values given as their little-endian bytes: 4 each for `INT32`, 8 for `INT64`.
    pub(crate) fn put(&mut self, bytes: &[u8]) {
        match self.narrow {
            true => bytes
                .chunks_exact(4)
                .for_each(|value| self.put_value(i64::from(read_i32(value)))),
            false => bytes
                .chunks_exact(8)
                .for_each(|value| self.put_value(read_i64(value))),
        }
    }

    /// Encodes one value (of the encoder's width: a 32-bit value sign-extended).
    #[inline]
    pub(crate) fn put_value(&mut self, value: i64) {
        if self.count == 0 {
            self.first = value;
        } else {
            self.deltas.push(self.subtract(value, self.previous));
            if self.deltas.len() == self.block_size {
                self.flush_block();
            }
        }
        self.previous = value;
        self.count += 1;
    }

    /// `left - right`, wrapping at the values' width, sign-extended.
    #[inline]
    fn subtract(&self, left: i64, right: i64) -> i64 {
        match self.narrow {
            true => i64::from((left as i32).wrapping_sub(right as i32)),
            false => left.wrapping_sub(right),
        }
    }

    /// Writes the open block: its smallest delta, the mini blocks' bit widths (0 for the mini
    /// blocks it does not reach), and the mini blocks it reaches, the last padded with zeros.
    fn flush_block(&mut self) {
        let Some(&min) = self.deltas.iter().min() else {
            return;
        };
        put_zigzag(&mut self.blocks, min);
        let widths_at = self.blocks.len();
        self.blocks.resize(widths_at + self.mini_blocks, 0);
        let narrow = self.narrow;
        for (index, mini_block) in self.deltas.chunks(self.mini_block_size).enumerate() {
            let max = mini_block.iter().copied().max().unwrap_or(min);
            let width = (64 - distance(narrow, max, min).leading_zeros()) as usize;
            self.blocks[widths_at + index] = width as u8;
            self.packed.clear();
            self.packed
                .extend(mini_block.iter().map(|&delta| distance(narrow, delta, min)));
            self.packed.resize(self.mini_block_size, 0);
            bit_pack(&self.packed, width, &mut self.blocks);
        }
        self.deltas.clear();
    }

    /// The page's bytes as parquet measures them before it is finished: the blocks flushed.
    pub(crate) fn estimated_size(&self) -> usize {
        self.blocks.len()
    }

    /// Appends the page (header, then every block, the open one flushed) to `sink`, and
    /// starts the next page.
    pub(crate) fn finish_into(&mut self, sink: &mut Vec<u8>) {
        self.flush_block();
        put_uleb(sink, self.block_size as u64);
        put_uleb(sink, self.mini_blocks as u64);
        put_uleb(sink, self.count as u64);
        put_zigzag(sink, self.first);
        sink.extend_from_slice(&self.blocks);
        self.blocks.clear();
        self.count = 0;
        self.first = 0;
        self.previous = 0;
    }

    /// Bytes held: the open block's deltas and the flushed blocks.
    pub(crate) fn memory_size(&self) -> usize {
        (self.deltas.capacity() + self.packed.capacity()) * size_of::<u64>()
            + self.blocks.capacity()
    }
}

/// `left - right` as the unsigned number that is bit-packed: wrapped at 32 bits for `narrow`
/// values.
#[inline]
fn distance(narrow: bool, left: i64, right: i64) -> u64 {
    match narrow {
        true => u64::from((left as i32).wrapping_sub(right as i32) as u32),
        false => left.wrapping_sub(right) as u64,
    }
}

fn read_i32(bytes: &[u8]) -> i32 {
    i32::from_le_bytes(bytes.try_into().unwrap_or_default())
}

fn read_i64(bytes: &[u8]) -> i64 {
    i64::from_le_bytes(bytes.try_into().unwrap_or_default())
}

/// Appends `value` zigzag-encoded, as an unsigned LEB128 number.
fn put_zigzag(sink: &mut Vec<u8>, value: i64) {
    put_uleb(sink, ((value << 1) ^ (value >> 63)) as u64);
}

/// Appends `values`, each `width` bits (the low ones), packed from the least significant bit
/// up. A mini block holds a multiple of 32 values, so it ends on a byte.
fn bit_pack(values: &[u64], width: usize, sink: &mut Vec<u8>) {
    let mut pending: u128 = 0;
    let mut bits = 0;
    for &value in values {
        pending |= u128::from(value) << bits;
        bits += width;
        if bits >= 64 {
            sink.extend_from_slice(&(pending as u64).to_le_bytes());
            pending >>= 64;
            bits -= 64;
        }
    }
    sink.extend_from_slice(&pending.to_le_bytes()[..bits.div_ceil(8)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(physical: PhysicalType, bytes: &[u8]) -> Vec<u8> {
        let mut encoder = DeltaBinaryPacked::new(physical, None);
        encoder.put(bytes);
        let mut page = Vec::new();
        encoder.finish_into(&mut page);
        page
    }

    #[test]
    fn one_value_is_a_header_alone() {
        let page = encoded(PhysicalType::INT32, &7i32.to_le_bytes());
        // Block size 128, 4 mini blocks, 1 value, first value 7 zigzag-encoded (14).
        assert_eq!(page, [0x80, 0x01, 4, 1, 14]);
    }

    #[test]
    fn a_partial_block_packs_its_mini_blocks_and_zeroes_the_widths_past_them() {
        let values: Vec<u8> = [1i32, 2, 4, 7]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let page = encoded(PhysicalType::INT32, &values);
        // Deltas 1, 2, 3: smallest 1 (zigzag 2); distances 0, 1, 2 in 2 bits, padded to 32
        // values (8 bytes); the three mini blocks not reached have width 0.
        let mut expected = vec![0x80, 0x01, 4, 4, 2, 2, 2, 0, 0, 0];
        expected.extend_from_slice(&[0b10_01_00, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(page, expected);
    }

    #[test]
    fn narrow_deltas_wrap_at_32_bits() {
        let values: Vec<u8> = [i32::MAX, i32::MIN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let page = encoded(PhysicalType::INT32, &values);
        // i32::MIN - i32::MAX wraps to 1: one delta, width 0.
        assert_eq!(&page[page.len() - 5..], [2, 0, 0, 0, 0]);
    }

    #[test]
    fn the_estimate_counts_whole_blocks_only() {
        let mut encoder = DeltaBinaryPacked::new(PhysicalType::INT64, None);
        let values: Vec<u8> = (0..256i64).flat_map(|v| (v * v).to_le_bytes()).collect();
        encoder.put(&values);
        assert_eq!(
            encoder.estimated_size(),
            0,
            "255 deltas: the block is still open"
        );
        encoder.put(&1i64.to_le_bytes());
        assert!(encoder.estimated_size() > 0, "256 deltas flush the block");
    }

    #[test]
    fn bit_pack_handles_every_width() {
        for width in 0..=64usize {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let values: Vec<u64> = (0..32u64)
                .map(|v| v.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask)
                .collect();
            let mut sink = Vec::new();
            bit_pack(&values, width, &mut sink);
            assert_eq!(sink.len(), 4 * width);
            for (index, &value) in values.iter().enumerate() {
                let unpacked = (0..width).fold(0u64, |acc, bit| {
                    let at = index * width + bit;
                    acc | (u64::from(sink[at / 8] >> (at % 8) & 1) << bit)
                });
                assert_eq!(unpacked, value, "width {width}, value {index}");
            }
        }
    }
}
