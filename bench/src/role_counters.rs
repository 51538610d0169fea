//! Where one experiment's CPU goes, by role, from its `pipeline --counters` run
//! (`counters.json`), and the memory traffic of that run from the memory controllers
//! (`memory.csv`, `perf stat -a` around it) where the platform exposes them, or why not.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The roles of `pipeline --counters`, in its order.
pub const ROLES: [&str; 6] = ["producers", "encoders", "writers", "main", "io", "fused"];

/// One role's figures in the counted run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleCpu {
    /// One of [`ROLES`].
    pub role: String,
    /// Its threads.
    pub threads: u64,
    /// CPU seconds (task-clock).
    pub cpu_s: f64,
    /// Share of the run's counted CPU time.
    pub share: f64,
    /// Instructions per cycle, where hardware events were counted.
    pub ipc: Option<f64>,
    /// Last-level cache misses per 1,000 rows, where hardware events were counted.
    pub cache_misses_per_1k_rows: Option<f64>,
}

/// One phase of one role in the counted run (`counters.phases`: roles whose threads do more
/// than one thing, such as fused workers generating, encoding and appending).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseCpu {
    /// One of [`ROLES`].
    pub role: String,
    /// The phase (`generate`, `encode`, `append`, `wait`, ...).
    pub phase: String,
    /// CPU seconds (task-clock) in the phase.
    pub cpu_s: f64,
    /// Wall seconds the role's threads spent in it, summed over them.
    pub wall_s: f64,
}

/// Bytes that crossed the memory controllers during the counted run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryTraffic {
    /// Bytes read from DRAM per row, where the events tell reads apart.
    pub read_bytes_per_row: Option<f64>,
    /// Bytes written to DRAM per row, where the events tell writes apart.
    pub written_bytes_per_row: Option<f64>,
    /// All bytes per row.
    pub bytes_per_row: f64,
    /// GB/s over the run's wall time.
    pub gb_per_s: f64,
    /// The same host's STREAM triad bandwidth, GB/s, when it was probed.
    pub stream_gb_per_s: Option<f64>,
    /// The events counted.
    pub source: String,
}

/// The per-role figures of one experiment, and its memory traffic or why it is missing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleCounters {
    /// Where the figures come from (`pipeline --counters`'s own words).
    pub source: String,
    /// Each role that had a thread.
    pub roles: Vec<RoleCpu>,
    /// The threads' CPU time, summed.
    pub counted_cpu_s: f64,
    /// The CPU of each phase of the roles that have phases (empty in runs recorded before
    /// the counters were split by phase).
    #[serde(default)]
    pub by_phase: Vec<PhaseCpu>,
    /// Memory traffic, where memory-controller counters were read.
    pub memory: Option<MemoryTraffic>,
    /// Why there is no memory traffic, when there is none.
    pub memory_missing: Option<String>,
}

impl RoleCounters {
    /// Reads `counters.json` (required), `memory.csv` and `stream.json` (optional) from `dir`;
    /// `memory_note` is the script's account of the memory counters (metadata
    /// `memory_counters`). `None` when the experiment was measured without `--counters`.
    pub fn from_dir(dir: &Path, memory_note: Option<&str>) -> Result<Option<Self>> {
        let Ok(text) = std::fs::read_to_string(dir.join("counters.json")) else {
            return Ok(None);
        };
        let report: serde_json::Value =
            serde_json::from_str(&text).context("counters.json is not a pipeline report")?;
        let counters = &report["counters"];
        let roles: Vec<RoleCpu> = serde_json::from_value(counters["roles"].clone())
            .context("counters.json has no per-role counters (run with --counters)")?;
        let by_phase: Vec<PhaseCpu> = match counters.get("phases") {
            Some(phases) => serde_json::from_value(phases.clone())
                .context("counters.json's phases are not pipeline's")?,
            None => Vec::new(),
        };
        let rows = report["rows"]
            .as_f64()
            .context("counters.json has no rows")?;
        let seconds = report["elapsed_s"]
            .as_f64()
            .context("counters.json has no elapsed_s")?;
        let memory = match std::fs::read_to_string(dir.join("memory.csv")) {
            Ok(csv) => traffic(&csv).map(|bytes| MemoryTraffic {
                read_bytes_per_row: bytes.read.map(|b| b / rows),
                written_bytes_per_row: bytes.written.map(|b| b / rows),
                bytes_per_row: bytes.total / rows,
                gb_per_s: bytes.total / seconds / 1e9,
                stream_gb_per_s: stream_gb_per_s(dir),
                source: format!("memory-controller counters, perf stat -a: {}", bytes.events),
            }),
            Err(_) => None,
        };
        let memory_missing = memory.is_none().then(|| {
            memory_note
                .unwrap_or("no memory-controller counters were read")
                .to_string()
        });
        Ok(Some(Self {
            source: counters["source"].as_str().unwrap_or_default().to_string(),
            roles,
            counted_cpu_s: counters["counted_cpu_s"].as_f64().unwrap_or_default(),
            by_phase,
            memory,
            memory_missing,
        }))
    }

