//! One experiment's timeline (`timeline.png`): a lane per thread across the run's wall time,
//! each interval coloured by its phase.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{register_font, save_both, PlotResult, FONT};
use crate::timeline::Timeline;

/// The phases `pipeline` reports, in legend order: each keeps its colour on every chart.
const PHASES: [&str; 8] = [
    "start", "generate", "encode", "append", "wait", "send", "receive", "tail",
];

/// Draws `timeline` into `dir` as `timeline.png` and `timeline.svg`.
pub fn draw(dir: &Path, title: &str, timeline: &Timeline) -> PlotResult {
    register_font();
    let height = 140 + 36 * timeline.lanes.len() as u32;
    save_both!(dir, "timeline", (1200, height), lanes, title, timeline);
    Ok(())
}

fn colour(phase: &str) -> RGBColor {
    let index = PHASES
        .iter()
        .position(|p| *p == phase)
        .unwrap_or(PHASES.len());
    let (r, g, b) = Palette99::pick(index).rgb();
    RGBColor(r, g, b)
}

fn lanes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    timeline: &Timeline,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let wall_ms = timeline.wall_ns() as f64 / 1e6;
    let count = timeline.lanes.len().max(1) as f64;
    let names: Vec<String> = timeline.lanes.iter().map(|l| l.thread.clone()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d(0.0..(wall_ms * 1.15).max(1e-6), 0.0..count)?;
    chart
        .configure_mesh()
        .x_desc("ms from the run's start")
        .y_labels(names.len() * 2 + 1)
        // A lane's name at its middle, nothing at its edges.
        .y_label_formatter(&|y| {
            let middle = y - 0.5;
            match (middle - middle.round()).abs() < 1e-6 && middle >= 0.0 {
                true => names
                    .get(middle.round() as usize)
                    .cloned()
                    .unwrap_or_default(),
                false => String::new(),
            }
        })
        .disable_y_mesh()
        .label_style((FONT, 13))
        .draw()?;
    for (row, lane) in timeline.lanes.iter().enumerate() {
        let (low, high) = (row as f64 + 0.15, row as f64 + 0.85);
        let boxes = lane.intervals.iter().map(move |i| {
            let (start, end) = (i.start_ns as f64 / 1e6, i.end_ns as f64 / 1e6);
            Rectangle::new([(start, low), (end, high)], colour(&i.phase).filled())
        });
        chart.draw_series(boxes)?;
    }
    let present = |phase: &str| {
        let mut intervals = timeline.lanes.iter().flat_map(|l| l.intervals.iter());
        intervals.any(|i| i.phase == phase)
    };
    for phase in PHASES.into_iter().filter(|phase| present(phase)) {
        let fill = colour(phase).filled();
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
            .label(phase)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], fill));
    }
    chart
        .configure_series_labels()
        // Right of the lanes, which end at the run's wall time.
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    area.present()?;
    Ok(())
}
