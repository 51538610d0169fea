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
    /// Each batch with its first row, in row order.
    batches: Vec<(u64, RecordBatch)>,
}

impl PrebuiltSource {
    /// Builds every batch of `config` with one maker of `source`.
    pub fn build(source: &(impl BatchSource + ?Sized), config: &PipelineConfig) -> Self {
        let mut maker = source.maker();
        let cut = config.batches();
        let batches = (0..cut.count())
            .map(|i| {
                let rows = cut.rows_of(i);
                (rows.start, maker.make(rows))
            })
            .collect();
        Self {
            schema: source.schema(),
            batches,
        }
    }
}

struct PrebuiltMaker<'a>(&'a PrebuiltSource);

impl BatchMaker for PrebuiltMaker<'_> {
    fn make(&mut self, rows: Range<u64>) -> RecordBatch {
        let batches = &self.0.batches;
        let index = batches
            .binary_search_by_key(&rows.start, |(start, _)| *start)
            .expect("the run asks for the batches it built");
        batches[index].1.clone()
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
