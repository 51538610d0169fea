//! The README's CPU-by-role section: each experiment's `--counters` run, its roles' CPU time,
//! IPC and memory traffic where they were counted, and its roles against the floor.

use std::fmt::Write as _;

use super::optional;
use crate::markdown::{Align, Table};
use crate::role_counters::{RoleCounters, ROLES};
use crate::summary::Summary;

/// The roles' CPU time of each experiment's `--counters` run, with IPC where hardware events
/// were counted and the memory traffic where memory-controller counters were read; where they
/// were not, the reason, once.
pub(super) fn phase_table(text: &mut String, summaries: &[Summary]) {
    let counted: Vec<(&Summary, &RoleCounters)> = summaries
        .iter()
        .filter_map(|s| Some((s, s.role_counters.as_ref()?)))
        .collect();
    let Some((_, first)) = counted.first() else {
        return;
    };
    let columns = PhaseColumns::of(&counted);
    let _ = writeln!(
        text,
        "## CPU by role\n\n\
         One more run of each experiment, not timed, with `--counters`: every thread counts its \
         own perf events, summed by role (producers: generation; encoders: the parallel \
         writer's pool; writers: hand-off, inline encoding and file I/O; fused: the row-group \
         workers of entries 28 on, which generate, encode and append on the same threads, so \
         their producer, encoder and writer columns are 0; main: setup, gate and commit; io: \
         threads already running, such as an object store client's). Where the run split its \
         threads' counts by phase, the generate, encode, append and blocked (waiting for room, \
         sending, receiving) columns sum the phases over the roles, so the fused entries show \
         generation, encoding and appends again. Source: \
         {}.\n\n![cpu by role](cpu-by-role.png)\n",
        first.source
    );
    if !columns.memory {
        let why = first.memory_missing.as_deref().unwrap_or("not measured");
        let _ = writeln!(text, "Memory traffic: none measured ({why}).\n");
    }
    let mut table = Table::new(columns.header());
    for (s, p) in counted {
        table.row(columns.row(s, p));
    }
    let _ = write!(text, "{table}");
    if columns.floors {
        text.push_str(
            "\nThe last two columns set the counted run's roles against the floor's separate \
             runs of the same rows: generation alone (`--sink null`) and encoding alone \
             (`--prebuilt --sink count`); near 1 when the pipeline adds little to either side.\n",
        );
    }
    text.push('\n');
}

/// The phase columns of the table: each sums these phases over the roles.
const PHASE_COLUMNS: [(&str, &[&str]); 4] = [
    ("generate", &["generate"]),
    ("encode", &["encode"]),
    ("append", &["append"]),
    ("blocked", &["wait", "send", "receive"]),
];

/// Which columns the CPU-by-role table has: the roles any experiment had, and IPC, memory
/// traffic and the floor where any experiment has them.
struct PhaseColumns {
    roles: Vec<&'static str>,
    /// Whether any experiment's run was split by phase.
    phases: bool,
    hardware: bool,
    memory: bool,
    floors: bool,
}

impl PhaseColumns {
    fn of(counted: &[(&Summary, &RoleCounters)]) -> Self {
        Self {
            roles: ROLES
                .into_iter()
                .filter(|role| counted.iter().any(|(_, p)| p.has(role)))
                .collect(),
            phases: counted.iter().any(|(_, p)| !p.by_phase.is_empty()),
            hardware: counted
                .iter()
                .any(|(_, p)| p.roles.iter().any(|r| r.ipc.is_some())),
            memory: counted.iter().any(|(_, p)| p.memory.is_some()),
            floors: counted.iter().any(|(s, _)| s.floor.is_some()),
        }
    }

    /// The columns: the experiment, then figures.
    fn header(&self) -> Vec<(String, Align)> {
        let mut figures: Vec<String> = self.roles.iter().map(|r| format!("{r} CPU s")).collect();
        if self.phases {
            figures.extend(
                PHASE_COLUMNS
                    .iter()
                    .map(|(name, _)| format!("{name} CPU s")),
            );
        }
        if self.hardware {
            figures.extend(self.roles.iter().map(|role| format!("{role} IPC")));
        }
        if self.memory {
            figures.extend(
                [
                    "DRAM GB/s",
                    "STREAM GB/s",
                    "DRAM bytes / row (read, written)",
                ]
                .map(String::from),
            );
        }
        if self.floors {
            figures.extend(
                [
                    "producers / generation floor",
                    "encoders + writers / encoding floor",
                ]
                .map(String::from),
            );
        }
        [
            ("N".to_string(), Align::Right),
            ("experiment".to_string(), Align::Left),
        ]
        .into_iter()
        .chain(figures.into_iter().map(|name| (name, Align::Right)))
        .collect()
    }

    /// The cells of experiment `s`, whose counted run gave `p`.
    fn row(&self, s: &Summary, p: &RoleCounters) -> Vec<String> {
        let mut row = vec![format!("{:02}", s.experiment), s.slug.clone()];
        row.extend(
            self.roles
                .iter()
                .map(|role| format!("{:.2}", p.cpu_s(role))),
        );
        if self.phases {
            row.extend(PHASE_COLUMNS.iter().map(|(_, phases)| {
                let sums = phases.iter().map(|phase| p.phase_cpu_s(phase));
                optional(sums.sum::<Option<f64>>(), 2)
            }));
        }
        if self.hardware {
            row.extend(self.roles.iter().map(|role| {
                let ipc = p.roles.iter().find(|r| r.role == *role).and_then(|r| r.ipc);
                optional(ipc, 2)
            }));
        }
        if self.memory {
            let m = p.memory.as_ref();
            row.extend([
                optional(m.map(|m| m.gb_per_s), 2),
                optional(m.and_then(|m| m.stream_gb_per_s), 1),
                format!(
                    "{} ({}, {})",
                    optional(m.map(|m| m.bytes_per_row), 0),
                    optional(m.and_then(|m| m.read_bytes_per_row), 0),
                    optional(m.and_then(|m| m.written_bytes_per_row), 0),
                ),
            ]);
        }
        if self.floors {
            row.extend(Self::against_floor(s, p));
        }
        row
    }

    /// The counted run's producers against the generation floor and its encoders and writers
    /// against the encoding floor; fused workers, which do both on the same threads, by their
    /// phases (generate against the generation floor, encode and append against the encoding
    /// floor), or against both floors at once where the run was not split by phase.
    fn against_floor(s: &Summary, p: &RoleCounters) -> [String; 2] {
        let Some(floor) = s.floor.as_ref() else {
            return ["-".to_string(), "-".to_string()];
        };
        let fused = p.cpu_s("fused");
        if let (true, Some(generate), Some(encode), Some(append)) = (
            fused > 0.0,
            p.phase_cpu_s("generate"),
            p.phase_cpu_s("encode"),
            p.phase_cpu_s("append"),
        ) {
            return [
                format!("generate: {:.2}", generate / floor.generation_cpu_s),
                format!(
                    "encode + append: {:.2}",
                    (encode + append) / floor.encoding_cpu_s
                ),
            ];
        }
        if fused > 0.0 {
            let floors = floor.generation_cpu_s + floor.encoding_cpu_s;
            return [format!("fused: {:.2}", fused / floors), "-".to_string()];
        }
        let encoding = p.cpu_s("encoders") + p.cpu_s("writers");
        [
            format!("{:.2}", p.cpu_s("producers") / floor.generation_cpu_s),
            format!("{:.2}", encoding / floor.encoding_cpu_s),
        ]
    }
}
