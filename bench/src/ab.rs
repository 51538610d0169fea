//! An A/B of two commands timed side by side in interleaved rounds (`make ab`): each round
//! times A once and B once (A first in odd rounds, B first in even ones), so the machine's
//! drift and the cost of going second hit both alike, and B is compared with A round by round: the median of the rounds' B/A ratios, tested by the Wilcoxon signed-rank
//! test on their logarithms.

use std::fmt::Write as _;

use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};

use crate::markdown::{Align, Table};
use crate::parse::hyperfine::{merge_rounds, HyperfineResult};
use crate::stats::{median, wilcoxon_signed_rank_p};
use crate::steal::RoundSteal;

/// One side's timings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// The command as timed.
    pub command: String,
    /// Median wall time, seconds.
    pub median_s: f64,
    /// Fastest and slowest run.
    pub min_s: f64,
    /// Slowest run.
    pub max_s: f64,
    /// Mean user + system CPU seconds.
    pub cpu_s: f64,
}

impl Side {
    fn of(result: &HyperfineResult) -> Self {
        Self {
            command: result.command.clone(),
            median_s: result.median,
            min_s: result.min,
            max_s: result.max,
            cpu_s: result.user + result.system,
        }
    }
}

/// B against A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbComparison {
    /// The baseline.
    pub a: Side,
    /// The change.
    pub b: Side,
    /// Rounds timed.
    pub rounds: usize,
    /// Median over the rounds of B's time over A's.
    pub median_ratio: f64,
    /// Two-sided p of the Wilcoxon signed-rank test of the rounds' log ratios.
    pub p: Option<f64>,
    /// What the hypervisor took from the machine over the rounds, where they recorded it.
    #[serde(default)]
    pub steal: Option<RoundSteal>,
}

/// Whether B is faster or slower than A, or no different: see [`AbComparison::verdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// B takes less time.
    Faster,
    /// B takes more time.
    Slower,
    /// No difference this test can tell from the noise.
    NoChange,
}

/// The p-value below which a verdict names a change: stricter than the catalog's, as one
/// command set against itself here differed by 1.0% at p=0.03 (results/vm/ab-same-command-36).
pub const VERDICT_P: f64 = 0.01;
/// The smallest change of the median round ratio a verdict names.
pub const VERDICT_MIN_CHANGE: f64 = 0.02;

impl AbComparison {
    /// B against A: a change where the rounds' ratios differ from 1 at p < [`VERDICT_P`] and
    /// their median by at least [`VERDICT_MIN_CHANGE`], no change otherwise.
    pub fn verdict(&self) -> Verdict {
        let significant = self.p.is_some_and(|p| p < VERDICT_P);
        match (significant, self.median_ratio - 1.0) {
            (true, change) if change >= VERDICT_MIN_CHANGE => Verdict::Slower,
            (true, change) if change <= -VERDICT_MIN_CHANGE => Verdict::Faster,
            _ => Verdict::NoChange,
        }
    }

