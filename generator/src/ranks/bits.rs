//! [`BitGuidedIndex`]: a guide table indexed by the random word's top bits, for any mapping of
//! the word to a point ([`WordPoint`]) that never decreases as the word grows.

use std::convert::Infallible;

use rand::distr::uniform::Uniform;
use rand::distr::Distribution;
use rand::{Rng, TryRng};

use super::{cumulative_sums, scan_forward, GuidedIndex, RankTable, BUCKETS_PER_INDEX};
use crate::rng::{unit_fraction, RowRng};

/// Marks a [`BitGuidedIndex`] bucket of 32-bit entries whose every value has the same index.
pub(super) const SETTLED: u32 = 1 << 31;

/// A guide table's entry: a bucket's lowest index, its top bit set when every word of the
/// bucket has that index. A narrower entry holds fewer indices in half the bytes, so the same
/// memory holds twice the buckets, and fewer draws land in a bucket two indices share.
pub trait GuideEntry: Copy + Eq + Send + Sync + std::fmt::Debug {
    /// How many indices the entries can tell apart.
    const INDICES: usize;
    /// The entry for a bucket whose lowest index is `lowest` (below [`Self::INDICES`]).
    fn new(lowest: usize, settled: bool) -> Self;
    /// The bucket's lowest index, and whether every word of the bucket has it.
    fn read(self) -> (usize, bool);
}

impl GuideEntry for u32 {
    const INDICES: usize = SETTLED as usize;

    fn new(lowest: usize, settled: bool) -> Self {
        lowest as u32 | if settled { SETTLED } else { 0 }
    }

    #[inline]
    fn read(self) -> (usize, bool) {
        ((self & !SETTLED) as usize, self & SETTLED != 0)
    }
}

impl GuideEntry for u16 {
    const INDICES: usize = 1 << 15;

    fn new(lowest: usize, settled: bool) -> Self {
        lowest as u16 | if settled { 1 << 15 } else { 0 }
    }

    #[inline]
    fn read(self) -> (usize, bool) {
        ((self & !(1 << 15)) as usize, self >> 15 != 0)
    }
}

/// How a draw's random word becomes a point in `[0, total)`. It must never decrease as the word
/// grows: then a bucket of words (all words with the same top bits) maps to a range of indices
/// known from its lowest and highest word, which is what [`BitGuidedIndex`] tabulates.
pub trait WordPoint: Sized + Clone + std::fmt::Debug + Send + Sync {
    /// The mapping onto `[0, total)`, or `None` for a total it cannot take.
    fn over(total: f64) -> Option<Self>;
    /// The point of `word`.
    fn point(&self, word: u64) -> f64;
}

/// `Uniform<f64>`'s sample from the word, as `WeightedIndex<f64>` draws (the contacts' ranks).
impl WordPoint for Uniform<f64> {
    fn over(total: f64) -> Option<Self> {
        Uniform::new(0.0, total).ok()
    }

    #[inline]
    fn point(&self, word: u64) -> f64 {
        self.sample(&mut Replay(word))
    }
}

/// The word's top 53 bits as a fraction of one ([`unit_fraction`]), times the total: the point
/// of a spec column's draws.
#[derive(Debug, Clone, Copy)]
pub struct ScaledFraction {
    total: f64,
}

impl WordPoint for ScaledFraction {
    fn over(total: f64) -> Option<Self> {
        (total > 0.0 && total.is_finite()).then_some(Self { total })
    }

    #[inline]
    fn point(&self, word: u64) -> f64 {
        unit_fraction(word) * self.total
    }
}

