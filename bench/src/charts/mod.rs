//! Every chart of the harness, drawn with plotters into PNG and SVG with an embedded font (no
//! system font libraries needed): the catalog's trend, counters, box plots and CPU by role, the sweeps'
//! heatmaps and thread charts, the scaling run's panels, the peers' and designs' bar charts, and
//! each experiment's timeline of its threads' phases.

use std::error::Error;
use std::sync::Once;

use plotters::prelude::*;

pub mod bars;
pub mod catalog;
pub mod cpu_by_role;
pub mod designs;
pub mod history;
pub mod peers;
pub mod scaling;
pub mod sweeps;
pub mod timeline;

/// What drawing a chart returns: plotters' backends each have their own error type.
pub type PlotResult = Result<(), Box<dyn Error>>;

/// The family name the embedded font is registered under.
pub(crate) const FONT: &str = "sans-serif";
static FONT_BYTES: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Registers the embedded DejaVu Sans once per process.
pub(crate) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in; registration only fails on a corrupt file.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES);
    });
}

/// The legend box of a chart's labelled series, in the house style.
pub(crate) fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    font_size: u32,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .label_font((FONT, font_size))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// Draws one chart twice, as `<dir>/<name>.png` and `<dir>/<name>.svg`: `$draw(area, $data...)`.
macro_rules! save_both {
    ($dir:expr, $name:expr, $size:expr, $draw:ident, $($data:expr),+) => {{
        let png = $dir.join(format!("{}.png", $name));
        $draw(&BitMapBackend::new(&png, $size).into_drawing_area(), $($data),+)?;
        let svg = $dir.join(format!("{}.svg", $name));
        $draw(&SVGBackend::new(&svg, $size).into_drawing_area(), $($data),+)?;
    }};
}
pub(crate) use save_both;
