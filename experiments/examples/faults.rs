//! `faults`: one `pipeline` run with a fault injected where the command line cannot reach, for
//! `make faults`. It runs the library's own steps (`generate_and_write`, then `run::finish`, the
//! checks and the commit) into a real output directory, so the exit code, the message and the
//! files left are what a real run would give.
//!
//! ```text
//! faults producer-panic  OUTPUT_DIR   a producer panics at its 5th batch
//! faults writer-fails    OUTPUT_DIR   every file refuses bytes past 1 MiB
//! faults stalled-writer  OUTPUT_DIR   each file's first write stalls 2 s (send SIGTERM meanwhile)
//! ```

use std::io::{self, Write};
use std::ops::Range;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use indicatif::ProgressBar;
use shredlab_experiments::config::RunRequest;
use shredlab_experiments::error::PipelineError;
use shredlab_experiments::output::{OutputDir, SinkFactory};
use shredlab_experiments::pipeline::generate_and_write;
use shredlab_experiments::run::{finish, resolve};
use shredlab_experiments::signals;
use shredlab_experiments::source::{BatchMaker, BatchSource, ContactSource};
use shredlab_writer::PendingFile;

/// Contacts, except that the `panic_at`-th batch made panics its producer.
struct PanickingSource {
    inner: ContactSource,
    made: AtomicUsize,
    panic_at: Option<usize>,
}

struct PanickingMaker<'a> {
    source: &'a PanickingSource,
    inner: Box<dyn BatchMaker + 'a>,
}

impl BatchMaker for PanickingMaker<'_> {
    fn make(&mut self, rows: Range<u64>) -> RecordBatch {
        let made = self.source.made.fetch_add(1, Ordering::SeqCst);
        if self.source.panic_at == Some(made) {
            panic!("injected producer failure at batch {made}");
        }
        self.inner.make(rows)
    }
}

impl BatchSource for PanickingSource {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn maker(&self) -> Box<dyn BatchMaker + '_> {
        Box::new(PanickingMaker {
            source: self,
            inner: self.inner.maker(),
        })
    }
}

/// The output directory's files, refusing bytes past `limit` or stalling their first write.
struct FaultySinks<'a> {
    output: &'a OutputDir,
    limit: Option<usize>,
    stall: Option<Duration>,
}

struct FaultySink {
    file: PendingFile,
    written: usize,
    limit: Option<usize>,
    stall: Option<Duration>,
}

impl Write for FaultySink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(stall) = self.stall.take() {
            std::thread::sleep(stall);
        }
        if self
            .limit
            .is_some_and(|limit| self.written + buf.len() > limit)
        {
            return Err(io::Error::other("injected write failure"));
        }
        self.written += buf.len();
        self.file.write_all(buf).map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl SinkFactory for FaultySinks<'_> {
    type Sink = FaultySink;

    fn create(&self, index: usize) -> Result<FaultySink, PipelineError> {
        Ok(FaultySink {
            file: self.output.create(index)?,
            written: 0,
            limit: self.limit,
            stall: self.stall,
        })
    }
}

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
    let output = OutputDir::prepare(dir, false, config.shard)?;
    let source = PanickingSource {
        inner: ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations)?,
        made: AtomicUsize::new(0),
        panic_at: (kind == "producer-panic").then_some(5),
    };
    let sinks = FaultySinks {
        output: &output,
        limit: (kind == "writer-fails").then_some(1 << 20),
        stall: (kind == "stalled-writer").then_some(Duration::from_secs(2)),
    };
    let outcome = generate_and_write(&config, &source, &sinks, &ProgressBar::hidden())?;
    finish(&config, &output, outcome.map_sinks(|sink| sink.file))?;
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
        Err(PipelineError::Interrupted { signal }) => {
            eprintln!("error: {}", PipelineError::Interrupted { signal });
            ExitCode::from(u8::try_from(128 + signal).unwrap_or(1))
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
