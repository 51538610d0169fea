//! Horizontal bar charts: one labelled row per bar, coloured by series (the peers' write times,
//! file sizes and scan times).

use plotters::coord::Shift;
use plotters::prelude::*;

use std::path::Path;

use super::{draw_legend, save_both, PlotResult, FONT};

/// One bar: its row label, its series (an index into the chart's series names) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Shown on the left of the row.
    pub label: String,
    /// Picks the colour and the legend entry.
    pub series: usize,
    /// Its length.
    pub value: f64,
}

/// A chart of `bars`, top to bottom in the order given.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    axis: &str,
    series: &[String],
    bars: &[Bar],
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let rows = bars.len().max(1) as i32;
    let max = bars.iter().map(|b| b.value).fold(0.0f64, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(300)
        .build_cartesian_2d(0.0..(max * 1.12).max(1e-9), (0..rows).into_segmented())?;
    let label = |value: &SegmentValue<i32>| match value {
        // Rows are numbered from the bottom; the first bar goes on top.
        SegmentValue::CenterOf(row) => bars
            .get((rows - 1 - row) as usize)
            .map_or_else(String::new, |bar| bar.label.clone()),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(bars.len().max(1))
        .y_label_formatter(&label)
        .x_desc(axis)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .draw()?;
    for (index, name) in series.iter().enumerate() {
        let colour = Palette99::pick(index).filled();
        let rectangles = bars
            .iter()
            .enumerate()
            .filter(|(_, bar)| bar.series == index)
            .map(move |(i, bar)| {
                let row = rows - 1 - i as i32;
                Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(row)),
                        (bar.value, SegmentValue::Exact(row + 1)),
                    ],
                    colour,
                )
            });
        chart
            .draw_series(rectangles)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour));
    }
    draw_legend(&mut chart, 13)?;
    area.present()?;
    Ok(())
}

/// Draws `bars` as `<dir>/<name>.png` and `.svg`, tall enough for every row.
pub fn save(
    dir: &Path,
    name: &str,
    (caption, axis): (&str, &str),
    series: &[String],
    bars: &[Bar],
) -> PlotResult {
    let size = (1100, 120 + 22 * bars.len() as u32);
    save_both!(dir, name, size, draw, caption, axis, series, bars);
    Ok(())
}
