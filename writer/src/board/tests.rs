//! Unit tests of the parent module.

use std::sync::Arc;

use arrow_array::{Array, Int32Array};
use arrow_schema::{DataType, SchemaRef};

use super::fixtures::{column, lanes, plan, schema};
use super::*;
use crate::budget::Budget;
use crate::encode::EncodePlan;

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

    let sizes = Sizes::of(&own.leaves.writers);
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
    let plan = plan(&schema);
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
        let done = claim.run(&plan);
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

/// A board holding one closing row group of three Int32 fields, whose lanes `owners` held
/// last, and the plan its lanes close by.
fn closing_board(owners: &[usize; 3]) -> (Board, Arc<EncodePlan>) {
    let schema = schema(&[DataType::Int32, DataType::Int32, DataType::Int32]);
    let mut board = board_with(&schema, 1, owners);
    board.row_group(0).unwrap().closing = true;
    (board, plan(&schema))
}

/// Lets `worker` close lane `field` of row group 0 on `board`, handing its chunk back.
fn close_lane(board: &mut Board, worker: usize, field: usize, plan: &EncodePlan) {
    let claim = board.claim(worker).expect("a closing lane is claimed");
    assert_eq!(claim.field, field);
    let done = claim.run(plan);
    board.hand_back(0, field, done);
}

#[test]
fn chunks_come_off_in_leaf_order_as_soon_as_the_leaves_before_them_are_closed() {
    // Worker 0 last held the last field: it closes that lane first.
    let (mut board, plan) = closing_board(&[1, 1, 0]);
    close_lane(&mut board, 0, 2, &plan);
    assert!(!board.has_next(0, 0), "leaf 0 is not closed yet");
    assert!(board.take_chunks(0, 0).unwrap().is_empty());
    close_lane(&mut board, 1, 0, &plan);
    assert!(board.has_next(0, 0));
    let run = board.take_chunks(0, 0).unwrap();
    assert_eq!(run.len(), 1, "leaf 0, not leaf 2 past the gap");
    assert!(!board.has_next(0, 1));

    close_lane(&mut board, 1, 1, &plan);
    assert_eq!(board.take_chunks(0, 1).unwrap().len(), 2, "leaves 1 and 2");
    assert!(board.has_next(0, 3), "every chunk is closed");
    assert!(board.take_chunks(0, 3).unwrap().is_empty());
    assert!(board.row_group(0).is_err(), "the row group left the board");
}

#[test]
fn after_an_error_the_row_group_waits_for_its_lanes_then_reports_it() {
    let (mut board, plan) = closing_board(&[0, 0, 0]);
    close_lane(&mut board, 0, 0, &plan);
    let failing = board.claim(0).expect("lane 1 is closing");
    let still_held = board.claim(0).expect("lane 2 is closing");
    board.hand_back(0, failing.field, Err(ParquetError::General("boom".into())));
    assert!(
        !board.has_next(0, 0),
        "leaf 0 is closed, but a worker still holds a lane of the failed row group"
    );
    let done = still_held.run(&plan);
    board.hand_back(0, 2, done);
    assert!(board.has_next(0, 0));
    let error = board.take_chunks(0, 0).unwrap_err();
    assert!(error.to_string().contains("boom"), "{error}");
    assert!(board.row_group(0).is_err(), "the row group left the board");
}
