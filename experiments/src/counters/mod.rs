//! `pipeline --counters` and `--timeline`: what every thread the run starts does, observed by
//! the thread itself from its first instruction to its last. Perf events are summed by the role
//! the thread plays, so that the very run that was timed says where its cycles went: producers
//! (generation), encoders (the parallel writer's pool), writers (the writer threads: hand-off,
//! inline encoding, file I/O), fused (the row-group workers of entries 28 on, which generate,
//! encode and append on the same threads), main (setup, waiting, the gate's read-back, the
//! commit) and I/O (threads already running when the run started, such as an object store
//! client's runtime, counted from the outside). Threads that do more than one thing split their
//! counts by [`Phase`] (generating, encoding, appending, waiting...): each reads its own events
//! at its phase boundaries (`phases`). With `--timeline` each thread also keeps its phases'
//! intervals, which `timeline` writes out.
//!
//! Software events (task-clock, context switches, page faults) are counted wherever
//! `perf_event_open` works; hardware events (cycles, instructions, cache references and misses,
//! branch misses) where the PMU and `perf_event_paranoid` allow them. [`events::Scope`] finds
//! which once per run, and the report says where each figure came from.

pub mod events;
pub mod figures;
pub mod phases;
pub mod timeline;

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde::Serialize;
use shredlab_writer::WorkerObserver;

use events::{Counts, Scope, ThreadEvents};
pub use phases::{Interval, Phase};
use phases::{LedgerEnd, PhaseLedger, PhaseTotals};

use crate::usage::Usage;

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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleTotals {
    /// Threads that ended and were counted.
    pub threads: u32,
    /// Threads whose events could not be opened or read (counted in `threads`, not in the sums).
    pub failed: u32,
    /// The counts.
    pub counts: Counts,
    /// The counts by phase, of the threads counted.
    pub phases: BTreeMap<Phase, PhaseTotals>,
}

/// One thread's phase intervals, for `--timeline`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The thread's name.
    pub thread: String,
    /// Its role.
    pub role: Role,
    /// Its intervals, in order.
    pub intervals: Vec<Interval>,
}

/// What a run observes of its threads: perf counts by role and phase (`--counters`), phase
/// intervals by thread (`--timeline`), or both.
pub struct PhaseCounters {
    /// What can be counted here; `None` when the run does not count.
    scope: Option<Scope>,
    /// The run's start, from which intervals are timed.
    origin: Instant,
    timeline: bool,
    totals: Mutex<BTreeMap<Role, RoleTotals>>,
    lanes: Mutex<Vec<Lane>>,
    /// Reads made at phase boundaries, and their time in nanoseconds.
    reads: Mutex<(u64, u64)>,
    /// The first error of a thread whose events failed, for the report.
    first_failure: Mutex<Option<String>>,
}

impl PhaseCounters {
    /// Starts observing: counting when `counting` (`Err` says why not even the software events
    /// open), keeping every thread's intervals when `timeline`.
    pub fn start(counting: bool, timeline: bool) -> Result<Arc<Self>, String> {
        let scope = match counting {
            true => Some(Scope::probe()?),
            false => None,
        };
        Ok(Arc::new(Self {
            scope,
            origin: Instant::now(),
            timeline,
            totals: Mutex::default(),
            lanes: Mutex::default(),
            reads: Mutex::default(),
            first_failure: Mutex::default(),
        }))
    }

    /// Starts observing the calling thread as `role`, in `phase`, until the guard is dropped
    /// (on this thread).
    pub fn track(self: &Arc<Self>, role: Role, phase: Phase) -> ThreadCounters {
        let events = self
            .scope
            .as_ref()
            .map(|scope| ThreadEvents::open(scope).map_err(|e| e.to_string()));
        ThreadCounters {
            owner: Arc::clone(self),
            role,
            ledger: Some(PhaseLedger::new(events, phase, self.origin, self.timeline)),
        }
    }

