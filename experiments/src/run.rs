//! One `pipeline` invocation from request to report: resolve, generate and write, gate.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::{PipelineConfig, RunRequest};
use crate::error::PipelineError;
use crate::gate::Digest;
use crate::output::OutputDir;
use crate::pipeline::generate_and_write;
use crate::report::RunReport;
use crate::source::ContactSource;

/// The machine's CPU count.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A progress bar on stderr when it is a terminal and `quiet` is off; hidden otherwise, so it
/// never disturbs timings or logs.
pub fn progress_bar(rows: u64, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(rows), ProgressDrawTarget::stderr());
    if quiet || bar.is_hidden() {
        return ProgressBar::hidden();
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {human_pos}/{human_len} rows {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Resolves `request` on this machine.
pub fn resolve(request: &RunRequest) -> Result<PipelineConfig, PipelineError> {
    PipelineConfig::resolve(request, available_cores())
}

/// Generates and writes the run `config` into `output`, gating it when asked.
pub fn execute(
    config: &PipelineConfig,
    output: &OutputDir,
    progress: &ProgressBar,
) -> Result<RunReport, PipelineError> {
    let source = ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations)?;
    let output = output.clone().with_early_writeback(config.writeback_step());
    let outcome = generate_and_write(config, &source, &output, progress)?;
    progress.finish_and_clear();
    let read_back = match outcome.produced {
        Some(produced) => {
            let paths: Vec<_> = outcome.files.iter().map(|f| &f.path).collect();
            let read_back = Digest::of_parquet_files(&paths)?;
            if read_back != produced {
                return Err(PipelineError::GateMismatch {
                    produced,
                    read_back,
                });
            }
            Some(read_back)
        }
        None => None,
    };
    Ok(RunReport::new(config, &outcome, read_back))
}
