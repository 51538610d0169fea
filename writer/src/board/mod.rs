//! The board: every row group on the worker pool, its lanes, and the rules by which workers
//! claim lanes and hand them back. Plain state, changed under the pool's lock (`worker.rs`); the
//! crate documentation's "Design" section describes how the pieces fit.

use std::collections::VecDeque;

use arrow_array::ArrayRef;
use parquet::errors::ParquetError;

use crate::budget::Permit;
use crate::encode::{LeafChunk, LeafWriter};

/// One top-level field's column writers, in leaf order, and where they sit in the schema.
pub(crate) struct FieldWriters {
    /// Index of the field's first leaf among all leaves of the schema.
    pub first_leaf: usize,
    /// One writer per leaf of the field.
    pub writers: Vec<LeafWriter>,
}

/// Sizes of column writers.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Sizes {
    /// Estimated encoded bytes, as `LeafWriter::estimated_total_bytes`.
    pub estimated: usize,
    /// Memory held, as `LeafWriter::memory_size`.
    pub memory: usize,
}

impl Sizes {
    pub(crate) fn of(writers: &[LeafWriter]) -> Self {
        writers.iter().fold(Self::default(), |sizes, w| Self {
            estimated: sizes.estimated + w.estimated_total_bytes(),
            memory: sizes.memory + w.memory_size(),
        })
    }

    fn add(self, other: Self) -> Self {
        Self {
            estimated: self.estimated + other.estimated,
            memory: self.memory + other.memory,
        }
    }
}

/// One field's column writers for one row group, with the batches waiting for them.
struct Lane {
    /// The writers; `None` while a worker holds them, and once they are closed.
    leaves: Option<FieldWriters>,
    /// The field's column of each batch not yet encoded, oldest first, with the budget it holds.
    queued: VecDeque<(ArrayRef, Permit)>,
    /// The worker that last held the lane.
    owner: Option<usize>,
    /// Sizes of the writers when last handed back.
    sizes: Sizes,
}

/// A row group on the pool.
pub(crate) struct RowGroupWork {
    index: usize,
    lanes: Vec<Lane>,
    /// No more batches will come: each lane is closed once its queue is empty.
    closing: bool,
    /// Lanes held by a worker.
    held: usize,
    /// Lanes not closed yet.
    open: usize,
    /// Closed chunks with their leaf index.
    chunks: Vec<(usize, LeafChunk)>,
    /// The first encoding error; the row group's remaining work is then dropped.
    error: Option<ParquetError>,
}

impl RowGroupWork {
    /// Whether every queued batch is encoded and no worker holds a lane.
    fn quiet(&self) -> bool {
        self.held == 0 && self.lanes.iter().all(|lane| lane.queued.is_empty())
    }

    fn fail(&mut self, error: ParquetError) {
        self.error.get_or_insert(error);
        for lane in &mut self.lanes {
            lane.queued.clear();
        }
    }

    /// Whether the writer can take its next step from leaf `next` on: that leaf's chunk is
    /// closed, or every chunk is; after an error, once no worker holds a lane.
    fn has_next(&self, next: usize) -> bool {
        match self.error {
            Some(_) => self.held == 0,
            None => self.open == 0 || self.chunks.iter().any(|(leaf, _)| *leaf == next),
        }
    }

    /// The closed chunks from leaf `next` on, in leaf order, up to the first leaf not closed.
    fn take_from(&mut self, next: usize) -> Vec<LeafChunk> {
        // Highest leaf first, so that the run from `next` comes off the end.
        self.chunks
            .sort_unstable_by_key(|(leaf, _)| std::cmp::Reverse(*leaf));
        let mut run = Vec::new();
        while let Some((leaf, _)) = self.chunks.last() {
            if *leaf != next + run.len() {
                break;
            }
            run.extend(self.chunks.pop().map(|(_, chunk)| chunk));
        }
        run
    }
}

/// What a worker does with a lane it claimed.
pub(crate) enum Task {
    /// Encode these batches, oldest first.
    Encode(Vec<ArrayRef>, Vec<Permit>),
    /// Close the writers.
    Close,
}

/// A lane taken by a worker.
pub(crate) struct Claim {
    pub row_group: usize,
    pub field: usize,
    pub leaves: FieldWriters,
    pub task: Task,
}

impl Claim {
    /// Most batches encoded in one claim; the memory budget bounds them anyway.
    const MAX_BATCHES: usize = 64;
}

/// What a claim produced.
pub(crate) enum Done {
    /// The writers, to hand back, and their sizes now.
    Encoded(FieldWriters, Sizes),
    /// The lane's chunks, each with its leaf's index in the schema.
    Closed(Vec<(usize, LeafChunk)>),
}

fn not_encoding(index: usize) -> ParquetError {
    ParquetError::General(format!("row group {index} is not on the encoding pool"))
}

/// Every row group on the pool, shared by the writer and the workers.
#[derive(Default)]
pub(crate) struct Board {
    /// Oldest first.
    row_groups: VecDeque<RowGroupWork>,
    /// Workers waiting for work.
    pub idle: usize,
    /// Writer threads waiting for progress.
    pub watchers: usize,
    pub shutdown: bool,
}

impl Board {
    fn row_group(&mut self, index: usize) -> Result<&mut RowGroupWork, ParquetError> {
        self.row_groups
            .iter_mut()
            .find(|rg| rg.index == index)
            .ok_or_else(|| not_encoding(index))
    }

