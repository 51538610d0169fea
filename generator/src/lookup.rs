//! Drawing from a handful of integer weights, as `rand`'s `WeightedIndex<u32>` draws: a uniform
//! value below the total weight, then the index whose cumulative weight covers it. `WeightedIndex`
//! finds that index by a binary search; [`SmallWeights::lookup`] reads it from a table with one
//! entry per unit of weight, which gives the same index for the same random stream.

use rand::distr::weighted::WeightedIndex;
use rand::distr::{Distribution, Uniform};

use crate::rng::RowRng;

/// The largest total weight [`SmallWeights::lookup`] tabulates (64 KiB of table); above it the
/// table would no longer stay in cache, and the binary search is kept.
const MAX_TABLE_WEIGHT: u32 = 1 << 16;

/// A draw of an index with probability proportional to its integer weight.
#[derive(Debug, Clone)]
pub enum SmallWeights {
    /// `WeightedIndex<u32>` itself: a binary search of the cumulative weights.
    Search(WeightedIndex<u32>),
    /// The same uniform value as an index into a table of one entry per unit of weight.
    Lookup {
        /// `Uniform::new(0, total)`, exactly the distribution `WeightedIndex` samples.
        uniform: Uniform<u32>,
        /// `table[v]`: the index whose weight covers the value `v`.
        table: Vec<u8>,
    },
}

impl SmallWeights {
    /// `WeightedIndex<u32>` over `weights`, or `None` where it refuses them (no weights, all zero,
    /// or a total beyond u32).
    pub fn search(weights: &[u32]) -> Option<Self> {
        WeightedIndex::new(weights).ok().map(Self::Search)
    }

    /// The table over `weights` where it is small enough (at most 256 weights totalling at most
    /// 65,536), else [`SmallWeights::search`].
    pub fn lookup(weights: &[u32]) -> Option<Self> {
        let total = weights
            .iter()
            .try_fold(0u32, |sum, &weight| sum.checked_add(weight))?;
        if total == 0 || total > MAX_TABLE_WEIGHT || weights.len() > usize::from(u8::MAX) + 1 {
            return Self::search(weights);
        }
        let mut table = Vec::with_capacity(total as usize);
        for (index, &weight) in weights.iter().enumerate() {
            let index = u8::try_from(index).expect("at most 256 weights");
            table.resize(table.len() + weight as usize, index);
        }
        Some(Self::Lookup {
            uniform: Uniform::new(0, total).ok()?,
            table,
        })
    }

    /// One index.
    #[inline]
    pub fn draw(&self, rng: &mut RowRng) -> usize {
        match self {
            Self::Search(weighted) => weighted.sample(rng),
            Self::Lookup { uniform, table } => usize::from(table[uniform.sample(rng) as usize]),
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;
    use crate::rng::row_rng;

    #[test]
    fn lookup_draws_equal_weighted_index_draws() {
        for weights in [
            &[80, 20][..],
            &[40, 45, 10, 5],
            &[90, 5, 4, 1],
            &[55, 35, 10],
            &[0, 3, 0, 7],
            &[1],
            &[1, 65_535],
        ] {
            let search = SmallWeights::search(weights).unwrap();
            let lookup = SmallWeights::lookup(weights).unwrap();
            assert!(matches!(lookup, SmallWeights::Lookup { .. }), "{weights:?}");
            for row in 0..100_000 {
                let (mut a, mut b) = (row_rng(3, row), row_rng(3, row));
                assert_eq!(
                    search.draw(&mut a),
                    lookup.draw(&mut b),
                    "{weights:?} row {row}"
                );
                assert_eq!(a.next_u64(), b.next_u64(), "both used the same draws");
            }
        }
    }

    #[test]
    fn large_totals_and_bad_weights_fall_back_or_fail() {
        assert!(matches!(
            SmallWeights::lookup(&[1, 70_000]),
            Some(SmallWeights::Search(_))
        ));
        assert!(SmallWeights::lookup(&[0, 0]).is_none());
        assert!(SmallWeights::lookup(&[]).is_none());
        assert!(SmallWeights::lookup(&[u32::MAX, 1]).is_none());
    }
}
