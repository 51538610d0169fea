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
use super::{Spec, SpecError};

/// Batches of a spec's rows for one seed.
#[derive(Debug, Clone)]
pub struct SpecGenerator {
    schema: SchemaRef,
    columns: Vec<Column>,
}

impl SpecGenerator {
    /// A generator of `spec`'s rows for `seed`; fails when a field's parameters do not fit its
    /// type (the error names the field's path).
    pub fn new(spec: &Spec, seed: u64) -> Result<Self, SpecError> {
        let columns = spec
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| Column::new(f, seed, i as u64))
            .collect::<Result<_, _>>()?;
        let fields: Vec<_> = spec.fields.iter().map(|f| f.field.clone()).collect();
        Ok(Self {
            schema: Arc::new(Schema::new(fields)),
            columns,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Fails when a batch of `rows` rows could overflow a column's 32-bit offsets; a batch size
    /// that passes never makes [`SpecGenerator::batch`] fail.
    pub fn check_batch_rows(&self, rows: usize) -> Result<(), SpecError> {
        self.columns
            .iter()
            .try_for_each(|c| c.check_rows(rows as u128))
    }

    /// The batch of rows `rows`.
    pub fn batch(&self, rows: Range<u64>) -> Result<RecordBatch, SpecError> {
        let slots: Vec<Slot> = rows.map(Slot::row).collect();
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
