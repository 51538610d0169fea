//! [`Levels`]: a leaf's definition levels for a batch, kept as one level and a count while
//! every entry has the same one (a column without nulls, or of nulls only), spelled out one
//! per entry once two differ.

use std::borrow::Cow;
use std::ops::Range;

/// Levels as they are appended: all alike, or spelled out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Levels {
    /// `count` entries, each at `level`.
    Same { level: i16, count: usize },
    /// One level per entry.
    Spelled(Vec<i16>),
}

/// Some of [`Levels`]' entries, in the same form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LevelSlice<'a> {
    /// `count` entries, each at the level.
    Same(i16, usize),
    /// One level per entry.
    Spelled(&'a [i16]),
}

impl Default for Levels {
    fn default() -> Self {
        Self::Same { level: 0, count: 0 }
    }
}

impl Levels {
    /// How many entries there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Same { count, .. } => *count,
            Self::Spelled(levels) => levels.len(),
        }
    }

    /// Appends `count` entries at `level`.
    pub(crate) fn push_run(&mut self, level: i16, count: usize) {
        match self {
            _ if count == 0 => {}
            Self::Same { count: 0, .. } => *self = Self::Same { level, count },
            Self::Same {
                level: same,
                count: held,
            } if *same == level => *held += count,
            Self::Same { .. } => self.spelled_mut().extend(std::iter::repeat_n(level, count)),
            Self::Spelled(levels) => levels.extend(std::iter::repeat_n(level, count)),
        }
    }

    /// The levels one per entry, for a caller that appends them so: entries alike so far are
    /// spelled out.
    pub(crate) fn spelled_mut(&mut self) -> &mut Vec<i16> {
        if let Self::Same { level, count } = *self {
            *self = Self::Spelled(vec![level; count]);
        }
        match self {
            Self::Spelled(levels) => levels,
            Self::Same { .. } => unreachable!("the levels were spelled out just above"),
        }
    }

    /// The entries in `range`.
    pub(crate) fn slice(&self, range: Range<usize>) -> LevelSlice<'_> {
        match self {
            Self::Same { level, count } => {
                debug_assert!(range.start <= range.end && range.end <= *count);
                LevelSlice::Same(*level, range.len())
            }
            Self::Spelled(levels) => LevelSlice::Spelled(&levels[range]),
        }
    }

    /// The level of entry `entry`.
    pub(crate) fn get(&self, entry: usize) -> i16 {
        match self {
            Self::Same { level, count } => {
                debug_assert!(entry < *count);
                *level
            }
            Self::Spelled(levels) => levels[entry],
        }
    }

    /// Whether every entry has the same level: held as a count, or spelled out alike (compared
    /// a block at a time, each block in one vectorized pass, so that alike levels are checked
    /// at memory speed and others stop early).
    pub(crate) fn all_alike(&self) -> bool {
        let levels = match self {
            Self::Same { .. } => return true,
            Self::Spelled(levels) => levels,
        };
        let Some(&first) = levels.first() else {
            return true;
        };
        levels.chunks(256).all(|block| {
            block
                .iter()
                .fold(true, |same, &level| same & (level == first))
        })
    }

    /// One level per entry, for writers that take them so.
    pub(crate) fn spelled(&self) -> Cow<'_, [i16]> {
        match self {
            Self::Same { level, count } => Cow::Owned(vec![*level; *count]),
            Self::Spelled(levels) => Cow::Borrowed(levels),
        }
    }
}

impl LevelSlice<'_> {
    /// How many of the entries are at `level`.
    pub(crate) fn count_at(self, level: i16) -> usize {
        match self {
            Self::Same(same, count) => usize::from(same == level) * count,
            Self::Spelled(levels) => levels.iter().filter(|&&l| l == level).count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of one level stay one; a different level spells every entry out, in order.
    #[test]
    fn alike_levels_stay_a_count_until_one_differs() {
        let mut levels = Levels::default();
        levels.push_run(2, 0);
        levels.push_run(3, 4);
        levels.push_run(3, 2);
        assert_eq!(levels, Levels::Same { level: 3, count: 6 });
        assert_eq!(levels.slice(1..4), LevelSlice::Same(3, 3));
        assert_eq!((levels.get(5), levels.len()), (3, 6));
        levels.push_run(2, 2);
        assert_eq!(levels, Levels::Spelled(vec![3, 3, 3, 3, 3, 3, 2, 2]));
        assert_eq!(levels.slice(5..8), LevelSlice::Spelled(&[3, 2, 2]));
        assert_eq!(levels.slice(4..8).count_at(3), 2);
        assert!(!levels.all_alike());
        assert!(Levels::Spelled(vec![1; 300]).all_alike());
        assert!(Levels::default().all_alike());
        assert_eq!(LevelSlice::Same(1, 5).count_at(1), 5);
        assert_eq!(LevelSlice::Same(1, 5).count_at(2), 0);
    }

    #[test]
    fn spelling_out_keeps_every_entry() {
        let mut levels = Levels::Same { level: 1, count: 3 };
        levels.spelled_mut().push(0);
        assert_eq!(levels.spelled().as_ref(), [1, 1, 1, 0]);
        assert_eq!(
            Levels::Same { level: 4, count: 2 }.spelled().as_ref(),
            [4, 4]
        );
    }
}
