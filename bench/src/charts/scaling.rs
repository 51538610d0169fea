//! Charts of the scaling run: throughput against the ideal line and the model, bandwidth against
//! the STREAM ceiling, IPC (or its stand-in), parallel efficiency; and the model's predictions.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{draw_legend, register_font, save_both, PlotResult, FONT};
use crate::scaling::analysis::ScalingAnalysis;

/// A line to draw: label, colour, points.
type Line<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    y_desc: &str,
    lines: &[Line<'_>],
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let x_max = lines
        .iter()
        .flat_map(|l| l.2.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let y_max = lines
        .iter()
        .flat_map(|l| l.2.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(55)
        .build_cartesian_2d(0.5..x_max + 0.5, 0.0..(y_max * 1.2).max(1e-9))?;
    chart
        .configure_mesh()
        .x_desc("processes")
        .y_desc(y_desc)
        .label_style((FONT, 12))
        .draw()?;
    for (label, color, points) in lines {
        let color = *color;
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(*label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    draw_legend(&mut chart, 12)?;
    Ok(())
}

fn scaling<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    analysis: &ScalingAnalysis,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let panels = area
        .titled("Multi-process scaling", (FONT, 22))?
        .split_evenly((2, 2));
    let procs = |f: &dyn Fn(&crate::scaling::analysis::Step) -> f64| -> Vec<(f64, f64)> {
        analysis
            .steps
            .iter()
            .map(|s| (f64::from(s.procs), f(s)))
            .collect()
    };
    let single = analysis.steps[0].rows_per_s;
    panel(
        &panels[0],
        "aggregate throughput (M rows/s)",
        "M rows/s",
        &[
            ("measured", BLUE, procs(&|s| s.rows_per_s / 1e6)),
            (
                "ideal linear",
                BLACK,
                procs(&|s| f64::from(s.procs) * single / 1e6),
            ),
            (
                "model",
                RED,
                analysis
                    .model_check
                    .iter()
                    .map(|(p, _)| (f64::from(p.procs), p.rows_per_s / 1e6))
                    .collect(),
            ),
        ],
    )?;
    let mut bandwidth: Vec<Line<'_>> = vec![(
        "memory traffic (see source in README)",
        BLUE,
        procs(&|s| s.bandwidth / 1e9),
    )];
    if let Some(stream) = analysis.stream_bytes_per_s {
        bandwidth.push(("STREAM ceiling", RED, procs(&|_| stream / 1e9)));
    }
    panel(&panels[1], "memory bandwidth (GB/s)", "GB/s", &bandwidth)?;
    let (title, values) = if analysis.steps.iter().all(|s| s.ipc.is_some()) {
        (
            "IPC (perf, hardware)",
            procs(&|s| s.ipc.unwrap_or_default()),
        )
    } else {
        (
            "CPU ns per row (perf task-clock; no hardware IPC)",
            procs(&|s| s.cpu_ns_per_row.unwrap_or_default()),
        )
    };
    panel(&panels[2], title, "", &[("per process", BLUE, values)])?;
    panel(
        &panels[3],
        "parallel efficiency (%)",
        "%",
        &[
            ("measured", BLUE, procs(&|s| s.efficiency * 100.0)),
            ("ideal", BLACK, procs(&|_| 100.0)),
        ],
    )?;
    area.present()?;
    Ok(())
}

fn model<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    analysis: &ScalingAnalysis,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let colors = [BLUE, RED, GREEN, MAGENTA];
    let lines: Vec<Line<'_>> = analysis
        .predictions
        .iter()
        .zip(colors)
        .map(|((machine, _, curve), color)| {
            (
                machine.name.as_str(),
                color,
                curve
                    .iter()
                    .map(|p| (f64::from(p.procs), p.rows_per_s / 1e6))
                    .collect(),
            )
        })
        .chain(std::iter::once((
            "measured here",
            BLACK,
            analysis
                .steps
                .iter()
                .map(|s| (f64::from(s.procs), s.rows_per_s / 1e6))
                .collect(),
        )))
        .collect();
    panel(
        area,
        "Model: predicted throughput by process count (M rows/s)",
        "M rows/s",
        &lines,
    )?;
    area.present()?;
    Ok(())
}

/// Draws `scaling.{png,svg}` and `model.{png,svg}` into `dir`.
pub fn draw(dir: &Path, analysis: &ScalingAnalysis) -> PlotResult {
    register_font();
    save_both!(dir, "scaling", (1200, 900), scaling, analysis);
    save_both!(dir, "model", (1000, 560), model, analysis);
    Ok(())
}
