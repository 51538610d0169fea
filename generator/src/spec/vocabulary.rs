//! Drawing an entry of a finite vocabulary: uniformly, by Zipf rank, or by given weights.

use super::draw::{Draw, Slot, Stream};
use super::{Distribution, Params};
use crate::{GuidedIndex, RankTable};

/// The probabilities of a vocabulary of `len` entries, one table per word of a value.
#[derive(Debug, Clone)]
pub(super) struct Picker {
    table: GuidedIndex,
}

impl Picker {
    /// Weights for `len` entries under `params`' distribution (`len` >= 1).
    pub fn new(params: &Params, len: usize) -> Self {
        let weights: Vec<f64> = match params.distribution {
            Distribution::Zipf { s } => (1..=len).map(|k| (k as f64).powf(-s)).collect(),
            Distribution::Categorical if !params.weights.is_empty() => params.weights.clone(),
            _ => vec![1.0; len],
        };
        Self {
            table: GuidedIndex::from_weights(&weights)
                .expect("weights validated: finite, >= 0, not all 0, at least one"),
        }
    }

    /// The entry for `slot`, from draw `draw`.
    #[inline]
    pub fn pick(&self, stream: Stream, slot: Slot, draw: Draw) -> usize {
        self.table
            .index_of(stream.fraction(slot, draw) * self.table.total())
    }
}

/// The draw that picks word `word` of a value.
pub(super) fn word_draw(word: usize) -> Draw {
    match word {
        0 => Draw::Value,
        n => Draw::Extra(n as u64),
    }
}
