//! [`LevelTally`]: how many times each level occurs in a mini-batch's levels.

/// How many times each level occurs in a mini-batch's levels: one pass gives a page its rows
/// (repetition level 0), nulls and histograms.
#[derive(Debug)]
pub(crate) struct LevelTally {
    counts: Vec<u64>,
}

impl LevelTally {
    /// A tally of levels up to `max_level`.
    pub fn new(max_level: i16) -> Self {
        Self {
            counts: vec![0; max_level.max(0) as usize + 1],
        }
    }

    /// The count of each level in `levels` (none above the tally's maximum level).
    pub fn count(&mut self, levels: &[i16]) -> &[u64] {
        self.counts.fill(0);
        for &level in levels {
            if let Some(count) = self.counts.get_mut(level as usize) {
                *count += 1;
            }
        }
        &self.counts
    }
}
