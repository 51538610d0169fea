//! Fixtures shared by the analysis tests: summaries as the scripts leave them, and the check
//! that a chart is a real image.

use std::path::Path;

use shredlab_bench::floor::{Floor, FloorTiming, Heap};
use shredlab_bench::parse::cachegrind::Cachegrind;
use shredlab_bench::parse::perf_stat::PerfStat;
use shredlab_bench::summary::{Counters, Simulated, Summary};

/// The raw files the analysis tests parse.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// A summary of `experiment` whose ten runs are centred on `center` seconds, with the VM's
/// or a bare-metal host's counters.
pub fn summary(experiment: u32, slug: &str, center: f64, hardware: bool) -> Summary {
    let times: Vec<f64> = (0..10).map(|i| center + (i as f64 - 4.5) * 0.002).collect();
    let perf = PerfStat::parse(
        &std::fs::read_to_string(format!(
            "{FIXTURES}/{}",
            if hardware {
                "perf-stat-supported.csv"
            } else {
                "perf-stat-vm.csv"
            }
        ))
        .unwrap(),
    );
    let simulated = (!hardware).then(|| Simulated {
        rows: 200_000,
        instructions_per_row: 4_000.0 / (experiment + 1) as f64,
        counts: Cachegrind {
            instructions: 800_000_000 / (u64::from(experiment) + 1),
            data_refs: 300_000_000,
            d1_misses: 3_000_000,
            ll_misses: 500_000,
            ll_refs: 4_000_000,
            branches: 100_000_000,
            mispredicts: 2_000_000,
        },
    });
    Summary {
        experiment,
        slug: slug.to_string(),
        rows: 10_000_000,
        median_s: center,
        mean_s: center,
        min_s: times[0],
        max_s: times[9],
        user_s: center * 1.6,
        system_s: 0.1,
        rows_per_s: 10_000_000.0 / center,
        times,
        rounds: None,
        peak_rss_bytes: Some(150 << 20),
        cores_busy: Some((center * 1.6 + 0.1) / center),
        floor: Some(Floor {
            generation_cpu_s: 0.7,
            encoding_cpu_s: 1.0,
            runs: 3,
            cores: 2,
            ideal_wall_s: 0.85,
            timing: FloorTiming::Apart,
            round_ideals_s: Vec::new(),
        }),
        heap: Some(Heap {
            peak_live_bytes: 30 << 20,
            allocations_per_row: 0.02,
            bytes_allocated_per_row: 270.0,
        }),
        role_counters: None,
        thread_time: None,
        idle: None,
        digest: Some("f49e8d4a55c84ef95b4a257d36937669".to_string()),
        gate_passed: true,
        counters: Counters {
            source: "fixture".to_string(),
            hardware,
            ipc: perf.ipc(),
            cache_miss_rate: perf.cache_miss_rate(),
            branch_miss_rate: perf.branch_miss_rate(),
            perf: Some(perf),
            simulated,
        },
        metadata: serde_json::json!({"cpu": "AMD EPYC", "cores": 2, "kernel": "6.1", "rustc": "rustc 1.95.0",
            "commit": "abc1234", "dirty": false, "date": "2026-11-21T19:00:00Z", "warmup": 1}),
    }
}

/// Asserts that each of `names` is a PNG of some size and an SVG that draws something.
pub fn assert_charts(dir: &Path, names: &[&str]) {
    for name in names {
        let png = std::fs::read(dir.join(format!("{name}.png"))).unwrap();
        assert!(png.len() > 5_000, "{name}.png is only {} bytes", png.len());
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}.png is not a PNG");
        let svg = std::fs::read_to_string(dir.join(format!("{name}.svg"))).unwrap();
        assert!(svg.contains("<svg") && svg.contains("</svg>"), "{name}.svg");
        assert!(
            svg.contains("<text") || svg.contains("<path"),
            "{name}.svg draws nothing"
        );
    }
}
