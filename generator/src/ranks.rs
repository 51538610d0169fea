//! Drawing a Zipf rank: the inverse CDF of the rank weights, as `rand`'s `WeightedIndex<f64>`
//! defines it, found by binary search ([`WeightedIndex`]) or through a guide table
//! ([`GuidedIndex`]). Both give the same rank for the same random stream.

use rand::distr::uniform::Uniform;
use rand::distr::weighted::WeightedIndex;
use rand::distr::Distribution;

use crate::rng::RowRng;

/// Draws an index with probability proportional to its weight.
pub trait RankTable: Sized + Send + Sync + Clone + std::fmt::Debug {
    /// A table for `weights` (finite, non-negative, not all zero).
    fn from_weights(weights: &[f64]) -> Option<Self>;
    /// One index.
    fn draw(&self, rng: &mut RowRng) -> usize;
}

impl RankTable for WeightedIndex<f64> {
    fn from_weights(weights: &[f64]) -> Option<Self> {
        WeightedIndex::new(weights).ok()
    }

    #[inline]
    fn draw(&self, rng: &mut RowRng) -> usize {
        self.sample(rng)
    }
}

/// Guide buckets per index. With one per index, the Zipf tail shares buckets: for s = 1 over
/// 2,000 names, ranks past ~245 hold about a quarter of the weight, and draws there scan several
/// entries, ending in a mispredicted branch. Eight per index give almost every draw a bucket of
/// its own rank (`cargo bench -p shredlab-generator`:
/// a 16,384-row batch 1.17 ms with 1, 1.07 ms with 4, 1.03 ms with 8, 1.01 ms with 16, at 64 KiB
/// of table per 2,000 names for 8).
const BUCKETS_PER_INDEX: usize = 8;

/// `WeightedIndex<f64>`'s exact sampling (the same uniform draw over the same cumulative sums)
/// with the binary search replaced by a guide table: the draw's bucket gives the first candidate
/// index, and a short forward scan finishes, so a draw costs O(1) expected instead of log2(n)
/// unpredictable branches.
#[derive(Debug, Clone)]
pub struct GuidedIndex {
    /// Running sums of all weights but the last, computed as `WeightedIndex::new` computes them.
    cumulative: Vec<f64>,
    uniform: Uniform<f64>,
    /// `guide[g]`: the answer for the lowest value of bucket `g`.
    guide: Vec<u32>,
    /// Buckets per unit of weight.
    scale: f64,
    /// Sum of all weights.
    total: f64,
}

impl GuidedIndex {
    /// Sum of all weights: draws are points in `[0, total)`.
    pub fn total(&self) -> f64 {
        self.total
    }

    /// The index whose weight covers `chosen`, a point in `[0, total)`.
    #[inline]
    pub fn index_of(&self, chosen: f64) -> usize {
        let bucket = ((chosen * self.scale) as usize).min(self.guide.len() - 1);
        let mut index = self.guide[bucket] as usize;
        // Rounding can put `chosen` a hair below its bucket's lowest value; then the guide may
        // overshoot, and the plain search keeps the answer exact.
        if index > 0 && self.cumulative[index - 1] > chosen {
            return self.cumulative.partition_point(|&c| c <= chosen);
        }
        while index < self.cumulative.len() && self.cumulative[index] <= chosen {
            index += 1;
        }
        index
    }
}

impl RankTable for GuidedIndex {
    fn from_weights(weights: &[f64]) -> Option<Self> {
        let (&first, rest) = weights.split_first()?;
        let mut cumulative = Vec::with_capacity(rest.len());
        let mut total = first;
        for &weight in rest {
            cumulative.push(total);
            total += weight;
        }
        if !(total > 0.0 && total.is_finite()) || weights.iter().any(|w| w.is_nan() || *w < 0.0) {
            return None;
        }
        let buckets = weights.len().max(1) * BUCKETS_PER_INDEX;
        let scale = buckets as f64 / total;
        let guide = (0..buckets)
            .map(|g| {
                let lowest = g as f64 / scale;
                cumulative.partition_point(|&c| c <= lowest) as u32
            })
            .collect();
        Some(Self {
            uniform: Uniform::new(0.0, total).ok()?,
            cumulative,
            guide,
            scale,
            total,
        })
    }

    #[inline]
    fn draw(&self, rng: &mut RowRng) -> usize {
        self.index_of(self.uniform.sample(rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::row_rng;

    #[test]
    fn guided_draws_equal_weighted_index_draws() {
        for (n, exponent) in [
            (1500, 1.0),
            (2000, 1.0),
            (1000, 0.0),
            (1000, 2.5),
            (3, 1.0),
            (1, 1.0),
        ] {
            let weights: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-exponent)).collect();
            let binary = WeightedIndex::<f64>::from_weights(&weights).unwrap();
            let guided = GuidedIndex::from_weights(&weights).unwrap();
            for row in 0..200_000 {
                let (mut a, mut b) = (row_rng(5, row), row_rng(5, row));
                assert_eq!(
                    binary.draw(&mut a),
                    guided.draw(&mut b),
                    "n={n} s={exponent} row={row}"
                );
            }
        }
    }

    #[test]
    fn rejects_unusable_weights() {
        assert!(GuidedIndex::from_weights(&[]).is_none());
        assert!(GuidedIndex::from_weights(&[0.0, 0.0]).is_none());
        assert!(GuidedIndex::from_weights(&[1.0, f64::NAN]).is_none());
    }
}
