//! How batches become row groups: where each row group is cut, whether its column writers stay
//! on the calling thread or move to the worker pool, and how closed row groups reach the file in
//! order. The crate documentation's "Design" section describes the whole.

use std::io::Write;

use arrow_array::{Array, ArrayRef, RecordBatch};
use parquet::errors::Result;

use super::ParallelArrowWriter;
use crate::board::{FieldWriters, Sizes};
use crate::encode::{LeafChunk, LeafWriter};
use crate::ordered::check_columns;
use crate::worker::WorkerPool;

/// Where the column writers of the row group being filled live.
pub(super) enum Placement {
    /// On the calling thread, where `ArrowWriter` keeps its column writers.
    Inline(Vec<LeafWriter>),
    /// On the worker pool.
    Pooled,
}

/// The row group being filled.
pub(super) struct RowGroup {
    pub(super) index: usize,
    pub(super) rows: usize,
    pub(super) placement: Placement,
}

impl<W: Write + Send> ParallelArrowWriter<W> {
    pub(super) fn write_batch(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        check_columns(&self.schema, batch)?;
        let mut remaining = batch.clone();
        loop {
            if self.current.is_none() {
                self.start_row_group()?;
            }
            let buffered_rows = self.in_progress_rows();
            let mut split_at = match self.max_rows {
                Some(max) if buffered_rows + remaining.num_rows() > max => {
                    Some(max - buffered_rows)
                }
                _ => None,
            };
            let candidate_rows = split_at.unwrap_or_else(|| remaining.num_rows());
            if let (Some(max_bytes), true) = (self.max_bytes, buffered_rows > 0) {
                let current_bytes = self.current_sizes()?.estimated;
                if current_bytes >= max_bytes {
                    self.end_row_group()?;
                    continue;
                }
                let average = current_bytes / buffered_rows;
                if let Some(fit) = (max_bytes - current_bytes).checked_div(average) {
                    if candidate_rows > fit {
                        if fit == 0 {
                            self.end_row_group()?;
                            continue;
                        }
                        split_at = Some(fit);
                    }
                }
            }
            let rest = split_at.map(|keep| {
                let rest = remaining.slice(keep, remaining.num_rows() - keep);
                remaining = remaining.slice(0, keep);
                rest
            });
            self.write_to_current(&remaining)?;
            let rows_full = self
                .max_rows
                .is_some_and(|max| self.in_progress_rows() >= max);
            let bytes_full = match self.max_bytes {
                Some(max) => self.current_sizes()?.estimated >= max,
                None => false,
            };
            if rows_full || bytes_full {
                self.end_row_group()?;
            }
            match rest {
                Some(rest) => remaining = rest,
                None => return Ok(()),
            }
        }
    }

    fn start_row_group(&mut self) -> Result<()> {
        let index = self.row_groups_started;
        let writers = self.plan.writers(index)?;
        self.row_groups_started += 1;
        // Once one row group has outgrown the calling thread, later ones start on the pool.
        let placement = if self.pool.is_some() {
            self.place(index, writers);
            Placement::Pooled
        } else {
            Placement::Inline(writers)
        };
        self.current = Some(RowGroup {
            index,
            rows: 0,
            placement,
        });
        Ok(())
    }

    fn write_to_current(&mut self, batch: &RecordBatch) -> Result<()> {
        let current = self.current.as_mut().expect("a row group was started");
        current.rows += batch.num_rows();
        let (index, rows) = (current.index, current.rows);
        match &mut current.placement {
            Placement::Inline(writers) => {
                self.plan.write(writers, batch)?;
                if self.workers > 1
                    && rows * self.leaf_fields.len() >= self.options.inline_threshold()
                {
                    self.migrate(index)?;
                }
                Ok(())
            }
            Placement::Pooled => {
                // Each column holds its own share of the budget, given back once encoded.
                let bytes: Vec<usize> = batch.columns().iter().map(data_bytes).collect();
                let mut permit = self.budget.acquire(bytes.iter().sum());
                let columns = batch.columns().iter().zip(bytes);
                let queued =
                    columns.map(|(column, bytes)| (ArrayRef::clone(column), permit.split(bytes)));
                self.pool().write(index, queued)
            }
        }
    }

