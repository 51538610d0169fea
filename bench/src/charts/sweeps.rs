//! Charts of the parameter sweeps: writers x batch size heatmaps, and the thread sweep beside the
//! process pinned to one CPU.

use std::collections::BTreeSet;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{draw_legend, register_font, save_both, PlotResult, FONT};
use crate::parse::hyperfine::HyperfineResult;

fn parameter(result: &HyperfineResult, name: &str) -> Option<u64> {
    result.parameters.get(name)?.parse().ok()
}

/// One heatmap: median seconds (or rows/s) by writers (rows of the grid) and batch size.
struct Grid {
    title: String,
    writers: Vec<u64>,
    batches: Vec<u64>,
    cells: Vec<(usize, usize, f64)>,
}

impl Grid {
    fn new(
        title: String,
        results: &[&HyperfineResult],
        value: impl Fn(&HyperfineResult) -> f64,
    ) -> Self {
        let writers: Vec<u64> = results
            .iter()
            .filter_map(|r| parameter(r, "writers"))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let batches: Vec<u64> = results
            .iter()
            .filter_map(|r| parameter(r, "batch"))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let cells = results
            .iter()
            .filter_map(|r| {
                let y = writers
                    .iter()
                    .position(|w| Some(*w) == parameter(r, "writers"))?;
                let x = batches
                    .iter()
                    .position(|b| Some(*b) == parameter(r, "batch"))?;
                Some((x, y, value(r)))
            })
            .collect();
        Self {
            title,
            writers,
            batches,
            cells,
        }
    }
}

fn heatmap<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, grid: &Grid) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let (nx, ny) = (grid.batches.len() as i32, grid.writers.len() as i32);
    let mut chart = ChartBuilder::on(area)
        .caption(&grid.title, (FONT, 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((0..nx - 1).into_segmented(), (0..ny - 1).into_segmented())?;
    let label = |values: &[u64], v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => values
            .get(*i as usize)
            .map_or(String::new(), u64::to_string),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("batch size (rows)")
        .y_desc("writers")
        .x_label_formatter(&|v| label(&grid.batches, v))
        .y_label_formatter(&|v| label(&grid.writers, v))
        .label_style((FONT, 14))
        .draw()?;
    let (low, high) = grid.cells.iter().fold((f64::MAX, f64::MIN), |(lo, hi), c| {
        (lo.min(c.2), hi.max(c.2))
    });
    chart.draw_series(grid.cells.iter().map(|&(x, y, v)| {
        // One cell, or cells all alike: the middle of the scale (a span of 0 has no scale).
        let position = if high > low {
            (v - low) / (high - low)
        } else {
            0.5
        };
        let color = ViridisRGB::get_color_normalized(position, 0.0, 1.0);
        let (x, y) = (x as i32, y as i32);
        Rectangle::new(
            [
                (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
            ],
            color.filled(),
        )
    }))?;
    chart.draw_series(grid.cells.iter().map(|&(x, y, v)| {
        let text = if v >= 1e6 {
            format!("{:.1}M", v / 1e6)
        } else {
            format!("{v:.3}")
        };
        EmptyElement::at((
            SegmentValue::CenterOf(x as i32),
            SegmentValue::CenterOf(y as i32),
        )) + Text::new(text, (-22, -8), (FONT, 16).into_font().color(&WHITE))
    }))?;
    area.present()?;
    Ok(())
}

/// Heatmaps of median time and rows/s from a hyperfine sweep over `writers` and `batch`
/// (one pair per `producers` value), next to the JSON.
pub fn draw_heatmaps(
    json: &Path,
    results: &[HyperfineResult],
    rows: u64,
    title: &str,
) -> PlotResult {
    register_font();
    let dir = json.parent().unwrap_or(Path::new("."));
    let producer_counts: BTreeSet<Option<u64>> =
        results.iter().map(|r| parameter(r, "producers")).collect();
    for producers in producer_counts {
        let subset: Vec<&HyperfineResult> = results
            .iter()
            .filter(|r| parameter(r, "producers") == producers)
            .collect();
        let suffix = producers.map_or(String::new(), |p| format!("-p{p}"));
        let label = producers.map_or(String::new(), |p| format!(", {p} producers"));
        let time = Grid::new(format!("median seconds ({title}{label})"), &subset, |r| {
            r.median
        });
        let speed = Grid::new(format!("rows/s ({title}{label})"), &subset, |r| {
            rows as f64 / r.median
        });
        for (grid, name) in [(time, "time"), (speed, "rows-per-s")] {
            save_both!(
                dir,
                format!("heatmap-{name}{suffix}"),
                (900, 560),
                heatmap,
                &grid
            );
        }
    }
    Ok(())
}

fn threads_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    sweep: &[(u64, f64)],
    pinned: Option<f64>,
    rows: u64,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let max_threads = sweep.iter().map(|p| p.0).max().unwrap_or(1) as f64;
    let top = sweep
        .iter()
        .map(|p| p.1)
        .chain(pinned)
        .fold(0.0f64, f64::max)
        * 1.2;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("Thread sweep, {rows} rows (median rows/s)"),
            (FONT, 20),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5..max_threads + 0.5, 0.0..top.max(1.0))?;
    chart
        .configure_mesh()
        .x_desc("producers = writers")
        .y_desc("rows/s")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{:.1}M", v / 1e6))
        .label_style((FONT, 14))
        .draw()?;
    let points: Vec<(f64, f64)> = sweep.iter().map(|&(t, v)| (t as f64, v)).collect();
    chart
        .draw_series(LineSeries::new(points.clone(), BLUE.stroke_width(2)))?
        .label("unpinned")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, BLUE.filled())))?;
    if let Some(pinned) = pinned {
        chart
            .draw_series(LineSeries::new(
                vec![(0.5, pinned), (max_threads + 0.5, pinned)],
                RED.stroke_width(2),
            ))?
            .label("taskset -c 0 (one CPU, 1 producer + 1 writer)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    }
    draw_legend(&mut chart, 14)?;
    area.present()?;
    Ok(())
}

/// The thread sweep (parameter `threads`) against the pinned single-CPU run, as rows/s.
pub fn draw_threads(
    dir: &Path,
    sweep: &[HyperfineResult],
    pinned: Option<&HyperfineResult>,
    rows: u64,
) -> PlotResult {
    register_font();
    let points: Vec<(u64, f64)> = sweep
        .iter()
        .filter_map(|r| Some((parameter(r, "threads")?, rows as f64 / r.median)))
        .collect();
    let pinned = pinned.map(|r| rows as f64 / r.median);
    save_both!(
        dir,
        "threads",
        (900, 520),
        threads_chart,
        &points,
        pinned,
        rows
    );
    Ok(())
}
