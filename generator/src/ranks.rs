//! Drawing a Zipf rank: the inverse CDF of the rank weights, as `rand`'s `WeightedIndex<f64>`
//! defines it, found by binary search ([`WeightedIndex`]), through a guide table indexed by the
//! uniform value ([`GuidedIndex`]), or through one indexed by the random bits that value is made
//! of ([`BitGuidedIndex`]). All give the same rank for the same random stream.

use std::convert::Infallible;

use rand::distr::uniform::Uniform;
use rand::distr::weighted::WeightedIndex;
use rand::distr::Distribution;
use rand::{Rng, TryRng};

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

/// Marks a [`BitGuidedIndex`] bucket whose every value has the same index.
const SETTLED: u32 = 1 << 31;

/// `WeightedIndex<f64>`'s exact sampling with a guide table indexed by the top bits of the random
/// word, before it becomes a float. The uniform value is a monotone function of that word, so a
/// bucket of words maps to a known range of indices: the table holds the lowest, and marks the
/// buckets where the highest is the same. Most draws then take one table read straight from the
/// random word, with no float arithmetic and no read of the cumulative sums on their path; the
/// others compute the value as `Uniform<f64>` does and scan forward from the bucket's lowest
/// index. [`GuidedIndex`], by contrast, must finish the float arithmetic before it can read its
/// table.
#[derive(Debug, Clone)]
pub struct BitGuidedIndex {
    cumulative: Vec<f64>,
    uniform: Uniform<f64>,
    /// `guide[b]`: the index of the lowest word of bucket `b`, `| SETTLED` if every word of the
    /// bucket has that index.
    guide: Vec<u32>,
    /// A word's bucket is its top `64 - shift` bits.
    shift: u32,
}

/// A random source that yields one given word: replays a draw's word through `Uniform::sample`.
struct Replay(u64);

impl TryRng for Replay {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.0 >> 32) as u32)
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0)
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        rand::rand_core::utils::fill_bytes_via_next_word(dest, || self.try_next_u64())
    }
}

impl BitGuidedIndex {
    /// The index of the uniform value made from `word`, at or after `from`.
    #[inline]
    fn scan(&self, word: u64, from: usize) -> usize {
        scan_forward(
            &self.cumulative,
            from,
            self.uniform.sample(&mut Replay(word)),
        )
    }
}

impl RankTable for BitGuidedIndex {
    fn from_weights(weights: &[f64]) -> Option<Self> {
        if weights.len() >= SETTLED as usize {
            return None;
        }
        let (cumulative, total) = cumulative_sums(weights)?;
        let uniform = Uniform::new(0.0, total).ok()?;
        // The value is monotone in the word and the buckets are visited in word order (each
        // bucket's lowest word, then its highest), so one forward sweep over the sums finds
        // every index.
        let mut index = 0;
        let mut index_of = |word: u64| {
            index = scan_forward(&cumulative, index, uniform.sample(&mut Replay(word)));
            index as u32
        };
        let bits = (weights.len().max(1) * BUCKETS_PER_INDEX)
            .next_power_of_two()
            .trailing_zeros();
        let shift = 64 - bits;
        let guide = (0..1u64 << bits)
            .map(|bucket| {
                let lowest = index_of(bucket << shift);
                let highest = index_of(((bucket + 1) << shift).wrapping_sub(1));
                if lowest == highest {
                    lowest | SETTLED
                } else {
                    lowest
                }
            })
            .collect();
        Some(Self {
            cumulative,
            uniform,
            guide,
            shift,
        })
    }

    #[inline]
    fn draw(&self, rng: &mut RowRng) -> usize {
        let word = rng.next_u64();
        let entry = self.guide[(word >> self.shift) as usize];
        let lowest = (entry & !SETTLED) as usize;
        if entry & SETTLED != 0 {
            lowest
        } else {
            self.scan(word, lowest)
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;
    use crate::rng::row_rng;

    #[test]
    fn guide_tables_draw_what_weighted_index_draws() {
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
            let bit_guided = BitGuidedIndex::from_weights(&weights).unwrap();
            for row in 0..200_000 {
                let mut rngs = [row_rng(5, row), row_rng(5, row), row_rng(5, row)];
                let expected = binary.draw(&mut rngs[0]);
                assert_eq!(
                    guided.draw(&mut rngs[1]),
                    expected,
                    "n={n} s={exponent} row={row}"
                );
                assert_eq!(
                    bit_guided.draw(&mut rngs[2]),
                    expected,
                    "n={n} s={exponent} row={row}"
                );
                let next = rngs.map(|mut rng| rng.next_u64());
                assert!(next[1] == next[0] && next[2] == next[0], "same words used");
            }
        }
    }

    /// The index of `chosen` by binary search, as `WeightedIndex` finds it.
    fn searched(cumulative: &[f64], chosen: f64) -> u32 {
        cumulative.partition_point(|&c| c <= chosen) as u32
    }

    #[test]
    fn guide_tables_hold_what_a_search_per_bucket_finds() {
        let zipf = |n: u32, exponent: f64| -> Vec<f64> {
            (1..=n).map(|k| f64::from(k).powf(-exponent)).collect()
        };
        // Zero weights repeat a sum, which the sweep must pass over as the search does.
        let weight_sets = [
            zipf(2000, 1.0),
            zipf(1000, 0.0),
            zipf(1000, 2.5),
            zipf(40, 8.0),
            zipf(1, 1.0),
            vec![0.0, 2.0, 0.0, 0.0, 1.0, 0.0],
            vec![0.0, 1.0],
        ];
        for weights in weight_sets {
            let n = weights.len();
            let guided = GuidedIndex::from_weights(&weights).unwrap();
            for (g, &index) in guided.guide.iter().enumerate() {
                let lowest = g as f64 / guided.scale;
                assert_eq!(index, searched(&guided.cumulative, lowest), "n={n} g={g}");
            }
            let bit_guided = BitGuidedIndex::from_weights(&weights).unwrap();
            let shift = bit_guided.shift;
            let index_of = |word: u64| {
                let chosen = bit_guided.uniform.sample(&mut Replay(word));
                searched(&bit_guided.cumulative, chosen)
            };
            for (bucket, &entry) in (0u64..).zip(&bit_guided.guide) {
                let lowest = index_of(bucket << shift);
                let highest = index_of(((bucket + 1) << shift).wrapping_sub(1));
                let settled = if lowest == highest { SETTLED } else { 0 };
                assert_eq!(entry, lowest | settled, "n={n} bucket={bucket}");
            }
        }
    }

    #[test]
    fn rejects_unusable_weights() {
        assert!(GuidedIndex::from_weights(&[]).is_none());
        assert!(GuidedIndex::from_weights(&[0.0, 0.0]).is_none());
        assert!(GuidedIndex::from_weights(&[1.0, f64::NAN]).is_none());
        assert!(BitGuidedIndex::from_weights(&[]).is_none());
        assert!(BitGuidedIndex::from_weights(&[0.0, 0.0]).is_none());
        assert!(BitGuidedIndex::from_weights(&[1.0, -1.0]).is_none());
    }

    #[test]
    fn zero_weights_are_never_drawn() {
        let table = BitGuidedIndex::from_weights(&[0.0, 2.0, 0.0, 0.0, 1.0, 0.0]).unwrap();
        for row in 0..50_000 {
            let index = table.draw(&mut row_rng(9, row));
            assert!(index == 1 || index == 4, "row {row}: {index}");
        }
    }
}
