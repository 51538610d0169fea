//! What a [`NativeStream`] generates: the contacts table or a spec's workload, built exactly as
//! `pipeline` builds it (the newest experiment's batch makers), so the same rows come out for
//! the same seed.

use arrow_schema::SchemaRef;
use pyo3::prelude::*;
use shredlab_experiments::batches::BatchRanges;
use shredlab_experiments::catalog::newest_experiment;
use shredlab_experiments::config::{default_batch_rows, MAX_BATCH_ROWS, MAX_THREADS};
use shredlab_experiments::optimizations::Optimizations;
use shredlab_experiments::run::available_cores;
use shredlab_experiments::source::{BatchMaker, BatchSource, ContactSource};
use shredlab_experiments::workload::SpecSource;
use shredlab_generator::spec::{parse, SpecGenerator};
use shredlab_generator::SkewConfig;

use crate::errors::invalid;
use crate::stream::{Batching, NativeStream};

/// `pipeline --seed`'s default.
pub use shredlab_experiments::config::DEFAULT_SEED;

/// A workload's generator.
pub enum Workload {
    /// The contacts table.
    Contacts(ContactSource),
    /// A spec file's table.
    Spec(SpecGenerator),
}

impl Workload {
    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        match self {
            Self::Contacts(source) => source.schema(),
            Self::Spec(generator) => generator.schema(),
        }
    }

    /// A batch maker for one thread.
    pub fn maker(&self) -> Box<dyn BatchMaker + '_> {
        match self {
            Self::Contacts(source) => source.maker(),
            Self::Spec(generator) => Box::new(SpecSource::new(generator)),
        }
    }
}

/// The newest experiment's optimizations: the pipeline's default.
fn newest() -> Optimizations {
    Optimizations::for_experiment(newest_experiment()).expect("the newest experiment exists")
}

/// Checks the shared arguments and fills in the defaults.
fn batching(rows: u64, batch_size: Option<usize>, threads: Option<usize>) -> PyResult<Batching> {
    let batch_rows = batch_size.unwrap_or_else(|| default_batch_rows(newest()));
    if batch_rows == 0 || batch_rows > MAX_BATCH_ROWS {
        return Err(invalid(format!(
            "batch_size must be from 1 to {MAX_BATCH_ROWS}, not {batch_rows}"
        )));
    }
    let threads = threads.unwrap_or_else(available_cores);
    if threads == 0 || threads > MAX_THREADS {
        return Err(invalid(format!(
            "threads must be from 1 to {MAX_THREADS}, not {threads}"
        )));
    }
    Ok(Batching {
        batches: BatchRanges::new(0..rows, batch_rows),
        threads,
    })
}

/// The rows of the spec `text` (a spec file's JSON), as `pipeline --spec FILE --seed SEED`
/// generates them. A bad spec raises `ValueError` naming the field's path.
#[pyfunction]
#[pyo3(signature = (text, rows, *, seed = DEFAULT_SEED, batch_size = None, threads = None))]
pub fn spec_stream(
    py: Python<'_>,
    text: &str,
    rows: u64,
    seed: u64,
    batch_size: Option<usize>,
    threads: Option<usize>,
) -> PyResult<NativeStream> {
    let batching = batching(rows, batch_size, threads)?;
    let spec = parse(text).map_err(|e| invalid(format!("invalid spec: {e}")))?;
    let generator = SpecGenerator::new(&spec, seed)
        .map_err(|e| invalid(format!("invalid spec: {e}")))?
        .with_paths(newest().spec_paths());
    let batch_rows = batching.batches.batch_rows();
    generator
        .check_batch_rows(batch_rows)
        .map_err(|e| invalid(format!("{e} (batch_size={batch_rows})")))?;
    NativeStream::start(py, Workload::Spec(generator), batching)
}

/// The contacts table, as `pipeline --seed SEED --zipf-exponent S` generates it.
#[pyfunction]
#[pyo3(signature = (rows, *, seed = DEFAULT_SEED, zipf_exponent = 1.0, batch_size = None, threads = None))]
pub fn contacts_stream(
    py: Python<'_>,
    rows: u64,
    seed: u64,
    zipf_exponent: f64,
    batch_size: Option<usize>,
    threads: Option<usize>,
) -> PyResult<NativeStream> {
    let batching = batching(rows, batch_size, threads)?;
    let skew = SkewConfig {
        name_zipf_exponent: zipf_exponent,
        ..SkewConfig::default()
    };
    // The CLI's limit: past it, phone numbers stop being unique.
    skew.check_rows(rows)
        .map_err(|e| invalid(format!("rows: {e}")))?;
    let source = ContactSource::try_new(seed, skew, newest())
        .map_err(|e| invalid(format!("zipf_exponent: {e}")))?;
    NativeStream::start(py, Workload::Contacts(source), batching)
}
