//! The perf events one thread counts about itself (`perf_event_open` through `perf-event2`):
//! software events always, as one group; the hardware events as a second group where the PMU
//! and `perf_event_paranoid` allow them, read with their enabled and running times so that
//! multiplexing is visible and scaled out.

use std::io;

use perf_event::events::{Event, Hardware, Software};
use perf_event::{Builder, Counter, Group, GroupData};
use serde::Serialize;

/// The software events, in the order of [`SoftwareCounts`].
const SOFTWARE: [Software; 3] = [
    Software::TASK_CLOCK,
    Software::CONTEXT_SWITCHES,
    Software::PAGE_FAULTS,
];

/// The hardware events, in the order of [`HardwareCounts`].
const HARDWARE: [Hardware; 5] = [
    Hardware::CPU_CYCLES,
    Hardware::INSTRUCTIONS,
    Hardware::CACHE_REFERENCES,
    Hardware::CACHE_MISSES,
    Hardware::BRANCH_MISSES,
];

/// What the kernel lets this process count, found once by [`Scope::probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// Whether kernel time is counted too (`perf_event_paranoid` < 2, or privileges).
    pub kernel: bool,
    /// `None` when the hardware events open, else why they do not.
    pub hardware_missing: Option<String>,
}

impl Scope {
    /// Opens the events once on the calling thread to find what can be counted: kernel time
    /// or user time only, hardware events or why not. `Err` names why not even the software
    /// events open.
    pub fn probe() -> Result<Self, String> {
        let kernel = match software_group(true) {
            Ok(_) => true,
            Err(e) if is_permission(&e) => {
                software_group(false).map_err(|e| unavailable("software events", &e))?;
                false
            }
            Err(e) => return Err(unavailable("software events", &e)),
        };
        let hardware_missing = hardware_group(kernel)
            .err()
            .map(|e| unavailable("hardware events", &e));
        Ok(Self {
            kernel,
            hardware_missing,
        })
    }
}

/// One thread's events, counting from [`ThreadEvents::open`] on.
pub struct ThreadEvents {
    software: (Group, Vec<Counter>),
    hardware: Option<(Group, Vec<Counter>)>,
}

impl ThreadEvents {
    /// Opens and enables the events `scope` allows on the calling thread.
    pub fn open(scope: &Scope) -> io::Result<Self> {
        Self::open_on(scope, None)
    }

    /// Opens and enables the events `scope` allows on thread `tid` of this process.
    pub fn open_thread(scope: &Scope, tid: i32) -> io::Result<Self> {
        Self::open_on(scope, Some(tid))
    }

    fn open_on(scope: &Scope, tid: Option<i32>) -> io::Result<Self> {
        let mut software = group_of(&SOFTWARE, scope.kernel, tid)?;
        let mut hardware = match scope.hardware_missing {
            None => Some(group_of(&HARDWARE, scope.kernel, tid)?),
            Some(_) => None,
        };
        software.0.enable()?;
        if let Some((group, _)) = hardware.as_mut() {
            group.enable()?;
        }
        Ok(Self { software, hardware })
    }

    /// The counts so far.
    pub fn read(&mut self) -> io::Result<Counts> {
        let (group, members) = &mut self.software;
        let data = group.read()?;
        let [task_clock_ns, context_switches, page_faults] = values(&data, members);
        let hardware = match self.hardware.as_mut() {
            Some((group, members)) => {
                let data = group.read()?;
                let [cycles, instructions, cache_references, cache_misses, branch_misses] =
                    values(&data, members);
                Some(HardwareCounts {
                    cycles,
                    instructions,
                    cache_references,
                    cache_misses,
                    branch_misses,
                    enabled_ns: data.time_enabled().map_or(0, |t| t.as_nanos() as u64),
                    running_ns: data.time_running().map_or(0, |t| t.as_nanos() as u64),
                })
            }
            None => None,
        };
        Ok(Counts {
            software: SoftwareCounts {
                task_clock_ns,
                context_switches,
                page_faults,
            },
            hardware,
        })
    }
}

/// The software events' counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SoftwareCounts {
    /// CPU time of the thread, nanoseconds.
    pub task_clock_ns: u64,
    /// Context switches.
    pub context_switches: u64,
    /// Page faults.
    pub page_faults: u64,
}

/// The hardware events' counts, each already scaled by enabled / running time when the PMU
/// multiplexed the group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct HardwareCounts {
    /// Core cycles.
    pub cycles: u64,
    /// Instructions retired.
    pub instructions: u64,
    /// Last-level cache references.
    pub cache_references: u64,
    /// Last-level cache misses.
    pub cache_misses: u64,
    /// Mispredicted branches.
    pub branch_misses: u64,
    /// Time the group was enabled, nanoseconds.
    pub enabled_ns: u64,
    /// Time the group was on the PMU, nanoseconds: below `enabled_ns` when multiplexed.
    pub running_ns: u64,
}

