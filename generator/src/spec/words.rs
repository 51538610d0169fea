//! [`WordList`]: a vocabulary of byte strings kept back to back in one buffer, so that a drawn
//! entry is appended to a value by one copy of known size where it is short.

use std::mem::MaybeUninit;

use super::arrays::ByteValues;

/// The index of no entry: what a slot without a value picks ([`WordList::entry_len`],
/// [`WordList::copy_to`]).
pub(super) const NO_ENTRY: usize = usize::MAX;

/// Entries up to this long are copied as one block of this many bytes.
pub(super) const BLOCK: usize = 32;

/// The entries of one vocabulary.
#[derive(Debug, Clone)]
pub(super) struct WordList {
    /// The entries back to back, then [`BLOCK`] bytes of slack: a block read from any entry's
    /// start stays inside.
    bytes: Vec<u8>,
    /// Where each entry ends in `bytes` (the one before ends where it starts).
    ends: Vec<usize>,
}

impl WordList {
    /// The list of `entries`, in order.
    pub fn new<E: AsRef<[u8]>>(entries: impl IntoIterator<Item = E>) -> Self {
        let mut bytes = Vec::new();
        let ends = entries
            .into_iter()
            .map(|entry| {
                bytes.extend_from_slice(entry.as_ref());
                bytes.len()
            })
            .collect();
        bytes.extend_from_slice(&[0; BLOCK]);
        Self { bytes, ends }
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The bytes of all entries together.
    pub fn total_len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Entry `index`.
    #[inline]
    pub fn entry(&self, index: usize) -> &[u8] {
        &self.bytes[self.start(index)..self.ends[index]]
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|index| self.entry(index))
    }

    /// Appends entry `index` to `out`. With `moves` (`spec-word-moves`), a short entry is
    /// copied as the [`BLOCK`] bytes from its start, then cut back to its length: a copy of
    /// known size compiles to two moves, where a call to `memcpy` per entry costs more than the
    /// copy. The same bytes either way. Inlined where it is called: as a call, its register
    /// saves cost more than a short entry's copy.
    #[inline(always)]
    pub fn append(&self, index: usize, out: &mut Vec<u8>, moves: bool) {
        let (start, end) = (self.start(index), self.ends[index]);
        match self.bytes[start..].first_chunk::<BLOCK>() {
            Some(block) if moves && end - start <= BLOCK => append_cut(out, block, end - start),
            _ => out.extend_from_slice(&self.bytes[start..end]),
        }
    }

    /// The length of entry `index`; 0 for [`NO_ENTRY`] (a slot without a value).
    #[inline(always)]
    pub fn entry_len(&self, index: usize) -> usize {
        match index {
            NO_ENTRY => 0,
            _ => self.ends[index] - self.start(index),
        }
    }

    /// Copies entry `index` to the start of `out`; nothing for [`NO_ENTRY`]. With `moves`, a
    /// short entry is copied as the [`BLOCK`] bytes from its start where `out` has room for
    /// them ([`Self::append`]'s block move): the bytes past its end are the next value's
    /// place, written after it.
    #[inline(always)]
    pub fn copy_to(&self, index: usize, out: &mut [MaybeUninit<u8>], moves: bool) {
        if index == NO_ENTRY {
            return;
        }
        let (start, end) = (self.start(index), self.ends[index]);
        let entry = &self.bytes[start..end];
        match (
            self.bytes[start..].first_chunk::<BLOCK>(),
            out.first_chunk_mut(),
        ) {
            (Some(block), Some(room)) if moves && entry.len() <= BLOCK => copy_block(block, room),
            _ => copy_bytes(entry, out),
        }
    }

    fn start(&self, index: usize) -> usize {
        match index {
            0 => 0,
            _ => self.ends[index - 1],
        }
    }
}

impl ByteValues for WordList {
    fn count(&self) -> usize {
        self.len()
    }

    fn capacity(&self) -> usize {
        self.total_len()
    }

    #[inline(always)]
    fn write(&self, i: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(self.entry(i));
    }
}

/// Copies `block` into `room`: as one value, a few moves.
#[inline(always)]
fn copy_block(block: &[u8; BLOCK], room: &mut [MaybeUninit<u8>; BLOCK]) {
    // SAFETY: `room` is `BLOCK` bytes, laid out as `[u8; BLOCK]`, with no alignment to keep.
    unsafe { std::ptr::write(room.as_mut_ptr().cast::<[u8; BLOCK]>(), *block) };
}

/// Copies `bytes` to the start of `out`, which is as long at least: a `memcpy` call, out of
/// line so that the compiler does not merge it with [`copy_block`]'s moves into one call of
/// either size (as with [`append_cut`]; merged, `memmove` took 15% of the otel-logs preset's
/// profile and its generation 7% more CPU).
#[inline(never)]
fn copy_bytes(bytes: &[u8], out: &mut [MaybeUninit<u8>]) {
    let out = &mut out[..bytes.len()];
    // SAFETY: both are `bytes.len()` long and apart (a list's bytes, the caller's buffer);
    // `MaybeUninit<u8>` is laid out as `u8`.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast(), bytes.len()) };
}

/// Appends the first `len` bytes of `block` (`len` at most `N`): as the whole block, then cut
/// back to `len`, where `out` has room for it (a copy of known size compiles to a few moves,
/// where a `memcpy` call per short value costs more than the copy), else as the `len` bytes
/// alone, so that a buffer sized for its values never grows for the block's slack.
#[inline]
pub(super) fn append_cut<const N: usize>(out: &mut Vec<u8>, block: &[u8; N], len: usize) {
    if out.capacity() - out.len() >= N {
        let end = out.len() + len;
        out.extend_from_slice(block);
        out.truncate(end);
    } else {
        append_at_capacity(out, &block[..len]);
    }
}

/// Appends `bytes` to a buffer at its capacity's end: a call of its own, as the two copies of
/// [`append_cut`] inlined side by side were merged into one `memcpy` call of either size.
#[cold]
#[inline(never)]
fn append_at_capacity(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::{append_cut, WordList};

    /// Entries of every length around the block's, empty ones among them, append the same
    /// bytes with and without block moves.
    #[test]
    fn block_moves_append_each_entry_s_bytes() {
        let entries: Vec<Vec<u8>> = (0..40).map(|n| vec![b'a' + (n % 26) as u8; n]).collect();
        let list = WordList::new(&entries);
        for (index, entry) in entries.iter().enumerate() {
            for moves in [false, true] {
                let mut out = b"x ".to_vec();
                list.append(index, &mut out, moves);
                assert_eq!(out[2..], entry[..], "entry {index}, moves {moves}");
            }
            assert_eq!(list.entry(index), &entry[..]);
        }
        assert_eq!(
            list.total_len(),
            entries.iter().map(Vec::len).sum::<usize>()
        );
    }

    /// A block cut to each length appends that many of its bytes, whether or not the buffer
    /// has room for the whole block, and a full buffer is not grown past what it needs.
    #[test]
    fn cut_blocks_append_their_first_bytes() {
        let block = *b"0123456789abcdef";
        for len in 0..=16 {
            for room in [0, 16, 64] {
                let mut out = Vec::with_capacity(2 + room);
                out.extend_from_slice(b"x ");
                append_cut(&mut out, &block, len);
                assert_eq!(out[2..], block[..len], "len {len}, room {room}");
            }
        }
        let mut exact = Vec::with_capacity(4);
        append_cut(&mut exact, &block, 4);
        assert_eq!(
            exact.capacity(),
            4,
            "a buffer without room takes the bytes alone"
        );
    }
}
