//! Which of an Arrow array's values a leaf's entries carry: [`Positions`] as the levels are
//! worked out, [`Selection`] as the encoders read them.
//!
//! Most leaves carry a run of consecutive values (a flat leaf without nulls, or the elements of
//! lists that hold no nulls). Such a run stays a range, so that nothing is written or read per
//! value to say which values they are, and the Arrow buffers are read where they lie.

use std::ops::Range;

/// The positions of the values a leaf's entries carry, in increasing order, as they are
/// appended: a range while they follow one another, each one listed once a gap comes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Positions {
    /// Consecutive positions.
    Run(Range<usize>),
    /// Positions with gaps (or set one by one, [`Positions::listed_mut`]).
    Listed(Vec<usize>),
}

impl Default for Positions {
    fn default() -> Self {
        Self::Run(0..0)
    }
}

impl Positions {
    /// How many positions there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Run(run) => run.len(),
            Self::Listed(listed) => listed.len(),
        }
    }

    /// Appends the positions `next`, which come after every position held.
    pub(crate) fn extend(&mut self, next: Range<usize>) {
        if next.is_empty() {
            return;
        }
        match self {
            Self::Run(run) if run.start == run.end => *run = next,
            Self::Run(run) if run.end == next.start => run.end = next.end,
            Self::Run(_) => self.listed_mut().extend(next),
            Self::Listed(listed) => listed.extend(next),
        }
    }

    /// The positions as a list, for a caller that appends them one by one: a run becomes
    /// its list.
    pub(crate) fn listed_mut(&mut self) -> &mut Vec<usize> {
        if let Self::Run(run) = self {
            *self = Self::Listed(run.clone().collect());
        }
        match self {
            Self::Listed(listed) => listed,
            Self::Run(_) => unreachable!("a run was listed just above"),
        }
    }

    /// The positions to read the values at: a list that turns out consecutive reads as a run.
    pub(crate) fn selection(&self) -> Selection<'_> {
        match self {
            Self::Run(run) => Selection::Run(run.clone()),
            Self::Listed(listed) => Selection::of(listed),
        }
    }
}

/// The values of an array that a batch's entries carry, in order.
#[derive(Debug, Clone)]
pub(crate) enum Selection<'s> {
    /// The values at these consecutive positions.
    Run(Range<usize>),
    /// The values at these positions, in increasing order with gaps.
    Scattered(&'s [usize]),
}

impl<'s> Selection<'s> {
    /// The selection of the values at the strictly increasing positions `at`: a run if they
    /// are consecutive, which their first and last tell.
    pub(crate) fn of(at: &'s [usize]) -> Self {
        debug_assert!(at.windows(2).all(|pair| pair[0] < pair[1]));
        match (at.first(), at.last()) {
            (Some(&first), Some(&last)) if last - first + 1 == at.len() => {
                Self::Run(first..last + 1)
            }
            (Some(_), _) => Self::Scattered(at),
            (None, _) => Self::Run(0..0),
        }
    }

    /// How many values are selected.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Run(run) => run.len(),
            Self::Scattered(at) => at.len(),
        }
    }

    /// Calls `each` with each selected position, in order.
    pub(crate) fn for_each(&self, each: impl FnMut(usize)) {
        match self {
            Self::Run(run) => run.clone().for_each(each),
            Self::Scattered(at) => at.iter().copied().for_each(each),
        }
    }

    /// Gathers `pick(position)` for each selected position.
    pub(crate) fn gather<T>(&self, pick: impl Fn(usize) -> T) -> Vec<T> {
        match self {
            Self::Run(run) => run.clone().map(pick).collect(),
            Self::Scattered(at) => at.iter().map(|&position| pick(position)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_positions_are_a_run() {
        assert!(matches!(Selection::of(&[]), Selection::Run(r) if r.is_empty()));
        assert!(matches!(Selection::of(&[4, 5, 6]), Selection::Run(r) if r == (4..7)));
        assert!(matches!(Selection::of(&[4, 6, 7]), Selection::Scattered(_)));
        assert!(matches!(Selection::of(&[4, 5, 7]), Selection::Scattered(_)));
        assert!(matches!(Selection::of(&[9]), Selection::Run(r) if r == (9..10)));
    }

    /// Adjacent ranges stay one run; a gap lists every position, in order.
    #[test]
    fn runs_grow_until_a_gap_lists_them() {
        let mut positions = Positions::default();
        positions.extend(3..5);
        positions.extend(5..5);
        positions.extend(5..8);
        assert_eq!(positions, Positions::Run(3..8));
        positions.extend(10..12);
        assert_eq!(positions, Positions::Listed(vec![3, 4, 5, 6, 7, 10, 11]));
        positions.extend(12..13);
        assert_eq!(positions.len(), 8);
        let listed = positions.selection().gather(|position| position);
        assert_eq!(listed, [3, 4, 5, 6, 7, 10, 11, 12]);
    }

    /// A list set one by one that has no gap still reads as a run.
    #[test]
    fn a_consecutive_list_reads_as_a_run() {
        let mut positions = Positions::Run(2..4);
        positions.listed_mut().push(4);
        assert_eq!(positions, Positions::Listed(vec![2, 3, 4]));
        assert!(matches!(positions.selection(), Selection::Run(r) if r == (2..5)));
        assert_eq!(positions.selection().len(), 3);
    }
}
