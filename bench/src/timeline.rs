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

impl Timeline {
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
    fn a_file_that_is_not_a_timeline_is_refused() {
        assert!(Timeline::parse("a,b\n").is_err());
        let short = "thread,role,phase,start_ns,end_ns,rows\nfused-0,fused,generate,0\n";
        assert!(Timeline::parse(short).is_err());
        let word = "thread,role,phase,start_ns,end_ns,rows\nfused-0,fused,generate,0,x,1\n";
        assert!(Timeline::parse(word).is_err());
    }
}
