//! `perf stat -x,` output: one CSV line per event, `<not supported>` where the hardware or the
//! hypervisor does not expose the counter.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Hardware events whose absence means "no hardware counters here".
pub const HARDWARE_EVENTS: [&str; 6] = [
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branch-instructions",
    "branch-misses",
];

/// Counts by event name; `None` for an event perf could not count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerfStat {
    /// Event name (without a `:u` style modifier) to its count.
    pub events: BTreeMap<String, Option<f64>>,
}

impl PerfStat {
    /// Parses the CSV that `perf stat -x, -o FILE` writes.
    pub fn parse(csv: &str) -> Self {
        let mut events = BTreeMap::new();
        for line in csv.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split(',').collect();
            let (Some(value), Some(event)) = (fields.first(), fields.get(2)) else {
                continue;
            };
            let name = event.split(':').next().unwrap_or(event).trim().to_string();
            events.insert(name, value.trim().parse::<f64>().ok());
        }
        Self { events }
    }

    /// An event's count, if it was counted.
    pub fn get(&self, event: &str) -> Option<f64> {
        self.events.get(event).copied().flatten()
    }

    /// Whether the hardware events were counted (false on most VMs).
    pub fn hardware_supported(&self) -> bool {
        HARDWARE_EVENTS.iter().any(|e| self.get(e).is_some())
    }

    /// Instructions per cycle.
    pub fn ipc(&self) -> Option<f64> {
        Some(self.get("instructions")? / self.get("cycles")?)
    }

    /// Cache misses per cache reference.
    pub fn cache_miss_rate(&self) -> Option<f64> {
        Some(self.get("cache-misses")? / self.get("cache-references")?)
    }

    /// Branch misses per branch.
    pub fn branch_miss_rate(&self) -> Option<f64> {
        Some(self.get("branch-misses")? / self.get("branch-instructions")?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_real_counts() {
        let stat = PerfStat::parse(include_str!("../../tests/fixtures/perf-stat-supported.csv"));
        assert!(stat.hardware_supported());
        assert_eq!(stat.get("instructions"), Some(12_086_551_236.0));
        let ipc = stat.ipc().unwrap();
        assert!((ipc - 12_086_551_236.0 / 5_613_338_421.0).abs() < 1e-12);
        assert!(stat.cache_miss_rate().unwrap() > 0.0);
        assert_eq!(stat.get("page-faults"), Some(31_337.0));
    }

    #[test]
    fn reads_not_supported_counters_as_missing() {
        let stat = PerfStat::parse(include_str!("../../tests/fixtures/perf-stat-vm.csv"));
        assert!(!stat.hardware_supported());
        assert_eq!(stat.get("cycles"), None);
        assert!(stat.events.contains_key("cycles"));
        assert_eq!(stat.ipc(), None);
        assert!(stat.get("task-clock").unwrap() > 0.0);
        assert!(stat.get("context-switches").is_some());
    }
}
