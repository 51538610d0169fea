//! Drawing an entry of a finite vocabulary: uniformly, by Zipf rank, or by given weights.

use super::draw::{Draw, Slot, Stream};
use super::{Distribution, Params, SpecPaths};
use crate::rng::unit_fraction;
use crate::{BitGuidedIndex, GuidedIndex, RankTable, ScaledFraction};

/// Draws an index with probability proportional to its weight: the entry of a vocabulary, or
/// a length by `length_weights`.
// An explicit tag: with the niche of a table's vector as the tag, telling the variants apart
// took eight instructions at every pick.
#[derive(Debug, Clone)]
#[repr(u8)]
pub(super) enum Picker {
    /// A guide table indexed by the draw's point in `[0, total)`.
    Point(GuidedIndex),
    /// A guide table indexed by the draw's top bits (`spec-bit-guided-draws`): the same index,
    /// most often without computing the point.
    Bits(BitGuidedIndex<ScaledFraction>),
    /// The same with 16-bit entries, twice the buckets in the same bytes
    /// (`spec-narrow-guides`): fewer draws land in a bucket two indices share.
    NarrowBits(BitGuidedIndex<ScaledFraction, u16>),
}

impl Picker {
    /// Weights for `len` entries under `params`' distribution (`len` >= 1).
    pub fn new(params: &Params, len: usize) -> Self {
        let weights: Vec<f64> = match params.distribution {
            // The `libm` crate's `pow`: the C library's depends on the CPU (see
            // `spec/normal.rs`).
            Distribution::Zipf { s } => (1..=len).map(|k| libm::pow(k as f64, -s)).collect(),
            Distribution::Categorical if !params.weights.is_empty() => params.weights.clone(),
            _ => vec![1.0; len],
        };
        Self::from_weights(&weights)
            .expect("weights validated: finite, >= 0, not all 0, at least one")
    }

    /// For `weights`, or `None` unless they are finite, non-negative and not all zero.
    pub fn from_weights(weights: &[f64]) -> Option<Self> {
        GuidedIndex::from_weights(weights).map(Self::Point)
    }

    /// Draws by the faster paths `paths` turns on from now on: the same indices. With
    /// `spec-bit-guided-draws`, by the draw's bits, through 16-bit entries where they hold the
    /// indices and `spec-narrow-guides` is on.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        let Self::Point(guided) = self else { return };
        if !paths.bit_guided_draws {
            return;
        }
        // The guided table was built from the same sums, so they are usable.
        let narrow = match paths.narrow_guides {
            true => BitGuidedIndex::narrow_of(guided),
            false => None,
        };
        *self = match narrow {
            Some(narrow) => Self::NarrowBits(narrow),
            None => {
                Self::Bits(BitGuidedIndex::compact_of(guided).expect("weights already checked"))
            }
        };
    }

    /// How many indices it picks from: every pick is below this.
    pub fn indices(&self) -> usize {
        match self {
            Self::Point(table) => table.indices(),
            Self::Bits(table) => table.indices(),
            Self::NarrowBits(table) => table.indices(),
        }
    }

    /// The index for `slot`, from draw `draw`.
    #[inline(always)]
    pub fn pick(&self, stream: Stream, slot: Slot, draw: Draw) -> usize {
        self.pick_bits(stream.bits(slot, draw))
    }

    /// The index a draw of these random `bits` picks ([`Stream::bits`]).
    #[inline(always)]
    pub fn pick_bits(&self, bits: u64) -> usize {
        match self {
            Self::Point(table) => table.index_of(unit_fraction(bits) * table.total()),
            Self::Bits(table) => table.index_of_word(bits),
            Self::NarrowBits(table) => table.index_of_word(bits),
        }
    }
}

/// The draw that picks word `word` of a value.
pub(super) fn word_draw(word: usize) -> Draw {
    match word {
        0 => Draw::Value,
        n => Draw::Extra(n as u64),
    }
}
