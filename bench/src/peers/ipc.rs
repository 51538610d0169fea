//! The hand-over file: contacts from the generator in one uncompressed Arrow IPC file, which
//! every writer reads into memory before its clock starts.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::{Context, Result};
use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use arrow_schema::SchemaRef;
use shredlab_experiments::catalog::CATALOG;
use shredlab_experiments::gate::Digest;
use shredlab_experiments::optimizations::Optimizations;
use shredlab_experiments::source::{BatchSource, ContactSource};
use shredlab_experiments::workload::SpecWorkload;
use shredlab_generator::spec::SpecPaths;
use shredlab_generator::SkewConfig;
use shredlab_writer::PendingFile;

/// Rows per record batch of the hand-over file: the pipeline's default batch size.
pub const BATCH_ROWS: u64 = 16_384;

/// Writes `rows` rows of `seed` to `path` (a [`PendingFile`]: renamed into place when complete)
/// and returns their digest: the contacts, or the workload of the spec file `spec`. The contacts
/// are the catalog's (every experiment has the same rows); `phone_type` is dictionary-encoded as
/// from experiment 01 on.
pub fn export(path: &Path, rows: u64, seed: u64, spec: Option<&Path>) -> Result<Digest> {
    match spec {
        Some(spec) => {
            // By every faster path, as the newest experiment writes them: the same rows.
            let workload = SpecWorkload::load(spec, seed, SpecPaths::ALL)?;
            workload.check_batch_rows(BATCH_ROWS as usize)?;
            write_ipc(path, rows, &workload.source())
        }
        None => {
            let last = CATALOG.len() as u32 - 1;
            let source = ContactSource::try_new(
                seed,
                SkewConfig::default(),
                Optimizations::for_experiment(last)?,
            )?;
            write_ipc(path, rows, &source)
        }
    }
}

fn write_ipc(path: &Path, rows: u64, source: &dyn BatchSource) -> Result<Digest> {
    let mut file = BufWriter::new(PendingFile::create(path)?);
    let mut writer = FileWriter::try_new(&mut file, &source.schema())?;
    let mut maker = source.maker();
    let mut digest = Digest::default();
    for start in (0..rows).step_by(BATCH_ROWS as usize) {
        let batch = maker.make(start..(start + BATCH_ROWS).min(rows));
        digest += Digest::of_batch(&batch)?;
        writer.write(&batch)?;
    }
    writer.finish()?;
    drop(writer);
    let file = file.into_inner().map_err(|e| e.into_error())?;
    file.commit()?;
    Ok(digest)
}

/// Reads every batch of the hand-over file at `path` into memory.
pub fn load(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let file = File::open(path).with_context(|| {
        format!(
            "cannot open the hand-over file {} (run `peers export` first)",
            path.display()
        )
    })?;
    let reader = FileReader::try_new(file, None)
        .with_context(|| format!("{} is not an Arrow IPC file", path.display()))?;
    let schema = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok((schema, batches))
}
