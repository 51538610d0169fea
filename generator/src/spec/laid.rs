//! Byte values that are entries of one vocabulary list, laid out in passes
//! (`spec-laid-vocabulary`): where each value ends, summed from its entry's length alone, then
//! every entry copied to where its value starts. Written one after another instead, each copy
//! waited for the buffer's length the copy before it left in memory.

use arrow_array::{ArrayRef, OffsetSizeTrait};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use super::arrays::{beyond_offsets, narrow_byte_array, wide_byte_array};
use super::error::SpecError;
pub(super) use super::words::NO_ENTRY;
use super::words::{WordList, BLOCK};

/// A string or binary array of `data_type` (not a fixed width) whose value `i` is entry
/// `picks[i]` of `entries`, or empty where that is [`NO_ENTRY`]: the bytes and offsets
/// [`super::arrays::written_bytes`] makes of the same entries. With `moves`, a short entry is
/// copied as a whole block ([`WordList::copy_to`]).
///
/// # Safety
/// For a string type, every entry of `entries` is valid UTF-8.
pub(super) unsafe fn laid_entries(
    data_type: &DataType,
    entries: &WordList,
    picks: &[usize],
    moves: bool,
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    match data_type {
        DataType::Utf8 | DataType::Binary => {
            let (data, offsets) = lay::<i32>(entries, picks, moves, path)?;
            // SAFETY: passed on.
            unsafe { narrow_byte_array(data_type, data, offsets, nulls, path) }
        }
        _ => {
            let (data, offsets) = lay::<i64>(entries, picks, moves, path)?;
            // SAFETY: passed on.
            unsafe { wide_byte_array(data_type, data, offsets, nulls, path) }
        }
    }
}

/// The values' bytes and offsets, or the error for more bytes than offsets of type `O`
/// address.
fn lay<O: OffsetSizeTrait>(
    entries: &WordList,
    picks: &[usize],
    moves: bool,
    path: &str,
) -> Result<(Vec<u8>, Vec<O>), SpecError> {
    // Where each value ends: a sum of lengths, collected from an iterator of known length, so
    // that the loop keeps the sum and the vector's length in registers. Not zeroed first:
    // zeroed vectors came as fresh pages from the kernel, a page fault each.
    let mut end = 0;
    let ends = picks.iter().map(|&pick| {
        end += entries.entry_len(pick);
        O::usize_as(end)
    });
    let offsets: Vec<O> = std::iter::once(O::usize_as(0)).chain(ends).collect();
    // The offsets cast as they were summed: the last, the largest, fitting means none wrapped.
    if O::from_usize(end).is_none() {
        return Err(beyond_offsets(path));
    }
    // A block of slack past the end, so that the last value's block fits: each copy lands
    // where its value starts, whatever the copies before it wrote past their ends.
    let mut data = Vec::with_capacity(end + BLOCK);
    let room = &mut data.spare_capacity_mut()[..end + BLOCK];
    for (start, &pick) in offsets.iter().zip(picks) {
        entries.copy_to(pick, &mut room[start.as_usize()..], moves);
    }
    // SAFETY: the values lie back to back from 0 to `end`, each copied whole to where it
    // starts, the copies in order: every byte below `end` is written, the last write of each
    // is its own value's.
    unsafe { data.set_len(end) };
    Ok((data, offsets))
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::ArrayRef;
    use arrow_schema::DataType;

    use super::{laid_entries, NO_ENTRY};
    use crate::spec::arrays::written_bytes;
    use crate::spec::words::WordList;

    #[test]
    fn laid_entries_are_the_entries_written_one_by_one() {
        // Entries around the block's length, an empty one among them, and a last entry
        // long enough that its block would leave the list's slack.
        let texts: Vec<String> = (0..70)
            .map(|n| "é".repeat(n % 35) + &"x".repeat(n % 3))
            .collect();
        let entries = WordList::new(&texts);
        let picks: Vec<usize> = (0..3_000usize)
            .map(|i| match i % 11 {
                0 => NO_ENTRY,
                _ => (i * i + 7 * i) % texts.len(),
            })
            .collect();
        // The values written one by one: a list of them, as the drawn paths append entries.
        let values = WordList::new(picks.iter().map(|&pick| match pick {
            NO_ENTRY => "",
            pick => &texts[pick],
        }));
        let types = [DataType::Utf8, DataType::LargeBinary, DataType::Utf8View];
        for data_type in types {
            for moves in [false, true] {
                // SAFETY: the entries are UTF-8.
                let expected: ArrayRef =
                    unsafe { written_bytes(&data_type, &values, None, "t") }.unwrap();
                let laid = unsafe { laid_entries(&data_type, &entries, &picks, moves, None, "t") }
                    .unwrap();
                assert_eq!(
                    laid.to_data(),
                    expected.to_data(),
                    "{data_type} moves {moves}"
                );
            }
        }
        let one = unsafe { laid_entries(&DataType::Utf8, &entries, &[5], true, None, "t") };
        assert_eq!(one.unwrap().as_string::<i32>().value(0), texts[5]);
    }
}
