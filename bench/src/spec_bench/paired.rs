//! Ratios of two cells of `make spec-bench` paired within each interleaved round.

use std::collections::BTreeMap;

use super::readme::TimedRun;
use crate::stats::median;

/// The ratios of `f(a's run) / f(b's run)` within each round, summed up: paired, so that a
/// ratio compares two runs under the same state of a noisy machine (a write's CPU time
/// alternated between 1.0 and 1.5 s with the page cache's writeback), not two medians that may
/// each fall in another state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedRatio {
    /// The median of the rounds' ratios.
    pub median: f64,
    /// The lowest round's.
    pub lowest: f64,
    /// The highest round's.
    pub highest: f64,
}

impl PairedRatio {
    /// The target's verdict on the median, and whether every round agrees.
    pub fn verdict(self, limit: f64) -> &'static str {
        match (
            self.median <= limit,
            self.highest <= limit,
            self.lowest <= limit,
        ) {
            (true, true, _) => "met",
            (true, false, _) => "met by the median, not in every round",
            (false, _, true) => "missed by the median, met in some rounds",
            (false, _, false) => "missed",
        }
    }
}

/// The rounds' ratios of cells `a` and `b` under `f`, or `None` when no round has both.
pub fn paired_ratio(
    runs: &[TimedRun],
    a: &str,
    b: &str,
    f: fn(&TimedRun) -> f64,
) -> Option<PairedRatio> {
    let of = |cell: &str| -> BTreeMap<i64, &TimedRun> {
        runs.iter()
            .filter(|r| r.cell == cell)
            .map(|r| (r.round, r))
            .collect()
    };
    let (a, b) = (of(a), of(b));
    let ratios: Vec<f64> = a
        .iter()
        .filter_map(|(round, a)| b.get(round).map(|b| f(a) / f(b)))
        .collect();
    let bound = |fold: fn(f64, f64) -> f64| ratios.iter().copied().reduce(fold);
    Some(PairedRatio {
        median: (!ratios.is_empty()).then(|| median(&ratios))?,
        lowest: bound(f64::min)?,
        highest: bound(f64::max)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(round: i64, cell: &str, cpu_s: f64) -> TimedRun {
        TimedRun {
            round,
            cell: cell.into(),
            wall_s: 1.0,
            cpu_s,
            max_rss_kb: 1024,
            rows: 100,
            bytes: 0,
        }
    }

    #[test]
    fn ratios_pair_the_runs_of_a_round() {
        // The medians, 1.25 against 1.375, would say 0.91x by chance; the rounds say 0.61x,
        // 0.91x twice and 1.5x.
        let runs = [
            at(0, "a", 1.0),
            at(0, "b", 1.1),
            at(1, "a", 1.0),
            at(1, "b", 1.65),
            at(2, "a", 1.5),
            at(2, "b", 1.65),
            at(3, "a", 9.0),
            at(4, "a", 1.5),
            at(4, "b", 1.0),
        ];
        let ratio = paired_ratio(&runs, "a", "b", |r| r.cpu_s).unwrap();
        assert!((ratio.median - 1.0 / 1.1).abs() < 1e-9, "{ratio:?}");
        assert!((ratio.lowest - 1.0 / 1.65).abs() < 1e-9, "{ratio:?}");
        assert_eq!(ratio.verdict(0.95), "met by the median, not in every round");
        assert_eq!(ratio.verdict(0.5), "missed");
        assert_eq!(
            ratio.verdict(0.7),
            "missed by the median, met in some rounds"
        );
        assert_eq!(ratio.verdict(2.0), "met");
        assert_eq!(paired_ratio(&runs, "a", "none", |r| r.cpu_s), None);
    }
}