    /// Moves the inline row group's writers to the workers; later row groups start there.
    fn migrate(&mut self, index: usize) -> Result<()> {
        let current = self.current.as_mut().expect("a row group was started");
        let Placement::Inline(writers) =
            std::mem::replace(&mut current.placement, Placement::Pooled)
        else {
            return Ok(());
        };
        if self.pool.is_none() {
            let observer = self.options.worker_observer();
            self.pool = Some(WorkerPool::new(
                self.workers,
                &self.plan,
                &self.budget,
                observer,
            )?);
        }
        self.place(index, writers);
        Ok(())
    }

    fn pool(&self) -> &WorkerPool {
        self.pool.as_ref().expect("pooled placement implies a pool")
    }

    /// Hands row group `index`'s writers to the pool, grouped by field: a field's leaves stay
    /// together so its levels are computed once per batch.
    fn place(&self, index: usize, writers: Vec<LeafWriter>) {
        let mut lanes: Vec<FieldWriters> = (0..self.schema.fields().len())
            .map(|_| FieldWriters {
                first_leaf: 0,
                writers: Vec::new(),
            })
            .collect();
        for (leaf, writer) in writers.into_iter().enumerate() {
            let lane = &mut lanes[self.leaf_fields[leaf]];
            if lane.writers.is_empty() {
                lane.first_leaf = leaf;
            }
            lane.writers.push(writer);
        }
        self.pool().start(index, lanes);
    }

    pub(super) fn current_sizes(&self) -> Result<Sizes> {
        let Some(current) = &self.current else {
            return Ok(Sizes::default());
        };
        match &current.placement {
            Placement::Inline(writers) => Ok(Sizes::of(writers)),
            Placement::Pooled => self.pool().sizes(current.index),
        }
    }

    /// Closes the row group being filled: inline ones are appended at once (after those still
    /// encoding), pooled ones join the in-flight queue.
    pub(super) fn end_row_group(&mut self) -> Result<()> {
        let Some(current) = self.current.take() else {
            return Ok(());
        };
        match current.placement {
            Placement::Inline(writers) => {
                self.drain_in_flight(0)?;
                let chunks = writers
                    .into_iter()
                    .map(LeafWriter::close)
                    .collect::<Result<Vec<_>>>()?;
                self.append(chunks)
            }
            Placement::Pooled => {
                self.pool().close(current.index)?;
                self.in_flight.push_back(current.index);
                self.drain_in_flight(self.options.row_groups_in_flight())
            }
        }
    }

    /// Appends finished row groups, oldest first, until at most `keep` are in flight: each
    /// chunk as soon as it and those before it are closed, so that copying the first chunks
    /// into the file overlaps the workers' closing of the last.
    pub(super) fn drain_in_flight(&mut self, keep: usize) -> Result<()> {
        while self.in_flight.len() > keep {
            let index = self.in_flight.pop_front().expect("non-empty");
            let pool = self
                .pool
                .as_ref()
                .expect("row groups in flight imply a pool");
            let mut row_group = self.file.next_row_group()?;
            let mut next = 0;
            loop {
                let chunks = pool.next_chunks(index, next)?;
                if chunks.is_empty() {
                    break;
                }
                next += chunks.len();
                for chunk in chunks {
                    chunk.append_to_row_group(&mut row_group)?;
                }
            }
            row_group.close()?;
        }
        Ok(())
    }

    fn append(&mut self, chunks: Vec<LeafChunk>) -> Result<()> {
        let mut row_group = self.file.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        Ok(())
    }
}

/// Bytes of Arrow data a column holds: the used part of its buffers.
fn data_bytes(column: &ArrayRef) -> usize {
    column
        .to_data()
        .get_slice_memory_size()
        .unwrap_or_else(|_| column.get_array_memory_size())
}
