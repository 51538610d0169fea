//! `summary.json`: everything measured for one experiment, parsed from the raw files the
//! measurement script leaves in its folder, with every counter labelled by its source.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::floor::{Floor, FloorTiming, Heap};
use crate::parse::cachegrind::Cachegrind;
use crate::parse::hyperfine;
use crate::parse::perf_stat::PerfStat;
use crate::role_counters::RoleCounters;
use crate::timeline::{IdleAccount, RoleTime, Timeline};

/// Simulated counts from cachegrind for a reduced run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Simulated {
    /// Rows of the simulated run (fewer than the timed run: valgrind is many times slower).
    pub rows: u64,
    /// The simulated totals.
    pub counts: Cachegrind,
    /// Instructions per generated row.
    pub instructions_per_row: f64,
}

/// Counters of one experiment and where each came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// A label for the figures, e.g. "perf stat (hardware counters)".
    pub source: String,
    /// Whether the hardware events were counted.
    pub hardware: bool,
    /// The raw `perf stat` events, when perf ran.
    pub perf: Option<PerfStat>,
    /// Instructions per cycle (hardware only).
    pub ipc: Option<f64>,
    /// Cache misses per reference (hardware only).
    pub cache_miss_rate: Option<f64>,
    /// Branch misses per branch (hardware only).
    pub branch_miss_rate: Option<f64>,
    /// Cachegrind simulation, when it ran.
    pub simulated: Option<Simulated>,
}

/// Everything measured for one experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Experiment number.
    pub experiment: u32,
    /// Experiment slug.
    pub slug: String,
    /// Rows per timed run.
    pub rows: u64,
    /// Every timed run's wall time, seconds.
    pub times: Vec<f64>,
    /// The interleaved rounds `times` come from, if each round timed every experiment once:
    /// summaries with the same identifier are compared round by round.
    #[serde(default)]
    pub rounds: Option<String>,
    /// Median wall time.
    pub median_s: f64,
    /// Mean wall time.
    pub mean_s: f64,
    /// Fastest run.
    pub min_s: f64,
    /// Slowest run.
    pub max_s: f64,
    /// Mean user CPU time.
    pub user_s: f64,
    /// Mean system CPU time.
    pub system_s: f64,
    /// Rows per second at the median.
    pub rows_per_s: f64,
    /// Peak resident memory of one run.
    pub peak_rss_bytes: Option<u64>,
    /// Cores kept busy on average: mean user + system CPU over mean wall time (absent in
    /// summaries written before it was recorded).
    #[serde(default)]
    pub cores_busy: Option<f64>,
    /// The CPU time the work needs and the ideal wall time (absent in results recorded before
    /// the floor was measured).
    #[serde(default)]
    pub floor: Option<Floor>,
    /// Heap figures of one `--count-allocations` run.
    #[serde(default)]
    pub heap: Option<Heap>,
    /// CPU by role and memory traffic of one `--counters` run (absent in results recorded
    /// before it was measured).
    #[serde(default, alias = "phases")]
    pub role_counters: Option<RoleCounters>,
    /// Per role, the share of the `--timeline` run's wall time its threads spent in each
    /// phase and idle (absent in results recorded before the timeline was kept).
    #[serde(default)]
    pub thread_time: Option<Vec<RoleTime>>,
    /// Where the `--timeline` run's fused workers left cores idle (entries from 28 on).
    #[serde(default)]
    pub idle: Option<IdleAccount>,
    /// Data-gate digest of the experiment's output.
    pub digest: Option<String>,
    /// Whether the gate run passed.
    pub gate_passed: bool,
    /// Hardware counters or their labelled stand-ins.
    pub counters: Counters,
    /// Machine, toolchain, commit and command, as recorded by the script.
    pub metadata: serde_json::Value,
}

fn read(dir: &Path, name: &str) -> Result<String> {
    let path = dir.join(name);
    fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
}

fn read_optional(dir: &Path, name: &str) -> Option<String> {
    fs::read_to_string(dir.join(name)).ok()
}

fn counters(dir: &Path, metadata: &serde_json::Value) -> Counters {
    let perf = read_optional(dir, "perf-stat.csv").map(|csv| PerfStat::parse(&csv));
    let hardware = perf.as_ref().is_some_and(PerfStat::hardware_supported);
    let simulated = read_optional(dir, "cachegrind.txt")
        .and_then(|text| Cachegrind::parse(&text))
        .and_then(|counts| {
            let rows = metadata["cachegrind_rows"].as_u64()?;
            Some(Simulated {
                rows,
                instructions_per_row: counts.instructions as f64 / rows.max(1) as f64,
                counts,
            })
        });
    let source = match (&perf, hardware, &simulated) {
        (Some(_), true, _) => "perf stat (hardware counters)".to_string(),
        (Some(_), false, Some(s)) => format!(
            "perf stat software events (hardware events <not supported>) + cachegrind simulation of {} rows",
            s.rows
        ),
        (Some(_), false, None) => {
            "perf stat software events only (hardware events <not supported>)".to_string()
        }
        (None, _, Some(s)) => format!("cachegrind simulation of {} rows (perf unavailable)", s.rows),
        (None, _, None) => "none (perf and valgrind unavailable)".to_string(),
    };
    Counters {
        source,
        hardware,
        ipc: perf.as_ref().and_then(PerfStat::ipc),
        cache_miss_rate: perf.as_ref().and_then(PerfStat::cache_miss_rate),
        branch_miss_rate: perf.as_ref().and_then(PerfStat::branch_miss_rate),
        perf,
        simulated,
    }
}

