//! The CPU time of each experiment's `--counters` run, stacked by role: which side of the
//! pipeline each optimization moved.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{PlotResult, FONT};
use crate::role_counters::ROLES;
use crate::summary::Summary;

/// One bar per counted experiment, its roles' CPU seconds stacked bottom to top.
pub fn cpu_by_role<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    summaries: &[Summary],
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let counted: Vec<(u32, Vec<f64>)> = summaries
        .iter()
        .filter_map(|s| {
            let roles = s.role_counters.as_ref()?;
            Some((s.experiment, ROLES.iter().map(|r| roles.cpu_s(r)).collect()))
        })
        .collect();
    let top = counted
        .iter()
        .map(|(_, cpu)| cpu.iter().sum::<f64>())
        .fold(0.0f64, f64::max);
    let first = counted.iter().map(|(n, _)| *n).min().unwrap_or(0);
    let last = counted.iter().map(|(n, _)| *n).max().unwrap_or(0);
    let mut chart = ChartBuilder::on(area)
        .caption("CPU seconds by role (one --counters run each)", (FONT, 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            f64::from(first) - 0.5..f64::from(last) + 0.5,
            0.0..(top * 1.35).max(1e-9),
        )?;
    chart
        .configure_mesh()
        .x_desc("experiment")
        .y_desc("CPU seconds")
        .x_labels((last - first + 2) as usize)
        // Labels only at whole experiment numbers.
        .x_label_formatter(&|x| match (x - x.round()).abs() < 1e-6 {
            true => format!("{:02}", x.round() as i64),
            false => String::new(),
        })
        .label_style((FONT, 14))
        .draw()?;
    // Colours follow a role's place in ROLES, so a role keeps its colour on every host.
    let present = |role: &str| {
        summaries
            .iter()
            .any(|s| s.role_counters.as_ref().is_some_and(|p| p.has(role)))
    };
    for (index, role) in ROLES.iter().enumerate().filter(|(_, r)| present(r)) {
        let colour = Palette99::pick(index).filled();
        let bars = counted.iter().map(move |(n, cpu)| {
            let (below, own) = (cpu[..index].iter().sum::<f64>(), cpu[index]);
            let x = f64::from(*n);
            Rectangle::new([(x - 0.35, below), (x + 0.35, below + own)], colour)
        });
        chart
            .draw_series(bars)?
            .label(*role)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour));
    }
    // Above the bars, where the headroom of the y axis leaves it free.
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    area.present()?;
    Ok(())
}
