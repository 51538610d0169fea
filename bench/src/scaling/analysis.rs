//! The scaling run's analysis: per process-count throughput, parallel efficiency, memory
//! bandwidth (measured where the platform exposes it, otherwise a labelled estimate), the STREAM
//! ceiling, and the model checked against the measured points.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::model::{reference_machines, Inputs, Machine, Point};
use crate::markdown::{Align, Table};
use crate::parse::cachegrind::Cachegrind;
use crate::parse::perf_stat::PerfStat;

/// One process of one scaling step.
#[derive(Debug, Clone, Serialize)]
pub struct ProcessRun {
    /// Rows it generated and wrote.
    pub rows: u64,
    /// Its own wall time, seconds.
    pub seconds: f64,
    /// Arrow bytes it produced.
    pub arrow_bytes: u64,
    /// Parquet bytes it wrote.
    pub output_bytes: u64,
    /// Its perf counters, when perf ran.
    pub perf: Option<PerfStat>,
}

/// All processes of one process count.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// Processes run at once.
    pub procs: u32,
    /// Each process.
    pub runs: Vec<ProcessRun>,
    /// Aggregate rows/s of the median repetition: every process's rows over the slowest
    /// process's wall time (the step is done only when its last process is).
    pub rows_per_s: f64,
    /// The aggregate rows/s of every repetition, ascending.
    pub repetitions: Vec<f64>,
    /// `rows_per_s / (procs * rows_per_s at one process)`.
    pub efficiency: f64,
    /// Memory bandwidth during the step, bytes/s.
    pub bandwidth: f64,
    /// Where `bandwidth` comes from.
    pub bandwidth_source: String,
    /// IPC (hardware) per process, averaged.
    pub ipc: Option<f64>,
    /// CPU nanoseconds per row (perf task-clock), the stand-in where IPC is unavailable.
    pub cpu_ns_per_row: Option<f64>,
}

/// The whole scaling analysis: what the scaling README and charts show.
#[derive(Debug, Clone, Serialize)]
pub struct ScalingAnalysis {
    /// The experiment every process ran, as `NN-slug`.
    pub experiment: String,
    /// One entry per process count, ascending.
    pub steps: Vec<Step>,
    /// STREAM's best bandwidth on this machine, bytes/s.
    pub stream_bytes_per_s: Option<f64>,
    /// Estimated bytes per row (see `bytes_source`).
    pub bytes_per_row: f64,
    /// How `bytes_per_row` was estimated.
    pub bytes_source: String,
    /// Cross-check: cachegrind's simulated last-level misses x 64 bytes per row, one process.
    pub cachegrind_bytes_per_row: Option<f64>,
    /// Model predictions for the measured process counts, to check it.
    pub model_check: Vec<(Point, f64)>,
    /// Predictions for bigger machines, with their saturation points.
    pub predictions: Vec<(Machine, f64, Vec<Point>)>,
}

/// Process `index`'s `--json` report in step folder `dir`, and its path for messages.
fn read_report(dir: &Path, index: usize) -> Result<(serde_json::Value, std::path::PathBuf)> {
    let json_path = dir.join(format!("p{index}.json"));
    let text = fs::read_to_string(&json_path)
        .with_context(|| format!("cannot read {}", json_path.display()))?;
    let report =
        serde_json::from_str(&text).with_context(|| format!("bad {}", json_path.display()))?;
    Ok((report, json_path))
}

/// The experiment a process report names, as `NN-slug`.
fn experiment_of(report: &serde_json::Value, json_path: &Path) -> Result<String> {
    match (report["experiment"].as_u64(), report["slug"].as_str()) {
        (Some(number), Some(slug)) => Ok(format!("{number:02}-{slug}")),
        _ => bail!("{} names no experiment and slug", json_path.display()),
    }
}

fn read_run(dir: &Path, index: usize) -> Result<ProcessRun> {
    let (report, json_path) = read_report(dir, index)?;
    process_run(&report, &json_path, dir, index)
}

