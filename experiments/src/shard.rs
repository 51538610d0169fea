//! Sharding a run: shard `i` of `n` generates exactly its contiguous slice of the rows, so `n`
//! processes (a Kubernetes indexed job, a Slurm array) together write the same data as one run.

use std::ops::Range;

use crate::error::PipelineError;

/// Shard `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

impl Default for Shard {
    fn default() -> Self {
        Self::WHOLE
    }
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` (0-based, like a Kubernetes completion index) of `count`.
    pub fn try_new(index: u64, count: u64) -> Result<Self, PipelineError> {
        if count == 0 {
            return Err(PipelineError::Zero("parts"));
        }
        if index >= count {
            return Err(PipelineError::ShardOutOfRange {
                part: index,
                parts: count,
            });
        }
        Ok(Self { index, count })
    }

    /// The shard's index.
    pub fn index(self) -> u64 {
        self.index
    }

    /// The number of shards.
    pub fn count(self) -> u64 {
        self.count
    }

    /// This shard's rows out of `total`: contiguous, as even as possible, covering every row once.
    pub fn rows(self, total: u64) -> Range<u64> {
        let bound = |i: u64| (u128::from(total) * u128::from(i) / u128::from(self.count)) as u64;
        bound(self.index)..bound(self.index + 1)
    }

    /// The prefix of this shard's file names: `part-` for a whole run, else
    /// `shard-IIIII-of-NNNNN-part-`, so shards can share a directory.
    pub fn file_prefix(self) -> String {
        if self.count == 1 {
            "part-".to_string()
        } else {
            format!("shard-{:05}-of-{:05}-part-", self.index, self.count)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_row_once() {
        for (total, count) in [(10, 3), (7, 7), (3, 5), (2_000_000_000, 64), (0, 2)] {
            let mut next = 0;
            for index in 0..count {
                let rows = Shard::try_new(index, count).unwrap().rows(total);
                assert_eq!(rows.start, next);
                next = rows.end;
            }
            assert_eq!(next, total);
        }
        assert_eq!(Shard::try_new(1, 3).unwrap().rows(10), 3..6);
    }

    #[test]
    fn bad_shards_are_named() {
        let err = Shard::try_new(3, 2).unwrap_err().to_string();
        assert!(err.contains("--part 3") && err.contains("0 to 1"), "{err}");
        assert!(Shard::try_new(0, 0)
            .unwrap_err()
            .to_string()
            .contains("--parts"));
        assert_eq!(
            Shard::try_new(2, 4).unwrap().file_prefix(),
            "shard-00002-of-00004-part-"
        );
        assert_eq!(Shard::WHOLE.file_prefix(), "part-");
    }
}
