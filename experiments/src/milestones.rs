//! `--milestones N`: one JSON line on stderr each time another N rows are written, with the
//! time and this process's memory, so a long run shows whether its memory stays bounded.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::Serialize;

use crate::process;

/// Counts rows written and reports every `every` rows.
#[derive(Debug)]
pub struct Milestones {
    every: u64,
    written: AtomicU64,
    started: Instant,
}

/// One milestone line.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Milestone {
    /// Rows written so far.
    pub rows: u64,
    /// Seconds since the run started.
    pub seconds: f64,
    /// Rows per second over the whole run so far.
    pub rows_per_s: f64,
    /// Resident set size now, bytes (`None` where `/proc` is unavailable).
    pub rss_bytes: Option<u64>,
    /// Peak resident set size so far, bytes.
    pub peak_rss_bytes: Option<u64>,
}

impl Milestones {
    /// Reports every `every` rows (`every` > 0), timed from now.
    pub fn new(every: u64) -> Self {
        Self {
            every: every.max(1),
            written: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// Counts `rows` more, and prints a milestone if they crossed a multiple of `every`.
    pub fn add(&self, rows: u64) {
        let before = self.written.fetch_add(rows, Ordering::Relaxed);
        let after = before + rows;
        if before / self.every != after / self.every {
            let line = serde_json::to_string(&self.at(after)).expect("a milestone serializes");
            // A closed stderr must not stop the run: the milestone is only lost.
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    }

    fn at(&self, rows: u64) -> Milestone {
        let seconds = self.started.elapsed().as_secs_f64();
        Milestone {
            rows,
            seconds,
            rows_per_s: rows as f64 / seconds,
            rss_bytes: process::current_rss(),
            peak_rss_bytes: process::peak_rss(),
        }
    }
}
