//! A leaf's definition levels and value positions from its validity bitmap.
//!
//! Where nulls are frequent, valid runs are short and appending each run costs more than
//! deciding each entry from its bit: every entry then gets its level and position in one
//! branch-free step, a word of the bitmap at a time.

use std::ops::Range;

use arrow_buffer::bit_chunk_iterator::UnalignedBitChunk;
use arrow_buffer::NullBuffer;

/// Valid runs shorter than this on average are written bit by bit rather than run by run.
const SHORT_RUNS: usize = 16;

/// How many rows of `range` are valid.
pub(super) fn valid_rows(nulls: &NullBuffer, range: &Range<usize>) -> usize {
    let bits = nulls.inner();
    UnalignedBitChunk::new(bits.values(), bits.offset() + range.start, range.len()).count_ones()
}

/// Whether `nulls` nulls among `rows` rows are frequent enough to write them bit by bit.
pub(super) fn frequent_nulls(nulls: usize, rows: usize) -> bool {
    nulls.saturating_mul(SHORT_RUNS) > rows
}

/// Appends to `def` one level per row of `range` (`valid_def` where the row is valid, one less
/// where it is null) and to `values` the positions of the valid rows.
pub(super) fn write_bits(
    nulls: &NullBuffer,
    range: Range<usize>,
    valid_def: i16,
    def: &mut Vec<i16>,
    values: &mut Vec<usize>,
) {
    let bits = nulls.inner();
    let chunks = bits
        .inner()
        .bit_chunks(bits.offset() + range.start, range.len());
    def.reserve(range.len());
    let first = values.len();
    // Every row's position is stored at the next free slot, which only valid rows move past.
    values.resize(first + range.len(), 0);
    let (mut slot, mut row) = (first, range.start);
    let words = chunks.iter().map(|word| (word, 64));
    let rest =
        (chunks.remainder_len() > 0).then(|| (chunks.remainder_bits(), chunks.remainder_len()));
    for (word, count) in words.chain(rest) {
        match word {
            // A word of nulls only (a sparse or empty column): one run of levels, no position.
            0 => def.extend(std::iter::repeat_n(valid_def - 1, count)),
            // A full word of valid rows: one run of levels, consecutive positions.
            u64::MAX => {
                def.extend(std::iter::repeat_n(valid_def, count));
                for (position, value) in values[slot..slot + count].iter_mut().zip(row..) {
                    *position = value;
                }
                slot += count;
            }
            _ => {
                def.extend((0..count).map(|bit| valid_def - 1 + ((word >> bit) & 1) as i16));
                for bit in 0..count {
                    values[slot] = row + bit;
                    slot += ((word >> bit) & 1) as usize;
                }
            }
        }
        row += count;
    }
    values.truncate(slot);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_positions_follow_the_bits() {
        let mixed: Vec<bool> = (0..150).map(|i| i % 3 != 0 && i % 7 != 2).collect();
        // Whole words of nulls, then of valid rows, then mixed: each kind of word, aligned
        // or not as the range starts.
        let blocks: Vec<bool> = (0..300)
            .map(|i| (130..260).contains(&i) || i % 5 == 4)
            .collect();
        let (short, long) = (
            [0..150, 5..140, 64..128, 3..3, 70..75],
            [0..300, 1..299, 128..192],
        );
        let cases = short.map(|r| (&mixed, r)).into_iter();
        for (validity, range) in cases.chain(long.map(|r| (&blocks, r))) {
            let nulls = NullBuffer::from(validity.clone());
            let (mut def, mut values) = (vec![9], vec![99]);
            write_bits(&nulls, range.clone(), 2, &mut def, &mut values);
            let want_def: Vec<i16> = std::iter::once(9)
                .chain(range.clone().map(|i| 1 + i16::from(validity[i])))
                .collect();
            let want_values: Vec<usize> = std::iter::once(99)
                .chain(range.clone().filter(|&i| validity[i]))
                .collect();
            assert_eq!((def, values), (want_def, want_values), "{range:?}");
        }
        let nulls = NullBuffer::from(mixed);
        assert_eq!(valid_rows(&nulls, &(0..150)), 85);
        assert!(frequent_nulls(150 - 85, 150));
        assert_eq!(valid_rows(&NullBuffer::new_valid(100), &(10..100)), 90);
        assert!(!frequent_nulls(0, 100));
    }
}