impl Summary {
    /// Reads the raw files of one experiment folder.
    pub fn from_dir(dir: &Path) -> Result<Self> {
        let results = hyperfine::parse(&read(dir, "hyperfine.json")?).context("hyperfine.json")?;
        let timing = results.first().context("hyperfine.json holds no result")?;
        let gate: serde_json::Value =
            serde_json::from_str(&read(dir, "gate.json")?).context("gate.json")?;
        let metadata: serde_json::Value =
            serde_json::from_str(&read(dir, "metadata.json")?).context("metadata.json")?;
        let rows = gate["rows"]
            .as_u64()
            .context("gate.json has no row count")?;
        let floor = match (
            read_optional(dir, "floor-generation.jsonl"),
            read_optional(dir, "floor-encoding.jsonl"),
        ) {
            (Some(generation), Some(encoding)) => {
                let cores = metadata["cores"]
                    .as_u64()
                    .context("metadata.json has no core count")? as u32;
                let floor_timing = FloorTiming::from_metadata(&metadata);
                let floor = Floor::from_reports(&generation, &encoding, cores, floor_timing)
                    .context("floor")?;
                // A floor that cannot be paired with the rounds is refused here, once, so
                // that every table can read its ratio without asking again.
                floor
                    .wall_over_ideal(&timing.times, timing.median)
                    .context("floor-generation.jsonl and floor-encoding.jsonl")?;
                Some(floor)
            }
            _ => None,
        };
        let role_counters = RoleCounters::from_dir(dir, metadata["memory_counters"].as_str())
            .context("counters.json")?;
        let timeline = read_optional(dir, "timeline.csv")
            .map(|csv| Timeline::parse(&csv).context("timeline.csv"))
            .transpose()?;
        let thread_time = timeline.as_ref().map(Timeline::role_times);
        let idle = timeline.as_ref().and_then(|t| t.idle_account("fused"));
        let heap = read_optional(dir, "heap.json")
            .map(|report| Heap::from_report(&report).context("heap.json"))
            .transpose()?;
        let peak_rss_bytes = metadata["peak_rss_kb"]
            .as_u64()
            .map(|kb| kb * 1024)
            .or_else(|| timing.memory_usage_byte.as_ref()?.iter().copied().max());
        Ok(Self {
            experiment: gate["experiment"]
                .as_u64()
                .context("gate.json has no experiment")? as u32,
            slug: gate["slug"].as_str().unwrap_or_default().to_string(),
            rows,
            median_s: timing.median,
            mean_s: timing.mean,
            min_s: timing.min,
            max_s: timing.max,
            user_s: timing.user,
            system_s: timing.system,
            rows_per_s: rows as f64 / timing.median,
            times: timing.times.clone(),
            rounds: timing.rounds.clone(),
            peak_rss_bytes,
            cores_busy: Some((timing.user + timing.system) / timing.mean),
            floor,
            heap,
            role_counters,
            thread_time,
            idle,
            digest: gate["digest"]["sum"].as_str().map(str::to_string),
            gate_passed: gate["gate"] == "pass",
            counters: counters(dir, &metadata),
            metadata,
        })
    }

    /// Wall time over the ideal wall time, when the floor was measured: round by round when
    /// the floor ran in the timed rounds ([`Floor::wall_over_ideal`]). `None` too for a floor
    /// that cannot be paired with the rounds, which [`Summary::from_dir`] already refused.
    pub fn wall_over_ideal(&self) -> Option<f64> {
        let floor = self.floor.as_ref()?;
        floor.wall_over_ideal(&self.times, self.median_s).ok()
    }

    /// Writes `summary.json` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        fs::write(
            dir.join("summary.json"),
            serde_json::to_string_pretty(self)?,
        )?;
        Ok(())
    }
}

/// Every experiment summary under a host's results folder, by experiment number.
pub fn load_host(host_dir: &Path) -> Result<Vec<Summary>> {
    let mut summaries = Vec::new();
    let entries =
        fs::read_dir(host_dir).with_context(|| format!("cannot read {}", host_dir.display()))?;
    for entry in entries {
        let path: PathBuf = entry?.path().join("summary.json");
        if let Ok(text) = fs::read_to_string(&path) {
            let summary: Summary =
                serde_json::from_str(&text).with_context(|| format!("bad {}", path.display()))?;
            summaries.push(summary);
        }
    }
    summaries.sort_by_key(|s| s.experiment);
    Ok(summaries)
}
