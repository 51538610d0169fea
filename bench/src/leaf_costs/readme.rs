//! The README of `make leaf-costs`: per workload, where the encoding CPU goes by stage, then
//! leaf by leaf.

use std::fmt::Write;
use std::path::Path;

use anyhow::{Context, Result};

use super::{Stage, WorkloadCosts};
use crate::markdown::{Align, Table};

/// What `make leaf-costs` leaves in its folder.
pub struct LeafCostsResults {
    /// `costs.json`: every workload's map.
    pub workloads: Vec<WorkloadCosts>,
    /// `metadata.json`: host, commit, command.
    pub metadata: serde_json::Value,
}

impl LeafCostsResults {
    /// Reads `costs.json` and `metadata.json` of `dir`.
    pub fn load(dir: &Path) -> Result<Self> {
        let read = |name: &str| {
            std::fs::read_to_string(dir.join(name))
                .with_context(|| format!("{}", dir.join(name).display()))
        };
        Ok(Self {
            workloads: serde_json::from_str(&read("costs.json")?).context("costs.json")?,
            metadata: serde_json::from_str(&read("metadata.json")?).context("metadata.json")?,
        })
    }
}

/// The stages of a workload, summed over its leaves: CPU seconds and what each is.
fn stage_sums(costs: &WorkloadCosts) -> Vec<(&'static str, f64)> {
    let total = |stage: Stage| costs.leaves.iter().map(|l| l.of(stage)).sum::<f64>();
    let difference = |stage: Stage, from: Stage| {
        costs
            .leaves
            .iter()
            .map(|l| l.difference(stage, from))
            .sum::<f64>()
    };
    let delta = |stage: Stage| difference(stage, Stage::Base);
    let nesting: f64 = costs.fields.iter().map(|f| f.seconds).sum();
    vec![
        ("levels from the Arrow nesting (`compute_leaves`)", nesting),
        (
            "the writer's level work (base - flat)",
            difference(Stage::Base, Stage::Flat),
        ),
        ("PLAIN values and pages (flat)", total(Stage::Flat)),
        ("chunk statistics (+)", delta(Stage::ChunkStatistics)),
        (
            "page statistics, column and offset index (+)",
            delta(Stage::PageStatistics),
        ),
        ("dictionary (+)", delta(Stage::Dictionary)),
        ("zstd(1) (+)", delta(Stage::Zstd)),
        (
            "as written by the newest experiment (with `compute_leaves`)",
            total(Stage::AsWritten) + nesting,
        ),
    ]
}

fn workload_section(costs: &WorkloadCosts, out: &mut String) {
    let rows = costs.rows as f64;
    let _ = writeln!(
        out,
        "## {}\n\n{} rows, row groups cut at the first batch boundary at or past {} rows, {} \
         leaves; medians of {} rounds.\n",
        costs.name,
        costs.rows,
        costs
            .row_group_rows
            .map_or("unbounded".to_string(), |r| r.to_string()),
        costs.leaves.len(),
        costs.rounds
    );
    let mut stages = Table::new([
        ("stage", Align::Left),
        ("CPU s", Align::Right),
        ("ns per row", Align::Right),
    ]);
    for (stage, seconds) in stage_sums(costs) {
        stages.row([
            stage.to_string(),
            format!("{seconds:.3}"),
            format!("{:.1}", seconds / rows * 1e9),
        ]);
    }
    let _ = writeln!(out, "{stages}");
    let mut leaves = Table::new([
        ("leaf", Align::Left),
        ("physical / Arrow", Align::Left),
        ("values", Align::Right),
        ("levels (writer)", Align::Right),
        ("values + pages", Align::Right),
        ("chunk stats +", Align::Right),
        ("page index +", Align::Right),
        ("dictionary +", Align::Right),
        ("zstd(1) +", Align::Right),
        ("as written", Align::Right),
    ]);
    for leaf in &costs.leaves {
        let ms = |seconds: f64| format!("{:.1}", seconds * 1e3);
        let over = |stage| ms(leaf.difference(stage, Stage::Base));
        leaves.row([
            format!("`{}`", leaf.path),
            format!("{} / {}", leaf.physical, leaf.arrow),
            leaf.values.to_string(),
            ms(leaf.difference(Stage::Base, Stage::Flat)),
            ms(leaf.of(Stage::Flat)),
            over(Stage::ChunkStatistics),
            over(Stage::PageStatistics),
            over(Stage::Dictionary),
            over(Stage::Zstd),
            ms(leaf.of(Stage::AsWritten)),
        ]);
    }
    let _ = writeln!(out, "Per leaf, CPU ms:\n\n{leaves}");
    let mut fields = Table::new([
        ("field", Align::Left),
        ("leaves", Align::Right),
        ("`compute_leaves` ms", Align::Right),
    ]);
    for field in &costs.fields {
        fields.row([
            format!("`{}`", field.field),
            field.leaves.to_string(),
            format!("{:.1}", field.seconds * 1e3),
        ]);
    }
    let _ = writeln!(
        out,
        "Levels from the Arrow nesting, per top-level field:\n\n{fields}"
    );
}

/// The README.
pub fn markdown(results: &LeafCostsResults) -> String {
    let text = |key: &str| results.metadata[key].as_str().unwrap_or("?").to_string();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Where arrow-rs's encoding CPU goes, leaf by leaf\n\n\
         `{}` on {} ({}, {} cores), {}, commit {} (dirty: {}), on the {} allocator (the \
         newest experiment's).\n\n\
         Each leaf column is encoded alone, on one thread, by the `ArrowColumnWriter` parquet's \
         file writer gives it, row group by row group, timed by the thread's CPU clock \
         (`CLOCK_THREAD_CPUTIME_ID`), every (leaf, stage) pair once per round in a new order \
         each round. A stage's cost is the median over the rounds of its difference from the \
         plain setting (PLAIN values, no dictionary, no statistics, no compression) in the \
         same round, with that stage alone switched on; it can be negative when the stage \
         leaves less to do (a dictionary writes fewer value bytes) or, for small figures, from \
         noise. The writer's level work is, the same way, the plain encoding less the values \
         the writer encodes for the leaf written as a flat, required column (no levels); \
         `compute_leaves` (levels from the Arrow nesting) is timed per top-level field. The \
         last column is the leaf under the newest experiment's own properties.\n",
        text("command"),
        text("host"),
        text("cpu"),
        results.metadata["cores"],
        text("date"),
        text("commit"),
        results.metadata["dirty"],
        text("allocator"),
    );
    for costs in &results.workloads {
        workload_section(costs, &mut out);
    }
    out
}
