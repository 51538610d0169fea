//! The pipeline's batch channels: std's bounded `mpsc` (the study's choice), or a bounded
//! crossbeam channel with a return path that brings spent batches back to the producers, whose
//! builders reuse their buffers.

use std::sync::mpsc;

use arrow_array::RecordBatch;

/// The sending half of a writer's channel.
#[derive(Debug, Clone)]
pub enum BatchSender {
    /// `std::sync::mpsc::sync_channel`.
    Std(mpsc::SyncSender<RecordBatch>),
    /// `crossbeam_channel::bounded`.
    Crossbeam(crossbeam_channel::Sender<RecordBatch>),
}

/// The receiving half of a writer's channel.
#[derive(Debug)]
pub enum BatchReceiver {
    /// `std::sync::mpsc::sync_channel`.
    Std(mpsc::Receiver<RecordBatch>),
    /// `crossbeam_channel::bounded`.
    Crossbeam(crossbeam_channel::Receiver<RecordBatch>),
}

/// A bounded channel holding at most `capacity` batches.
pub fn batch_channel(crossbeam: bool, capacity: usize) -> (BatchSender, BatchReceiver) {
    if crossbeam {
        let (tx, rx) = crossbeam_channel::bounded(capacity);
        (BatchSender::Crossbeam(tx), BatchReceiver::Crossbeam(rx))
    } else {
        let (tx, rx) = mpsc::sync_channel(capacity);
        (BatchSender::Std(tx), BatchReceiver::Std(rx))
    }
}

impl BatchSender {
    /// Sends `batch`, waiting while the channel is full; `Err` once the writer is gone.
    pub fn send(&self, batch: RecordBatch) -> Result<(), RecordBatch> {
        match self {
            BatchSender::Std(tx) => tx.send(batch).map_err(|e| e.0),
            BatchSender::Crossbeam(tx) => tx.send(batch).map_err(|e| e.0),
        }
    }
}

impl Iterator for BatchReceiver {
    type Item = RecordBatch;

    /// The next batch; `None` once every sender is gone and the channel is drained.
    fn next(&mut self) -> Option<RecordBatch> {
        match self {
            BatchReceiver::Std(rx) => rx.recv().ok(),
            BatchReceiver::Crossbeam(rx) => rx.recv().ok(),
        }
    }
}

/// Spent batches on their way back from writers to producers. Never blocks: a full return path
/// drops the batch (its memory is freed as usual), an empty one returns nothing.
#[derive(Debug, Clone)]
pub struct Returns {
    tx: crossbeam_channel::Sender<RecordBatch>,
    rx: crossbeam_channel::Receiver<RecordBatch>,
}

impl Returns {
    /// A return path holding at most `capacity` batches.
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = crossbeam_channel::bounded(capacity);
        Self { tx, rx }
    }

    /// Hands a written batch back.
    pub fn give(&self, batch: RecordBatch) {
        let _ = self.tx.try_send(batch);
    }

    /// A batch to recycle, if one is waiting.
    pub fn take(&self) -> Option<RecordBatch> {
        self.rx.try_recv().ok()
    }
}
