//! The designs' charts (`results designs DIR`): each design's median wall time beside its ideal,
//! and its peak resident memory, as horizontal bars.

use std::path::Path;

use super::bars::{save, Bar};
use super::{register_font, PlotResult};
use crate::designs::Designs;

/// Draws `wall` (median wall and ideal, seconds) and `peak_rss` (MiB) into `dir`.
pub fn draw_all(dir: &Path, designs: &Designs) -> PlotResult {
    register_font();
    let mut times = Vec::new();
    for design in &designs.designs {
        times.push(Bar {
            label: design.label.clone(),
            series: 0,
            value: design.median_s,
        });
        if let Some(ideal) = design.ideal_s {
            times.push(Bar {
                label: String::new(),
                series: 1,
                value: ideal,
            });
        }
    }
    let series = [
        "median wall".to_string(),
        "ideal: floor CPU / cores".to_string(),
    ];
    save(
        dir,
        "wall",
        ("Wall time against the ideal", "seconds"),
        &series,
        &times,
    )?;
    let memory: Vec<Bar> = designs
        .designs
        .iter()
        .filter_map(|design| {
            Some(Bar {
                label: design.label.clone(),
                series: 0,
                value: design.peak_rss_bytes? as f64 / 1048576.0,
            })
        })
        .collect();
    save(
        dir,
        "peak_rss",
        ("Peak resident memory (one run, /usr/bin/time)", "MiB"),
        &["peak RSS".to_string()],
        &memory,
    )
}
