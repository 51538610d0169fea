//! The floor of one experiment: the CPU time its work needs, measured in two parts on the same
//! binary and settings (generation alone with `--sink null`; encoding alone with `--prebuilt
//! --sink count`), and the wall time that work would take if it kept every core busy. Also its
//! heap figures from one `--count-allocations` run.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::stats::median;

/// When a floor's runs were made, against the timed runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FloorTiming {
    /// Every run before the timed runs (`make experiment`, and every floor measured before
    /// floors ran in the rounds).
    #[default]
    Apart,
    /// Run `i` of each part right after timed round `i` (`make experiments`, `make designs`).
    Rounds,
}

impl FloorTiming {
    /// The timing that `metadata.json`'s `floor_timing` names; apart when it names none.
    pub fn from_metadata(metadata: &serde_json::Value) -> Self {
        if metadata["floor_timing"] == "rounds" {
            Self::Rounds
        } else {
            Self::Apart
        }
    }
}

/// CPU seconds of generation and of encoding, and the ideal wall time on `cores` cores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    /// Median CPU seconds of the `--sink null` runs: generating and building the batches.
    pub generation_cpu_s: f64,
    /// Median CPU seconds of the `--prebuilt --sink count` runs: encoding already built batches.
    pub encoding_cpu_s: f64,
    /// Runs of each kind.
    pub runs: usize,
    /// Cores of the machine.
    pub cores: u32,
    /// `(generation_cpu_s + encoding_cpu_s) / cores`: the wall time with every core busy, no
    /// waiting, and no disk.
    pub ideal_wall_s: f64,
    /// When the runs were made.
    #[serde(default)]
    pub timing: FloorTiming,
    /// With [`FloorTiming::Rounds`], each round's own ideal, `(generation + encoding CPU) /
    /// cores` of the runs after it, in round order; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_ideals_s: Vec<f64>,
}

impl Floor {
    /// The floor from the JSON report lines of the generation-only and the encoding-only runs,
    /// made as `timing` says.
    pub fn from_reports(
        generation: &str,
        encoding: &str,
        cores: u32,
        timing: FloorTiming,
    ) -> Result<Self> {
        let generation = cpu_seconds(generation).context("generation-only runs")?;
        let encoding = cpu_seconds(encoding).context("encoding-only runs")?;
        anyhow::ensure!(
            generation.len() == encoding.len() && !generation.is_empty(),
            "{} generation-only and {} encoding-only runs: expected the same number, at least one",
            generation.len(),
            encoding.len()
        );
        anyhow::ensure!(cores > 0, "0 cores");
        let (generation_cpu_s, encoding_cpu_s) = (median(&generation), median(&encoding));
        let cores_f = f64::from(cores);
        let round_ideals_s = match timing {
            FloorTiming::Apart => Vec::new(),
            FloorTiming::Rounds => generation
                .iter()
                .zip(&encoding)
                .map(|(g, e)| (g + e) / cores_f)
                .collect(),
        };
        Ok(Self {
            generation_cpu_s,
            encoding_cpu_s,
            runs: generation.len(),
            cores,
            ideal_wall_s: (generation_cpu_s + encoding_cpu_s) / cores_f,
            timing,
            round_ideals_s,
        })
    }

    /// How the floor was run and how wall / ideal follows from it, for a results README.
    pub fn method(&self) -> String {
        match self.timing {
            FloorTiming::Rounds => format!(
                "one run of each part after each of the {} timed rounds; wall / ideal is the \
                 median over the rounds of each round's wall time over that round's own ideal, \
                 so it can differ from the median wall time over the ideal",
                self.runs
            ),
            FloorTiming::Apart => format!(
                "{} runs of each part, apart from the timed runs; wall / ideal is the median wall \
                 time over the ideal",
                self.runs
            ),
        }
    }

    /// Wall time over the ideal for timed runs taking `times` (median `median_wall_s`). With
    /// the floor run in the timed rounds, the median of each round's wall time over that
    /// round's own ideal: a slow spell then lengthens both sides of one ratio instead of only
    /// the timed runs or only the floor. Otherwise the median wall time over the ideal.
    ///
    /// # Errors
    ///
    /// A floor run in the rounds with another number of runs than `times`.
    pub fn wall_over_ideal(&self, times: &[f64], median_wall_s: f64) -> Result<f64> {
        if self.timing == FloorTiming::Apart {
            return Ok(median_wall_s / self.ideal_wall_s);
        }
        anyhow::ensure!(
            self.round_ideals_s.len() == times.len(),
            "the floor ran in {} rounds, the timed runs in {}: rerun the experiments",
            self.round_ideals_s.len(),
            times.len()
        );
        let ratios: Vec<f64> = times
            .iter()
            .zip(&self.round_ideals_s)
            .map(|(wall, ideal)| wall / ideal)
            .collect();
        Ok(median(&ratios))
    }
}

