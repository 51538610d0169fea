//! Drawing a Zipf rank: the inverse CDF of the rank weights, as `rand`'s `WeightedIndex<f64>`
//! defines it, found by binary search ([`WeightedIndex`]), through a guide table indexed by the
//! uniform value ([`GuidedIndex`]), or through one indexed by the random bits that value is made
//! of ([`BitGuidedIndex`]). All give the same rank for the same random stream. The last also
//! serves the spec generator, whose draws make their point in `[0, total)` another way
//! ([`ScaledFraction`]): any mapping of the word that never decreases as the word grows will do.

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
/// its own rank, at 64 KiB of table per 2,000 names (`cargo bench -p shredlab-generator` times
/// the draws). [`BitGuidedIndex`] rounds the same count up to a power of two.
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
    /// How many indices it draws from: one per weight.
    pub fn indices(&self) -> usize {
        self.cumulative.len() + 1
    }

    /// Sum of all weights: draws are points in `[0, total)`.
    pub fn total(&self) -> f64 {
        self.total
    }

    /// The index whose weight covers `chosen`, a point in `[0, total)`.
    #[inline]
    pub fn index_of(&self, chosen: f64) -> usize {
        let bucket = ((chosen * self.scale) as usize).min(self.guide.len() - 1);
        let index = self.guide[bucket] as usize;
        // Rounding can put `chosen` a hair below its bucket's lowest value; then the guide may
        // overshoot, and the plain search keeps the answer exact.
        if index > 0 && self.cumulative[index - 1] > chosen {
            return self.cumulative.partition_point(|&c| c <= chosen);
        }
        scan_forward(&self.cumulative, index, chosen)
    }
}

/// The index whose weight covers `chosen`, scanning `cumulative` forward from `from`, an index
/// known not to be past the answer.
#[inline]
fn scan_forward(cumulative: &[f64], from: usize, chosen: f64) -> usize {
    let mut index = from;
    while index < cumulative.len() && cumulative[index] <= chosen {
        index += 1;
    }
    index
}

impl RankTable for GuidedIndex {
    fn from_weights(weights: &[f64]) -> Option<Self> {
        let (cumulative, total) = cumulative_sums(weights)?;
        let buckets = weights.len().max(1) * BUCKETS_PER_INDEX;
        let scale = buckets as f64 / total;
        // Bucket lows rise with `g`, so one forward sweep over the sums finds every bucket's
        // index (`partition_point` per bucket would search `buckets` times).
        let mut index = 0;
        let guide = (0..buckets)
            .map(|g| {
                index = scan_forward(&cumulative, index, g as f64 / scale);
                index as u32
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

/// The running sums of all weights but the last, as `WeightedIndex::new` computes them, and the
/// total; `None` unless the weights are finite, non-negative and not all zero.
fn cumulative_sums(weights: &[f64]) -> Option<(Vec<f64>, f64)> {
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
    Some((cumulative, total))
}

mod bits;
#[cfg(test)]
mod tests;

pub use bits::{BitGuidedIndex, GuideEntry, ScaledFraction, WordPoint};
