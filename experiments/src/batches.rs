//! Rows cut into batches. Batch `i` holds the `i`-th run of `batch_rows` consecutive rows, the
//! last one what is left; with row groups ([`BatchRanges::in_row_groups`]) the rows are first
//! cut into row groups and each row group into batches, so no batch straddles two row groups.
//! Every consumer of a workload (the pipeline's producers and fused workers, `--prebuilt`, the
//! Python package's streams) cuts the same way, so batch indices name the same rows everywhere.

use std::ops::Range;

/// A range of rows cut into batches of a fixed size, optionally inside row groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchRanges {
    rows: Range<u64>,
    batch_rows: u64,
    /// Rows per row group (`u64::MAX` without row groups).
    group_rows: u64,
}

impl BatchRanges {
    /// `rows` in batches of `batch_rows` (a size of 0 counts as 1).
    pub fn new(rows: Range<u64>, batch_rows: usize) -> Self {
        Self::in_row_groups(rows, batch_rows, u64::MAX)
    }

    /// `rows` cut into row groups of `group_rows`, each cut into batches of `batch_rows` (sizes
    /// of 0 count as 1). With `group_rows` a multiple of `batch_rows`, the batches are those of
    /// [`Self::new`].
    pub fn in_row_groups(rows: Range<u64>, batch_rows: usize, group_rows: u64) -> Self {
        Self {
            rows,
            batch_rows: (batch_rows as u64).max(1),
            group_rows: group_rows.max(1),
        }
    }

    /// Rows per batch (the last of each row group may have fewer).
    pub fn batch_rows(&self) -> usize {
        self.batch_rows as usize
    }

    fn len(&self) -> u64 {
        self.rows.end.saturating_sub(self.rows.start)
    }

    /// Batches in a whole row group.
    fn per_group(&self) -> u64 {
        self.group_rows.div_ceil(self.batch_rows)
    }

    /// Number of batches.
    pub fn count(&self) -> u64 {
        let (len, group) = (self.len(), self.group_rows);
        (len / group) * self.per_group() + (len % group).div_ceil(self.batch_rows)
    }

    /// Number of row groups (1 without row groups, unless there are no rows).
    pub fn group_count(&self) -> u64 {
        self.len().div_ceil(self.group_rows)
    }

    /// The indices of row group `group`'s batches; empty past the last row group.
    pub fn batches_of_group(&self, group: u64) -> Range<u64> {
        let count = self.count();
        let first = group.saturating_mul(self.per_group()).min(count);
        first..first.saturating_add(self.per_group()).min(count)
    }

    /// Rows of batch `index`; empty past the last batch.
    pub fn rows_of(&self, index: u64) -> Range<u64> {
        let per_group = self.per_group();
        let (group, within) = (index / per_group, index % per_group);
        let group_start = self
            .rows
            .start
            .saturating_add(group.saturating_mul(self.group_rows))
            .min(self.rows.end);
        let group_end = group_start
            .saturating_add(self.group_rows)
            .min(self.rows.end);
        let start = group_start
            .saturating_add(within * self.batch_rows)
            .min(group_end);
        start..start.saturating_add(self.batch_rows).min(group_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(batches: &BatchRanges) -> Vec<Range<u64>> {
        (0..batches.count()).map(|i| batches.rows_of(i)).collect()
    }

    #[test]
    fn batches_cover_the_rows_once_in_order() {
        let batches = BatchRanges::new(5..15, 4);
        assert_eq!(batches.count(), 3);
        assert_eq!(all(&batches), [5..9, 9..13, 13..15]);
        assert_eq!(batches.rows_of(3), 15..15);
        assert_eq!(batches.group_count(), 1);
        assert_eq!(batches.batches_of_group(0), 0..3);
    }

    #[test]
    fn row_groups_cut_batches_at_their_ends() {
        let batches = BatchRanges::in_row_groups(0..23, 4, 10);
        assert_eq!(
            all(&batches),
            [0..4, 4..8, 8..10, 10..14, 14..18, 18..20, 20..23]
        );
        assert_eq!(batches.group_count(), 3);
        let groups: Vec<_> = (0..4).map(|g| batches.batches_of_group(g)).collect();
        assert_eq!(groups, [0..3, 3..6, 6..7, 7..7]);
        assert_eq!(batches.rows_of(7), 23..23);
    }

    #[test]
    fn row_groups_of_whole_batches_change_nothing() {
        for (rows, batch, group) in [(0..100, 8, 32), (7..1000, 16, 64), (0..5, 8, 8)] {
            let plain = BatchRanges::new(rows.clone(), batch);
            let grouped = BatchRanges::in_row_groups(rows, batch, group);
            assert_eq!(all(&plain), all(&grouped));
        }
    }

    #[test]
    fn huge_indices_and_row_counts_do_not_overflow() {
        let batches = BatchRanges::new(0..u64::MAX, 1 << 20);
        assert_eq!(batches.count(), u64::MAX.div_ceil(1 << 20));
        assert_eq!(batches.rows_of(u64::MAX), u64::MAX..u64::MAX);
        let grouped = BatchRanges::in_row_groups(0..u64::MAX, 1 << 20, 3 << 20);
        assert_eq!(grouped.count(), batches.count());
        assert_eq!(grouped.rows_of(u64::MAX), u64::MAX..u64::MAX);
        assert_eq!(BatchRanges::new(0..0, 0).count(), 0);
    }
}
