//! The pipeline's designs side by side (`make designs`). Each design is one pipeline command
//! line, measured as a catalog experiment is (scripts/experiment.sh: data gate, peak memory,
//! floor, heap, CPU by role) into its own folder, and every design is timed once per
//! interleaved round. This module reads those folders back and compares every design with the
//! first one round by round, as `make ab` compares B with A.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{ensure, Context, Result};
use serde::Serialize;

use crate::markdown::{Align, Table};
use crate::readme::ALPHA;
use crate::role_counters::ROLES;
use crate::stats::{holm, median, wilcoxon_signed_rank_p};
use crate::summary::Summary;

/// One design's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Design {
    /// Its folder under the designs folder.
    pub folder: String,
    /// What it is, in words.
    pub label: String,
    /// The pipeline arguments that make it.
    pub arguments: String,
    /// Median wall time, seconds.
    pub median_s: f64,
    /// Mean user + system CPU seconds.
    pub cpu_s: f64,
    /// Mean CPU over mean wall time.
    pub cores_busy: f64,
    /// Generation CPU + encoding CPU over the cores (its floor runs), seconds.
    pub ideal_s: Option<f64>,
    /// Wall over ideal ([`Summary::wall_over_ideal`]: round by round for a floor run in the
    /// rounds).
    pub wall_over_ideal: Option<f64>,
    /// Peak resident memory of one run under `/usr/bin/time` (hyperfine's figure is the
    /// largest of every command it ran so far, so it cannot tell designs timed in one call
    /// apart).
    pub peak_rss_bytes: Option<u64>,
    /// CPU seconds by role in its `--counters` run, in [`ROLES`] order, 0 where it had none.
    pub role_cpu_s: Option<Vec<f64>>,
    /// Whether its data gate passed.
    pub gate_passed: bool,
    /// The data gate's digest.
    pub digest: Option<String>,
    /// Median over the rounds of its time over the first design's.
    pub ratio_to_first: f64,
    /// Two-sided p of the Wilcoxon signed-rank test of those rounds' log ratios, adjusted by
    /// Holm's method over the comparisons (none for the first design).
    pub p: Option<f64>,
}

/// Every design of one `make designs` run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Designs {
    /// Rows per run.
    pub rows: u64,
    /// Timed rounds.
    pub rounds: usize,
    /// Warm-up rounds.
    pub warmup: u64,
    /// The designs, the reference first.
    pub designs: Vec<Design>,
    /// How the first design's floor was run ([`crate::floor::Floor::method`]), if it was.
    pub floor_method: Option<String>,
    /// The first design's metadata (machine, commit, dirty flag).
    pub metadata: serde_json::Value,
}

/// One design as read from its folder.
struct Measured {
    folder: String,
    label: String,
    arguments: String,
    summary: Summary,
}

/// One line of `designs.tsv`: folder, label and pipeline arguments, tab-separated.
fn parse_line(line: &str) -> Result<[String; 3]> {
    let fields: Vec<&str> = line.split('\t').collect();
    ensure!(
        fields.len() == 3,
        "'{line}' is not folder<TAB>label<TAB>arguments"
    );
    Ok([0, 1, 2].map(|i| fields[i].to_string()))
}