/// `WeightedIndex<f64>`'s exact sampling with a guide table indexed by the top bits of the random
/// word, before it becomes a float. The point is a nondecreasing function of that word
/// ([`WordPoint`]: `Uniform<f64>`'s sample by default), so a bucket of words maps to a known
/// range of indices: the table holds the lowest, and marks the buckets where the highest is the
/// same. Most draws then take one table read straight from the random word, with no float
/// arithmetic and no read of the cumulative sums on their path; the others compute the point
/// and scan forward from the bucket's lowest index. [`GuidedIndex`], by contrast, must finish
/// the float arithmetic before it can read its table.
#[derive(Debug, Clone)]
pub struct BitGuidedIndex<P = Uniform<f64>, E = u32> {
    pub(super) cumulative: Vec<f64>,
    pub(super) point: P,
    /// `guide[b]`: the index of the lowest word of bucket `b`, marked settled if every word of
    /// the bucket has that index.
    pub(super) guide: Vec<E>,
    /// A word's bucket is its top `64 - shift` bits.
    pub(super) shift: u32,
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

impl<P: WordPoint> BitGuidedIndex<P, u16> {
    /// [`BitGuidedIndex::compact_of`] with 16-bit entries: twice its buckets in the same bytes
    /// (`spec-narrow-guides`), the same draws; `None` from 32,768 indices on.
    pub fn narrow_of(guided: &GuidedIndex) -> Option<Self> {
        Self::from_guided(guided, 1)
    }
}

impl<P: WordPoint> BitGuidedIndex<P> {
    /// A table for `weights` (finite, non-negative, not all zero) with the largest power of two
    /// of buckets that is at most [`BUCKETS_PER_INDEX`] per index (so at least half that): no
    /// larger than [`GuidedIndex`]'s, which the spec generator's memory bound counts on.
    pub fn compact(weights: &[f64]) -> Option<Self> {
        let (cumulative, total) = cumulative_sums(weights)?;
        Self::from_sums(cumulative, total, compact_bits(weights.len()))
    }

    /// [`Self::compact`] for the weights `guided` was made from: the same draws, read by bits.
    pub fn compact_of(guided: &GuidedIndex) -> Option<Self> {
        Self::from_guided(guided, 0)
    }
}

impl<P: WordPoint, E: GuideEntry> BitGuidedIndex<P, E> {
    /// A table over the sums `guided` was made from, with `2^doublings` times the compact
    /// bucket count.
    fn from_guided(guided: &GuidedIndex, doublings: u32) -> Option<Self> {
        let indices = guided.cumulative.len() + 1;
        Self::from_sums(
            guided.cumulative.clone(),
            guided.total,
            compact_bits(indices) + doublings,
        )
    }

    /// A table of `2^bits` buckets over the running sums of all weights but the last and their
    /// total; `None` when its entries cannot tell the indices apart.
    fn from_sums(cumulative: Vec<f64>, total: f64, bits: u32) -> Option<Self> {
        if cumulative.len() >= E::INDICES - 1 {
            return None;
        }
        let point = P::over(total)?;
        // The point never decreases with the word and the buckets are visited in word order
        // (each bucket's lowest word, then its highest), so one forward sweep over the sums
        // finds every index.
        let mut index = 0;
        let mut index_of = |word: u64| {
            index = scan_forward(&cumulative, index, point.point(word));
            index
        };
        let shift = 64 - bits;
        let guide = (0..1u64 << bits)
            .map(|bucket| {
                let lowest = index_of(bucket << shift);
                let highest = index_of(((bucket + 1) << shift).wrapping_sub(1));
                E::new(lowest, lowest == highest)
            })
            .collect();
        Some(Self {
            cumulative,
            point,
            guide,
            shift,
        })
    }

    /// How many indices it draws from: one per weight.
    pub fn indices(&self) -> usize {
        self.cumulative.len() + 1
    }

    /// The index whose weight covers the point of `word`.
    #[inline]
    pub fn index_of_word(&self, word: u64) -> usize {
        let (lowest, settled) = self.guide[(word >> self.shift) as usize].read();
        if settled {
            lowest
        } else {
            scan_forward(&self.cumulative, lowest, self.point.point(word))
        }
    }
}

/// The bits of [`BitGuidedIndex::compact`]'s bucket count for `indices` indices.
fn compact_bits(indices: usize) -> u32 {
    (indices.max(1) * BUCKETS_PER_INDEX).ilog2()
}

impl RankTable for BitGuidedIndex {
    fn from_weights(weights: &[f64]) -> Option<Self> {
        let (cumulative, total) = cumulative_sums(weights)?;
        let buckets = weights.len().max(1) * BUCKETS_PER_INDEX;
        Self::from_sums(
            cumulative,
            total,
            buckets.next_power_of_two().trailing_zeros(),
        )
    }

    #[inline]
    fn draw(&self, rng: &mut RowRng) -> usize {
        self.index_of_word(rng.next_u64())
    }
}
