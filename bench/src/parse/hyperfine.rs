//! hyperfine's `--export-json` output, in both the 1.15 (Debian) and 1.20 layouts, and the
//! merge of interleaved rounds (one run of every command per hyperfine call) into one result
//! per command.

use std::collections::BTreeMap;

use anyhow::{bail, ensure, Result};
use serde::{Deserialize, Serialize};

use crate::stats::median;

/// One benchmarked command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HyperfineResult {
    /// The command line.
    pub command: String,
    /// Mean wall time in seconds.
    pub mean: f64,
    /// Standard deviation, absent for a single run.
    pub stddev: Option<f64>,
    /// Median wall time.
    pub median: f64,
    /// Mean user time.
    pub user: f64,
    /// Mean system time.
    pub system: f64,
    /// Fastest run.
    pub min: f64,
    /// Slowest run.
    pub max: f64,
    /// Every run's wall time.
    pub times: Vec<f64>,
    /// Peak memory of each run (hyperfine >= 1.19 only).
    #[serde(default)]
    pub memory_usage_byte: Option<Vec<u64>>,
    /// Values of `--parameter-list` parameters for this command.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
    /// Not hyperfine's: set by [`merge_rounds`] when every round timed each command once, to
    /// one identifier for all the commands merged from the same rounds. Two results with the
    /// same identifier are paired: their run `i` was timed in the same round, side by side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Export {
    results: Vec<HyperfineResult>,
}

/// The results of an export.
pub fn parse(json: &str) -> Result<Vec<HyperfineResult>, serde_json::Error> {
    Ok(serde_json::from_str::<Export>(json)?.results)
}

/// `results` as hyperfine would export them.
pub fn export(results: Vec<HyperfineResult>) -> String {
    serde_json::to_string_pretty(&Export { results }).expect("results serialize")
}

/// Merges rounds of hyperfine exports, each timing every command in turn, into one result per
/// command (in the first round's order, matched by name in the others) with every round's runs:
/// the host's drift then hits every command alike, instead of whichever ran during a slow spell.
/// Every round must time the same commands. When each round ran every command once, the results carry the same
/// [`HyperfineResult::rounds`] identifier, so that their runs can be compared round by round.
pub fn merge_rounds(rounds: &[Vec<HyperfineResult>]) -> Result<Vec<HyperfineResult>> {
    let Some(first) = rounds.first() else {
        bail!("no rounds to merge");
    };
    let paired = rounds
        .iter()
        .flatten()
        .all(|result| result.times.len() == 1);
    let identifier = paired.then(|| rounds_identifier(rounds));
    let mut merged = Vec::with_capacity(first.len());
    for template in first {
        let mut times = Vec::new();
        let (mut user, mut system) = (Vec::new(), Vec::new());
        let mut memory = Some(Vec::new());
        for (round, results) in rounds.iter().enumerate() {
            ensure!(
                results.len() == first.len(),
                "round {} timed {} commands, round 1 timed {}",
                round + 1,
                results.len(),
                first.len()
            );
            // By name: a round may time the commands in another order (make ab alternates).
            let Some(result) = results.iter().find(|r| r.command == template.command) else {
                bail!(
                    "round {} has no '{}', which round 1 times",
                    round + 1,
                    template.command
                );
            };
            // hyperfine's user and system figures are means over the round's runs.
            let runs = result.times.len() as f64;
            user.push((result.user, runs));
            system.push((result.system, runs));
            times.extend_from_slice(&result.times);
            memory = memory
                .zip(result.memory_usage_byte.as_ref())
                .map(|(mut all, more)| {
                    all.extend_from_slice(more);
                    all
                });
        }
        let weighted_mean = |values: &[(f64, f64)]| {
            values.iter().map(|(v, n)| v * n).sum::<f64>()
                / values.iter().map(|(_, n)| n).sum::<f64>()
        };
        let n = times.len() as f64;
        let mean = times.iter().sum::<f64>() / n;
        let stddev = (times.len() > 1)
            .then(|| (times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
        merged.push(HyperfineResult {
            command: template.command.clone(),
            mean,
            stddev,
            median: median(&times),
            user: weighted_mean(&user),
            system: weighted_mean(&system),
            min: times.iter().copied().fold(f64::INFINITY, f64::min),
            max: times.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            times,
            memory_usage_byte: memory,
            parameters: template.parameters.clone(),
            rounds: identifier.clone(),
        });
    }
    Ok(merged)
}

/// [`merge_rounds`] for a sweep whose commands are named by their settings, `NAME=VALUE` pairs
/// separated by spaces (`writers=2 batch=4096 producers=2`): each merged result gets them as
/// its parameters, as hyperfine's `--parameter-list` gives them, so the sweep's cells can be
/// timed in interleaved rounds and still be charted by setting.
pub fn merge_sweep_rounds(rounds: &[Vec<HyperfineResult>]) -> Result<Vec<HyperfineResult>> {
    let mut merged = merge_rounds(rounds)?;
    let mut names = std::collections::BTreeSet::new();
    for result in &mut merged {
        ensure!(
            names.insert(result.command.clone()),
            "the sweep times '{}' twice: give each setting once",
            result.command
        );
        result.parameters = result
            .command
            .split_whitespace()
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if !name.is_empty() && !value.is_empty() => {
                    Ok((name.to_string(), value.to_string()))
                }
                _ => bail!(
                    "sweep command name '{}' is not NAME=VALUE pairs: '{pair}'",
                    result.command
                ),
            })
            .collect::<Result<_>>()?;
    }
    Ok(merged)
}

