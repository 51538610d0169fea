//! `make designs`' analysis, from folders laid out as scripts/designs.sh leaves them: every
//! design against the first round by round, the README's verdicts, and the charts.

mod common;

use std::path::Path;

use common::{assert_charts, summary};
use shredlab_bench::charts;
use shredlab_bench::designs::Designs;

/// One design's folder: its summary, timed in rounds `rounds` with `times`, its peak RSS
/// `rss_mib`.
fn write_design(dir: &Path, folder: &str, rounds: &str, times: &[f64], rss_mib: u64, digest: &str) {
    let folder = dir.join(folder);
    std::fs::create_dir_all(&folder).unwrap();
    let mut design = summary(28, "fused-row-groups", times[0], false);
    design.times = times.to_vec();
    design.median_s = shredlab_bench::stats::median(times);
    design.mean_s = times.iter().sum::<f64>() / times.len() as f64;
    design.rounds = Some(rounds.to_string());
    design.digest = Some(digest.to_string());
    design.peak_rss_bytes = Some(rss_mib << 20);
    std::fs::write(
        folder.join("summary.json"),
        serde_json::to_string(&design).unwrap(),
    )
    .unwrap();
}

/// Ten drifting rounds of the reference, and `factor` times them.
fn rounds_times(factor: f64) -> Vec<f64> {
    (0..10)
        .map(|i| (1.0 - 0.02 * f64::from(i)) * factor * (1.0 + 0.0005 * f64::from(i % 3)))
        .collect()
}

fn designs_dir(third_digest: &str, third_rounds: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("designs.tsv"),
        "26-channel\tchannel (26)\tpipeline --experiment 26\n\
         28-fused\tfused (28)\tpipeline --experiment 28\n\
         28-fused-1-worker\tfused, 1 worker\tpipeline --experiment 28 --producers 1\n",
    )
    .unwrap();
    write_design(dir.path(), "26-channel", "r1", &rounds_times(1.0), 53, "d");
    write_design(dir.path(), "28-fused", "r1", &rounds_times(0.9), 38, "d");
    write_design(
        dir.path(),
        "28-fused-1-worker",
        third_rounds,
        &rounds_times(1.8),
        30,
        third_digest,
    );
    dir
}

#[test]
fn every_design_is_compared_with_the_first_round_by_round() {
    let dir = designs_dir("d", "r1");
    let designs = Designs::from_dir(dir.path()).unwrap();
    assert_eq!(designs.rounds, 10);
    let fused = &designs.designs[1];
    assert!((fused.ratio_to_first - 0.9).abs() < 1e-3, "{fused:?}");
    // Ten rounds all one way, after Holm's correction for the 2 comparisons.
    assert!(fused.p.is_some_and(|p| p < 0.01), "{fused:?}");
    assert_eq!(fused.peak_rss_bytes, Some(38 << 20));
    assert_eq!(designs.designs[0].p, None);
    assert!(designs.same_data());

    let text = designs.markdown("make designs ROWS=10000000 RUNS=10");
    assert!(
        text.contains("| channel (26) | `pipeline --experiment 26` |"),
        "{text}"
    );
    assert!(text.contains("reference"), "{text}");
    assert!(text.contains("**-10.0%** (p=0.00"), "{text}");
    assert!(text.contains("**+80.0%**"), "{text}");
    assert!(text.contains("| 38.0 |"), "{text}");
    assert!(text.contains("the same digest"), "{text}");

    charts::designs::draw_all(dir.path(), &designs).unwrap();
    assert_charts(dir.path(), &["wall", "peak_rss"]);
}

#[test]
fn designs_that_disagree_on_the_data_are_flagged() {
    let dir = designs_dir("other", "r1");
    let designs = Designs::from_dir(dir.path()).unwrap();
    assert!(!designs.same_data());
    let text = designs.markdown("make designs");
    assert!(text.contains("data gates disagree"), "{text}");
}

#[test]
fn designs_timed_in_other_rounds_or_listed_badly_are_refused() {
    let dir = designs_dir("d", "r2");
    let error = Designs::from_dir(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("28-fused-1-worker was not timed in the same rounds as 26-channel"),
        "{error}"
    );

    std::fs::write(dir.path().join("designs.tsv"), "26-channel only a label\n").unwrap();
    let error = Designs::from_dir(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("is not folder<TAB>label<TAB>arguments"),
        "{error}"
    );

    std::fs::write(dir.path().join("designs.tsv"), "").unwrap();
    let error = Designs::from_dir(dir.path()).unwrap_err().to_string();
    assert!(error.contains("lists no design"), "{error}");
}
