//! The per-role figures a run reports with `--counters`: CPU seconds and share of the process,
//! context switches and page faults, and where the PMU allows it IPC and misses per 1,000
//! rows; each labelled with where it came from.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::events::{Counts, HardwareCounts, Scope};
use super::{Phase, Role, RoleTotals};
use crate::usage::Usage;

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
    /// What a hypervisor took from the machine's CPUs over the run (`/proc/stat`, every CPU):
    /// task-clock counts the time stolen from a running thread, the process's CPU time does
    /// not, so `counted_cpu_s` may pass `process_cpu_s` by up to this.
    pub stolen_s: Option<f64>,
    /// One entry per role that had a thread, in [`Role::ALL`]'s order.
    pub roles: Vec<RoleFigures>,
    /// The phases of the roles whose threads do more than one thing, in role then phase order.
    pub phases: Vec<PhaseFigures>,
    /// The reads of the events that split the counts by phase, and what they cost.
    pub boundary_reads: BoundaryReads,
    /// The first error of a thread whose events failed, if any.
    pub thread_failure: Option<String>,
}

/// The reads each thread made of its own events at its phase boundaries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct BoundaryReads {
    /// Reads made, over every thread.
    pub reads: u64,
    /// Wall time they took, seconds (each read timed on its thread).
    pub seconds: f64,
}

/// The hardware ratios of a set of counts, where the PMU allowed them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct HardwareRatios {
    /// Instructions per cycle.
    pub ipc: Option<f64>,
    /// Instructions per row written.
    pub instructions_per_row: Option<f64>,
    /// Last-level cache misses per 1,000 rows.
    pub cache_misses_per_1k_rows: Option<f64>,
    /// Branch misses per 1,000 rows.
    pub branch_misses_per_1k_rows: Option<f64>,
    /// Share of the enabled time the hardware group was on the PMU (below 1: multiplexed,
    /// and the counts scaled up to the enabled time).
    pub pmu_running_share: Option<f64>,
}

impl HardwareRatios {
    fn of(hardware: Option<HardwareCounts>, rows: u64) -> Self {
        let per_1k_rows = |count: u64| count as f64 * 1000.0 / rows.max(1) as f64;
        Self {
            ipc: hardware
                .filter(|h| h.cycles > 0)
                .map(|h| h.instructions as f64 / h.cycles as f64),
            instructions_per_row: hardware.map(|h| h.instructions as f64 / rows.max(1) as f64),
            cache_misses_per_1k_rows: hardware.map(|h| per_1k_rows(h.cache_misses)),
            branch_misses_per_1k_rows: hardware.map(|h| per_1k_rows(h.branch_misses)),
            pmu_running_share: hardware
                .filter(|h| h.enabled_ns > 0)
                .map(|h| h.running_ns as f64 / h.enabled_ns as f64),
        }
    }
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
    /// Hardware ratios.
    #[serde(flatten)]
    pub ratios: HardwareRatios,
    /// The hardware counts, scaled.
    pub hardware: Option<HardwareCounts>,
}

/// One phase of one role's threads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseFigures {
    /// The role.
    pub role: Role,
    /// The phase.
    pub phase: Phase,
    /// CPU seconds (task-clock) in the phase.
    pub cpu_s: f64,
    /// Share of the role's CPU seconds.
    pub share_of_role: f64,
    /// Wall seconds the role's threads spent in the phase, summed over them.
    pub wall_s: f64,
    /// Times a thread entered the phase.
    pub entries: u64,
    /// Context switches.
    pub context_switches: u64,
    /// Page faults.
    pub page_faults: u64,
    /// Hardware ratios (per row: per row of the whole run).
    #[serde(flatten)]
    pub ratios: HardwareRatios,
}

fn seconds(counts: &Counts) -> f64 {
    counts.software.task_clock_ns as f64 / 1e9
}