/// An identifier of a set of rounds: a hash of every command and time in them, as 16 hex digits.
fn rounds_identifier(rounds: &[Vec<HyperfineResult>]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for result in rounds.iter().flatten() {
        result.command.hash(&mut hasher);
        for time in &result.times {
            time.to_bits().hash(&mut hasher);
        }
    }
    format!("{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hyperfine_1_15() {
        let results = parse(include_str!("../../tests/fixtures/hyperfine-1.15.json")).unwrap();
        assert_eq!(results.len(), 1);
        let r = &results[0];
        assert_eq!(r.times.len(), 3);
        assert!((r.median - 0.2041).abs() < 1e-4);
        assert_eq!(r.memory_usage_byte, None);
    }

    fn one_run(command: &str, time: f64, user: f64) -> HyperfineResult {
        HyperfineResult {
            command: command.to_string(),
            mean: time,
            stddev: None,
            median: time,
            user,
            system: 0.1,
            min: time,
            max: time,
            times: vec![time],
            memory_usage_byte: Some(vec![1000]),
            parameters: BTreeMap::new(),
            rounds: None,
        }
    }

    #[test]
    fn rounds_merge_into_one_result_per_command() {
        let rounds = vec![
            vec![one_run("a", 1.0, 1.5), one_run("b", 2.0, 3.0)],
            vec![one_run("a", 3.0, 2.5), one_run("b", 4.0, 5.0)],
            vec![one_run("a", 2.0, 2.0), one_run("b", 6.0, 4.0)],
        ];
        let merged = merge_rounds(&rounds).unwrap();
        assert_eq!(merged.len(), 2);
        let a = &merged[0];
        assert_eq!(
            (a.command.as_str(), a.times.clone()),
            ("a", vec![1.0, 3.0, 2.0])
        );
        assert_eq!((a.mean, a.median, a.min, a.max), (2.0, 2.0, 1.0, 3.0));
        assert_eq!((a.user, a.stddev), (2.0, Some(1.0)));
        assert_eq!(
            a.memory_usage_byte.as_deref(),
            Some(&[1000, 1000, 1000][..])
        );
        assert_eq!(merged[1].median, 4.0);
        // Rounds that time the commands in another order merge alike.
        let mut swapped = rounds.clone();
        swapped[1].reverse();
        assert_eq!(merge_rounds(&swapped).unwrap()[0].times, a.times);
        // One run per command and round: the results are paired.
        assert!(a.rounds.is_some());
        assert_eq!(merged[1].rounds, a.rounds);
        // The export reads back as hyperfine JSON.
        assert_eq!(parse(&export(merged.clone())).unwrap(), merged);
    }

    #[test]
    fn rounds_of_several_runs_are_not_paired() {
        let mut twice = one_run("a", 1.0, 1.0);
        twice.times = vec![1.0, 2.0];
        let merged = merge_rounds(&[vec![twice], vec![one_run("a", 1.0, 1.0)]]).unwrap();
        assert_eq!(merged[0].rounds, None);
    }

    #[test]
    fn rounds_of_different_commands_are_refused() {
        let err = merge_rounds(&[vec![one_run("a", 1.0, 1.0)], vec![one_run("b", 1.0, 1.0)]])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("round 2 has no 'a', which round 1 times"),
            "{err}"
        );
        assert!(merge_rounds(&[vec![one_run("a", 1.0, 1.0)], vec![]]).is_err());
        assert!(merge_rounds(&[]).is_err());
    }

    #[test]
    fn a_sweep_s_cells_get_their_settings_from_their_names() {
        let cell = |batch, time| one_run(&format!("writers=2 batch={batch}"), time, 1.0);
        let rounds = vec![
            vec![cell(1024, 1.0), cell(4096, 2.0)],
            vec![cell(4096, 3.0), cell(1024, 4.0)],
        ];
        let merged = merge_sweep_rounds(&rounds).unwrap();
        let settings: Vec<_> = merged.iter().map(|r| &r.parameters).collect();
        let expected = |batch: &str| {
            BTreeMap::from([
                ("batch".to_string(), batch.to_string()),
                ("writers".to_string(), "2".to_string()),
            ])
        };
        assert_eq!(settings, [&expected("1024"), &expected("4096")]);
        assert_eq!(merged[0].times, [1.0, 4.0]);
        let err = merge_sweep_rounds(&[vec![one_run("writers=2 fast", 1.0, 1.0)]])
            .unwrap_err()
            .to_string();
        assert!(err.contains("'fast'"), "{err}");
        let twice = vec![vec![cell(1024, 1.0), cell(1024, 2.0)]];
        let err = merge_sweep_rounds(&twice).unwrap_err().to_string();
        assert!(err.contains("twice"), "{err}");
    }

    #[test]
    fn reads_hyperfine_1_20() {
        let results = parse(include_str!("../../tests/fixtures/hyperfine-1.20.json")).unwrap();
        let r = &results[0];
        assert_eq!(r.times.len(), 2);
        assert_eq!(
            r.memory_usage_byte.as_deref(),
            Some(&[52_166_656, 52_690_944][..])
        );
        assert!(r.stddev.is_some());
    }
}
