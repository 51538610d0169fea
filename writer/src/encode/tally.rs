//! [`LevelTally`]: how many times each level occurs in a mini-batch's levels.

/// Up to this many levels are counted a pass per level, not in one histogram pass.
const PASSES: usize = 8;

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

    /// The counts of `count` levels that are all `level` (at most the tally's maximum).
    pub fn count_run(&mut self, level: i16, count: usize) -> &[u64] {
        self.counts.fill(0);
        if let Some(slot) = self.counts.get_mut(level as usize) {
            *slot = count as u64;
        }
        &self.counts
    }

    /// The count of each level in `levels` (none above the tally's maximum level).
    pub fn count(&mut self, levels: &[i16]) -> &[u64] {
        if self.counts.len() <= PASSES {
            // One vectorized pass per level: a histogram's increments of the same few counters
            // wait on each other, a level at a time.
            for (level, count) in (0i16..).zip(self.counts.iter_mut()) {
                *count = levels.iter().map(|&l| u64::from(l == level)).sum();
            }
            return &self.counts;
        }
        self.counts.fill(0);
        for &level in levels {
            if let Some(count) = self.counts.get_mut(level as usize) {
                *count += 1;
            }
        }
        &self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::LevelTally;

    #[test]
    fn counts_each_level_by_passes_and_by_histogram() {
        let levels: Vec<i16> = (0..1000).map(|i| (i * 7 % 13) as i16).collect();
        for max in [1i16, 3, 7, 12, 20] {
            let expected: Vec<u64> = (0..=max)
                .map(|level| levels.iter().filter(|&&l| l == level).count() as u64)
                .collect();
            assert_eq!(LevelTally::new(max).count(&levels), expected, "max {max}");
        }
        let mut tally = LevelTally::new(2);
        assert_eq!(tally.count(&[0, 1, 2, 2]), [1, 1, 2]);
        assert_eq!(tally.count_run(1, 5), [0, 5, 0]);
    }
}
