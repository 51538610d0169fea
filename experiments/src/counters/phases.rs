//! What a thread is doing, phase by phase: [`Phase`], and the [`PhaseLedger`] a thread keeps of
//! its own phases. At each phase boundary the thread reads its counter groups once; the
//! difference since the last read goes to the phase that just ended, with its wall time and,
//! for `--timeline`, its interval. The last read is the thread's total, so its phases add up
//! to its task-clock exactly.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use super::events::{Counts, ThreadEvents};

/// One phase of a thread's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// From the thread's start to its first piece of work (the main thread: setting up).
    Start,
    /// Building batches: drawing values, making Arrow arrays, taking buffers back.
    Generate,
    /// Encoding batches into column writers (with the channel designs' writers: handing them
    /// to the parallel writer, which may wait for room in its pool).
    Encode,
    /// Closing column writers and appending finished row groups to the file, its I/O included
    /// (with the channel designs' writers: the last row groups and the footer).
    Append,
    /// Blocked: a fused worker waiting for room in the row-group window, or the main thread
    /// waiting for the others.
    Wait,
    /// A producer handing a batch over: blocked while its channel is full.
    Send,
    /// A writer waiting for its next batch.
    Receive,
    /// After the thread's last piece of work (a fused worker: it found no row group left).
    Tail,
}

impl Phase {
    /// The phase's name in reports and timelines.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Start => "start",
            Phase::Generate => "generate",
            Phase::Encode => "encode",
            Phase::Append => "append",
            Phase::Wait => "wait",
            Phase::Send => "send",
            Phase::Receive => "receive",
            Phase::Tail => "tail",
        }
    }
}

/// One phase's counts, summed over its intervals (of one thread, or of a role's threads).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PhaseTotals {
    /// The counts (zero when not counting).
    pub counts: Counts,
    /// Wall time spent in the phase, nanoseconds.
    pub wall_ns: u64,
    /// Times the phase was entered.
    pub entries: u64,
}

impl PhaseTotals {
    /// Adds `more`'s counts, wall time and entries.
    pub fn merge(&mut self, more: &PhaseTotals) {
        self.counts.add(&more.counts);
        self.wall_ns += more.wall_ns;
        self.entries += more.entries;
    }
}

/// One stretch of one phase on one thread, for `--timeline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    /// The phase.
    pub phase: Phase,
    /// Its start and end, nanoseconds from the run's start.
    pub start_ns: u64,
    /// See `start_ns`.
    pub end_ns: u64,
    /// Rows the thread generated or encoded in it.
    pub rows: u64,
}

/// A thread's account of its phases, kept by the thread itself.
pub struct PhaseLedger {
    /// The thread's events; `None` when not counting, `Some(Err)` once they failed.
    events: Option<Result<ThreadEvents, String>>,
    /// Counts at the start of the current phase.
    last: Counts,
    phase: Phase,
    phase_started: Instant,
    rows: u64,
    /// The run's start, from which intervals are timed.
    origin: Instant,
    /// Per phase, its counts so far (the current phase's not yet added).
    totals: BTreeMap<Phase, PhaseTotals>,
    /// The ended intervals, when the run keeps a timeline.
    intervals: Option<Vec<Interval>>,
    /// Reads of the events made at boundaries, and the time they took, nanoseconds.
    reads: u64,
    read_ns: u64,
}

impl PhaseLedger {
    /// A ledger starting in `phase` now, counting `events` (if any) and keeping intervals timed
    /// from `origin` when `timeline` is on.
    pub fn new(
        events: Option<Result<ThreadEvents, String>>,
        phase: Phase,
        origin: Instant,
        timeline: bool,
    ) -> Self {
        Self {
            events,
            last: Counts::default(),
            phase,
            phase_started: Instant::now(),
            rows: 0,
            origin,
            totals: BTreeMap::new(),
            intervals: timeline.then(Vec::new),
            reads: 0,
            read_ns: 0,
        }
    }

    /// Ends the current phase and starts `phase` (nothing happens when it is the current one).
    pub fn enter(&mut self, phase: Phase) {
        if phase != self.phase {
            self.close_phase();
            self.phase = phase;
        }
    }

    /// Counts `rows` as made or encoded in the current phase (for the timeline).
    pub fn add_rows(&mut self, rows: u64) {
        self.rows += rows;
    }

    /// Ends the current phase and returns the thread's phases, its total counts (or why they
    /// could not be read) and its intervals.
    pub fn finish(mut self) -> LedgerEnd {
        self.close_phase();
        let counts = match self.events.take() {
            Some(Ok(_)) => Some(Ok(self.last)),
            Some(Err(error)) => Some(Err(error)),
            None => None,
        };
        LedgerEnd {
            counts,
            phases: self.totals,
            intervals: self.intervals.unwrap_or_default(),
            reads: self.reads,
            read_ns: self.read_ns,
        }
    }

    fn close_phase(&mut self) {
        let now = Instant::now();
        let counts = self.read();
        let totals = self.totals.entry(self.phase).or_default();
        if let Some(counts) = counts {
            totals.counts.add(&counts.since(&self.last));
            self.last = counts;
        }
        totals.wall_ns += nanos(now - self.phase_started);
        totals.entries += 1;
        if let Some(intervals) = self.intervals.as_mut() {
            intervals.push(Interval {
                phase: self.phase,
                start_ns: nanos(self.phase_started.saturating_duration_since(self.origin)),
                end_ns: nanos(now.saturating_duration_since(self.origin)),
                rows: self.rows,
            });
        }
        self.phase_started = now;
        self.rows = 0;
    }

    /// The counts so far, if counting; a failed read stops the counting for good.
    fn read(&mut self) -> Option<Counts> {
        let events = self.events.as_mut()?.as_mut().ok()?;
        let started = Instant::now();
        let read = events.read();
        self.reads += 1;
        self.read_ns += nanos(started.elapsed());
        match read {
            Ok(counts) => Some(counts),
            Err(error) => {
                self.events = Some(Err(error.to_string()));
                None
            }
        }
    }
}

/// What a [`PhaseLedger`] ends with.
pub struct LedgerEnd {
    /// The thread's total counts; `None` when not counting.
    pub counts: Option<Result<Counts, String>>,
    /// Per phase, its counts (zero when not counting), wall time and entries.
    pub phases: BTreeMap<Phase, PhaseTotals>,
    /// The thread's intervals (empty without a timeline).
    pub intervals: Vec<Interval>,
    /// Reads made at phase boundaries.
    pub reads: u64,
    /// Time those reads took, nanoseconds.
    pub read_ns: u64,
}

fn nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}