/// Process `index` of step folder `dir`, from its report (read from `json_path`).
fn process_run(
    report: &serde_json::Value,
    json_path: &Path,
    dir: &Path,
    index: usize,
) -> Result<ProcessRun> {
    let number = |key: &str| {
        report[key]
            .as_f64()
            .with_context(|| format!("{} lacks {key}", json_path.display()))
    };
    Ok(ProcessRun {
        rows: number("rows")? as u64,
        seconds: number("elapsed_s")?,
        arrow_bytes: number("arrow_bytes")? as u64,
        output_bytes: number("output_bytes")? as u64,
        perf: fs::read_to_string(dir.join(format!("p{index}.perf.csv")))
            .ok()
            .map(|t| PerfStat::parse(&t)),
    })
}

/// Bytes of DRAM traffic from memory-controller counts, when `perf stat -a` could count them
/// (see [`crate::role_counters::traffic`]).
fn measured_traffic(dir: &Path) -> Option<f64> {
    crate::role_counters::traffic(&fs::read_to_string(dir.join("memory.csv")).ok()?)
        .map(|t| t.total)
}

/// The repetition folders `r0`, `r1`, ... of a step (or the step folder itself if it has none).
fn repetitions(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut reps: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?;
            (name.starts_with('r') && name[1..].parse::<u32>().is_ok()).then_some(path)
        })
        .collect();
    reps.sort();
    if reps.is_empty() {
        reps.push(dir.to_path_buf());
    }
    Ok(reps)
}

/// The repetition with the median aggregate throughput; all repetitions' aggregates are kept.
fn step(dir: &Path, procs: u32, bytes_per_row: f64) -> Result<Step> {
    let mut reps = repetitions(dir)?
        .iter()
        .map(|rep| repetition(rep, procs, bytes_per_row))
        .collect::<Result<Vec<_>>>()?;
    reps.sort_by(|a, b| a.rows_per_s.total_cmp(&b.rows_per_s));
    let aggregates = reps.iter().map(|r| r.rows_per_s).collect();
    let mut median = reps.swap_remove(reps.len() / 2);
    median.repetitions = aggregates;
    Ok(median)
}