    /// Adds row group `index` with its writers grouped by field (`lanes[f]`: field `f`'s). Each
    /// lane starts out preferring the worker that last held the same field.
    pub(crate) fn start(&mut self, index: usize, lanes: Vec<FieldWriters>) {
        let owners: Vec<Option<usize>> = match self.row_groups.back() {
            Some(previous) => previous.lanes.iter().map(|l| l.owner).collect(),
            None => vec![None; lanes.len()],
        };
        let open = lanes.len();
        let lanes = lanes.into_iter().zip(owners).map(|(leaves, owner)| Lane {
            sizes: Sizes::of(&leaves.writers),
            leaves: Some(leaves),
            queued: VecDeque::new(),
            owner,
        });
        self.row_groups.push_back(RowGroupWork {
            index,
            lanes: lanes.collect(),
            closing: false,
            held: 0,
            open,
            chunks: Vec::new(),
            error: None,
        });
    }

    /// Queues each field's column of one batch (`columns[f]`, with the budget it holds) on row
    /// group `index`; a failed row group drops them.
    pub(crate) fn queue(
        &mut self,
        index: usize,
        columns: impl IntoIterator<Item = (ArrayRef, Permit)>,
    ) -> Result<(), ParquetError> {
        let rg = self.row_group(index)?;
        if rg.error.is_none() {
            for (lane, column) in rg.lanes.iter_mut().zip(columns) {
                lane.queued.push_back(column);
            }
        }
        Ok(())
    }

    /// No more batches for row group `index`: its lanes close as their queues empty.
    pub(crate) fn close(&mut self, index: usize) -> Result<(), ParquetError> {
        self.row_group(index)?.closing = true;
        Ok(())
    }

    /// Whether row group `index` has every queued batch encoded (or is not on the board).
    pub(crate) fn quiet(&mut self, index: usize) -> bool {
        self.row_group(index).map_or(true, |rg| rg.quiet())
    }

    /// Sizes of row group `index`'s writers as of each lane's last hand-back.
    pub(crate) fn sizes(&mut self, index: usize) -> Result<Sizes, ParquetError> {
        let rg = self.row_group(index)?;
        Ok(rg
            .lanes
            .iter()
            .fold(Sizes::default(), |s, l| s.add(l.sizes)))
    }

    /// Whether the writer can take its next step on row group `index` from leaf `next` on (see
    /// [`RowGroupWork::has_next`]), or the row group is not on the board.
    pub(crate) fn has_next(&mut self, index: usize, next: usize) -> bool {
        self.row_group(index).map_or(true, |rg| rg.has_next(next))
    }

    /// Row group `index`'s closed chunks from leaf `next` on, in leaf order up to the first leaf
    /// not closed; none once every chunk was taken, when the row group leaves the board, as it
    /// does with its first error, returned instead.
    pub(crate) fn take_chunks(
        &mut self,
        index: usize,
        next: usize,
    ) -> Result<Vec<LeafChunk>, ParquetError> {
        let rg = self.row_group(index)?;
        if rg.error.is_none() {
            let run = rg.take_from(next);
            if !run.is_empty() || rg.open > 0 {
                return Ok(run);
            }
        }
        let position = self.row_groups.iter().position(|rg| rg.index == index);
        let removed = position.and_then(|position| self.row_groups.remove(position));
        match removed.and_then(|rg| rg.error) {
            Some(error) => Err(error),
            None => Ok(Vec::new()),
        }
    }

    /// Memory the column writers on the board hold, as of each lane's last hand-back.
    pub(crate) fn held_memory(&self) -> usize {
        let lanes = self.row_groups.iter().flat_map(|rg| &rg.lanes);
        lanes.map(|lane| lane.sizes.memory).sum()
    }

    /// The work `worker` should do next: in the oldest row group that has any, a lane it held
    /// last time before one nobody held before one another worker held.
    pub(crate) fn claim(&mut self, worker: usize) -> Option<Claim> {
        for rg in &mut self.row_groups {
            if rg.error.is_some() {
                continue;
            }
            let closing = rg.closing;
            let ready =
                rg.lanes.iter().enumerate().filter(|(_, lane)| {
                    lane.leaves.is_some() && (closing || !lane.queued.is_empty())
                });
            let preference = |lane: &Lane| match lane.owner {
                Some(owner) if owner == worker => 0,
                None => 1,
                Some(_) => 2,
            };
            let Some((field, _)) = ready.min_by_key(|(field, lane)| (preference(lane), *field))
            else {
                continue;
            };
            let lane = &mut rg.lanes[field];
            let leaves = lane.leaves.take().expect("a ready lane has its writers");
            lane.owner = Some(worker);
            rg.held += 1;
            let task = if lane.queued.is_empty() {
                Task::Close
            } else {
                let take = lane.queued.len().min(Claim::MAX_BATCHES);
                let (columns, permits) = lane.queued.drain(..take).unzip();
                Task::Encode(columns, permits)
            };
            return Some(Claim {
                row_group: rg.index,
                field,
                leaves,
                task,
            });
        }
        None
    }

    /// Takes back what a claim on lane `field` of row group `index` produced.
    pub(crate) fn hand_back(
        &mut self,
        index: usize,
        field: usize,
        done: Result<Done, ParquetError>,
    ) {
        let Ok(rg) = self.row_group(index) else {
            return;
        };
        rg.held -= 1;
        match done {
            Ok(Done::Encoded(leaves, sizes)) => {
                let lane = &mut rg.lanes[field];
                lane.leaves = Some(leaves);
                lane.sizes = sizes;
            }
            Ok(Done::Closed(chunks)) => {
                rg.lanes[field].sizes = Sizes::default();
                rg.chunks.extend(chunks);
                rg.open -= 1;
            }
            Err(error) => rg.fail(error),
        }
    }
}

/// Schemas, writers and columns shared by the board's and the pool's tests.
#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests;
