//! CPU by role and memory traffic from an experiment's `--counters` run: read from the files
//! `scripts/experiment.sh` leaves (a real `--counters` report from this VM, the same report
//! with hardware figures, and `perf stat -a -x,` output of Intel's memory controllers), and
//! rendered into the results README and its chart.

use std::path::Path;

use shredlab_bench::charts;
use shredlab_bench::floor::{Floor, FloorTiming};
use shredlab_bench::readme;
use shredlab_bench::role_counters::RoleCounters;
use shredlab_bench::summary::Summary;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// An experiment folder holding `files` (fixture name, name in the folder).
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (from, to) in files {
        std::fs::copy(format!("{FIXTURES}/{from}"), dir.path().join(to)).unwrap();
    }
    dir
}

const NO_MEMORY: &str = "perf list shows no uncore_imc or amd_umc memory-controller events";

#[test]
fn a_vm_run_gives_software_figures_and_says_why_memory_is_missing() {
    let dir = folder(&[("counters-vm.json", "counters.json")]);
    let phases = RoleCounters::from_dir(dir.path(), Some(NO_MEMORY))
        .unwrap()
        .unwrap();
    let roles: Vec<&str> = phases.roles.iter().map(|r| r.role.as_str()).collect();
    assert_eq!(roles, ["producers", "encoders", "writers", "main"]);
    assert!(phases.roles.iter().all(|r| r.ipc.is_none()));
    let sum: f64 = phases.roles.iter().map(|r| r.cpu_s).sum();
    assert!((sum - phases.counted_cpu_s).abs() < 1e-9);
    assert!(phases.source.contains("hardware events unavailable"));
    assert_eq!(phases.memory, None);
    assert_eq!(phases.memory_missing.as_deref(), Some(NO_MEMORY));
    // Without counters.json: measured before --counters existed.
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(RoleCounters::from_dir(empty.path(), None).unwrap(), None);
}

#[test]
fn memory_controller_counts_become_bytes_per_row_and_bandwidth() {
    let dir = folder(&[
        ("counters-supported.json", "counters.json"),
        ("memory-imc.csv", "memory.csv"),
    ]);
    std::fs::write(
        dir.path().join("stream.json"),
        r#"{"best_bytes_per_s": 21.5e9}"#,
    )
    .unwrap();
    let phases = RoleCounters::from_dir(dir.path(), None).unwrap().unwrap();
    let memory = phases.memory.unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("counters.json")).unwrap())
            .unwrap();
    let rows = report["rows"].as_f64().unwrap();
    let read = (412.31 + 409.87) * 1048576.0;
    assert!((memory.read_bytes_per_row.unwrap() - read / rows).abs() < 1e-6);
    let total = read + (198.02 + 201.44) * 1048576.0;
    assert!((memory.bytes_per_row - total / rows).abs() < 1e-6);
    let seconds = report["elapsed_s"].as_f64().unwrap();
    assert!((memory.gb_per_s - total / seconds / 1e9).abs() < 1e-9);
    assert_eq!(memory.stream_gb_per_s, Some(21.5));
    assert_eq!(phases.memory_missing, None);
    assert!(phases.roles[0].ipc.unwrap() > 2.0);
}

