//! Charts of a host's catalog results: the trend of medians, IPC (or its simulated stand-in), the
//! counter grid, the box plot, the median against the floor, and the CPU by role.

use std::error::Error;
use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::cpu_by_role::cpu_by_role;
use super::{draw_legend, register_font, save_both, PlotResult, FONT};
use crate::stats::quantile;
use crate::summary::Summary;

/// One value per experiment, for a line chart.
struct Metric {
    title: String,
    points: Vec<(u32, f64)>,
}

impl Metric {
    fn new(
        title: impl Into<String>,
        summaries: &[Summary],
        value: impl Fn(&Summary) -> Option<f64>,
    ) -> Self {
        Self {
            title: title.into(),
            points: summaries
                .iter()
                .filter_map(|s| Some((s.experiment, value(s)?)))
                .collect(),
        }
    }
}

fn x_range(summaries: &[Summary]) -> std::ops::Range<f64> {
    let last = summaries.iter().map(|s| s.experiment).max().unwrap_or(0);
    -0.5..last as f64 + 0.5
}

fn y_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let max = values.fold(0.0f64, f64::max);
    0.0..if max > 0.0 { max * 1.15 } else { 1.0 }
}

/// Seconds against experiment number, on a cleared area, with the axes drawn.
fn seconds_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: &str,
    summaries: &[Summary],
) -> Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>, Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            x_range(summaries),
            y_range(summaries.iter().map(|s| s.max_s)),
        )?;
    chart
        .configure_mesh()
        .x_desc("experiment")
        .y_desc("seconds")
        .x_label_formatter(&|x| format!("{:02}", x.round() as i64))
        .label_style((FONT, 14))
        .draw()?;
    Ok(chart)
}

/// Median per experiment as a line, min-max range shaded.
fn trend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, summaries: &[Summary]) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let rows = summaries.first().map_or(0, |s| s.rows);
    let caption = format!("Median wall time per experiment ({rows} rows)");
    let mut chart = seconds_chart(area, &caption, summaries)?;
    let band: Vec<(f64, f64)> = summaries
        .iter()
        .map(|s| (s.experiment as f64, s.max_s))
        .chain(
            summaries
                .iter()
                .rev()
                .map(|s| (s.experiment as f64, s.min_s)),
        )
        .collect();
    chart.draw_series(std::iter::once(Polygon::new(band, BLUE.mix(0.2).filled())))?;
    let medians: Vec<(f64, f64)> = summaries
        .iter()
        .map(|s| (s.experiment as f64, s.median_s))
        .collect();
    chart
        .draw_series(LineSeries::new(medians.clone(), BLACK.stroke_width(2)))?
        .label("median")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
    chart.draw_series(medians.iter().map(|&p| Circle::new(p, 4, BLACK.filled())))?;
    chart.draw_series(summaries.iter().map(|s| {
        EmptyElement::at((s.experiment as f64, s.median_s))
            + Text::new(format!("{:.2}", s.median_s), (4, -18), (FONT, 12))
    }))?;
    draw_legend(&mut chart, 14)?;
    area.present()?;
    Ok(())
}

/// Median wall time against the ideal wall time (the floor), for the experiments with a floor.
fn floor<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, summaries: &[Summary]) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let with_floor: Vec<(f64, f64, f64)> = summaries
        .iter()
        .filter_map(|s| {
            Some((
                s.experiment as f64,
                s.median_s,
                s.floor.as_ref()?.ideal_wall_s,
            ))
        })
        .collect();
    let mut chart = seconds_chart(
        area,
        "Median wall time and the ideal (CPU needed / cores)",
        summaries,
    )?;
    for (points, color, label) in [
        (
            with_floor.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
            BLACK,
            "median wall",
        ),
        (
            with_floor.iter().map(|p| (p.0, p.2)).collect(),
            RED,
            "ideal",
        ),
    ] {
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
    }
    draw_legend(&mut chart, 14)?;
    area.present()?;
    Ok(())
}

/// A line chart of one metric against the experiment number.
fn metric_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    metric: &Metric,
    x: std::ops::Range<f64>,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .caption(&metric.title, (FONT, 15))
        .margin(8)
        .x_label_area_size(25)
        .y_label_area_size(55)
        .build_cartesian_2d(x, y_range(metric.points.iter().map(|p| p.1)))?;
    chart
        .configure_mesh()
        .label_style((FONT, 11))
        .x_label_formatter(&|x| format!("{:02}", x.round() as i64))
        .y_label_formatter(&|y| format_si(*y))
        .draw()?;
    if metric.points.is_empty() {
        area.draw_text("not measured", &(FONT, 14).into(), (60, 60))?;
        return Ok(());
    }
    let points: Vec<(f64, f64)> = metric.points.iter().map(|&(x, y)| (x as f64, y)).collect();
    chart.draw_series(LineSeries::new(points.clone(), BLUE.stroke_width(2)))?;
    chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))?;
    Ok(())
}

