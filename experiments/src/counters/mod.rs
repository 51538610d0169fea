//! `pipeline --counters`: perf events counted by every thread the run starts, each on itself
//! from its first instruction to its last, and summed by the role the thread plays, so that the
//! very run that was timed says where its cycles went: producers (generation), encoders (the
//! parallel writer's pool), writers (the writer threads: hand-off, inline encoding, file I/O),
//! fused (the row-group workers of entries 28 on, which generate, encode and append on the same
//! threads, so their CPU is not split further), main (setup, the gate's read-back, the commit)
//! and I/O (threads already running when the run started, such as an object store client's
//! runtime, counted from the outside).
//!
//! Software events (task-clock, context switches, page faults) are counted wherever
//! `perf_event_open` works; hardware events (cycles, instructions, cache references and misses,
//! branch misses) where the PMU and `perf_event_paranoid` allow them. [`events::Scope`] finds
//! which once per run, and the report says where each figure came from.

pub mod events;
pub mod figures;

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use shredlab_writer::WorkerObserver;

use events::{Counts, HardwareCounts, Scope, SoftwareCounts, ThreadEvents};

/// What a thread does in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Producer threads: generating batches.
    Producers,
    /// The parallel writer's encoding workers.
    Encoders,
    /// Writer threads: the hand-off to the encoders, inline encoding, file I/O.
    Writers,
    /// The main thread: setup, the gate's read-back, the commit.
    Main,
    /// Threads already running when the run started (an object store client's runtime, which
    /// uploads the parts), counted from the main thread.
    Io,
    /// Fused row-group workers (experiment 28): generating and encoding on the same threads.
    Fused,
}

impl Role {
    /// Every role, in report order.
    pub const ALL: [Role; 6] = [
        Role::Producers,
        Role::Encoders,
        Role::Writers,
        Role::Main,
        Role::Io,
        Role::Fused,
    ];

    /// The role's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Role::Producers => "producers",
            Role::Encoders => "encoders",
            Role::Writers => "writers",
            Role::Fused => "fused",
            Role::Main => "main",
            Role::Io => "io",
        }
    }
}

/// The counts of one role's threads, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RoleTotals {
    /// Threads that ended and were counted.
    pub threads: u32,
    /// Threads whose events could not be opened or read (counted in `threads`, not in the sums).
    pub failed: u32,
    /// Software counts.
    pub software: SoftwareCounts,
    /// Hardware counts, where they open.
    pub hardware: Option<HardwareCounts>,
}

impl RoleTotals {
    fn add(&mut self, counts: Counts) {
        let software = &mut self.software;
        software.task_clock_ns += counts.software.task_clock_ns;
        software.context_switches += counts.software.context_switches;
        software.page_faults += counts.software.page_faults;
        if let Some(more) = counts.hardware {
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
}

/// The run's counters: what can be counted here, and each role's totals so far.
pub struct PhaseCounters {
    scope: Scope,
    totals: Mutex<BTreeMap<Role, RoleTotals>>,
    /// The first error of a thread whose events failed, for the report.
    first_failure: Mutex<Option<String>>,
}

impl PhaseCounters {
    /// Finds what this process may count; `Err` says why not even the software events open.
    pub fn start() -> Result<Arc<Self>, String> {
        Ok(Arc::new(Self {
            scope: Scope::probe()?,
            totals: Mutex::default(),
            first_failure: Mutex::default(),
        }))
    }

    /// What can be counted here.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Starts counting the calling thread as `role`, until the guard is dropped (on this thread).
    pub fn track(self: &Arc<Self>, role: Role) -> ThreadCounters {
        let events = ThreadEvents::open(&self.scope).map_err(|e| e.to_string());
        ThreadCounters {
            owner: Arc::clone(self),
            role,
            events,
        }
    }

    /// Each role's totals, of the threads counted so far.
    pub fn totals(&self) -> BTreeMap<Role, RoleTotals> {
        lock(&self.totals).clone()
    }

    /// The first error of a thread whose events failed, if any.
    pub fn first_failure(&self) -> Option<String> {
        lock(&self.first_failure).clone()
    }

    fn record(&self, role: Role, counts: Result<Counts, String>) {
        let mut totals = lock(&self.totals);
        let role_totals = totals.entry(role).or_default();
        role_totals.threads += 1;
        match counts {
            Ok(counts) => role_totals.add(counts),
            Err(error) => {
                role_totals.failed += 1;
                lock(&self.first_failure).get_or_insert(error);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while adding left whole numbers behind: each update is one step.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Counts one thread from its creation until it is dropped, then adds the counts to its role.
pub struct ThreadCounters {
    owner: Arc<PhaseCounters>,
    role: Role,
    events: Result<ThreadEvents, String>,
}

impl Drop for ThreadCounters {
    fn drop(&mut self) {
        let counts = match &mut self.events {
            Ok(events) => events.read().map_err(|e| e.to_string()),
            Err(error) => Err(error.clone()),
        };
        self.owner.record(self.role, counts);
    }
}

/// A run's counters, with its main thread's, and those of the threads already running, counted
/// from [`RunCounters::start`] to [`RunCounters::finish`].
pub struct RunCounters {
    registry: Arc<PhaseCounters>,
    main: ThreadCounters,
    /// The threads already running at the start, as [`Role::Io`].
    running: Vec<Result<ThreadEvents, String>>,
}

impl std::fmt::Debug for RunCounters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunCounters")
            .field("scope", self.registry.scope())
            .finish_non_exhaustive()
    }
}

impl RunCounters {
    /// Starts counting, on the calling thread as [`Role::Main`]; `Err` says why nothing can be
    /// counted.
    pub fn start() -> Result<Self, String> {
        let registry = PhaseCounters::start()?;
        let main = registry.track(Role::Main);
        let running = other_threads()
            .into_iter()
            .map(|tid| ThreadEvents::open_thread(registry.scope(), tid).map_err(|e| e.to_string()))
            .collect();
        Ok(Self {
            registry,
            main,
            running,
        })
    }

    /// Where the run's other threads add their counts.
    pub fn registry(&self) -> &Arc<PhaseCounters> {
        &self.registry
    }

    /// Stops counting the main thread and returns the figures of a run of `rows` rows whose
    /// process used `process_cpu_s`. Every other thread must have ended.
    pub fn finish(self, rows: u64, process_cpu_s: Option<f64>) -> figures::CountersReport {
        let Self {
            registry,
            main,
            running,
        } = self;
        drop(main);
        for events in running {
            let counts = events.and_then(|mut e| e.read().map_err(|e| e.to_string()));
            registry.record(Role::Io, counts);
        }
        figures::CountersReport::new(
            registry.scope(),
            &registry.totals(),
            rows,
            process_cpu_s,
            registry.first_failure(),
        )
    }
}

/// The process's threads other than the calling one (`/proc/self/task`; none without `/proc`).
fn other_threads() -> Vec<i32> {
    // /proc/thread-self links to PID/task/TID.
    let own = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|link| link.file_name()?.to_str()?.parse::<i32>().ok());
    std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|tid| Some(*tid) != own)
        .collect()
}

/// Counts the parallel writer's workers as [`Role::Encoders`].
pub struct EncoderObserver(pub Arc<PhaseCounters>);

impl WorkerObserver for EncoderObserver {
    fn worker_started(&self) -> Box<dyn Any> {
        Box::new(self.0.track(Role::Encoders))
    }
}