/// One thread's counts.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counts {
    /// The software events.
    pub software: SoftwareCounts,
    /// The hardware events, where they open.
    pub hardware: Option<HardwareCounts>,
}

impl Counts {
    /// Adds `more` (hardware sums start where the first thread's hardware counts do).
    pub fn add(&mut self, more: &Counts) {
        let software = &mut self.software;
        software.task_clock_ns += more.software.task_clock_ns;
        software.context_switches += more.software.context_switches;
        software.page_faults += more.software.page_faults;
        if let Some(more) = more.hardware {
            let sum = self.hardware.get_or_insert_with(HardwareCounts::default);
            sum.cycles += more.cycles;
            sum.instructions += more.instructions;
            sum.cache_references += more.cache_references;
            sum.cache_misses += more.cache_misses;
            sum.branch_misses += more.branch_misses;
            sum.enabled_ns += more.enabled_ns;
            sum.running_ns += more.running_ns;
        }
    }

    /// The counts between `earlier` (a read of the same events) and these.
    pub fn since(&self, earlier: &Counts) -> Counts {
        let software = SoftwareCounts {
            task_clock_ns: self
                .software
                .task_clock_ns
                .saturating_sub(earlier.software.task_clock_ns),
            context_switches: self
                .software
                .context_switches
                .saturating_sub(earlier.software.context_switches),
            page_faults: self
                .software
                .page_faults
                .saturating_sub(earlier.software.page_faults),
        };
        // Scaled counts of a multiplexed group may step back by a little: clamped at zero.
        let hardware = self.hardware.map(|now| {
            let before = earlier.hardware.unwrap_or_default();
            HardwareCounts {
                cycles: now.cycles.saturating_sub(before.cycles),
                instructions: now.instructions.saturating_sub(before.instructions),
                cache_references: now.cache_references.saturating_sub(before.cache_references),
                cache_misses: now.cache_misses.saturating_sub(before.cache_misses),
                branch_misses: now.branch_misses.saturating_sub(before.branch_misses),
                enabled_ns: now.enabled_ns.saturating_sub(before.enabled_ns),
                running_ns: now.running_ns.saturating_sub(before.running_ns),
            }
        });
        Counts { software, hardware }
    }
}

/// `builder` set to count kernel time or not, on thread `tid` (`None`: the calling thread).
fn aimed(mut builder: Builder<'static>, kernel: bool, tid: Option<i32>) -> Builder<'static> {
    builder.exclude_kernel(!kernel);
    if let Some(tid) = tid {
        builder.observe_pid(tid);
    }
    builder
}

/// A group of `events` on thread `tid` (`None`: the calling thread), and its members.
fn group_of<E: Event + Copy>(
    events: &[E],
    kernel: bool,
    tid: Option<i32>,
) -> io::Result<(Group, Vec<Counter>)> {
    let mut group = aimed(Group::builder(), kernel, tid).build_group()?;
    let members = events
        .iter()
        .map(|event| group.add(&aimed(Builder::new(*event), kernel, tid)))
        .collect::<io::Result<Vec<_>>>()?;
    Ok((group, members))
}

fn software_group(kernel: bool) -> io::Result<(Group, Vec<Counter>)> {
    group_of(&SOFTWARE, kernel, None)
}

fn hardware_group(kernel: bool) -> io::Result<(Group, Vec<Counter>)> {
    group_of(&HARDWARE, kernel, None)
}

/// Each member's count, scaled by the group's enabled / running time.
fn values<const N: usize>(data: &GroupData, members: &[Counter]) -> [u64; N] {
    let enabled = data.time_enabled().map_or(0, |t| t.as_nanos());
    let running = data.time_running().map_or(0, |t| t.as_nanos());
    std::array::from_fn(|i| {
        let raw = data.get(&members[i]).map_or(0, |entry| entry.value());
        match running {
            0 => raw,
            running if running < enabled => (raw as u128 * enabled / running) as u64,
            _ => raw,
        }
    })
}

fn is_permission(error: &io::Error) -> bool {
    matches!(error.kind(), io::ErrorKind::PermissionDenied)
        || matches!(error.raw_os_error(), Some(libc::EACCES | libc::EPERM))
}

/// Why `what` cannot be counted, with what to do about it.
fn unavailable(what: &str, error: &io::Error) -> String {
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string());
    match error.raw_os_error() {
        Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV) => format!(
            "{what} unavailable: no PMU exposes them here (a VM without PMU passthrough reads them as <not supported>)"
        ),
        Some(libc::EACCES | libc::EPERM) => format!(
            "{what} not permitted: perf_event_paranoid is {paranoid}; lower it (sysctl kernel.perf_event_paranoid=1) or grant CAP_PERFMON"
        ),
        Some(libc::ENOSYS) => format!("{what} unavailable: this kernel has no perf_event_open"),
        _ => format!("{what} unavailable: {error}"),
    }
}
