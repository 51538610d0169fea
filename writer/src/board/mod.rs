//! The board: every row group on the worker pool, its lanes, and the rules by which workers
//! claim lanes and hand them back. Plain state, changed under the pool's lock (`worker.rs`); the
//! crate documentation's "Design" section describes how the pieces fit.

use std::collections::VecDeque;

use arrow_array::ArrayRef;
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter};
use parquet::errors::ParquetError;

use crate::budget::Permit;

/// A column writer and where its leaf sits in the schema.
pub(crate) struct PlacedLeaf {
    /// Index of the leaf among all leaves of the schema.
    pub leaf: usize,
    /// Position of the leaf among its field's leaves.
    pub index_in_field: usize,
    /// The writer.
    pub writer: ArrowColumnWriter,
}

/// Sizes of column writers.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Sizes {
    /// Estimated encoded bytes, as `ArrowColumnWriter::get_estimated_total_bytes`.
    pub estimated: usize,
    /// Memory held, as `ArrowColumnWriter::memory_size`.
    pub memory: usize,
}

impl Sizes {
    pub(crate) fn of(leaves: &[PlacedLeaf]) -> Self {
        leaves.iter().fold(Self::default(), |sizes, l| Self {
            estimated: sizes.estimated + l.writer.get_estimated_total_bytes(),
            memory: sizes.memory + l.writer.memory_size(),
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
    leaves: Option<Vec<PlacedLeaf>>,
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
    chunks: Vec<(usize, ArrowColumnChunk)>,
    /// The first encoding error; the row group's remaining work is then dropped.
    error: Option<ParquetError>,
}

impl RowGroupWork {
    /// Whether every queued batch is encoded and no worker holds a lane.
    fn quiet(&self) -> bool {
        self.held == 0 && self.lanes.iter().all(|lane| lane.queued.is_empty())
    }

    /// Whether every lane is closed, or the row group failed and no worker holds a lane.
    fn finished(&self) -> bool {
        self.open == 0 || (self.error.is_some() && self.held == 0)
    }

    fn fail(&mut self, error: ParquetError) {
        self.error.get_or_insert(error);
        for lane in &mut self.lanes {
            lane.queued.clear();
        }
    }

    /// The chunks of a finished row group in leaf order, or its first error.
    pub(crate) fn into_chunks(self) -> Result<Vec<ArrowColumnChunk>, ParquetError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let mut chunks = self.chunks;
        chunks.sort_unstable_by_key(|(leaf, _)| *leaf);
        Ok(chunks.into_iter().map(|(_, chunk)| chunk).collect())
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
    pub leaves: Vec<PlacedLeaf>,
    pub task: Task,
}

impl Claim {
    /// Most batches encoded in one claim; the memory budget bounds them anyway.
    const MAX_BATCHES: usize = 64;
}

/// What a claim produced.
pub(crate) enum Done {
    /// The writers, to hand back, and their sizes now.
    Encoded(Vec<PlacedLeaf>, Sizes),
    /// The lane's chunks.
    Closed(Vec<(usize, ArrowColumnChunk)>),
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
    pub(crate) fn start(&mut self, index: usize, lanes: Vec<Vec<PlacedLeaf>>) {
        let owners: Vec<Option<usize>> = match self.row_groups.back() {
            Some(previous) => previous.lanes.iter().map(|l| l.owner).collect(),
            None => vec![None; lanes.len()],
        };
        let open = lanes.len();
        let lanes = lanes.into_iter().zip(owners).map(|(leaves, owner)| Lane {
            sizes: Sizes::of(&leaves),
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

    /// Whether row group `index` is finished (or not on the board).
    pub(crate) fn finished(&mut self, index: usize) -> bool {
        self.row_group(index).map_or(true, |rg| rg.finished())
    }

    /// Takes row group `index` off the board.
    pub(crate) fn remove(&mut self, index: usize) -> Result<RowGroupWork, ParquetError> {
        let position = self.row_groups.iter().position(|rg| rg.index == index);
        position
            .and_then(|position| self.row_groups.remove(position))
            .ok_or_else(|| not_encoding(index))
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
pub(crate) mod fixtures {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int32Array};
    use arrow_schema::{DataType, Field, Schema, SchemaRef};
    use parquet::arrow::ArrowWriter;

    use super::PlacedLeaf;

    /// A schema of nullable fields `f0`, `f1`, ... of these types.
    pub(crate) fn schema(fields: &[DataType]) -> SchemaRef {
        let fields = fields
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("f{i}"), t.clone(), true));
        Arc::new(Schema::new(fields.collect::<Vec<_>>()))
    }

    /// One lane per field of `schema`, its writers made by parquet's own factory.
    pub(crate) fn lanes(schema: &SchemaRef) -> Vec<Vec<PlacedLeaf>> {
        let (_, factory) = ArrowWriter::try_new(Vec::new(), SchemaRef::clone(schema), None)
            .unwrap()
            .into_serialized_writer()
            .unwrap();
        let writers = factory.create_column_writers(0).unwrap();
        let placed = writers.into_iter().enumerate().map(|(leaf, writer)| {
            vec![PlacedLeaf {
                leaf,
                index_in_field: 0,
                writer,
            }]
        });
        placed.collect()
    }

    /// A one-row Int32 column holding `value`.
    pub(crate) fn column(value: i32) -> ArrayRef {
        Arc::new(Int32Array::from(vec![value]))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Array, Int32Array};
    use arrow_schema::{DataType, SchemaRef};

    use super::fixtures::{column, lanes, schema};
    use super::*;
    use crate::budget::Budget;

    fn board_with(schema: &SchemaRef, row_groups: usize, owners: &[usize]) -> Board {
        let mut board = Board::default();
        for index in 0..row_groups {
            let lanes = lanes(schema)
                .into_iter()
                .zip(owners)
                .map(|(leaves, &owner)| Lane {
                    sizes: Sizes::default(),
                    leaves: Some(leaves),
                    queued: VecDeque::new(),
                    owner: Some(owner),
                });
            board.row_groups.push_back(RowGroupWork {
                index,
                lanes: lanes.collect(),
                closing: false,
                held: 0,
                open: owners.len(),
                chunks: Vec::new(),
                error: None,
            });
        }
        board
    }

    fn queue(board: &mut Board, row_group: usize, field: usize, value: i32, budget: &Arc<Budget>) {
        let lane = &mut board.row_group(row_group).unwrap().lanes[field];
        lane.queued.push_back((column(value), budget.acquire(4)));
    }

    fn values(claim: &Claim) -> Vec<i32> {
        let Task::Encode(columns, _) = &claim.task else {
            panic!("expected an encode task");
        };
        let first = |c: &ArrayRef| c.as_any().downcast_ref::<Int32Array>().unwrap().value(0);
        columns.iter().map(first).collect()
    }

    #[test]
    fn a_worker_takes_its_own_lane_first_then_any_lane_with_work() {
        let budget = Budget::new(1 << 20);
        let schema = schema(&[DataType::Int32, DataType::Int32, DataType::Int32]);
        let mut board = board_with(&schema, 1, &[1, 0, 1]);
        for value in 0..3 {
            queue(&mut board, 0, 0, value, &budget);
            queue(&mut board, 0, 2, 10 + value, &budget);
        }

        let own = board.claim(1).expect("worker 1 has work");
        assert_eq!((own.field, values(&own)), (0, vec![0, 1, 2]), "in order");
        assert!(board.claim(1).is_some_and(|c| c.field == 2));
        assert!(
            board.claim(0).is_none(),
            "lanes held by another worker, or without work, are not claimed"
        );
        let held = board.row_group(0).unwrap();
        assert_eq!((held.held, held.lanes[0].queued.len()), (2, 0));

        let sizes = Sizes::of(&own.leaves);
        board.hand_back(0, 0, Ok(Done::Encoded(own.leaves, sizes)));
        queue(&mut board, 0, 0, 3, &budget);
        let stolen = board.claim(0).expect("worker 0 is out of work of its own");
        assert_eq!((stolen.field, values(&stolen)), (0, vec![3]));
        assert_eq!(board.row_group(0).unwrap().lanes[0].owner, Some(0));
    }

    #[test]
    fn the_oldest_row_group_goes_first_and_lanes_close_once_their_queue_is_empty() {
        let budget = Budget::new(1 << 20);
        let schema = schema(&[DataType::Int32, DataType::Int32]);
        let mut board = board_with(&schema, 2, &[0, 0]);
        queue(&mut board, 1, 0, 1, &budget);
        queue(&mut board, 0, 1, 0, &budget);
        board.row_group(0).unwrap().closing = true;

        let mut claims = Vec::new();
        while let Some(claim) = board.claim(0) {
            let kind = match claim.task {
                Task::Encode(..) => "encode",
                Task::Close => "close",
            };
            let (row_group, field) = (claim.row_group, claim.field);
            claims.push((row_group, field, kind));
            let done = claim.run(&schema.fields()[field]);
            board.hand_back(row_group, field, done);
        }
        assert_eq!(
            claims,
            [
                (0, 0, "close"),
                (0, 1, "encode"),
                (0, 1, "close"),
                (1, 0, "encode")
            ]
        );
        let closed = board.row_group(0).unwrap();
        assert_eq!((closed.open, closed.chunks.len()), (0, 2));
        assert_eq!(budget.used(), 0, "encoded batches give their budget back");
    }
}