impl Designs {
    /// Reads `dir/designs.tsv` and each design folder's `summary.json`.
    pub fn from_dir(dir: &Path) -> Result<Self> {
        let list = dir.join("designs.tsv");
        let text =
            fs::read_to_string(&list).with_context(|| format!("cannot read {}", list.display()))?;
        let mut loaded = Vec::new();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let [folder, label, arguments] = parse_line(line)?;
            let path = dir.join(&folder).join("summary.json");
            let summary: Summary = serde_json::from_str(
                &fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
            )
            .with_context(|| format!("bad {}", path.display()))?;
            loaded.push(Measured {
                folder,
                label,
                arguments,
                summary,
            });
        }
        Self::compare(loaded)
    }

    /// Compares every design with the first, round by round.
    fn compare(loaded: Vec<Measured>) -> Result<Self> {
        let first = loaded
            .first()
            .map(|design| design.summary.clone())
            .context("designs.tsv lists no design")?;
        for design in &loaded {
            let summary = &design.summary;
            ensure!(
                summary.rounds.is_some()
                    && summary.rounds == first.rounds
                    && summary.times.len() == first.times.len(),
                "{} was not timed in the same rounds as {} (run make designs again)",
                design.folder,
                loaded[0].folder
            );
        }
        let ratios: Vec<Vec<f64>> = loaded
            .iter()
            .map(|design| {
                let times = design.summary.times.iter().zip(&first.times);
                times.map(|(time, reference)| time / reference).collect()
            })
            .collect();
        // Holm over the designs compared with the first; a test with every round tied counts
        // as p = 1 there.
        let raw: Vec<Option<f64>> = ratios[1..]
            .iter()
            .map(|ratios| {
                let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
                wilcoxon_signed_rank_p(&logs)
            })
            .collect();
        let adjusted = holm(&raw.iter().map(|p| p.unwrap_or(1.0)).collect::<Vec<_>>());
        let designs = loaded
            .into_iter()
            .zip(&ratios)
            .enumerate()
            .map(|(index, (design, ratios))| {
                let summary = design.summary;
                let cpu_s = summary.user_s + summary.system_s;
                Design {
                    folder: design.folder,
                    label: design.label,
                    arguments: design.arguments,
                    median_s: summary.median_s,
                    cpu_s,
                    cores_busy: cpu_s / summary.mean_s,
                    ideal_s: summary.floor.as_ref().map(|floor| floor.ideal_wall_s),
                    wall_over_ideal: summary.wall_over_ideal(),
                    peak_rss_bytes: summary.peak_rss_bytes,
                    role_cpu_s: summary
                        .role_counters
                        .as_ref()
                        .map(|counted| ROLES.iter().map(|role| counted.cpu_s(role)).collect()),
                    gate_passed: summary.gate_passed,
                    digest: summary.digest,
                    ratio_to_first: median(ratios),
                    p: index
                        .checked_sub(1)
                        .and_then(|i| raw[i].map(|_| adjusted[i])),
                }
            })
            .collect();
        Ok(Self {
            rows: first.rows,
            rounds: first.times.len(),
            warmup: first.metadata["warmup"].as_u64().unwrap_or(0),
            floor_method: first.floor.as_ref().map(|floor| floor.method()),
            designs,
            metadata: first.metadata,
        })
    }

    /// Whether every design's gate passed on the same data (one digest).
    pub fn same_data(&self) -> bool {
        let first = &self.designs[0].digest;
        first.is_some()
            && self
                .designs
                .iter()
                .all(|design| design.gate_passed && &design.digest == first)
    }

    /// The README: how it was measured, one table of every figure, and the CPU by role.
    pub fn markdown(&self, command: &str) -> String {
        let metadata = &self.metadata;
        let text_of = |key: &str| metadata[key].as_str().unwrap_or("?").to_string();
        let mut text = format!("# The designs side by side on {}\n\n", text_of("host"));
        let _ = writeln!(
            text,
            "`{command}`: {} rows, {} interleaved rounds after {} warm-up round(s), each timing \
             every design once (hyperfine), its order rotated each round. {} ({} cores), built \
             from commit {} (dirty: {}), {}.\n",
            self.rows,
            self.rounds,
            self.warmup,
            text_of("cpu"),
            metadata["cores"],
            text_of("commit").chars().take(12).collect::<String>(),
            metadata["dirty"],
            text_of("date"),
        );
        let _ = writeln!(
            text,
            "Ideal: the design's generation CPU (`--sink null`) plus its encoding CPU (`--prebuilt \
             --sink count`) over the cores, medians of its floor runs: {}. Peak RSS: one run under \
             `/usr/bin/time`. Against the first: the median over the rounds of the \
             design's time over the first's, tested by the two-sided Wilcoxon signed-rank test \
             on the rounds' log ratios, p adjusted by Holm's method over the {} comparisons; \
             significant below {ALPHA}.\n",
            self.floor_method.as_deref().unwrap_or("not measured"),
            self.designs.len() - 1
        );
        text.push_str(&self.design_table().to_string());
        let verdict = if self.same_data() {
            "Every design's data gate passed with the same digest: they write the same rows."
        } else {
            "**The designs' data gates disagree: see each folder's gate.json.**"
        };
        let _ = writeln!(text, "\n{verdict}\n");
        text.push_str(&self.roles_table());
        text.push_str(
            "\n![wall time and ideal](wall.svg)\n\n![peak resident memory](peak_rss.svg)\n",
        );
        text
    }

    /// Every design's figures, and its time against the first's.
    fn design_table(&self) -> Table {
        let mut table = Table::new([
            ("design", Align::Left),
            ("command", Align::Left),
            ("wall s", Align::Right),
            ("CPU s", Align::Right),
            ("cores busy", Align::Right),
            ("ideal s", Align::Right),
            ("wall / ideal", Align::Right),
            ("peak RSS MiB", Align::Right),
            ("against the first", Align::Left),
            ("gate", Align::Left),
        ]);
        let optional = |value: Option<f64>, digits: usize| {
            value.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
        };
        for (index, design) in self.designs.iter().enumerate() {
            let against = match design.p {
                _ if index == 0 => "reference".to_string(),
                Some(p) if p < ALPHA => format!(
                    "**{:+.1}%** (p={p:.3})",
                    (design.ratio_to_first - 1.0) * 100.0
                ),
                Some(p) => format!(
                    "{:+.1}% (p={p:.2}, not significant)",
                    (design.ratio_to_first - 1.0) * 100.0
                ),
                None => "every round tied".to_string(),
            };
            table.row([
                design.label.clone(),
                format!("`{}`", design.arguments),
                format!("{:.3}", design.median_s),
                format!("{:.2}", design.cpu_s),
                format!("{:.2}", design.cores_busy),
                optional(design.ideal_s, 3),
                optional(design.wall_over_ideal, 2),
                optional(design.peak_rss_bytes.map(|b| b as f64 / 1048576.0), 1),
                against,
                (if design.gate_passed { "pass" } else { "FAIL" }).to_string(),
            ]);
        }
        table
    }

    /// CPU seconds by role, one `--counters` run per design, for the roles any design had.
    fn roles_table(&self) -> String {
        let present: Vec<usize> = (0..ROLES.len())
            .filter(|&role| {
                self.designs.iter().any(|design| {
                    design
                        .role_cpu_s
                        .as_ref()
                        .is_some_and(|cpu| cpu[role] > 0.0)
                })
            })
            .collect();
        if present.is_empty() {
            return String::new();
        }
        let mut table = Table::new(
            std::iter::once(("design", Align::Left))
                .chain(present.iter().map(|&role| (ROLES[role], Align::Right))),
        );
        for design in &self.designs {
            table.row(
                std::iter::once(design.label.clone()).chain(present.iter().map(|&role| {
                    design
                        .role_cpu_s
                        .as_ref()
                        .map_or_else(|| "-".to_string(), |cpu| format!("{:.2}", cpu[role]))
                })),
            );
        }
        format!("CPU seconds by role (one `--counters` run per design):\n\n{table}")
    }
}