    fn record(&self, role: Role, end: LedgerEnd) {
        {
            let mut totals = lock(&self.totals);
            let role_totals = totals.entry(role).or_default();
            match end.counts {
                Some(Ok(counts)) => {
                    role_totals.threads += 1;
                    role_totals.counts.add(&counts);
                    for (phase, sums) in &end.phases {
                        role_totals.phases.entry(*phase).or_default().merge(sums);
                    }
                }
                Some(Err(error)) => {
                    role_totals.threads += 1;
                    role_totals.failed += 1;
                    lock(&self.first_failure).get_or_insert(error);
                }
                None => {}
            }
        }
        let mut reads = lock(&self.reads);
        reads.0 += end.reads;
        reads.1 += end.read_ns;
        if self.timeline {
            let thread = std::thread::current();
            lock(&self.lanes).push(Lane {
                thread: thread.name().unwrap_or("unnamed").to_string(),
                role,
                intervals: end.intervals,
            });
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while adding left whole numbers behind: each update is one step.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Observes one thread from its creation until it is dropped, then adds what it saw to its
/// role.
pub struct ThreadCounters {
    owner: Arc<PhaseCounters>,
    role: Role,
    /// Always `Some` until dropped.
    ledger: Option<PhaseLedger>,
}

impl ThreadCounters {
    /// Ends the current phase and starts `phase`.
    pub fn enter(&mut self, phase: Phase) {
        if let Some(ledger) = self.ledger.as_mut() {
            ledger.enter(phase);
        }
    }

    /// Counts `rows` as made or encoded in the current phase.
    pub fn add_rows(&mut self, rows: u64) {
        if let Some(ledger) = self.ledger.as_mut() {
            ledger.add_rows(rows);
        }
    }
}

impl Drop for ThreadCounters {
    fn drop(&mut self) {
        if let Some(ledger) = self.ledger.take() {
            self.owner.record(self.role, ledger.finish());
        }
    }
}

/// A thread's observer, if the run observes: phase changes are no-ops without one.
pub trait Observed {
    /// Ends the current phase and starts `phase`.
    fn enter(&mut self, phase: Phase);
    /// Counts `rows` as made or encoded in the current phase.
    fn add_rows(&mut self, rows: u64);
}

impl Observed for Option<ThreadCounters> {
    fn enter(&mut self, phase: Phase) {
        if let Some(counters) = self {
            counters.enter(phase);
        }
    }

    fn add_rows(&mut self, rows: u64) {
        if let Some(counters) = self {
            counters.add_rows(rows);
        }
    }
}

/// What a run's observation ends with.
pub struct Observations {
    /// The `--counters` figures, when the run counted.
    pub counters: Option<figures::CountersReport>,
    /// Every thread's intervals, when the run kept a timeline.
    pub lanes: Option<Vec<Lane>>,
}

/// A run's observers, with its main thread's, and those of the threads already running, counted
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
            .field("scope", &self.registry.scope)
            .field("timeline", &self.registry.timeline)
            .finish_non_exhaustive()
    }
}

impl RunCounters {
    /// Starts observing (see [`PhaseCounters::start`]), on the calling thread as
    /// [`Role::Main`]; `Err` says why nothing can be counted.
    pub fn start(counting: bool, timeline: bool) -> Result<Self, String> {
        let registry = PhaseCounters::start(counting, timeline)?;
        let main = registry.track(Role::Main, Phase::Start);
        let running = match &registry.scope {
            Some(scope) => other_threads()
                .into_iter()
                .map(|tid| ThreadEvents::open_thread(scope, tid).map_err(|e| e.to_string()))
                .collect(),
            None => Vec::new(),
        };
        Ok(Self {
            registry,
            main,
            running,
        })
    }

    /// Where the run's other threads add what they saw.
    pub fn registry(&self) -> &Arc<PhaseCounters> {
        &self.registry
    }

    /// The main thread's phase from now on.
    pub fn main_enters(&mut self, phase: Phase) {
        self.main.enter(phase);
    }

    /// Stops observing the main thread and returns the figures of a run of `rows` rows whose
    /// process used `process.cpu_s`, while a hypervisor took `process.stolen_s` from the
    /// machine. Every other thread must have ended.
    pub fn finish(self, rows: u64, process: Usage) -> Observations {
        let Self {
            registry,
            main,
            running,
        } = self;
        drop(main);
        for events in running {
            let counts = events.and_then(|mut e| e.read().map_err(|e| e.to_string()));
            registry.record(Role::Io, io_end(counts));
        }
        let counters = registry.scope.as_ref().map(|scope| {
            let (reads, read_ns) = *lock(&registry.reads);
            figures::CountersReport::new(
                scope,
                &lock(&registry.totals),
                (rows, process),
                figures::BoundaryReads {
                    reads,
                    seconds: read_ns as f64 / 1e9,
                },
                lock(&registry.first_failure).clone(),
            )
        });
        let lanes = registry
            .timeline
            .then(|| std::mem::take(&mut *lock(&registry.lanes)));
        Observations { counters, lanes }
    }
}

/// The end of a thread counted from outside: its counts, in no phase, and no interval.
fn io_end(counts: Result<Counts, String>) -> LedgerEnd {
    LedgerEnd {
        counts: Some(counts),
        phases: BTreeMap::new(),
        intervals: Vec::new(),
        reads: 0,
        read_ns: 0,
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
        Box::new(self.0.track(Role::Encoders, Phase::Encode))
    }
}
