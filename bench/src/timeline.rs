//! One experiment's `pipeline --timeline` run (`timeline.csv`): every thread's phase
//! intervals, and the share of the run's wall time each thread spent in each phase, the time
//! it was not running (started late, or ended before the run did) counted as idle.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The CSV's header, as `pipeline --timeline` writes it.
const HEADER: &str = "thread,role,phase,start_ns,end_ns,rows";

/// One interval of one thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// The phase (`generate`, `encode`, ...).
    pub phase: String,
    /// Start, nanoseconds from the run's start.
    pub start_ns: u64,
    /// End, nanoseconds from the run's start.
    pub end_ns: u64,
}

/// One thread's intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The thread's name (`fused-0`, `main`, ...).
    pub thread: String,
    /// Its role.
    pub role: String,
    /// Its intervals, in order.
    pub intervals: Vec<Interval>,
}

/// Every thread's intervals, in thread-name order.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// One lane per thread.
    pub lanes: Vec<Lane>,
}

/// The share of the run's wall time a role's threads spent in each phase, on average over its
/// threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleTime {
    /// The role.
    pub role: String,
    /// Its threads.
    pub threads: usize,
    /// Per phase, the mean share of the run's wall time; `idle` for the time not running.
    pub shares: BTreeMap<String, f64>,
}

/// Where a run's workers (threads of one role, such as fused workers) left cores idle: before
/// they started, between the first and the last one's end, and after the last.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IdleAccount {
    /// The workers counted.
    pub workers: usize,
    /// The run's wall time as the timeline saw it, milliseconds.
    pub wall_ms: f64,
    /// Mean time from the run's start to a worker's first interval, milliseconds.
    pub start_ms: f64,
    /// From the first worker's end to the last one's, milliseconds.
    pub uneven_exit_ms: f64,
    /// From the last worker's end to the run's end (the main thread's tail: collecting the
    /// results, the commit and its sync), milliseconds.
    pub after_workers_ms: f64,
}

impl IdleAccount {
    /// How much shorter the run would be without the uneven exits and the time after the
    /// workers, as a share of its wall time: the run would end when the mean worker does.
    pub fn gain_share(&self) -> f64 {
        (self.uneven_exit_ms / 2.0 + self.after_workers_ms) / self.wall_ms.max(f64::MIN_POSITIVE)
    }
}

impl Timeline {
    /// The idle account of the threads of `role`, if it had any.
    pub fn idle_account(&self, role: &str) -> Option<IdleAccount> {
        let workers: Vec<&Lane> = self.lanes.iter().filter(|l| l.role == role).collect();
        let first = |l: &Lane| l.intervals.first().map_or(0, |i| i.start_ns);
        let last = |l: &Lane| l.intervals.last().map_or(0, |i| i.end_ns);
        let ends: Vec<u64> = workers.iter().map(|l| last(l)).collect();
        let (earliest, latest) = (*ends.iter().min()?, *ends.iter().max()?);
        let ms = |ns: u64| ns as f64 / 1e6;
        let starts: f64 = workers.iter().map(|l| ms(first(l))).sum();
        Some(IdleAccount {
            workers: workers.len(),
            wall_ms: ms(self.wall_ns()),
            start_ms: starts / workers.len() as f64,
            uneven_exit_ms: ms(latest - earliest),
            after_workers_ms: ms(self.wall_ns() - latest),
        })
    }

    /// Parses `pipeline --timeline`'s CSV.
    ///
    /// # Errors
    ///
    /// Another header, a row without six fields, or a time that is not a whole number.
    pub fn parse(csv: &str) -> Result<Self> {
        let mut lines = csv.lines();
        if lines.next() != Some(HEADER) {
            bail!("not a pipeline --timeline file: the first line is not `{HEADER}`");
        }
        let mut lanes: BTreeMap<String, Lane> = BTreeMap::new();
        for (number, line) in lines.enumerate() {
            let fields: Vec<&str> = line.split(',').collect();
            let [thread, role, phase, start, end, _rows] = fields[..] else {
                bail!("line {}: six fields expected: {line}", number + 2);
            };
            let time = |text: &str| {
                text.parse::<u64>()
                    .with_context(|| format!("line {}: {text} is not a time", number + 2))
            };
            let interval = Interval {
                phase: phase.to_string(),
                start_ns: time(start)?,
                end_ns: time(end)?,
            };
            lanes
                .entry(thread.to_string())
                .or_insert_with(|| Lane {
                    thread: thread.to_string(),
                    role: role.to_string(),
                    intervals: Vec::new(),
                })
                .intervals
                .push(interval);
        }
        Ok(Self {
            lanes: lanes.into_values().collect(),
        })
    }