fn format_si(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1e9 {
        format!("{:.1}G", value / 1e9)
    } else if magnitude >= 1e6 {
        format!("{:.1}M", value / 1e6)
    } else if magnitude >= 1e3 {
        format!("{:.1}k", value / 1e3)
    } else if magnitude >= 1.0 || magnitude == 0.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// Simulated-count label, e.g. "sim, 200000 rows".
fn sim_label(summaries: &[Summary]) -> String {
    summaries
        .iter()
        .find_map(|s| s.counters.simulated.as_ref())
        .map_or_else(
            || "sim".to_string(),
            |s| format!("cachegrind sim, {} rows", s.rows),
        )
}

fn hardware(summaries: &[Summary]) -> bool {
    summaries.iter().any(|s| s.counters.hardware)
}

/// IPC per experiment, or simulated instructions per row where there are no hardware counters.
fn ipc_metric(summaries: &[Summary]) -> Metric {
    if hardware(summaries) {
        Metric::new("IPC (perf stat, hardware)", summaries, |s| s.counters.ipc)
    } else {
        Metric::new(
            format!(
                "Instructions per row ({}; no hardware IPC here)",
                sim_label(summaries)
            ),
            summaries,
            |s| Some(s.counters.simulated.as_ref()?.instructions_per_row),
        )
    }
}

fn perf_event(s: &Summary, event: &str) -> Option<f64> {
    s.counters.perf.as_ref()?.get(event)
}

/// The nine panels of the counter grid, each labelled with its source.
fn counter_metrics(summaries: &[Summary]) -> Vec<Metric> {
    let sim = sim_label(summaries);
    let simulated = |f: fn(&crate::parse::cachegrind::Cachegrind) -> f64| {
        move |s: &Summary| s.counters.simulated.as_ref().map(|sim| f(&sim.counts))
    };
    let mut metrics = vec![
        Metric::new("median wall time (s)", summaries, |s| Some(s.median_s)),
        Metric::new("user CPU (s, hyperfine)", summaries, |s| Some(s.user_s)),
        Metric::new("system CPU (s, hyperfine)", summaries, |s| Some(s.system_s)),
    ];
    if hardware(summaries) {
        metrics.extend([
            Metric::new("cycles (hw)", summaries, |s| perf_event(s, "cycles")),
            Metric::new("instructions (hw)", summaries, |s| {
                perf_event(s, "instructions")
            }),
            Metric::new("cache-miss rate (hw)", summaries, |s| {
                s.counters.cache_miss_rate
            }),
            Metric::new("branch-miss rate (hw)", summaries, |s| {
                s.counters.branch_miss_rate
            }),
        ]);
    } else {
        metrics.extend([
            Metric::new(
                format!("instructions ({sim})"),
                summaries,
                simulated(|c| c.instructions as f64),
            ),
            Metric::new(
                format!("D1 miss rate ({sim})"),
                summaries,
                simulated(|c| c.d1_miss_rate()),
            ),
            Metric::new(
                format!("LL miss rate ({sim})"),
                summaries,
                simulated(|c| c.ll_miss_rate()),
            ),
            Metric::new(
                format!("branch mispredict rate ({sim})"),
                summaries,
                simulated(|c| c.branch_miss_rate()),
            ),
        ]);
    }
    metrics.extend([
        Metric::new("page faults (perf sw)", summaries, |s| {
            perf_event(s, "page-faults")
        }),
        Metric::new("peak RSS (MiB)", summaries, |s| {
            Some(s.peak_rss_bytes? as f64 / 1048576.0)
        }),
    ]);
    metrics
}

fn grid<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, summaries: &[Summary]) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let titled = area.titled("Counters per experiment", (FONT, 22))?;
    for (panel, metric) in titled
        .split_evenly((3, 3))
        .iter()
        .zip(counter_metrics(summaries))
    {
        metric_chart(panel, &metric, x_range(summaries))?;
    }
    area.present()?;
    Ok(())
}

fn ipc<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, summaries: &[Summary]) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    metric_chart(area, &ipc_metric(summaries), x_range(summaries))?;
    area.present()?;
    Ok(())
}

/// The distribution of each experiment's runs: box from the first to the third quartile, a line
/// at the median, whiskers to the fastest and slowest run.
fn boxplot<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, summaries: &[Summary]) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let mut chart = seconds_chart(area, "Wall time of every run", summaries)?;
    let half = 0.3;
    for s in summaries {
        let x = s.experiment as f64;
        let (q1, q2, q3) = (
            quantile(&s.times, 0.25),
            quantile(&s.times, 0.5),
            quantile(&s.times, 0.75),
        );
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - half, q1), (x + half, q3)],
            BLUE.stroke_width(1),
        )))?;
        let segments = [
            vec![(x - half, q2), (x + half, q2)],
            vec![(x, q3), (x, s.max_s)],
            vec![(x, q1), (x, s.min_s)],
            vec![(x - half / 2.0, s.max_s), (x + half / 2.0, s.max_s)],
            vec![(x - half / 2.0, s.min_s), (x + half / 2.0, s.min_s)],
        ];
        chart.draw_series(
            segments
                .into_iter()
                .map(|points| PathElement::new(points, BLUE.stroke_width(1))),
        )?;
    }
    area.present()?;
    Ok(())
}

/// Draws trend, IPC (or its stand-in), counter grid and box plot into `dir` as PNG and SVG.
pub fn draw_all(dir: &Path, summaries: &[Summary]) -> PlotResult {
    register_font();
    save_both!(dir, "trend", (1000, 560), trend, summaries);
    save_both!(dir, "ipc", (1000, 480), ipc, summaries);
    save_both!(dir, "counters", (1400, 1000), grid, summaries);
    save_both!(dir, "boxplot", (1000, 560), boxplot, summaries);
    if summaries.iter().any(|s| s.floor.is_some()) {
        save_both!(dir, "floor", (1000, 560), floor, summaries);
    }
    if summaries.iter().any(|s| s.role_counters.is_some()) {
        save_both!(dir, "cpu-by-role", (1000, 560), cpu_by_role, summaries);
    }
    Ok(())
}
