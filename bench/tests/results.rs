//! The harness's analysis side, tested from fixtures without timing noise: summaries from raw
//! files, charts that are valid images, and a README that flags a significant regression.

use std::path::Path;

mod common;

use common::{assert_charts, summary, FIXTURES};
use shredlab_bench::charts;
use shredlab_bench::parse::hyperfine::HyperfineResult;
use shredlab_bench::summary::{load_host, Summary};
use shredlab_bench::{readme, targets};

fn catalog_like(hardware: bool) -> Vec<Summary> {
    vec![
        summary(0, "baseline", 3.5, hardware),
        summary(1, "dictionary-phone-type", 3.5, hardware),
        summary(8, "thread-local-builders", 1.2, hardware),
        summary(9, "interned-names", 1.6, hardware),
        summary(10, "revert-interning", 1.2, hardware),
    ]
}

fn assert_images(dir: &Path) {
    assert_charts(dir, &["trend", "ipc", "counters", "boxplot", "floor"]);
}

#[test]
fn charts_are_valid_images_with_and_without_hardware_counters() {
    for hardware in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        charts::catalog::draw_all(dir.path(), &catalog_like(hardware)).unwrap();
        assert_images(dir.path());
        let svg = std::fs::read_to_string(dir.path().join("ipc.svg")).unwrap();
        let label = if hardware {
            "IPC (perf stat, hardware)"
        } else {
            "cachegrind sim, 200000 rows"
        };
        assert!(
            svg.contains(label),
            "ipc.svg lacks its source label '{label}'"
        );
    }
}

#[test]
fn sweep_heatmaps_are_drawn_for_any_grid_down_to_one_cell() {
    let run = |writers: u64, batch: u64, median: f64| {
        let text = format!(
            r#"{{"command": "w{writers}-b{batch}", "mean": {median}, "stddev": null, "median": {median},
                "user": 1.0, "system": 0.1, "min": {median}, "max": {median}, "times": [{median}],
                "parameters": {{"writers": "{writers}", "batch": "{batch}"}}}}"#
        );
        serde_json::from_str::<HyperfineResult>(&text).unwrap()
    };
    let grids = [
        vec![run(1, 1024, 1.0)],
        vec![run(1, 1024, 1.0), run(1, 4096, 1.0)],
        vec![
            run(1, 1024, 2.0),
            run(1, 4096, 1.5),
            run(2, 1024, 1.2),
            run(2, 4096, 0.9),
        ],
    ];
    for results in grids {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("sweep.json");
        charts::sweeps::draw_heatmaps(&json, &results, 1_000_000, "fixture").unwrap();
        assert_charts(dir.path(), &["heatmap-time", "heatmap-rows-per-s"]);
    }
}

#[test]
fn readme_flags_the_interning_regression_as_significant() {
    let text = readme::markdown("vm", &catalog_like(false));
    let row = |n: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("| {n} ")))
            .unwrap()
            .to_string()
    };
    assert!(row("09").contains("slower, Holm p="), "{}", row("09"));
    assert!(row("10").contains("faster, Holm p="), "{}", row("10"));
    assert!(row("01").contains("not significant"), "{}", row("01"));
    assert!(row("00").contains("instr/row (sim)"));
    assert!(text.contains("1 distinct digest(s)"));
    assert!(text.contains("![trend](trend.png)"));
    let floor_row = text
        .lines()
        .find(|l| l.starts_with("| 08 | thread-local-builders | 1.200 |"))
        .expect("a floor table row for 08");
    // CPU 2.02 s, 1.68 cores busy, floor 0.70 + 1.00 CPU s, ideal 0.850 s, 1.41x the ideal,
    // 150 MiB RSS, 30.0 MiB peak heap, 270 bytes per row.
    assert_eq!(
        floor_row,
        "| 08 | thread-local-builders | 1.200 | 2.02 | 1.68 | 0.70 | 1.00 | 0.850 | 1.41 | 150 | 30.0 | 270 |"
    );
}

