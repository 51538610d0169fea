//! [`WordList`]: a vocabulary of byte strings kept back to back in one buffer, so that a drawn
//! entry is appended to a value by one copy of known size where it is short.

/// Entries up to this long are copied as one block of this many bytes.
const BLOCK: usize = 16;

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
    /// copy. The same bytes either way.
    #[inline]
    pub fn append(&self, index: usize, out: &mut Vec<u8>, moves: bool) {
        let (start, end) = (self.start(index), self.ends[index]);
        match self.bytes[start..].first_chunk::<BLOCK>() {
            Some(block) if moves && end - start <= BLOCK => {
                let length = out.len() + end - start;
                out.extend_from_slice(block);
                out.truncate(length);
            }
            _ => out.extend_from_slice(&self.bytes[start..end]),
        }
    }

    fn start(&self, index: usize) -> usize {
        match index {
            0 => 0,
            _ => self.ends[index - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WordList;

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
}
