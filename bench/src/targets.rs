//! The catalog's performance targets, judged from one catalog run: the fastest experiment
//! against the baseline and against experiment 20 timed in the same rounds, and, where a target
//! is missed, what the run's own floor says stands in the way.

use std::fmt::Write as _;

use crate::floor::Floor;
use crate::markdown::{Align, Table};
use crate::summary::Summary;

/// The fastest experiment's wall time is at least this many times shorter than the baseline's.
pub const SPEEDUP_OVER_BASELINE: f64 = 5.0;
/// Cores it keeps busy on average (of the 2 cores of the project's VM).
pub const CORES_BUSY: f64 = 1.90;
/// Its wall time at most this multiple of its ideal (its floor's CPU spread over every core).
pub const WALL_OVER_IDEAL: f64 = 1.10;
/// Its CPU time at most this fraction of [`CPU_YARDSTICK_EXPERIMENT`]'s.
pub const CPU_OVER_YARDSTICK: f64 = 0.75;
/// The experiment whose CPU time the fastest is held against.
pub const CPU_YARDSTICK_EXPERIMENT: u32 = 20;
/// Its peak RSS at most this many MiB.
pub const PEAK_RSS_MIB: f64 = 64.0;

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "**missed**"
    }
}

fn cpu_s(summary: &Summary) -> f64 {
    summary.user_s + summary.system_s
}

/// What stands in the way of `best`, from its floor: the share of its work that encoding
/// takes, the ideal were generation free, and the CPU its timed runs spend beyond the floor.
fn obstacles(text: &mut String, best: &Summary, floor: &Floor, baseline: &Summary, name: &str) {
    let work = floor.generation_cpu_s + floor.encoding_cpu_s;
    let encoding_alone = floor.encoding_cpu_s / f64::from(floor.cores);
    let _ = write!(
        text,
        "\nWhat stands in the way, from the floor of {name}: encoding a file byte-identical to \
         arrow-rs's `ArrowWriter` takes {:.2} of the {work:.2} CPU s its work needs ({:.0}%). \
         Were generation free, the ideal would be {encoding_alone:.3} s on {} cores: at most \
         {:.2}x 00's wall time.",
        floor.encoding_cpu_s,
        100.0 * floor.encoding_cpu_s / work,
        floor.cores,
        baseline.median_s / encoding_alone,
    );
    let extra = cpu_s(best) - work;
    if extra < 0.0 {
        let _ = write!(
            text,
            " The floor's two parts took more CPU than the timed runs that do both ({work:.2} \
             against {:.2} s): run apart, each part misses what the other leaves in the \
             caches, or the floor ran in a slower spell of the host, so these figures overstate \
             this run's encoding and generation.",
            cpu_s(best),
        );
    } else if extra > 0.0 {
        let _ = write!(
            text,
            " The timed runs spend {:.2} CPU s against the {work:.2} of the floor's two parts \
             measured alone: {extra:.2} s that neither part contains, writing the file \
             through the kernel (the encoding floor writes none) and the two sides running \
             at once on shared caches.",
            cpu_s(best),
        );
    }
    let _ = writeln!(
        text,
        " `make profile N={}` sorts the CPU into the encoder's stages \
         (`results/<host>/profile/`).",
        best.experiment
    );
}

/// The targets section of the results README, or `None` without the baseline in the run.
/// Only the run that timed the baseline is judged: the experiments timed in its rounds, or,
/// for a baseline timed apart, every summary (nothing says which run they belong to).
pub fn section(summaries: &[Summary]) -> Option<String> {
    let baseline = summaries.iter().find(|s| s.experiment == 0)?;
    let run: Vec<&Summary> = summaries
        .iter()
        .filter(|s| baseline.rounds.is_none() || s.rounds == baseline.rounds)
        .collect();
    let best = run
        .iter()
        .filter(|s| s.experiment != 0)
        .min_by(|a, b| a.median_s.total_cmp(&b.median_s))?;
    let name = format!("{:02} {}", best.experiment, best.slug);
    let mut text = format!(
        "## Targets\n\n{} Each figure is from this run's tables above.\n\n{}",
        which_run(baseline, &run, &name),
        verdicts(baseline, best, &run),
    );
    if let Some(floor) = &best.floor {
        obstacles(&mut text, best, floor, baseline, &name);
    }
    Some(text)
}

/// Which run is judged, and its fastest experiment `name`.
fn which_run(baseline: &Summary, run: &[&Summary], name: &str) -> String {
    if baseline.rounds.is_some() {
        let numbers: Vec<_> = run.iter().map(|s| format!("{:02}", s.experiment)).collect();
        format!(
            "The run that timed 00 timed {} in the same rounds; its fastest experiment is {name}.",
            numbers.join(", ")
        )
    } else {
        format!("The fastest experiment of this run is {name}.")
    }
}

/// The table of every target `best` can be judged on: what it asks, what was measured, and
/// the verdict.
fn verdicts(baseline: &Summary, best: &Summary, run: &[&Summary]) -> Table {
    let mut table = Table::new([
        ("target", Align::Left),
        ("measured", Align::Left),
        ("verdict", Align::Left),
    ]);
    let speedup = baseline.median_s / best.median_s;
    table.row([
        format!("wall time at least {SPEEDUP_OVER_BASELINE}x shorter than 00's"),
        format!(
            "{:.3} s / {:.3} s = {speedup:.2}x",
            baseline.median_s, best.median_s
        ),
        verdict(speedup >= SPEEDUP_OVER_BASELINE).to_string(),
    ]);
    if let Some(busy) = best.cores_busy {
        table.row([
            format!("at least {CORES_BUSY:.2} cores busy"),
            // Three decimals: a value just under the target must not read as the target.
            format!("{busy:.3}"),
            verdict(busy >= CORES_BUSY).to_string(),
        ]);
    }
    if let Some(ratio) = best.wall_over_ideal() {
        // The ideal is a lower bound of the wall time; below it, the floor ran in a slower
        // spell of the host than the timed runs (a floor timed apart from the rounds), or the
        // two sides of the run shared caches better than either alone, and judges nothing.
        let judged = if ratio < 1.0 {
            "**not judged**: below 1, the floor's parts took more CPU alone than the timed \
             runs took for both"
        } else {
            verdict(ratio <= WALL_OVER_IDEAL)
        };
        table.row([
            format!("wall time at most {WALL_OVER_IDEAL:.2}x its ideal"),
            format!("{ratio:.2}"),
            judged.to_string(),
        ]);
    }
    if let Some(yardstick) = run
        .iter()
        .find(|s| s.experiment == CPU_YARDSTICK_EXPERIMENT)
    {
        let ratio = cpu_s(best) / cpu_s(yardstick);
        table.row([
            format!("CPU time at most {CPU_OVER_YARDSTICK}x {CPU_YARDSTICK_EXPERIMENT:02}'s"),
            format!(
                "{:.2} s / {:.2} s = {ratio:.2}x",
                cpu_s(best),
                cpu_s(yardstick)
            ),
            verdict(ratio <= CPU_OVER_YARDSTICK).to_string(),
        ]);
    }
    if let Some(rss) = best.peak_rss_bytes {
        let mib = rss as f64 / 1048576.0;
        table.row([
            format!(
                "peak RSS at most {PEAK_RSS_MIB} MiB ({} M rows)",
                best.rows / 1_000_000
            ),
            format!("{mib:.0} MiB"),
            verdict(mib <= PEAK_RSS_MIB).to_string(),
        ]);
    }
    table
}