#[test]
fn targets_judge_the_fastest_experiment_against_00_and_20() {
    let mut run = catalog_like(false);
    run.push(summary(20, "early-writeback", 1.0, false));
    run.push(summary(26, "bit-guided-ranks", 0.68, false));
    run[6].peak_rss_bytes = Some(50 << 20);
    run[6].user_s = 1.2;
    run[6].cores_busy = Some(1.3 / 0.68);
    let text = targets::section(&run).unwrap();
    let row = |target: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("| {target}")))
            .unwrap_or_else(|| panic!("no row {target} in {text}"))
            .to_string()
    };
    assert!(text.contains("fastest experiment of this run is 26 bit-guided-ranks"));
    // 3.5 s / 0.68 s.
    assert!(
        row("wall time at least 5x").ends_with("= 5.15x | met |"),
        "{text}"
    );
    assert!(
        row("at least 1.90 cores").contains("| 1.912 | met |"),
        "{text}"
    );
    // 0.68 s against the fixture's ideal of 0.85 s: below its lower bound, so not judged.
    assert!(
        row("wall time at most 1.10x").contains("| 0.80 | **not judged**: below 1"),
        "{text}"
    );
    // (1.2 + 0.1) / (1.6 + 0.1).
    assert!(
        row("CPU time at most 0.75x 20's").contains("= 0.76x | **missed** |"),
        "{text}"
    );
    assert!(row("peak RSS at most 64 MiB (10 M rows)").contains("| 50 MiB | met |"));
    // Encoding 1.00 of 0.70 + 1.00 CPU s; alone on 2 cores 0.500 s, 7.00x 00's 3.5 s.
    assert!(
        text.contains("takes 1.00 of the 1.70 CPU s its work needs (59%)"),
        "{text}"
    );
    assert!(text.contains("at most 7.00x 00's wall time"), "{text}");
    assert!(
        !text.contains("timed runs spend"),
        "1.30 CPU s is below the floor's 1.70"
    );
    assert!(
        text.contains("took more CPU than the timed runs that do both (1.70 against 1.30 s)"),
        "{text}"
    );
    run[6].user_s = 1.9;
    let text = targets::section(&run).unwrap();
    assert!(
        text.contains(
            "spend 2.00 CPU s against the 1.70 of the floor's two parts measured alone: 0.30 s that neither part contains"
        ),
        "{text}"
    );
    // 0.90 s against the ideal of 0.85 s: 1.06x, within 1.10x.
    run[6].median_s = 0.9;
    let text = targets::section(&run).unwrap();
    assert!(
        text.contains("| wall time at most 1.10x its ideal | 1.06 | met |"),
        "{text}"
    );
    assert!(
        targets::section(&run[1..]).is_none(),
        "no baseline, no verdicts"
    );
}

#[test]
fn targets_judge_only_the_run_that_timed_00() {
    let mut run = catalog_like(false);
    run.push(summary(20, "early-writeback", 1.0, false));
    run.push(summary(26, "bit-guided-ranks", 0.68, false));
    for summary in &mut run {
        summary.rounds = Some("this run".to_string());
    }
    // 20 and 26, the fastest, were timed in an earlier run: neither is judged against this 00.
    run[5].rounds = Some("earlier run".to_string());
    run[6].rounds = Some("earlier run".to_string());
    let text = targets::section(&run).unwrap();
    assert!(
        text.contains(
            "The run that timed 00 timed 00, 01, 08, 09, 10 in the same rounds; its fastest \
             experiment is 08 thread-local-builders."
        ),
        "{text}"
    );
    // 3.5 s / 1.2 s.
    assert!(text.contains("= 2.92x | **missed** |"), "{text}");
    assert!(!text.contains("20's"), "{text}");
}

#[test]
fn experiments_timed_in_the_same_rounds_are_compared_round_by_round() {
    // The machine speeds up over the rounds (1.10 s down to 0.92 s), and 27 is 1% slower
    // than 26 in every round (give or take 0.05%, so no two rounds tie): apart, the drift
    // hides it; round by round it is all there is.
    let drifting: Vec<f64> = (0..10).map(|i| 1.10 - 0.02 * f64::from(i)).collect();
    let timed = |experiment, slug: &str, factor: f64, rounds: Option<&str>| {
        let mut s = summary(experiment, slug, 1.0, false);
        let wobble = if factor == 1.0 { 0.0 } else { 0.0001 };
        s.times = (0..10)
            .map(|i| drifting[i] * (factor + wobble * i as f64))
            .collect();
        s.median_s = shredlab_bench::stats::median(&s.times);
        s.rounds = rounds.map(str::to_string);
        s
    };
    let row = |summaries: &[Summary]| {
        let text = readme::markdown("vm", summaries);
        let row = text.lines().find(|l| l.starts_with("| 27 ")).unwrap();
        row.to_string()
    };
    let paired = [
        timed(26, "bit-guided-ranks", 1.0, Some("r1")),
        timed(27, "ordered-hand-off", 1.01, Some("r1")),
    ];
    // All ten rounds favour 26: the exact two-sided p is 2 / 2^10.
    assert!(
        row(&paired).contains("+1.0% (slower, Holm p=0.0020)"),
        "{}",
        row(&paired)
    );
    let apart = [
        timed(26, "bit-guided-ranks", 1.0, Some("r1")),
        timed(27, "ordered-hand-off", 1.01, Some("r2")),
    ];
    assert!(
        row(&apart).contains("+1.0% (not significant"),
        "{}",
        row(&apart)
    );
}

#[test]
fn holm_keeps_a_weak_difference_among_many_comparisons_from_counting() {
    let mut summaries = catalog_like(false);
    // Ten runs each, 3.5 steps apart: Mann-Whitney alone gives p = 0.031. Among five
    // comparisons it is the second largest p, so Holm doubles it to 0.062.
    summaries.push(summary(11, "static-batch-assignment", 1.207, false));
    let text = readme::markdown("vm", &summaries);
    let row = text.lines().find(|l| l.starts_with("| 11 ")).unwrap();
    assert!(
        row.contains("(not significant, Holm p=0.06, raw p=0.03)"),
        "{row}"
    );
    assert!(text.contains("adjusted by Holm's method over the table's 5 comparisons"));
}

