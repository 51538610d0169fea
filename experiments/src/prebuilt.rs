//! `--prebuilt`: every batch of a run built before the clock starts, so a run times what comes
//! after generation (encoding, and writing unless `--sink` says otherwise) on the same batches.

use std::ops::Range;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::config::PipelineConfig;
use crate::source::{BatchMaker, BatchSource};

/// The batches of a run, built once; producers hand out clones (which share the buffers).
#[derive(Debug)]
pub struct PrebuiltSource {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    first_row: u64,
    batch_size: u64,
}

impl PrebuiltSource {
    /// Builds every batch of `config` with one maker of `source`.
    pub fn build(source: &(impl BatchSource + ?Sized), config: &PipelineConfig) -> Self {
        let mut maker = source.maker();
        let batches = (0..config.batch_count())
            .map(|i| maker.make(config.batch_rows(i)))
            .collect();
        Self {
            schema: source.schema(),
            batches,
            first_row: config.shard_rows().start,
            batch_size: config.batch_size as u64,
        }
    }
}

struct PrebuiltMaker<'a>(&'a PrebuiltSource);

impl BatchMaker for PrebuiltMaker<'_> {
    fn make(&mut self, rows: Range<u64>) -> RecordBatch {
        let source = self.0;
        let index = (rows.start - source.first_row) / source.batch_size;
        source.batches[index as usize].clone()
    }
}

impl BatchSource for PrebuiltSource {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn maker(&self) -> Box<dyn BatchMaker + '_> {
        Box::new(PrebuiltMaker(self))
    }
}
