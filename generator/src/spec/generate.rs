//! Row-addressable generation from a [`Spec`]: the value of every cell depends only on
//! (seed, column, row, position in its lists), so any batch size, thread count or part split
//! gives the same rows.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};

use super::column::Column;
use super::draw::Slot;
use super::error::error;
use super::memory::{check_batch, check_vocabularies};
use super::paths::SpecPaths;
use super::{Spec, SpecError};

/// Batches of a spec's rows for one seed.
#[derive(Debug, Clone)]
pub struct SpecGenerator {
    schema: SchemaRef,
    columns: Vec<Column>,
    /// Each slot's draw keys computed once for all its columns (`spec-shared-slot-keys`).
    shared_keys: bool,
    /// The slots' keys computed eight rows at a time (`spec-wide-hashes`).
    wide_hashes: bool,
}

impl SpecGenerator {
    /// A generator of `spec`'s rows for `seed`; fails when a field's parameters do not fit its
    /// type, when its vocabularies could take more than [`MAX_VOCABULARY_BYTES`] or one row
    /// more than [`MAX_BATCH_BYTES`] (the error names the field's path).
    ///
    /// [`MAX_VOCABULARY_BYTES`]: super::MAX_VOCABULARY_BYTES
    /// [`MAX_BATCH_BYTES`]: super::MAX_BATCH_BYTES
    pub fn new(spec: &Spec, seed: u64) -> Result<Self, SpecError> {
        check_vocabularies(spec)?;
        let columns: Vec<Column> = spec
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| Column::new(f, seed, i as u64, spec.parquet_types))
            .collect::<Result<_, _>>()?;
        check_batch(&columns, 1)?;
        let fields: Vec<_> = columns.iter().map(|c| c.field().clone()).collect();
        Ok(Self {
            schema: Arc::new(Schema::new(fields)),
            columns,
            shared_keys: false,
            wide_hashes: false,
        })
    }

    /// This generator with the faster paths `paths` turns on (all off as
    /// [`SpecGenerator::new`] makes it): the same rows either way.
    pub fn with_paths(mut self, paths: SpecPaths) -> Self {
        self.shared_keys = paths.shared_slot_keys;
        self.wide_hashes = paths.wide_hashes;
        self.columns
            .iter_mut()
            .for_each(|column| column.set_paths(paths));
        self
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Fails when a batch of `rows` rows could overflow a column's 32-bit offsets or take more
    /// than [`MAX_BATCH_BYTES`]; a batch size that passes never makes
    /// [`SpecGenerator::batch`] fail.
    ///
    /// [`MAX_BATCH_BYTES`]: super::MAX_BATCH_BYTES
    pub fn check_batch_rows(&self, rows: usize) -> Result<(), SpecError> {
        self.columns
            .iter()
            .try_for_each(|c| c.check_rows(rows as u128))?;
        check_batch(&self.columns, rows as u128)
    }

    /// The batch of rows `rows`.
    pub fn batch(&self, rows: Range<u64>) -> Result<RecordBatch, SpecError> {
        let slots = Slot::rows(rows, self.shared_keys, self.wide_hashes);
        let columns = self
            .columns
            .iter()
            .map(|c| c.array(&slots))
            .collect::<Result<Vec<_>, _>>()?;
        RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| {
            error(
                "spec",
                format!("the generated columns do not fit the schema: {e}"),
            )
        })
    }
}
