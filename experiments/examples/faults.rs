//! `faults`: one `pipeline` run with a fault injected where the command line cannot reach, for
//! `make faults`. It runs the library's own steps (`generate_and_write`, then `run::finish`, the
//! checks and the commit) into a real output directory, so the exit code, the message and the
//! files left are what a real run would give.
//!
//! ```text
//! faults producer-panic  OUTPUT_DIR   a producer panics at the 5th batch
//! faults writer-fails    OUTPUT_DIR   every file refuses bytes past 1 MiB
//! faults stalled-writer  OUTPUT_DIR   each file's first write stalls 2 s (send SIGTERM meanwhile)
//! ```

use std::process::ExitCode;
use std::time::Duration;

use indicatif::ProgressBar;
use shredlab_experiments::config::RunRequest;
use shredlab_experiments::error::PipelineError;
use shredlab_experiments::fault::{FaultySink, FaultySinks, PanickingSource, SinkFault};
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::pipeline::generate_and_write;
use shredlab_experiments::run::{finish, resolve};
use shredlab_experiments::signals;
use shredlab_experiments::source::ContactSource;

fn run(kind: &str, dir: &str) -> Result<(), PipelineError> {
    let request = RunRequest {
        experiment: 19,
        rows: 3_000_000,
        writers: Some(2),
        verify: true,
        ..RunRequest::default()
    };
    let config = resolve(&request)?;
    signals::install().map_err(|source| PipelineError::SignalHandlers { source })?;
    let output =
        OutputDir::prepare(dir, false, config.shard)?.with_file_options(config.file_options())?;
    let contacts = ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations)?;
    let panic_at = if kind == "producer-panic" {
        5
    } else {
        usize::MAX
    };
    let source = PanickingSource::new(contacts, panic_at);
    let fault = match kind {
        "writer-fails" => SinkFault::FailAfter(1 << 20),
        "stalled-writer" => SinkFault::StallFirstWrite(Duration::from_secs(2)),
        _ => SinkFault::FailAfter(usize::MAX),
    };
    let sinks = FaultySinks::new(&output, fault);
    let outcome = generate_and_write(&config, &source, &sinks, &ProgressBar::hidden())?;
    finish(&config, &output, outcome.map_sinks(FaultySink::into_inner))?;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, dir] = args.as_slice() else {
        eprintln!("usage: faults producer-panic|writer-fails|stalled-writer OUTPUT_DIR");
        return ExitCode::from(2);
    };
    if !["producer-panic", "writer-fails", "stalled-writer"].contains(&kind.as_str()) {
        eprintln!("unknown fault '{kind}': use producer-panic, writer-fails or stalled-writer");
        return ExitCode::from(2);
    }
    match run(kind, dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
