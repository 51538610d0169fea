//! The README's floor and memory section: each experiment's CPU floor and ideal wall time
//! against what it measured, its peak RSS and heap.

use std::fmt::Write as _;

use super::{grouped, numbers, optional};
use crate::markdown::{Align, Table};
use crate::summary::Summary;

/// The floor and memory table: how far each experiment is from keeping every core busy on the
/// work it needs, and what it holds. Only experiments measured with the floor or the heap run.
pub(super) fn floor_table(text: &mut String, summaries: &[Summary]) {
    let measured: Vec<&Summary> = summaries
        .iter()
        .filter(|s| s.floor.is_some() || s.heap.is_some())
        .collect();
    let Some(first_floor) = measured.iter().find_map(|s| s.floor.as_ref()) else {
        return;
    };
    let _ = writeln!(
        text,
        "## Floor and memory\n\n\
         The floor of each experiment is the CPU time its work needs, measured on the same binary \
         and settings in two parts (medians): generation alone (`--sink null`) and \
         encoding alone (`--prebuilt --sink count`, batches built before the clock starts, no \
         disk). Ideal = (generation + encoding CPU) / {} cores: the wall time if every core \
         stayed busy, nothing waited and the disk cost nothing. {} CPU s and cores \
         busy are hyperfine's mean user + system time of the timed runs. Peak heap and bytes \
         allocated come from one extra run with `--count-allocations` (not timed); peak RSS \
         from `/usr/bin/time`.\n\n![floor](floor.png)\n",
        first_floor.cores,
        floor_methods(&measured),
    );
    let _ = writeln!(text, "{}", table(&measured));
}

/// How the floor's runs were made: one sentence when every experiment's were made alike,
/// otherwise each way with the experiments that used it.
fn floor_methods(measured: &[&Summary]) -> String {
    let methods = grouped(
        measured
            .iter()
            .filter_map(|s| Some((s.floor.as_ref()?.method(), s.experiment))),
    );
    match methods.as_slice() {
        [(method, _)] => format!("The floor's runs: {method}."),
        _ => {
            let parts: Vec<String> = methods
                .iter()
                .map(|(method, experiments)| format!("{}: {method}", numbers(experiments)))
                .collect();
            format!(
                "The floor's runs were made in more than one way. {}.",
                parts.join(". ")
            )
        }
    }
}

/// One row per measured experiment: its time and CPU, its floor, its memory.
fn table(measured: &[&Summary]) -> Table {
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    let mut table = Table::new(
        [("N", Align::Right), ("experiment", Align::Left)]
            .into_iter()
            .chain(
                [
                    "median s",
                    "CPU s",
                    "cores busy",
                    "generation CPU s",
                    "encoding CPU s",
                    "ideal s",
                    "wall / ideal",
                    "peak RSS MiB",
                    "peak heap MiB",
                    "bytes allocated / row",
                ]
                .map(|name| (name, Align::Right)),
            ),
    );
    for s in measured {
        table.row([
            format!("{:02}", s.experiment),
            s.slug.clone(),
            format!("{:.3}", s.median_s),
            format!("{:.2}", s.user_s + s.system_s),
            optional(s.cores_busy, 2),
            optional(s.floor.as_ref().map(|f| f.generation_cpu_s), 2),
            optional(s.floor.as_ref().map(|f| f.encoding_cpu_s), 2),
            optional(s.floor.as_ref().map(|f| f.ideal_wall_s), 3),
            optional(s.wall_over_ideal(), 2),
            optional(s.peak_rss_bytes.map(mib), 0),
            optional(s.heap.as_ref().map(|h| mib(h.peak_live_bytes)), 1),
            optional(s.heap.as_ref().map(|h| h.bytes_allocated_per_row), 0),
        ]);
    }
    table
}
