//! The hypervisor's steal over timed rounds. `time_rounds` (scripts/common.sh) records, for
//! each timed round, the CPU time the host took from this machine's CPUs meanwhile
//! (`/proc/stat`'s steal column, every CPU, 10 ms ticks), one `ROUND<TAB>SECONDS` line each in
//! `steal.tsv` beside the rounds' JSON. A report says how much there was, so that a comparison
//! made on a busy host says so.

use std::fmt::Write as _;

use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};

/// The share of the rounds' CPU time past which the steal makes the timings suspect.
pub const BUSY_HOST_SHARE: f64 = 0.02;

/// What the host took over a set of timed rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundSteal {
    /// Rounds recorded.
    pub rounds: usize,
    /// Seconds taken over every round.
    pub total_s: f64,
    /// The most taken in one round, seconds.
    pub max_s: f64,
    /// That round's number (from 1).
    pub max_round: usize,
    /// The timed commands' CPU seconds over every round (user + system), for scale.
    pub cpu_s: f64,
}

impl RoundSteal {
    /// The steal of `steal_tsv`'s lines, set against the rounds' `cpu_s`.
    pub fn parse(steal_tsv: &str, cpu_s: f64) -> Result<Self> {
        let mut rounds = Vec::new();
        for (i, line) in steal_tsv.lines().enumerate() {
            let (round, seconds) = line.split_once('\t').with_context(|| {
                format!("steal line {}: not ROUND<TAB>SECONDS: {line:?}", i + 1)
            })?;
            let round: usize = round
                .parse()
                .with_context(|| format!("steal line {}", i + 1))?;
            let seconds: f64 = seconds
                .parse()
                .with_context(|| format!("steal line {}", i + 1))?;
            ensure!(
                seconds.is_finite() && seconds >= 0.0,
                "steal line {}: {seconds} s",
                i + 1
            );
            rounds.push((round, seconds));
        }
        ensure!(!rounds.is_empty(), "no round's steal recorded");
        let (max_round, max_s) = rounds
            .iter()
            .copied()
            .fold(
                (0, f64::NEG_INFINITY),
                |most, r| if r.1 > most.1 { r } else { most },
            );
        Ok(Self {
            rounds: rounds.len(),
            total_s: rounds.iter().map(|r| r.1).sum(),
            max_s,
            max_round,
            cpu_s,
        })
    }

    /// The steal as a share of the rounds' CPU time.
    pub fn share(&self) -> f64 {
        self.total_s / self.cpu_s.max(f64::MIN_POSITIVE)
    }

    /// A README paragraph: how much, where the most, and whether the host was busy.
    pub fn markdown(&self) -> String {
        let mut text = format!(
            "Host steal over the {} timed rounds (the hypervisor's, from `/proc/stat`, every \
             CPU): {:.2} s, {:.1} % of the rounds' {:.1} CPU s",
            self.rounds,
            self.total_s,
            self.share() * 100.0,
            self.cpu_s
        );
        if self.max_s > 0.0 {
            let _ = write!(
                text,
                "; at most {:.2} s, in round {}",
                self.max_s, self.max_round
            );
        }
        text.push('.');
        if self.share() > BUSY_HOST_SHARE {
            text.push_str(
                " A busy host: the rounds ran slow by up to that much, unevenly, so small \
                 differences here may be the host's.",
            );
        }
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_steal_is_summed_and_its_worst_round_named() {
        let steal = RoundSteal::parse("1\t0.00\n2\t0.12\n3\t0.03\n", 10.0).unwrap();
        assert_eq!((steal.rounds, steal.max_round), (3, 2));
        assert!((steal.total_s - 0.15).abs() < 1e-12 && steal.max_s == 0.12);
        let text = steal.markdown();
        assert!(
            text.contains("0.15 s, 1.5 % of the rounds' 10.0 CPU s; at most 0.12 s, in round 2."),
            "{text}"
        );
        assert!(!text.contains("busy host"), "{text}");
        let busy = RoundSteal::parse("1\t0.5\n", 10.0).unwrap();
        assert!(busy.markdown().contains("A busy host"));
        let quiet = RoundSteal::parse("1\t0\n2\t0\n", 4.0).unwrap().markdown();
        assert!(
            quiet.contains(": 0.00 s, 0.0 % of the rounds' 4.0 CPU s."),
            "{quiet}"
        );
    }

    #[test]
    fn malformed_steal_files_are_refused_with_the_line() {
        for bad in ["", "1 0.5\n", "x\t0.5\n", "1\t-0.1\n", "1\tNaN\n"] {
            let error = RoundSteal::parse(bad, 1.0).unwrap_err();
            assert!(
                bad.is_empty() || format!("{error:#}").contains("line 1"),
                "{bad:?}: {error:#}"
            );
        }
    }
}
