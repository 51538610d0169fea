//! `make history`'s charts (`history-<kind>.png`): each figure's median wall time over the
//! dates of its runs, one line per figure, runs from dirty trees hollow, change points ringed.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::DateTime;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{register_font, save_both, PlotResult, FONT};
use crate::history::report::{kind_name, series, ChangePoint};
use crate::history::{Kind, Record};

/// The most figures a chart names in its legend.
const LEGEND_MAX: usize = 12;

/// Draws one chart per kind of run in `records` into `dir`; returns the PNG files' names.
pub fn draw_all(
    dir: &Path,
    records: &[Record],
    changes: &[ChangePoint],
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    register_font();
    let mut kinds: BTreeMap<Kind, Vec<Record>> = BTreeMap::new();
    for record in records {
        kinds.entry(record.kind).or_default().push(record.clone());
    }
    let mut names = Vec::new();
    for (kind, records) in kinds {
        let name = format!("history-{}", kind_name(kind));
        save_both!(dir, name, (1100, 600), chart, kind, &records, changes);
        names.push(format!("{name}.png"));
    }
    Ok(names)
}

/// Days since the Unix epoch of an RFC 3339 date, `None` if it is not one.
fn days(date: &str) -> Option<f64> {
    let parsed = DateTime::parse_from_rfc3339(date).ok()?;
    Some(parsed.timestamp() as f64 / 86_400.0)
}

fn chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    kind: Kind,
    records: &[Record],
    changes: &[ChangePoint],
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let dated: Vec<(f64, f64)> = records
        .iter()
        .filter_map(|r| Some((days(&r.date)?, r.median_s)))
        .collect();
    let (first, last) = dated.iter().fold((f64::MAX, f64::MIN), |(lo, hi), (d, _)| {
        (lo.min(*d), hi.max(*d))
    });
    let top = dated.iter().map(|(_, s)| *s).fold(0.0, f64::max);
    let span = (last - first).max(1.0);
    let figures = series(records).len();
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "{}: median wall time by run date ({figures} figures)",
                kind_name(kind)
            ),
            (FONT, 20),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            first - span * 0.02..last + span * 0.02,
            0.0..(top * 1.15).max(1e-9),
        )?;
    chart
        .configure_mesh()
        .x_desc("date (UTC)")
        .y_desc("median wall s")
        .x_labels(6)
        .x_label_formatter(&|d| {
            DateTime::from_timestamp((d * 86_400.0) as i64, 0)
                .map_or_else(String::new, |t| t.format("%Y-%m-%d").to_string())
        })
        .label_style((FONT, 13))
        .draw()?;
    for (index, ((_, name), runs)) in series(records).into_iter().enumerate() {
        let rings: Vec<&ChangePoint> = changes
            .iter()
            .filter(|c| c.kind == kind && c.name == name)
            .collect();
        draw_figure(&mut chart, index, &name, &runs, &rings)?;
    }
    // A legend of more figures than this would hide the chart: history.md lists them all.
    if figures > LEGEND_MAX {
        area.present()?;
        return Ok(());
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 11))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    area.present()?;
    Ok(())
}

/// One figure's runs: a line through the clean ones, hollow dots for the others, a red ring
/// on each change point.
fn draw_figure<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    index: usize,
    name: &str,
    runs: &[&Record],
    rings: &[&ChangePoint],
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let (r, g, b) = Palette99::pick(index).rgb();
    let colour = RGBColor(r, g, b);
    let points: Vec<(f64, f64, bool)> = runs
        .iter()
        .filter_map(|r| Some((days(&r.date)?, r.median_s, r.dirty == Some(false))))
        .collect();
    let clean = points.iter().filter(|p| p.2).map(|p| (p.0, p.1));
    chart
        .draw_series(LineSeries::new(clean.clone(), colour.stroke_width(2)))?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour));
    chart.draw_series(clean.map(|p| Circle::new(p, 3, colour.filled())))?;
    let dirty = points.iter().filter(|p| !p.2).map(|p| (p.0, p.1));
    chart.draw_series(dirty.map(|p| Circle::new(p, 4, colour.stroke_width(1))))?;
    let ringed = rings.iter().filter_map(|c| {
        let run = runs
            .iter()
            .find(|r| r.commit == c.commit && r.date == c.date)?;
        Some(Circle::new(
            (days(&run.date)?, run.median_s),
            9,
            RED.stroke_width(2),
        ))
    });
    chart.draw_series(ringed)?;
    Ok(())
}