    /// The run's wall time as the timeline saw it: from 0 to the last interval's end.
    pub fn wall_ns(&self) -> u64 {
        let ends = self.lanes.iter().flat_map(|l| l.intervals.iter());
        ends.map(|i| i.end_ns).max().unwrap_or(0)
    }

    /// Per role, in order of first appearance by thread name, the mean share of the run's wall
    /// time its threads spent in each phase and idle.
    pub fn role_times(&self) -> Vec<RoleTime> {
        let wall = self.wall_ns().max(1) as f64;
        let mut roles: Vec<RoleTime> = Vec::new();
        for lane in &self.lanes {
            let index = match roles.iter().position(|r| r.role == lane.role) {
                Some(index) => index,
                None => {
                    roles.push(RoleTime {
                        role: lane.role.clone(),
                        threads: 0,
                        shares: BTreeMap::new(),
                    });
                    roles.len() - 1
                }
            };
            let role = &mut roles[index];
            role.threads += 1;
            let mut busy = 0.0;
            for interval in &lane.intervals {
                let share =
                    (interval.end_ns - interval.start_ns.min(interval.end_ns)) as f64 / wall;
                busy += share;
                *role.shares.entry(interval.phase.clone()).or_default() += share;
            }
            *role.shares.entry("idle".to_string()).or_default() += (1.0 - busy).max(0.0);
        }
        for role in &mut roles {
            let threads = role.threads as f64;
            role.shares.values_mut().for_each(|share| *share /= threads);
        }
        roles
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "thread,role,phase,start_ns,end_ns,rows\n\
        fused-0,fused,generate,0,60,10\n\
        fused-0,fused,encode,60,100,10\n\
        fused-1,fused,generate,0,30,10\n\
        fused-1,fused,append,30,50,0\n\
        main,main,wait,0,100,0\n";

    #[test]
    fn roles_get_their_threads_mean_shares_with_idle() {
        let timeline = Timeline::parse(CSV).unwrap();
        assert_eq!(timeline.wall_ns(), 100);
        let roles = timeline.role_times();
        assert_eq!(roles.len(), 2);
        let fused = &roles[0];
        assert_eq!((fused.role.as_str(), fused.threads), ("fused", 2));
        let share = |phase: &str| fused.shares[phase];
        assert!((share("generate") - 0.45).abs() < 1e-9);
        assert!((share("encode") - 0.2).abs() < 1e-9);
        assert!((share("append") - 0.1).abs() < 1e-9);
        assert!(
            (share("idle") - 0.25).abs() < 1e-9,
            "fused-1 ended at half time"
        );
        assert!((roles[1].shares["wait"] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_idle_account_splits_the_workers_idle_time() {
        let timeline = Timeline::parse(CSV).unwrap();
        let idle = timeline.idle_account("fused").unwrap();
        assert_eq!(idle.workers, 2);
        assert!((idle.wall_ms - 100e-6).abs() < 1e-12);
        assert!((idle.uneven_exit_ms - 50e-6).abs() < 1e-12);
        assert!((idle.after_workers_ms - 0.0).abs() < 1e-12);
        assert!((idle.gain_share() - 0.25).abs() < 1e-9);
        assert_eq!(timeline.idle_account("producers"), None);
    }

    #[test]
    fn a_file_that_is_not_a_timeline_is_refused() {
        assert!(Timeline::parse("a,b\n").is_err());
        let short = "thread,role,phase,start_ns,end_ns,rows\nfused-0,fused,generate,0\n";
        assert!(Timeline::parse(short).is_err());
        let word = "thread,role,phase,start_ns,end_ns,rows\nfused-0,fused,generate,0,x,1\n";
        assert!(Timeline::parse(word).is_err());
    }
}
