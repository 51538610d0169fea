//! The per-role figures a run reports with `--counters`: CPU seconds and share of the process,
//! context switches and page faults, and where the PMU allows it IPC and misses per 1,000
//! rows; each labelled with where it came from.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::events::{HardwareCounts, Scope};
use super::{Role, RoleTotals};

/// The `counters` section of a run's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountersReport {
    /// Where the figures come from, in words.
    pub source: String,
    /// Whether kernel time is in the CPU figures (else user time only).
    pub kernel_time: bool,
    /// Why the hardware figures are missing, when they are.
    pub hardware_missing: Option<String>,
    /// The threads' task-clock, summed over every role, seconds.
    pub counted_cpu_s: f64,
    /// The process's own CPU time over the run (from `/proc`, 10 ms resolution), for comparison.
    pub process_cpu_s: Option<f64>,
    /// One entry per role that had a thread, in [`Role::ALL`]'s order.
    pub roles: Vec<RoleFigures>,
    /// The first error of a thread whose events failed, if any.
    pub thread_failure: Option<String>,
}

/// One role's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleFigures {
    /// The role.
    pub role: Role,
    /// Its threads.
    pub threads: u32,
    /// Its threads whose events failed (not in the figures).
    pub failed_threads: u32,
    /// CPU seconds (task-clock).
    pub cpu_s: f64,
    /// Share of the counted CPU time of the run.
    pub share: f64,
    /// Context switches.
    pub context_switches: u64,
    /// Page faults.
    pub page_faults: u64,
    /// Instructions per cycle (hardware).
    pub ipc: Option<f64>,
    /// Instructions per row written (hardware).
    pub instructions_per_row: Option<f64>,
    /// Last-level cache misses per 1,000 rows (hardware).
    pub cache_misses_per_1k_rows: Option<f64>,
    /// Branch misses per 1,000 rows (hardware).
    pub branch_misses_per_1k_rows: Option<f64>,
    /// Share of the enabled time the hardware group was on the PMU (below 1: multiplexed,
    /// and the counts scaled up to the enabled time).
    pub pmu_running_share: Option<f64>,
    /// The hardware counts, scaled.
    pub hardware: Option<HardwareCounts>,
}

impl CountersReport {
    /// The figures of `totals` for a run of `rows` rows whose process used `process_cpu_s`.
    pub fn new(
        scope: &Scope,
        totals: &BTreeMap<Role, RoleTotals>,
        rows: u64,
        process_cpu_s: Option<f64>,
        thread_failure: Option<String>,
    ) -> Self {
        let seconds = |t: &RoleTotals| t.software.task_clock_ns as f64 / 1e9;
        let counted_cpu_s: f64 = totals.values().map(seconds).sum();
        let per_1k_rows = |count: u64| count as f64 * 1000.0 / rows.max(1) as f64;
        let roles = Role::ALL
            .iter()
            .filter_map(|role| Some((*role, totals.get(role)?)))
            .map(|(role, t)| {
                let hardware = t.hardware;
                RoleFigures {
                    role,
                    threads: t.threads,
                    failed_threads: t.failed,
                    cpu_s: seconds(t),
                    share: seconds(t) / counted_cpu_s.max(f64::MIN_POSITIVE),
                    context_switches: t.software.context_switches,
                    page_faults: t.software.page_faults,
                    ipc: hardware
                        .filter(|h| h.cycles > 0)
                        .map(|h| h.instructions as f64 / h.cycles as f64),
                    instructions_per_row: hardware
                        .map(|h| h.instructions as f64 / rows.max(1) as f64),
                    cache_misses_per_1k_rows: hardware.map(|h| per_1k_rows(h.cache_misses)),
                    branch_misses_per_1k_rows: hardware.map(|h| per_1k_rows(h.branch_misses)),
                    pmu_running_share: hardware
                        .filter(|h| h.enabled_ns > 0)
                        .map(|h| h.running_ns as f64 / h.enabled_ns as f64),
                    hardware,
                }
            })
            .collect();
        Self {
            source: source(scope),
            kernel_time: scope.kernel,
            hardware_missing: scope.hardware_missing.clone(),
            counted_cpu_s,
            process_cpu_s,
            roles,
            thread_failure,
        }
    }

    /// The process's CPU time that no role counted, when it is over 5% of the process's and
    /// over five times the 10 ms resolution of the process's figure (below that, it is the
    /// resolution talking).
    pub fn uncounted_cpu_s(&self) -> Option<f64> {
        let process = self.process_cpu_s?;
        let uncounted = process - self.counted_cpu_s;
        (uncounted > 0.05 * process && uncounted > 0.05).then_some(uncounted)
    }