/// The `cpu_s` of every `pipeline --json` report line in `lines`.
fn cpu_seconds(lines: &str) -> Result<Vec<f64>> {
    lines
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let report: serde_json::Value = serde_json::from_str(line)?;
            report["cpu_s"]
                .as_f64()
                .context("a report without cpu_s (no /proc?)")
        })
        .collect()
}

/// Heap figures of one `--count-allocations` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heap {
    /// The most heap bytes live at once.
    pub peak_live_bytes: u64,
    /// Allocations per row.
    pub allocations_per_row: f64,
    /// Bytes allocated per row.
    pub bytes_allocated_per_row: f64,
}

impl Heap {
    /// The heap figures of a `pipeline --json --count-allocations` report.
    pub fn from_report(report: &str) -> Result<Self> {
        let report: serde_json::Value = serde_json::from_str(report.trim())?;
        let figure = |key: &str| {
            report[key]
                .as_f64()
                .with_context(|| format!("no {key}: was the run made with --count-allocations?"))
        };
        Ok(Self {
            peak_live_bytes: report["heap"]["peak_live_bytes"]
                .as_u64()
                .context("no heap.peak_live_bytes: was the run made with --count-allocations?")?,
            allocations_per_row: figure("allocations_per_row")?,
            bytes_allocated_per_row: figure("bytes_allocated_per_row")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ideal_is_the_medians_cpu_over_the_cores() {
        let generation = "{\"cpu_s\":0.7}\n{\"cpu_s\":0.9}\n{\"cpu_s\":0.8}\n";
        let encoding = "{\"cpu_s\":1.0}\n{\"cpu_s\":1.2}\n\n{\"cpu_s\":1.1}\n";
        let floor = Floor::from_reports(generation, encoding, 2, FloorTiming::Apart).unwrap();
        assert_eq!(floor.runs, 3);
        assert!((floor.generation_cpu_s - 0.8).abs() < 1e-12);
        assert!((floor.encoding_cpu_s - 1.1).abs() < 1e-12);
        assert!((floor.ideal_wall_s - 0.95).abs() < 1e-12);
        assert!(floor.round_ideals_s.is_empty());
        // Apart from the rounds: the median wall over the median ideal, whatever the runs.
        let ratio = floor.wall_over_ideal(&[1.0, 2.0], 1.9).unwrap();
        assert!((ratio - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_floor_in_the_rounds_is_compared_round_by_round() {
        // Round 2 ran in a slow spell: its floor and its timed run both took 50% longer.
        let generation = "{\"cpu_s\":0.8}\n{\"cpu_s\":1.2}\n{\"cpu_s\":0.8}\n";
        let encoding = "{\"cpu_s\":1.2}\n{\"cpu_s\":1.8}\n{\"cpu_s\":1.2}\n";
        let floor = Floor::from_reports(generation, encoding, 2, FloorTiming::Rounds).unwrap();
        assert!((floor.round_ideals_s[1] - 1.5).abs() < 1e-12);
        let times = [1.1, 1.65, 1.1];
        let ratio = floor.wall_over_ideal(&times, 1.1).unwrap();
        assert!((ratio - 1.1).abs() < 1e-12, "{ratio}");
        let err = floor
            .wall_over_ideal(&times[..2], 1.1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("3 rounds, the timed runs in 2"), "{err}");
    }

    #[test]
    fn unequal_or_incomplete_runs_are_refused() {
        let one = "{\"cpu_s\":1.0}\n";
        assert!(Floor::from_reports(one, "", 2, FloorTiming::Apart).is_err());
        assert!(Floor::from_reports(one, "{\"cpu_s\":null}\n", 2, FloorTiming::Apart).is_err());
        assert!(Floor::from_reports(one, one, 0, FloorTiming::Apart).is_err());
    }

    #[test]
    fn the_timing_comes_from_the_metadata_and_older_summaries_read_as_apart() {
        let rounds = serde_json::json!({"floor_timing": "rounds"});
        assert_eq!(FloorTiming::from_metadata(&rounds), FloorTiming::Rounds);
        assert_eq!(
            FloorTiming::from_metadata(&serde_json::json!({})),
            FloorTiming::Apart
        );
        let older = r#"{"generation_cpu_s":0.6,"encoding_cpu_s":1.0,"runs":3,"cores":2,"ideal_wall_s":0.8}"#;
        let floor: Floor = serde_json::from_str(older).unwrap();
        assert_eq!(floor.timing, FloorTiming::Apart);
    }

    #[test]
    fn heap_figures_need_a_counting_run() {
        let counted = "{\"heap\":{\"peak_live_bytes\":1048576},\"allocations_per_row\":0.02,\"bytes_allocated_per_row\":270.5}";
        let heap = Heap::from_report(counted).unwrap();
        assert_eq!(heap.peak_live_bytes, 1 << 20);
        assert_eq!(heap.bytes_allocated_per_row, 270.5);
        let err = Heap::from_report("{\"heap\":null}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("--count-allocations"), "{err}");
    }
}