    /// Whether any thread had `role`.
    pub fn has(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r.role == role)
    }

    /// CPU seconds in `phase`, summed over the roles that have it; `None` when the run was
    /// not split by phase.
    pub fn phase_cpu_s(&self, phase: &str) -> Option<f64> {
        (!self.by_phase.is_empty()).then(|| {
            let matching = self.by_phase.iter().filter(|p| p.phase == phase);
            matching.map(|p| p.cpu_s).sum()
        })
    }

    /// CPU seconds of `role`, 0 if it had no thread.
    pub fn cpu_s(&self, role: &str) -> f64 {
        self.roles
            .iter()
            .find(|r| r.role == role)
            .map_or(0.0, |r| r.cpu_s)
    }
}

/// DRAM bytes from memory-controller counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Traffic {
    /// Bytes read, where the events say which.
    pub read: Option<f64>,
    /// Bytes written, where the events say which.
    pub written: Option<f64>,
    /// Every byte.
    pub total: f64,
    /// The events, comma-separated.
    pub events: String,
}

/// Bytes counted by `perf stat -x,` lines of memory-controller events: Intel IMC CAS commands
/// (`cas_count_read`, `cas_count_write`) and AMD UMC data transfers (`umc`). perf reports
/// these already scaled to MiB when the kernel gives the event a scale and unit; a bare count
/// is one 64-byte line per command. `None` when nothing was counted.
pub fn traffic(csv: &str) -> Option<Traffic> {
    let (mut read, mut written, mut total) = (None::<f64>, None::<f64>, 0.0);
    let mut events = Vec::new();
    for line in csv.lines().map(str::trim) {
        let fields: Vec<&str> = line.split(',').collect();
        let (Some(value), Some(unit), Some(event)) = (fields.first(), fields.get(1), fields.get(2))
        else {
            continue;
        };
        if line.starts_with('#') || !(event.contains("cas_count") || event.contains("umc")) {
            continue;
        }
        let Ok(value) = value.trim().parse::<f64>() else {
            continue;
        };
        let bytes = match unit.trim() {
            "MiB" => value * 1024.0 * 1024.0,
            "GiB" => value * 1024.0 * 1024.0 * 1024.0,
            "B" | "Bytes" => value,
            _ => value * 64.0,
        };
        total += bytes;
        if event.contains("read") {
            *read.get_or_insert(0.0) += bytes;
        } else if event.contains("write") {
            *written.get_or_insert(0.0) += bytes;
        }
        let name = event.trim().to_string();
        if !events.contains(&name) {
            events.push(name);
        }
    }
    (total > 0.0).then(|| Traffic {
        read,
        written,
        total,
        events: events.join(", "),
    })
}

/// The STREAM probe's triad bandwidth in `dir/stream.json`, GB/s.
fn stream_gb_per_s(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("stream.json")).ok()?;
    let probe: serde_json::Value = serde_json::from_str(&text).ok()?;
    probe["best_bytes_per_s"].as_f64().map(|b| b / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intel_cas_counts_in_mib_and_amd_raw_counts_become_bytes() {
        // perf stat -a -x, on an Intel server: the IMC events carry a MiB scale.
        let intel = "# started on Mon\n\n\
                     1024.50,MiB,uncore_imc_0/cas_count_read/,2000,100.00,,\n\
                     512.25,MiB,uncore_imc_0/cas_count_write/,2000,100.00,,\n\
                     1.00,MiB,uncore_imc_1/cas_count_read/,2000,100.00,,\n";
        let t = traffic(intel).unwrap();
        assert_eq!(t.read, Some(1025.5 * 1048576.0));
        assert_eq!(t.written, Some(512.25 * 1048576.0));
        assert_eq!(t.total, 1537.75 * 1048576.0);
        assert_eq!(
            t.events,
            "uncore_imc_0/cas_count_read/, uncore_imc_0/cas_count_write/, uncore_imc_1/cas_count_read/"
        );
        // A raw count: one 64-byte line each.
        let amd = "1000,,amd_umc_0/umc_data_slot_clks.all/,2000,100.00,,\n";
        let t = traffic(amd).unwrap();
        assert_eq!((t.read, t.written, t.total), (None, None, 64000.0));
        assert!(traffic("<not supported>,,cycles,0,100.00,,\n").is_none());
    }
}