impl CountersReport {
    /// The figures of `totals` for a run of `rows` rows whose process used `process` (its CPU
    /// time, and the machine's steal meanwhile), whose threads made `boundary_reads`.
    pub fn new(
        scope: &Scope,
        totals: &BTreeMap<Role, RoleTotals>,
        (rows, process): (u64, Usage),
        boundary_reads: BoundaryReads,
        thread_failure: Option<String>,
    ) -> Self {
        let counted_cpu_s: f64 = totals.values().map(|t| seconds(&t.counts)).sum();
        let roles = Role::ALL
            .iter()
            .filter_map(|role| Some((*role, totals.get(role)?)))
            .map(|(role, t)| RoleFigures {
                role,
                threads: t.threads,
                failed_threads: t.failed,
                cpu_s: seconds(&t.counts),
                share: seconds(&t.counts) / counted_cpu_s.max(f64::MIN_POSITIVE),
                context_switches: t.counts.software.context_switches,
                page_faults: t.counts.software.page_faults,
                ratios: HardwareRatios::of(t.counts.hardware, rows),
                hardware: t.counts.hardware,
            })
            .collect();
        let phases = Role::ALL
            .iter()
            .filter_map(|role| Some((*role, totals.get(role)?)))
            .filter(|(_, t)| t.phases.len() > 1)
            .flat_map(|(role, t)| {
                let role_s = seconds(&t.counts).max(f64::MIN_POSITIVE);
                t.phases.iter().map(move |(phase, p)| PhaseFigures {
                    role,
                    phase: *phase,
                    cpu_s: seconds(&p.counts),
                    share_of_role: seconds(&p.counts) / role_s,
                    wall_s: p.wall_ns as f64 / 1e9,
                    entries: p.entries,
                    context_switches: p.counts.software.context_switches,
                    page_faults: p.counts.software.page_faults,
                    ratios: HardwareRatios::of(p.counts.hardware, rows),
                })
            })
            .collect();
        Self {
            source: source(scope),
            kernel_time: scope.kernel,
            hardware_missing: scope.hardware_missing.clone(),
            counted_cpu_s,
            process_cpu_s: process.cpu_s,
            stolen_s: process.stolen_s,
            roles,
            phases,
            boundary_reads,
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

    /// The human-readable tables: by role, then by phase.
    pub fn human(&self) -> String {
        let mut text = format!("counters: {}\n", self.source);
        let hardware = self.roles.iter().any(|r| r.ratios.ipc.is_some());
        text.push_str("  role       threads   CPU s  share  ctx switches  page faults");
        push_hardware_header(&mut text, hardware);
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
            push_hardware(&mut text, hardware, &r.ratios);
        }
        let steal = match self.stolen_s {
            Some(s) if s >= 0.01 => {
                format!("; the hypervisor stole {s:.2} s, which task-clock counts")
            }
            _ => String::new(),
        };
        let process = self.process_cpu_s.map_or(String::new(), |p| {
            format!(" (the process: {p:.2} CPU s{steal})")
        });
        let _ = writeln!(text, "  counted {:.3} CPU s{process}", self.counted_cpu_s);
        if let Some(uncounted) = self.uncounted_cpu_s() {
            let _ = writeln!(
                text,
                "  {uncounted:.2} CPU s of the process ran on threads started during the run by something other than the pipeline, which no role counts"
            );
        }
        self.push_phases(&mut text, hardware);
        if let Some(error) = &self.thread_failure {
            let _ = writeln!(text, "  some threads were not counted: {error}");
        }
        text
    }

    /// The phases table, and what splitting by phase cost.
    fn push_phases(&self, text: &mut String, hardware: bool) {
        if self.phases.is_empty() {
            return;
        }
        text.push_str(
            "  role      phase      CPU s  of role  wall s  entries  ctx switches  page faults",
        );
        push_hardware_header(text, hardware);
        for p in &self.phases {
            let _ = write!(
                text,
                "  {:<9} {:<8} {:>7.3} {:>7.1}% {:>7.3} {:>8} {:>13} {:>12}",
                p.role.name(),
                p.phase.name(),
                p.cpu_s,
                p.share_of_role * 100.0,
                p.wall_s,
                p.entries,
                p.context_switches,
                p.page_faults
            );
            push_hardware(text, hardware, &p.ratios);
        }
        let _ = writeln!(
            text,
            "  phases split by {} reads of the threads' own events, which took {:.4} s",
            self.boundary_reads.reads, self.boundary_reads.seconds
        );
    }
}

fn push_hardware_header(text: &mut String, hardware: bool) {
    if hardware {
        text.push_str("    IPC  LLC miss/1k rows  branch miss/1k rows");
    }
    text.push('\n');
}

/// Ends a table row, with `ratios` when the table has hardware columns.
fn push_hardware(text: &mut String, hardware: bool, ratios: &HardwareRatios) {
    if hardware {
        let figure = |v: Option<f64>, decimals: usize| {
            v.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
        };
        let _ = write!(
            text,
            " {:>6} {:>17} {:>20}",
            figure(ratios.ipc, 2),
            figure(ratios.cache_misses_per_1k_rows, 1),
            figure(ratios.branch_misses_per_1k_rows, 1)
        );
    }
    text.push('\n');
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
mod tests;
