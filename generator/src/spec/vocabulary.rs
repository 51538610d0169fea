//! Drawing an entry of a finite vocabulary: uniformly, by Zipf rank, or by given weights.

use super::draw::{Draw, Slot, Stream};
use super::{Distribution, Params, SpecPaths};
use crate::{BitGuidedIndex, GuidedIndex, RankTable, ScaledFraction};

/// Draws an index with probability proportional to its weight: the entry of a vocabulary, or
/// a length by `length_weights`.
#[derive(Debug, Clone)]
pub(super) enum Picker {
    /// A guide table indexed by the draw's point in `[0, total)`.
    ByPoint(GuidedIndex),
    /// A guide table indexed by the draw's top bits (`spec-bit-guided-draws`): the same index,
    /// most often without computing the point.
    ByBits(BitGuidedIndex<ScaledFraction>),
    /// This many entries, each of weight 1 (`spec-even-picks`): the point's whole part, which
    /// is the index the guide table gives, computed without reading a table.
    Even(usize),
}

impl Picker {
    /// Weights for `len` entries under `params`' distribution (`len` >= 1).
    pub fn new(params: &Params, len: usize) -> Self {
        let weights: Vec<f64> = match params.distribution {
            Distribution::Zipf { s } => (1..=len).map(|k| (k as f64).powf(-s)).collect(),
            Distribution::Categorical if !params.weights.is_empty() => params.weights.clone(),
            _ => vec![1.0; len],
        };
        Self::from_weights(&weights)
            .expect("weights validated: finite, >= 0, not all 0, at least one")
    }

    /// For `weights`, or `None` unless they are finite, non-negative and not all zero.
    pub fn from_weights(weights: &[f64]) -> Option<Self> {
        GuidedIndex::from_weights(weights).map(Self::ByPoint)
    }

    /// Draws by the faster paths `paths` turns on from now on: the same indices. Evenly
    /// weighted entries are computed from the point (`spec-even-picks`), others read by the
    /// draw's bits (`spec-bit-guided-draws`).
    pub fn set_paths(&mut self, paths: SpecPaths) {
        let Self::ByPoint(guided) = self else { return };
        if paths.even_picks {
            if let Some(count) = guided.even_count() {
                *self = Self::Even(count);
                return;
            }
        }
        if paths.bit_guided_draws {
            // The guided table was built from the same sums, so they are usable.
            let by_bits = BitGuidedIndex::compact_of(guided).expect("weights already checked");
            *self = Self::ByBits(by_bits);
        }
    }

    /// The index for `slot`, from draw `draw`.
    #[inline]
    pub fn pick(&self, stream: Stream, slot: Slot, draw: Draw) -> usize {
        match self {
            Self::ByPoint(table) => table.index_of(stream.fraction(slot, draw) * table.total()),
            Self::ByBits(table) => table.index_of_word(stream.bits(slot, draw)),
            Self::Even(count) => even_index(stream.fraction(slot, draw), *count),
        }
    }
}

/// The index of `fraction` among `count` entries of weight 1. The running sums are 1, 2, ..,
/// `count - 1`, exactly, so the index, how many of them the point reaches, is the point's
/// whole part. (A fraction below 1 times the count rounds to below the count; the cap at the
/// last entry keeps the index in range whatever the rounding.)
#[inline]
fn even_index(fraction: f64, count: usize) -> usize {
    ((fraction * count as f64) as usize).min(count - 1)
}

/// The draw that picks word `word` of a value.
pub(super) fn word_draw(word: usize) -> Draw {
    match word {
        0 => Draw::Value,
        n => Draw::Extra(n as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::{even_index, Picker};
    use crate::spec::draw::{Draw, Slot, Stream};
    use crate::spec::SpecPaths;

    /// Evenly weighted entries computed from the point give the guide table's index, for
    /// counts that fill the table's buckets evenly and unevenly, and for the largest fractions,
    /// whose points fall closest to the count; other weights keep the table.
    #[test]
    fn even_picks_are_the_guide_table_s() {
        let even = SpecPaths {
            even_picks: true,
            ..SpecPaths::default()
        };
        for count in [1, 2, 3, 7, 11, 50, 1000, 100_003] {
            let table = Picker::from_weights(&vec![1.0; count]).unwrap();
            let mut computed = table.clone();
            computed.set_paths(even);
            assert!(matches!(computed, Picker::Even(n) if n == count));
            let stream = Stream::new(9, count as u64);
            for row in 0..20_000 {
                let slot = Slot::row(row, false);
                assert_eq!(
                    table.pick(stream, slot, Draw::Value),
                    computed.pick(stream, slot, Draw::Value),
                    "{count} entries, row {row}"
                );
            }
        }
        let top = 1.0 - f64::EPSILON / 2.0;
        for count in (1..200).chain([65_537, 1 << 20]) {
            let Picker::ByPoint(table) = Picker::from_weights(&vec![1.0; count]).unwrap() else {
                unreachable!("tables start by point")
            };
            for fraction in [
                0.0,
                0.5,
                top,
                1.0 - 1e-9,
                (count as f64 - 1.0) / count as f64,
            ] {
                assert_eq!(
                    even_index(fraction, count),
                    table.index_of(fraction * table.total()),
                    "{count} entries, fraction {fraction}"
                );
            }
        }
        let uneven = Picker::from_weights(&[1.0, 2.0, 1.0]).unwrap();
        let mut kept = uneven.clone();
        kept.set_paths(even);
        assert!(matches!(kept, Picker::ByPoint(_)));
    }
}