fn repetition(dir: &Path, procs: u32, bytes_per_row: f64) -> Result<Step> {
    let runs = (0..procs as usize)
        .map(|i| read_run(dir, i))
        .collect::<Result<Vec<_>>>()?;
    let wall = runs.iter().map(|r| r.seconds).fold(0.0, f64::max);
    let rows_per_s = runs.iter().map(|r| r.rows as f64).sum::<f64>() / wall;
    let (bandwidth, bandwidth_source) = match measured_traffic(dir) {
        Some(bytes) => (
            bytes / wall,
            "memory-controller counters (perf stat -a)".to_string(),
        ),
        None => (
            rows_per_s * bytes_per_row,
            "estimate: rows/s x bytes per row (no memory-controller counters here)".to_string(),
        ),
    };
    let per_process = |f: &dyn Fn(&ProcessRun) -> Option<f64>| {
        let values: Vec<f64> = runs.iter().filter_map(f).collect();
        (values.len() == runs.len() && !values.is_empty())
            .then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    Ok(Step {
        procs,
        ipc: per_process(&|r| r.perf.as_ref()?.ipc()),
        cpu_ns_per_row: per_process(&|r| {
            Some(r.perf.as_ref()?.get("task-clock")? * 1e6 / r.rows as f64)
        }),
        runs,
        rows_per_s,
        repetitions: Vec::new(),
        efficiency: 0.0,
        bandwidth,
        bandwidth_source,
    })
}

impl ScalingAnalysis {
    /// Reads `dir/K<n>/` for every process count, and `dir/stream.json`.
    pub fn from_dir(dir: &Path) -> Result<Self> {
        let mut counts: Vec<u32> = fs::read_dir(dir)?
            .filter_map(|e| {
                e.ok()?
                    .file_name()
                    .to_str()?
                    .strip_prefix('K')?
                    .parse()
                    .ok()
            })
            .collect();
        counts.sort_unstable();
        if counts.first() != Some(&1) {
            bail!(
                "{} has no K1 step: the model needs the single-process rate",
                dir.display()
            );
        }
        let first_step = &repetitions(&dir.join("K1"))?[0];
        let (first_report, first_path) = read_report(first_step, 0)?;
        let experiment = experiment_of(&first_report, &first_path)?;
        let first = process_run(&first_report, &first_path, first_step, 0)?;
        let bytes_per_row = (2 * first.arrow_bytes + first.output_bytes) as f64 / first.rows as f64;
        let mut steps = counts
            .iter()
            .map(|&k| step(&dir.join(format!("K{k}")), k, bytes_per_row))
            .collect::<Result<Vec<_>>>()?;
        let single = steps[0].rows_per_s;
        steps
            .iter_mut()
            .for_each(|s| s.efficiency = s.rows_per_s / (f64::from(s.procs) * single));
        let stream_bytes_per_s = fs::read_to_string(dir.join("stream.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["best_bytes_per_s"].as_f64());
        let inputs = Inputs {
            rate_per_process: single,
            bytes_per_row,
        };
        let here = Machine {
            name: "this machine".to_string(),
            cores: steps.iter().map(|s| s.procs).max().unwrap_or(1),
            bandwidth: stream_bytes_per_s.unwrap_or(f64::INFINITY),
            source: "STREAM probe".to_string(),
        };
        let model_check = steps
            .iter()
            .map(|s| {
                let predicted = inputs.predict(&here, s.procs);
                (predicted, s.rows_per_s / predicted.rows_per_s - 1.0)
            })
            .collect();
        let predictions = reference_machines()
            .into_iter()
            .map(|m| {
                let saturation = inputs.saturation(&m);
                let curve = inputs.curve(&m);
                (m, saturation, curve)
            })
            .collect();
        let cachegrind_bytes_per_row = fs::read_to_string(dir.join("cachegrind.txt"))
            .ok()
            .and_then(|text| Cachegrind::parse(&text))
            .zip(
                fs::read_to_string(dir.join("cachegrind-rows.txt"))
                    .ok()
                    .and_then(|t| t.trim().parse::<f64>().ok()),
            )
            .map(|(counts, rows)| counts.ll_misses as f64 * 64.0 / rows);
        Ok(Self {
            experiment,
            steps,
            stream_bytes_per_s,
            bytes_per_row,
            cachegrind_bytes_per_row,
            bytes_source: "each Arrow byte written once and read once, each Parquet byte written once (a lower bound on DRAM traffic)".to_string(),
            model_check,
            predictions,
        })
    }

    /// The scaling README.
    pub fn markdown(&self) -> String {
        let gbs = |b: f64| b / 1e9;
        let mut text = format!(
            "# Multi-process scaling: experiment {}\n\n\
             Made by `make scaling`; metadata.json says where and from which commit.\n\n\
             ![scaling](scaling.png)\n\n",
            self.experiment
        );
        let _ = writeln!(
            text,
            "Bytes per row: {:.0} ({}); cross-check, cachegrind's simulated last-level misses x 64 B: {}. STREAM ceiling: {}.\n",
            self.bytes_per_row,
            self.bytes_source,
            self.cachegrind_bytes_per_row
                .map_or("not run".to_string(), |b| format!("{b:.0} bytes/row")),
            self.stream_bytes_per_s
                .map_or("not measured".to_string(), |b| format!("{:.1} GB/s", gbs(b))),
        );
        text.push_str("Each step ran SCALING_RUNS times, interleaved with the others; the table shows the median repetition (all repetitions in scaling.json).\n\n");
        text.push_str(&self.step_table().to_string());
        text.push_str("\n## Model for bigger machines\n\n![model](model.png)\n\n");
        text.push_str("Throughput(p) = min(p x single-process rate, bandwidth / bytes per row). Assumptions: each process keeps the single-core rate measured here until bandwidth runs out; every row moves the bytes estimated above; attainable bandwidth as stated per machine.\n\n");
        text.push_str(&self.model_table().to_string());
        text
    }

    /// Each step's measured throughput and bandwidth beside the model's prediction.
    fn step_table(&self) -> Table {
        let mut table = Table::new([
            ("processes", Align::Right),
            ("aggregate M rows/s", Align::Right),
            ("efficiency", Align::Right),
            ("memory GB/s", Align::Right),
            ("source", Align::Left),
            ("IPC or CPU ns/row", Align::Left),
            ("model M rows/s", Align::Right),
            ("model error", Align::Right),
        ]);
        for (s, (predicted, error)) in self.steps.iter().zip(&self.model_check) {
            let counters = match (s.ipc, s.cpu_ns_per_row) {
                (Some(ipc), _) => format!("IPC {ipc:.2}"),
                (None, Some(ns)) => {
                    format!("{ns:.0} CPU ns/row (perf task-clock; no hardware IPC)")
                }
                _ => "-".to_string(),
            };
            table.row([
                s.procs.to_string(),
                format!("{:.2}", s.rows_per_s / 1e6),
                format!("{:.1}%", s.efficiency * 100.0),
                format!("{:.2}", s.bandwidth / 1e9),
                s.bandwidth_source.clone(),
                counters,
                format!("{:.2}", predicted.rows_per_s / 1e6),
                format!("{:+.1}%", error * 100.0),
            ]);
        }
        table
    }

    /// The model's prediction for each reference machine.
    fn model_table(&self) -> Table {
        let mut table = Table::new([
            ("machine", Align::Left),
            ("cores", Align::Right),
            ("bandwidth", Align::Left),
            ("saturates at", Align::Right),
            ("M rows/s at all cores", Align::Right),
        ]);
        for (machine, saturation, curve) in &self.predictions {
            let last = curve.last().map_or(0.0, |p| p.rows_per_s);
            table.row([
                machine.name.clone(),
                machine.cores.to_string(),
                format!("{:.0} GB/s ({})", machine.bandwidth / 1e9, machine.source),
                format!("{saturation:.0} processes"),
                format!("{:.1}", last / 1e6),
            ]);
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_throughput_is_all_rows_over_the_slowest_process() {
        let dir = tempfile::tempdir().unwrap();
        for (i, seconds) in [(0, 1.0), (1, 2.0)] {
            let report = format!(
                r#"{{"rows": 100, "elapsed_s": {seconds}, "arrow_bytes": 1, "output_bytes": 1}}"#
            );
            fs::write(dir.path().join(format!("p{i}.json")), report).unwrap();
        }
        let step = repetition(dir.path(), 2, 10.0).unwrap();
        // 200 rows when the slower process ends at 2 s; summing per-process rates says 150.
        assert!(
            (step.rows_per_s - 100.0).abs() < 1e-9,
            "{}",
            step.rows_per_s
        );
        assert!((step.bandwidth - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn the_report_names_the_experiment_its_processes_ran() {
        let dir = tempfile::tempdir().unwrap();
        let step = dir.path().join("K1").join("r0");
        fs::create_dir_all(&step).unwrap();
        let report = r#"{"experiment": 7, "slug": "sized-thread-pools", "rows": 100,
            "elapsed_s": 1.0, "arrow_bytes": 1, "output_bytes": 1}"#;
        fs::write(step.join("p0.json"), report).unwrap();
        let analysis = ScalingAnalysis::from_dir(dir.path()).unwrap();
        assert_eq!(analysis.experiment, "07-sized-thread-pools");
        assert!(analysis
            .markdown()
            .starts_with("# Multi-process scaling: experiment 07-sized-thread-pools\n"));
        fs::write(step.join("p0.json"), r#"{"rows": 100}"#).unwrap();
        let error = ScalingAnalysis::from_dir(dir.path()).unwrap_err();
        assert!(
            error.to_string().contains("names no experiment"),
            "{error:#}"
        );
    }
}
