//! Where each byte-array value that a [`Selection`] picks lies in the array's value buffer
//! ([`Spans`]), and which dictionary value each key picks ([`Keys`]): a run of consecutive
//! values reads the Arrow offsets where they are, nothing gathered per value.

use std::ops::Range;

use arrow_buffer::ArrowNativeType;

use super::positions::Selection;

/// Where each selected byte-array value lies in its buffer, by its index in the selection.
#[derive(Debug)]
pub(crate) enum Spans<'a> {
    /// Arrow's 32-bit offsets from the first selected value's on: value `i` spans
    /// `offsets[i]..offsets[i + 1]`.
    Offsets(&'a [i32]),
    /// Arrow's 64-bit offsets, the same way.
    LargeOffsets(&'a [i64]),
    /// One range per value, gathered from scattered positions.
    Gathered(Vec<Range<usize>>),
}

impl<'a> Spans<'a> {
    /// The spans of `selection`'s values in an array with `offsets`: the offsets themselves
    /// (wrapped by `borrowed`) for a run, gathered ranges otherwise.
    pub(crate) fn new<O: ArrowNativeType>(
        offsets: &'a [O],
        selection: &Selection<'_>,
        borrowed: fn(&'a [O]) -> Self,
    ) -> Self {
        match selection {
            Selection::Run(run) => borrowed(&offsets[run.start..=run.end]),
            Selection::Scattered(_) => Self::Gathered(
                selection.gather(|i| offsets[i].as_usize()..offsets[i + 1].as_usize()),
            ),
        }
    }

    /// How many values there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Offsets(offsets) => offsets.len().saturating_sub(1),
            Self::LargeOffsets(offsets) => offsets.len().saturating_sub(1),
            Self::Gathered(spans) => spans.len(),
        }
    }

    /// At least the total length of the values in `range` (exactly, for offsets): the length
    /// of the buffer from the first one's start to the last one's end, which holds them all
    /// since the values lie in the buffer in order, one after the other.
    /// `None` where the offsets do not rise, as a valid array's never fall.
    pub(crate) fn bound(&self, range: Range<usize>) -> Option<usize> {
        if range.is_empty() {
            return Some(0);
        }
        self.span(range.end - 1)
            .end
            .checked_sub(self.span(range.start).start)
    }

    /// The total length of the values in `range`.
    pub(crate) fn total(&self, range: Range<usize>) -> usize {
        match self {
            Self::Gathered(spans) => spans[range].iter().map(ExactSizeIterator::len).sum(),
            // Offsets never fall in a valid array: the values lie one after the other.
            _ => self.bound(range).unwrap_or_default(),
        }
    }

    /// The range of value `value` in the buffer.
    #[inline(always)]
    pub(crate) fn span(&self, value: usize) -> Range<usize> {
        match self {
            Self::Offsets(offsets) => offsets[value] as usize..offsets[value + 1] as usize,
            Self::LargeOffsets(offsets) => offsets[value] as usize..offsets[value + 1] as usize,
            Self::Gathered(spans) => spans[value].clone(),
        }
    }
}

/// The keys of the selected values of an Arrow dictionary array, as indices into its values.
#[derive(Debug)]
pub(crate) struct Keys {
    /// Every key of the array (or the selected ones, gathered), from `first` on.
    keys: Vec<usize>,
    first: usize,
}

impl Keys {
    /// The keys of `selection`'s values, given every key of the array.
    pub(crate) fn new(all: Vec<usize>, selection: &Selection<'_>) -> Self {
        match selection {
            Selection::Run(run) => Self {
                keys: all,
                first: run.start,
            },
            Selection::Scattered(_) => Self {
                keys: selection.gather(|position| all[position]),
                first: 0,
            },
        }
    }

    /// The key of value `value`.
    #[inline(always)]
    pub(crate) fn get(&self, value: usize) -> usize {
        self.keys[self.first + value]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_reads_the_offsets_a_scatter_gathers_them() {
        let offsets = [0i32, 2, 5, 9, 10];
        for at in [&[1usize, 2, 3][..], &[0, 2, 3]] {
            let selection = Selection::of(at);
            let spans = Spans::new(&offsets, &selection, Spans::Offsets);
            let got: Vec<_> = (0..spans.len()).map(|v| spans.span(v)).collect();
            let want: Vec<_> = at
                .iter()
                .map(|&i| offsets[i] as usize..offsets[i + 1] as usize)
                .collect();
            assert_eq!(got, want);
        }
        let keys = Keys::new(vec![7, 8, 9, 10], &Selection::of(&[1, 2]));
        assert_eq!((keys.get(0), keys.get(1)), (8, 9));
        let keys = Keys::new(vec![7, 8, 9, 10], &Selection::of(&[1, 3]));
        assert_eq!((keys.get(0), keys.get(1)), (8, 10));
    }
}