/// A summary folder for experiment `n` with the given counters fixtures, reloaded.
fn summary_with(host: &Path, n: u32, files: &[(&str, &str)]) -> Summary {
    let dir = host.join(format!("{n:02}-x"));
    std::fs::create_dir_all(&dir).unwrap();
    for (from, to) in [("hyperfine-1.20.json", "hyperfine.json")]
        .iter()
        .chain(files)
    {
        std::fs::copy(format!("{FIXTURES}/{from}"), dir.join(to)).unwrap();
    }
    std::fs::write(
        dir.join("gate.json"),
        format!(r#"{{"experiment":{n},"slug":"x","rows":200000,"gate":"pass"}}"#),
    )
    .unwrap();
    std::fs::write(
        dir.join("metadata.json"),
        format!(r#"{{"cores": 2, "memory_counters": "{NO_MEMORY}"}}"#),
    )
    .unwrap();
    Summary::from_dir(&dir).unwrap()
}

#[test]
fn the_readme_has_the_role_table_and_the_chart_is_drawn() {
    let host = tempfile::tempdir().unwrap();
    let vm = [summary_with(
        host.path(),
        26,
        &[("counters-vm.json", "counters.json")],
    )];
    let text = readme::markdown("vm", &vm);
    assert!(text.contains("## CPU by role"), "{text}");
    assert!(text.contains(&format!("Memory traffic: none measured ({NO_MEMORY})")));
    assert!(text.contains("| N | experiment | producers CPU s | encoders CPU s | writers CPU s | main CPU s |\n|---:|---|---:|---:|---:|---:|\n| 26 | x |"), "{text}");
    assert!(!text.contains("IPC |"), "{text}");

    let bare_metal = [
        summary_with(
            host.path(),
            26,
            &[("counters-supported.json", "counters.json")],
        ),
        summary_with(
            host.path(),
            27,
            &[
                ("counters-supported.json", "counters.json"),
                ("memory-imc.csv", "memory.csv"),
            ],
        ),
    ];
    let text = readme::markdown("metal", &bare_metal);
    let header = text
        .lines()
        .find(|l| l.starts_with("| N | experiment | producers CPU s"))
        .unwrap();
    assert!(
        header.ends_with("main IPC | DRAM GB/s | STREAM GB/s | DRAM bytes / row (read, written) |"),
        "{header}"
    );
    let row = text.lines().find(|l| l.starts_with("| 27 | x |")).unwrap();
    assert!(row.contains("| 2.10 | 1.60 |"), "{row}");
    let without_memory = text.lines().find(|l| l.starts_with("| 26 | x |")).unwrap();
    assert!(
        without_memory.ends_with("| - | - | - (-, -) |"),
        "{without_memory}"
    );

    // With the floor measured: the roles against generation alone and encoding alone.
    let mut with_floor = bare_metal[1].clone();
    with_floor.floor = Some(Floor {
        generation_cpu_s: 0.11014958 / 1.25,
        encoding_cpu_s: (0.136759596 + 0.023903701) / 0.8,
        runs: 3,
        cores: 2,
        ideal_wall_s: 0.2,
        timing: FloorTiming::Apart,
        round_ideals_s: Vec::new(),
    });
    let text = readme::markdown("metal", &[with_floor]);
    let roles_section = text.split("## CPU by role").nth(1).unwrap();
    let row = roles_section
        .lines()
        .find(|l| l.starts_with("| 27 | x |"))
        .unwrap();
    assert!(row.ends_with("| 1.25 | 0.80 |"), "{row}");
    assert!(text.contains("generation alone (`--sink null`)"), "{text}");

    let charts_dir = tempfile::tempdir().unwrap();
    charts::catalog::draw_all(charts_dir.path(), &bare_metal).unwrap();
    let png = std::fs::read(charts_dir.path().join("cpu-by-role.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = std::fs::read_to_string(charts_dir.path().join("cpu-by-role.svg")).unwrap();
    assert!(svg.contains("encoders"), "the legend names the roles");
}

#[test]
fn fused_runs_show_their_phases_against_the_floor_and_their_threads_time() {
    let host = tempfile::tempdir().unwrap();
    let mut fused = summary_with(
        host.path(),
        36,
        &[
            ("counters-fused-vm.json", "counters.json"),
            ("timeline-vm.csv", "timeline.csv"),
        ],
    );
    let counted = fused.role_counters.as_ref().unwrap();
    let generate = counted.phase_cpu_s("generate").unwrap();
    let (encode, append) = (
        counted.phase_cpu_s("encode").unwrap(),
        counted.phase_cpu_s("append").unwrap(),
    );
    fused.floor = Some(Floor {
        generation_cpu_s: generate / 0.9,
        encoding_cpu_s: (encode + append) / 1.1,
        runs: 3,
        cores: 2,
        ideal_wall_s: 0.02,
        timing: FloorTiming::Apart,
        round_ideals_s: Vec::new(),
    });
    let text = readme::markdown("vm", std::slice::from_ref(&fused));
    let roles_section = text.split("## CPU by role").nth(1).unwrap();
    let header = roles_section
        .lines()
        .find(|l| l.starts_with("| N |"))
        .unwrap();
    assert!(
        header.contains("| generate CPU s | encode CPU s | append CPU s | blocked CPU s |"),
        "{header}"
    );
    let row = roles_section
        .lines()
        .find(|l| l.starts_with("| 36 | x |"))
        .unwrap();
    assert!(
        row.ends_with("| generate: 0.90 | encode + append: 1.10 |"),
        "{row}"
    );
    let time_section = text.split("## Thread time by phase").nth(1).unwrap();
    let fused_row = time_section
        .lines()
        .find(|l| l.starts_with("| 36 | [x](36-x/timeline.png) | fused | 2 |"))
        .unwrap_or_else(|| panic!("{time_section}"));
    let shares: f64 = fused_row
        .split('|')
        .skip(5)
        .filter_map(|cell| cell.trim().parse::<f64>().ok())
        .sum();
    assert!((shares - 100.0).abs() < 0.5, "{fused_row}: {shares}");
    assert!(
        time_section.contains("- 36 x: of its ") && time_section.contains("2 fused workers"),
        "the idle account: {time_section}"
    );
    let old_run = summary_with(host.path(), 26, &[("counters-vm.json", "counters.json")]);
    let text = readme::markdown("vm", &[old_run]);
    assert!(!text.contains("generate CPU s"), "no phase columns: {text}");
    assert!(!text.contains("## Thread time by phase"), "{text}");
}

#[test]
fn the_timeline_chart_has_a_lane_per_thread() {
    let csv = std::fs::read_to_string(format!("{FIXTURES}/timeline-vm.csv")).unwrap();
    let timeline = shredlab_bench::timeline::Timeline::parse(&csv).unwrap();
    let threads: Vec<&str> = timeline.lanes.iter().map(|l| l.thread.as_str()).collect();
    assert_eq!(threads, ["fused-0", "fused-1", "main"]);
    let dir = tempfile::tempdir().unwrap();
    charts::timeline::draw(dir.path(), "36-x", &timeline).unwrap();
    let png = std::fs::read(dir.path().join("timeline.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = std::fs::read_to_string(dir.path().join("timeline.svg")).unwrap();
    for label in ["fused-0", "main", "generate", "encode", "append"] {
        assert!(svg.contains(label), "the chart shows {label}");
    }
}
