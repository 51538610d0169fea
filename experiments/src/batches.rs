//! Rows cut into batches: batch `i` holds the `i`-th run of `batch_rows` consecutive rows, the
//! last one what is left. Every consumer of a workload (the pipeline, the Python package's
//! streams) cuts the same way, so batch indices name the same rows everywhere.

use std::ops::Range;

/// A range of rows cut into batches of a fixed size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchRanges {
    rows: Range<u64>,
    batch_rows: u64,
}

impl BatchRanges {
    /// `rows` in batches of `batch_rows` (a batch size of 0 counts as 1).
    pub fn new(rows: Range<u64>, batch_rows: usize) -> Self {
        Self {
            rows,
            batch_rows: (batch_rows as u64).max(1),
        }
    }

    /// Rows per batch (the last may have fewer).
    pub fn batch_rows(&self) -> usize {
        self.batch_rows as usize
    }

    /// Number of batches.
    pub fn count(&self) -> u64 {
        (self.rows.end - self.rows.start).div_ceil(self.batch_rows)
    }

    /// Rows of batch `index`; empty past the last batch.
    pub fn rows_of(&self, index: u64) -> Range<u64> {
        let offset = index.saturating_mul(self.batch_rows);
        let start = self.rows.start.saturating_add(offset).min(self.rows.end);
        start..start.saturating_add(self.batch_rows).min(self.rows.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_the_rows_once_in_order() {
        let batches = BatchRanges::new(5..15, 4);
        assert_eq!(batches.count(), 3);
        let ranges: Vec<_> = (0..4).map(|i| batches.rows_of(i)).collect();
        assert_eq!(ranges, [5..9, 9..13, 13..15, 15..15]);
    }

    #[test]
    fn huge_indices_and_row_counts_do_not_overflow() {
        let batches = BatchRanges::new(0..u64::MAX, 1 << 20);
        assert_eq!(batches.count(), u64::MAX.div_ceil(1 << 20));
        assert_eq!(batches.rows_of(u64::MAX), u64::MAX..u64::MAX);
        assert_eq!(BatchRanges::new(0..0, 0).count(), 0);
    }
}
