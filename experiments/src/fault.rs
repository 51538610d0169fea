//! Fault injection for tests and `make faults`: adapters that make a real source panic or real
//! sinks fail or stall, so the pipeline's failure paths run exactly as they would in the field.

use std::io::{self, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::PipelineError;
use crate::output::SinkFactory;
use crate::source::{BatchMaker, BatchSource};

/// `inner`'s batches, except that the `panic_at`-th batch made (counted over all producers)
/// panics its producer.
#[derive(Debug)]
pub struct PanickingSource<S> {
    inner: S,
    made: AtomicUsize,
    panic_at: usize,
}

impl<S> PanickingSource<S> {
    /// Wraps `inner`; the batch with index `panic_at` in making order panics.
    pub fn new(inner: S, panic_at: usize) -> Self {
        Self {
            inner,
            made: AtomicUsize::new(0),
            panic_at,
        }
    }
}

struct PanickingMaker<'a, S> {
    source: &'a PanickingSource<S>,
    inner: Box<dyn BatchMaker + 'a>,
}

impl<S: BatchSource> BatchMaker for PanickingMaker<'_, S> {
    fn make(&mut self, rows: Range<u64>) -> RecordBatch {
        let made = self.source.made.fetch_add(1, Ordering::SeqCst);
        if made == self.source.panic_at {
            panic!("injected producer failure at batch {made}");
        }
        self.inner.make(rows)
    }
}

impl<S: BatchSource> BatchSource for PanickingSource<S> {
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

/// What a [`FaultySinks`] sink does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkFault {
    /// Refuses any write that would take it past this many bytes.
    FailAfter(usize),
    /// Sleeps this long in its first write, as a hung disk would; the writer stalls and the
    /// channel to it fills up.
    StallFirstWrite(Duration),
}

/// `inner`'s sinks, each with `fault`.
#[derive(Debug)]
pub struct FaultySinks<'a, F> {
    inner: &'a F,
    fault: SinkFault,
}

impl<'a, F> FaultySinks<'a, F> {
    /// Wraps every sink of `inner` with `fault`.
    pub fn new(inner: &'a F, fault: SinkFault) -> Self {
        Self { inner, fault }
    }
}

/// A sink with a fault; [`FaultySink::into_inner`] gives the real sink back.
#[derive(Debug)]
pub struct FaultySink<W> {
    inner: W,
    written: usize,
    fault: Option<SinkFault>,
}

impl<W> FaultySink<W> {
    /// The real sink.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for FaultySink<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.fault {
            Some(SinkFault::StallFirstWrite(stall)) => {
                self.fault = None;
                std::thread::sleep(stall);
            }
            Some(SinkFault::FailAfter(limit)) if self.written + buf.len() > limit => {
                return Err(io::Error::other("injected write failure"));
            }
            _ => {}
        }
        let written = self.inner.write(buf)?;
        self.written += written;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<F: SinkFactory> SinkFactory for FaultySinks<'_, F> {
    type Sink = FaultySink<F::Sink>;

    fn create(&self, index: usize) -> Result<Self::Sink, PipelineError> {
        Ok(FaultySink {
            inner: self.inner.create(index)?,
            written: 0,
            fault: Some(self.fault),
        })
    }
}