    /// The comparison an A/B left in `ab_json`.
    ///
    /// # Errors
    ///
    /// The file cannot be read or is not an A/B's `ab.json`.
    pub fn read(ab_json: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(ab_json)
            .with_context(|| format!("cannot read {}", ab_json.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not an A/B's ab.json", ab_json.display()))
    }

    /// The verdict in words, with its figures.
    pub fn verdict_line(&self) -> String {
        let change = (self.median_ratio - 1.0) * 100.0;
        let p = self
            .p
            .map_or("every round tied".to_string(), |p| format!("p={p:.4}"));
        let words = match self.verdict() {
            Verdict::Faster => "B is faster than A",
            Verdict::Slower => "B is slower than A",
            Verdict::NoChange => "no change between A and B",
        };
        format!(
            "{words}: {change:+.1}% wall time, {p}, {} rounds (a change needs p < {VERDICT_P} and at least {:.0}%)",
            self.rounds,
            VERDICT_MIN_CHANGE * 100.0
        )
    }

    /// The comparison of rounds that each timed A and B once (A being the first command of
    /// the first round).
    pub fn from_rounds(rounds: &[Vec<HyperfineResult>]) -> Result<Self> {
        let merged = merge_rounds(rounds)?;
        ensure!(
            merged.len() == 2,
            "an A/B times two commands per round, these rounds time {}",
            merged.len()
        );
        let (a, b) = (&merged[0], &merged[1]);
        ensure!(
            a.rounds.is_some() && a.times.len() == b.times.len(),
            "each round must time each command once"
        );
        let ratios: Vec<f64> = b.times.iter().zip(&a.times).map(|(b, a)| b / a).collect();
        let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
        Ok(Self {
            a: Side::of(a),
            b: Side::of(b),
            rounds: ratios.len(),
            median_ratio: median(&ratios),
            p: wilcoxon_signed_rank_p(&logs),
            steal: None,
        })
    }

    /// Adds the host's steal over the rounds, from `time_rounds`' `steal.tsv` at `path`.
    pub fn read_steal(&mut self, path: &std::path::Path) -> Result<()> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let cpu_s = (self.a.cpu_s + self.b.cpu_s) * self.rounds as f64;
        let steal =
            RoundSteal::parse(&text, cpu_s).with_context(|| format!("in {}", path.display()))?;
        self.steal = Some(steal);
        Ok(())
    }

    /// The README of the comparison, titled `title`, with `command` the line that made it.
    pub fn markdown(&self, title: &str, command: &str) -> String {
        let mut text = format!("# {title}\n\n`{command}`\n\n");
        let _ = writeln!(
            text,
            "{} interleaved rounds, each timing A and B once (hyperfine), A first in odd rounds and \
             B first in even ones. B against A: \
             the median over the rounds of B's time over A's, tested by the two-sided Wilcoxon \
             signed-rank test on the rounds' log ratios.\n",
            self.rounds
        );
        let mut table = Table::new([
            ("side", Align::Left),
            ("command", Align::Left),
            ("median s", Align::Right),
            ("min s", Align::Right),
            ("max s", Align::Right),
            ("CPU s", Align::Right),
        ]);
        for (name, side) in [("A", &self.a), ("B", &self.b)] {
            table.row([
                name.to_string(),
                format!("`{}`", side.command),
                format!("{:.3}", side.median_s),
                format!("{:.3}", side.min_s),
                format!("{:.3}", side.max_s),
                format!("{:.2}", side.cpu_s),
            ]);
        }
        text.push_str(&table.to_string());
        let change = (self.median_ratio - 1.0) * 100.0;
        let verdict = match self.p {
            Some(p) if p < crate::readme::ALPHA => format!("significant, p={p:.4}"),
            Some(p) => format!("not significant, p={p:.2}"),
            None => "every round tied".to_string(),
        };
        let _ = writeln!(text, "\nB against A: {change:+.1}% wall time ({verdict}).");
        let _ = writeln!(text, "\nVerdict: {}.", self.verdict_line());
        if let Some(steal) = &self.steal {
            let _ = write!(text, "\n{}", steal.markdown());
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn round(a: f64, b: f64) -> Vec<HyperfineResult> {
        [("a", a), ("b", b)]
            .into_iter()
            .map(|(command, time)| HyperfineResult {
                command: command.to_string(),
                mean: time,
                stddev: None,
                median: time,
                user: time,
                system: 0.0,
                min: time,
                max: time,
                times: vec![time],
                memory_usage_byte: None,
                parameters: BTreeMap::new(),
                rounds: None,
            })
            .collect()
    }

    #[test]
    fn b_is_compared_with_a_round_by_round() {
        // A drifts from 1.0 to 0.8; B is 1% slower in every round.
        let rounds: Vec<_> = (0..8)
            .map(|i| {
                let a = 1.0 - 0.025 * f64::from(i);
                round(a, a * (1.01 + 0.0001 * f64::from(i)))
            })
            .collect();
        let ab = AbComparison::from_rounds(&rounds).unwrap();
        assert_eq!(ab.rounds, 8);
        assert!(
            (ab.median_ratio - 1.01035).abs() < 1e-4,
            "{}",
            ab.median_ratio
        );
        // Eight rounds all one way: 2 / 2^8.
        assert_eq!(ab.p, Some(2.0 / 256.0));
        let text = ab.markdown("A/B", "make ab");
        assert!(
            text.contains("B against A: +1.0% wall time (significant, p=0.0078)."),
            "{text}"
        );
        assert!(AbComparison::from_rounds(&[vec![round(1.0, 1.0)[0].clone()]]).is_err());
        assert_eq!(
            ab.verdict(),
            Verdict::NoChange,
            "1% is below the verdict's 2%"
        );
        assert!(
            text.contains("Verdict: no change between A and B: +1.0%"),
            "{text}"
        );
    }

    #[test]
    fn verdicts_need_both_a_small_p_and_a_large_enough_change() {
        let shifted = |factor: f64, rounds: i32| {
            let rounds: Vec<_> = (0..rounds)
                .map(|i| {
                    let a = 1.0 + 0.01 * f64::from(i);
                    round(a, a * factor * (1.0 + 0.0001 * f64::from(i)))
                })
                .collect();
            AbComparison::from_rounds(&rounds).unwrap()
        };
        assert_eq!(shifted(1.10, 10).verdict(), Verdict::Slower);
        assert_eq!(shifted(0.90, 10).verdict(), Verdict::Faster);
        assert_eq!(
            shifted(1.10, 6).verdict(),
            Verdict::NoChange,
            "6 rounds one way: p = 2/64, above 0.01"
        );
        assert!(shifted(0.90, 10)
            .verdict_line()
            .starts_with("B is faster than A: -10.0%"));
    }
}