    /// The human-readable table.
    pub fn human(&self) -> String {
        let mut text = format!("counters: {}\n", self.source);
        let hardware = self.roles.iter().any(|r| r.ipc.is_some());
        text.push_str("  role       threads   CPU s  share  ctx switches  page faults");
        if hardware {
            text.push_str("    IPC  LLC miss/1k rows  branch miss/1k rows");
        }
        text.push('\n');
        for r in &self.roles {
            let _ = write!(
                text,
                "  {:<9} {:>8} {:>7.3} {:>5.1}% {:>13} {:>12}",
                r.role.name(),
                r.threads,
                r.cpu_s,
                r.share * 100.0,
                r.context_switches,
                r.page_faults
            );
            if hardware {
                let figure = |v: Option<f64>, decimals: usize| {
                    v.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
                };
                let _ = write!(
                    text,
                    " {:>6} {:>17} {:>20}",
                    figure(r.ipc, 2),
                    figure(r.cache_misses_per_1k_rows, 1),
                    figure(r.branch_misses_per_1k_rows, 1)
                );
            }
            text.push('\n');
        }
        let process = self
            .process_cpu_s
            .map_or(String::new(), |p| format!(" (the process: {p:.2} CPU s)"));
        let _ = writeln!(text, "  counted {:.3} CPU s{process}", self.counted_cpu_s);
        if let Some(uncounted) = self.uncounted_cpu_s() {
            let _ = writeln!(
                text,
                "  {uncounted:.2} CPU s of the process ran on threads started during the run by something other than the pipeline, which no role counts"
            );
        }
        if let Some(error) = &self.thread_failure {
            let _ = writeln!(text, "  some threads were not counted: {error}");
        }
        text
    }
}

/// Where the figures come from, in words.
fn source(scope: &Scope) -> String {
    let time = if scope.kernel {
        "user and kernel time"
    } else {
        "user time only (kernel time not permitted)"
    };
    match &scope.hardware_missing {
        None => format!(
            "perf_event_open per thread: software events ({time}) and hardware events (cycles, instructions, LLC references and misses, branch misses)"
        ),
        Some(why) => format!("perf_event_open per thread: software events ({time}); {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::events::SoftwareCounts;

    fn totals(task_clock_ns: u64, hardware: Option<HardwareCounts>) -> RoleTotals {
        RoleTotals {
            threads: 2,
            failed: 0,
            software: SoftwareCounts {
                task_clock_ns,
                context_switches: 10,
                page_faults: 100,
            },
            hardware,
        }
    }

    #[test]
    fn roles_get_their_share_and_hardware_ratios() {
        let scope = Scope {
            kernel: true,
            hardware_missing: None,
        };
        let hardware = HardwareCounts {
            cycles: 2_000,
            instructions: 3_000,
            cache_references: 50,
            cache_misses: 20,
            branch_misses: 5,
            enabled_ns: 100,
            running_ns: 50,
        };
        let by_role = BTreeMap::from([
            (Role::Producers, totals(600_000_000, Some(hardware))),
            (Role::Encoders, totals(1_400_000_000, None)),
        ]);
        let report = CountersReport::new(&scope, &by_role, 1_000, Some(2.01), None);
        assert_eq!(report.counted_cpu_s, 2.0);
        let producers = &report.roles[0];
        assert_eq!((producers.role, producers.share), (Role::Producers, 0.3));
        assert_eq!(producers.ipc, Some(1.5));
        assert_eq!(producers.instructions_per_row, Some(3.0));
        assert_eq!(producers.cache_misses_per_1k_rows, Some(20.0));
        assert_eq!(producers.pmu_running_share, Some(0.5));
        assert_eq!(report.roles[1].ipc, None);
        let text = report.human();
        assert!(text.contains("hardware events (cycles"), "{text}");
        assert!(text.contains("producers        2   0.600  30.0%"), "{text}");
        assert!(text.contains("(the process: 2.01 CPU s)"), "{text}");
        assert!(
            !text.contains("no role counts"),
            "1 ms short is the resolution: {text}"
        );
        let short = CountersReport::new(&scope, &by_role, 1_000, Some(2.5), None);
        assert_eq!(short.uncounted_cpu_s(), Some(0.5));
        assert!(short
            .human()
            .contains("0.50 CPU s of the process ran on threads"));
        // A short run: 33 ms counted, 40 ms by /proc's 10 ms ticks.
        let small = BTreeMap::from([(Role::Main, totals(33_000_000, None))]);
        let tiny = CountersReport::new(&scope, &small, 10, Some(0.04), None);
        assert_eq!(
            tiny.uncounted_cpu_s(),
            None,
            "7 ms is within the resolution"
        );
    }

    #[test]
    fn missing_hardware_is_said_with_its_reason() {
        let scope = Scope {
            kernel: false,
            hardware_missing: Some("hardware events unavailable: no PMU".to_string()),
        };
        let by_role = BTreeMap::from([(Role::Main, totals(1_000_000, None))]);
        let report = CountersReport::new(&scope, &by_role, 10, None, None);
        let text = report.human();
        assert!(text.contains("user time only"), "{text}");
        assert!(text.contains("no PMU"), "{text}");
        assert!(!text.contains("IPC"), "{text}");
    }
}
