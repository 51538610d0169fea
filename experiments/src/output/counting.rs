//! Sinks that keep nothing and count the bytes: the `--sink null` and `--sink count` runs,
//! which measure generation, or generation and encoding, without any file.

use std::io::Write;

use crate::error::PipelineError;
use crate::output::SinkFactory;

/// Sinks that keep nothing and count the bytes, for [`SinkKind::Null`](crate::output::SinkKind::Null)
/// and [`SinkKind::Count`](crate::output::SinkKind::Count).
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingSinks;

/// A sink that keeps nothing and counts the bytes written to it.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingSink {
    /// Bytes written so far.
    pub bytes: u64,
}

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SinkFactory for CountingSinks {
    type Sink = CountingSink;

    fn create(&self, _index: usize) -> Result<CountingSink, PipelineError> {
        Ok(CountingSink::default())
    }
}