#[test]
fn summaries_are_built_from_raw_files_and_reloaded() {
    let host = tempfile::tempdir().unwrap();
    let dir = host.path().join("00-baseline");
    std::fs::create_dir(&dir).unwrap();
    let copy =
        |from: &str, to: &str| std::fs::copy(format!("{FIXTURES}/{from}"), dir.join(to)).unwrap();
    copy("hyperfine-1.20.json", "hyperfine.json");
    copy("perf-stat-vm.csv", "perf-stat.csv");
    copy("cachegrind.txt", "cachegrind.txt");
    std::fs::write(
        dir.join("gate.json"),
        r#"{"experiment":0,"slug":"baseline","rows":200000,"gate":"pass","digest":{"rows":200000,"sum":"00ff"}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("metadata.json"),
        r#"{"cachegrind_rows": 200000, "peak_rss_kb": 51200, "cores": 2}"#,
    )
    .unwrap();
    let without_floor = Summary::from_dir(&dir).unwrap();
    assert_eq!((without_floor.floor, without_floor.heap), (None, None));
    std::fs::write(
        dir.join("floor-generation.jsonl"),
        "{\"cpu_s\":0.5}\n{\"cpu_s\":0.7}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("floor-encoding.jsonl"),
        "{\"cpu_s\":0.9}\n{\"cpu_s\":1.1}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("heap.json"),
        r#"{"heap":{"peak_live_bytes":2048},"allocations_per_row":0.5,"bytes_allocated_per_row":99.0}"#,
    )
    .unwrap();
    let summary = Summary::from_dir(&dir).unwrap();
    let floor = summary.floor.clone().unwrap();
    assert!((floor.ideal_wall_s - 0.8).abs() < 1e-12, "{floor:?}");
    assert!((summary.wall_over_ideal().unwrap() - summary.median_s / 0.8).abs() < 1e-12);
    assert_eq!(summary.heap.as_ref().unwrap().peak_live_bytes, 2048);
    assert_eq!(summary.experiment, 0);
    assert_eq!(summary.times.len(), 2);
    assert_eq!(summary.peak_rss_bytes, Some(51200 * 1024));
    assert!(!summary.counters.hardware);
    assert!(
        summary
            .counters
            .source
            .contains("cachegrind simulation of 200000 rows"),
        "{}",
        summary.counters.source
    );
    assert!(
        summary
            .counters
            .simulated
            .as_ref()
            .unwrap()
            .instructions_per_row
            > 0.0
    );
    assert!(summary.gate_passed);
    summary.write(&dir).unwrap();
    assert_eq!(load_host(host.path()).unwrap(), vec![summary]);
}

/// Runs `results json-get FILE POINTER`, `stdin` fed to it; its exit success, stdout and stderr.
fn json_get(file: &str, pointer: &str, stdin: &str) -> (bool, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_results"))
        .args(["json-get", file, pointer])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn json_get_prints_strings_bare_and_other_values_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("gate.json");
    std::fs::write(
        &report,
        r#"{"allocator":"mimalloc","row_groups_in_flight":null,"rows":200000,
            "cmd":"a \"quoted\"\tline","build":{"commit":"338824f1fafc","dirty":"false"},"files":["a","b"]}"#,
    )
    .unwrap();
    let file = report.to_str().unwrap();
    let get = |pointer: &str| {
        let (ok, stdout, stderr) = json_get(file, pointer, "");
        assert!(ok, "{pointer}: {stderr}");
        stdout
    };
    assert_eq!(get("/allocator"), "mimalloc\n");
    assert_eq!(get("/build/commit"), "338824f1fafc\n");
    assert_eq!(get("/build/dirty"), "false\n");
    assert_eq!(get("/cmd"), "a \"quoted\"\tline\n");
    assert_eq!(get("/rows"), "200000\n");
    assert_eq!(get("/row_groups_in_flight"), "null\n");
    assert_eq!(get("/files"), "[\"a\",\"b\"]\n");
    assert_eq!(get("/files/1"), "b\n");
    let (ok, stdout, _) = json_get("-", "/build/commit", r#"{"build":{"commit":"abc"}}"#);
    assert!(ok);
    assert_eq!(stdout, "abc\n");
}

#[test]
fn json_get_fails_clearly_on_a_missing_value_or_text_that_is_not_json() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    std::fs::write(&report, r#"{"allocator":"system"}"#).unwrap();
    let (ok, stdout, stderr) = json_get(report.to_str().unwrap(), "/build/commit", "");
    assert!(!ok && stdout.is_empty());
    assert!(
        stderr.contains("has no value at the JSON pointer '/build/commit'"),
        "{stderr}"
    );
    let (ok, stdout, stderr) = json_get("-", "/allocator", "allocator: system\n");
    assert!(!ok && stdout.is_empty());
    assert!(stderr.contains("standard input is not JSON"), "{stderr}");
    let missing = dir.path().join("missing.json");
    let (ok, _, stderr) = json_get(missing.to_str().unwrap(), "/allocator", "");
    assert!(!ok);
    assert!(stderr.contains("cannot read"), "{stderr}");
}
