//! The figures from fixed counts: shares, ratios, phases and the report's words.

use super::*;
use crate::counters::events::SoftwareCounts;
use crate::counters::phases::PhaseTotals;

/// A process that used `cpu_s` while the hypervisor took `stolen_s`.
fn process(cpu_s: Option<f64>, stolen_s: Option<f64>) -> Usage {
    Usage {
        cpu_s,
        stolen_s,
        heap: None,
    }
}

fn totals(task_clock_ns: u64, hardware: Option<HardwareCounts>) -> RoleTotals {
    RoleTotals {
        threads: 2,
        failed: 0,
        counts: Counts {
            software: SoftwareCounts {
                task_clock_ns,
                context_switches: 10,
                page_faults: 100,
            },
            hardware,
        },
        phases: BTreeMap::new(),
    }
}

/// Steal is named where there was some: task-clock counts it, the process's time does not.
#[test]
fn steal_is_named_beside_the_process_s_cpu_time() {
    let scope = Scope {
        kernel: false,
        hardware_missing: Some("no PMU".to_string()),
    };
    let by_role = BTreeMap::from([(Role::Fused, totals(2_000_000_000, None))]);
    let text = |stolen_s| {
        let usage = process(Some(1.9), stolen_s);
        CountersReport::new(
            &scope,
            &by_role,
            (1_000, usage),
            BoundaryReads::default(),
            None,
        )
        .human()
    };
    let stolen = text(Some(0.12));
    let named = "(the process: 1.90 CPU s; the hypervisor stole 0.12 s, which task-clock counts)";
    assert!(stolen.contains(named), "{stolen}");
    for quiet in [Some(0.0), None] {
        assert!(
            text(quiet).contains("(the process: 1.90 CPU s)"),
            "{quiet:?}"
        );
    }
}

#[test]
fn roles_get_their_share_and_hardware_ratios() {
    let scope = Scope {
        kernel: true,
        hardware_missing: None,
    };
    let hardware = HardwareCounts {
        cycles: 2_000,
        instructions: 3_000,
        cache_references: 50,
        cache_misses: 20,
        branch_misses: 5,
        enabled_ns: 100,
        running_ns: 50,
    };
    let by_role = BTreeMap::from([
        (Role::Producers, totals(600_000_000, Some(hardware))),
        (Role::Encoders, totals(1_400_000_000, None)),
    ]);
    let report = CountersReport::new(
        &scope,
        &by_role,
        (1_000, process(Some(2.01), Some(0.0))),
        BoundaryReads::default(),
        None,
    );
    assert_eq!(report.counted_cpu_s, 2.0);
    let producers = &report.roles[0];
    assert_eq!((producers.role, producers.share), (Role::Producers, 0.3));
    assert_eq!(producers.ratios.ipc, Some(1.5));
    assert_eq!(producers.ratios.instructions_per_row, Some(3.0));
    assert_eq!(producers.ratios.cache_misses_per_1k_rows, Some(20.0));
    assert_eq!(producers.ratios.pmu_running_share, Some(0.5));
    assert_eq!(report.roles[1].ratios.ipc, None);
    let text = report.human();
    assert!(text.contains("hardware events (cycles"), "{text}");
    assert!(text.contains("producers        2   0.600  30.0%"), "{text}");
    assert!(text.contains("(the process: 2.01 CPU s)"), "{text}");
    assert!(
        !text.contains("no role counts"),
        "1 ms short is the resolution: {text}"
    );
    let short = CountersReport::new(
        &scope,
        &by_role,
        (1_000, process(Some(2.5), None)),
        BoundaryReads::default(),
        None,
    );
    assert_eq!(short.uncounted_cpu_s(), Some(0.5));
    assert!(short
        .human()
        .contains("0.50 CPU s of the process ran on threads"));
    // A short run: 33 ms counted, 40 ms by /proc's 10 ms ticks.
    let small = BTreeMap::from([(Role::Main, totals(33_000_000, None))]);
    let tiny = CountersReport::new(
        &scope,
        &small,
        (10, process(Some(0.04), None)),
        BoundaryReads::default(),
        None,
    );
    assert_eq!(
        tiny.uncounted_cpu_s(),
        None,
        "7 ms is within the resolution"
    );
}

#[test]
fn roles_with_several_phases_are_split_and_others_are_not() {
    let scope = Scope {
        kernel: true,
        hardware_missing: None,
    };
    let phase = |task_clock_ns, hardware| PhaseTotals {
        counts: Counts {
            software: SoftwareCounts {
                task_clock_ns,
                context_switches: 1,
                page_faults: 2,
            },
            hardware,
        },
        wall_ns: task_clock_ns * 2,
        entries: 3,
    };
    let cycles = HardwareCounts {
        cycles: 1_000,
        instructions: 2_500,
        ..HardwareCounts::default()
    };
    let mut fused = totals(1_000_000_000, Some(cycles));
    fused.phases = BTreeMap::from([
        (Phase::Generate, phase(600_000_000, Some(cycles))),
        (Phase::Encode, phase(400_000_000, None)),
    ]);
    let mut encoders = totals(500_000_000, None);
    encoders.phases = BTreeMap::from([(Phase::Encode, phase(500_000_000, None))]);
    let by_role = BTreeMap::from([(Role::Fused, fused), (Role::Encoders, encoders)]);
    let reads = BoundaryReads {
        reads: 40,
        seconds: 0.0001,
    };
    let report = CountersReport::new(&scope, &by_role, (500, process(None, None)), reads, None);
    let split: Vec<(Role, Phase)> = report.phases.iter().map(|p| (p.role, p.phase)).collect();
    assert_eq!(
        split,
        [(Role::Fused, Phase::Generate), (Role::Fused, Phase::Encode)]
    );
    let generate = &report.phases[0];
    assert_eq!(
        (generate.cpu_s, generate.wall_s, generate.entries),
        (0.6, 1.2, 3)
    );
    assert!((generate.share_of_role - 0.6).abs() < 1e-12);
    assert_eq!(generate.ratios.ipc, Some(2.5));
    assert_eq!(generate.ratios.instructions_per_row, Some(5.0));
    assert_eq!(report.phases[1].ratios.ipc, None);
    let text = report.human();
    assert!(
        text.contains("  fused     generate   0.600    60.0%"),
        "{text}"
    );
    assert!(text.contains("split by 40 reads"), "{text}");
}

#[test]
fn missing_hardware_is_said_with_its_reason() {
    let scope = Scope {
        kernel: false,
        hardware_missing: Some("hardware events unavailable: no PMU".to_string()),
    };
    let by_role = BTreeMap::from([(Role::Main, totals(1_000_000, None))]);
    let report = CountersReport::new(
        &scope,
        &by_role,
        (10, process(None, None)),
        BoundaryReads::default(),
        None,
    );
    let text = report.human();
    assert!(text.contains("user time only"), "{text}");
    assert!(text.contains("no PMU"), "{text}");
    assert!(!text.contains("IPC"), "{text}");
}
