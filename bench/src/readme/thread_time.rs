//! The README's thread-time section: each experiment's `--timeline` run, the share of the
//! run's wall time its threads spent in each phase, idle included, role by role.

use std::fmt::Write as _;

use crate::markdown::{Align, Table};
use crate::summary::Summary;

/// The phases `pipeline --timeline` reports, in column order, then the time not running.
const COLUMNS: [&str; 9] = [
    "start", "generate", "encode", "append", "wait", "send", "receive", "tail", "idle",
];

/// Per experiment with a timeline and per role, the mean share of the run's wall time its
/// threads spent in each phase, with a link to the experiment's timeline chart.
pub(super) fn thread_time_table(text: &mut String, summaries: &[Summary]) {
    let timed: Vec<&Summary> = summaries
        .iter()
        .filter(|s| s.thread_time.is_some())
        .collect();
    if timed.is_empty() {
        return;
    }
    let present: Vec<&str> = COLUMNS
        .into_iter()
        .filter(|phase| {
            let roles = timed.iter().flat_map(|s| s.thread_time.iter().flatten());
            roles.clone().any(|r| r.shares.contains_key(*phase))
        })
        .collect();
    let _ = writeln!(
        text,
        "## Thread time by phase\n\n\
         The untimed `--counters` run of each experiment also keeps a timeline \
         (`--timeline timeline.csv`): every thread's phases as intervals. Per role, the mean \
         share of the run's wall time its threads spent in each phase; idle is the time a \
         thread was not running (it started late, or ended before the run did). The chart \
         beside each experiment draws one lane per thread.\n"
    );
    let columns = [
        ("N".to_string(), Align::Right),
        ("experiment".to_string(), Align::Left),
        ("role".to_string(), Align::Left),
        ("threads".to_string(), Align::Right),
    ]
    .into_iter()
    .chain(present.iter().map(|p| (format!("{p} %"), Align::Right)));
    let mut table = Table::new(columns);
    for s in timed {
        for role in s.thread_time.iter().flatten() {
            let mut row = vec![
                format!("{:02}", s.experiment),
                format!("[{}]({:02}-{}/timeline.png)", s.slug, s.experiment, s.slug),
                role.role.clone(),
                role.threads.to_string(),
            ];
            row.extend(present.iter().map(|phase| {
                role.shares
                    .get(*phase)
                    .map_or("-".to_string(), |share| format!("{:.1}", share * 100.0))
            }));
            table.row(row);
        }
    }
    let _ = writeln!(text, "{table}");
    for s in summaries {
        if let Some(idle) = &s.idle {
            let _ = writeln!(
                text,
                "- {:02} {}: of its {:.0} ms, the {} fused workers started after {:.1} ms \
                 on average, ended {:.1} ms apart, and the last ended {:.1} ms before the run did \
                 (the main thread's tail: collecting the results, the commit and its sync). A \
                 run that ended when its mean worker did would be {:.1}% shorter.",
                s.experiment,
                s.slug,
                idle.wall_ms,
                idle.workers,
                idle.start_ms,
                idle.uneven_exit_ms,
                idle.after_workers_ms,
                idle.gain_share() * 100.0
            );
        }
    }
    text.push('\n');
}
