//! `leaf-costs`: where arrow-rs's encoding CPU goes, leaf column by leaf column and stage by
//! stage, for the contacts, the spec presets and the writer matrix's schemas. The map the
//! encoder work (issue 46) starts from.
//!
//! Each leaf is encoded alone, on one thread, by the `ArrowColumnWriter` the file writer would
//! give it, under writer properties that switch one stage on at a time; a stage's cost is the
//! difference from the plain setting (PLAIN values, no dictionary, no statistics, no
//! compression). Levels are split in two: `compute_leaves` (the definition and repetition
//! levels computed from the Arrow nesting, per top-level field) and the writer's own level work
//! (the base encoding less the same values written as a flat, required column, which has no
//! levels).

pub mod flat;
pub mod measure;
pub mod readme;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};

use crate::stats::median;

/// Data to encode, and the properties the pipeline writes it with.
pub struct Workload {
    /// The workload's name in tables.
    pub name: String,
    /// Its schema.
    pub schema: SchemaRef,
    /// Its rows, in the pipeline's batches.
    pub batches: Vec<RecordBatch>,
    /// The newest experiment's writer properties.
    pub properties: WriterProperties,
}

/// The stages a leaf's encoding is split into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The leaf's non-null values as a flat, required column: PLAIN values and page assembly.
    Flat,
    /// The leaf as it is, plain: [`Stage::Flat`] plus the writer's level work.
    Base,
    /// [`Stage::Base`] with chunk statistics.
    ChunkStatistics,
    /// [`Stage::Base`] with page statistics, the column index and the offset index.
    PageStatistics,
    /// [`Stage::Base`] with the dictionary (and its fallback to PLAIN at the page limit).
    Dictionary,
    /// [`Stage::Base`] compressed with zstd(1).
    Zstd,
    /// The newest experiment's own properties.
    AsWritten,
}

impl Stage {
    /// Every stage, in the order they are measured and shown.
    pub const ALL: [Stage; 7] = [
        Stage::Flat,
        Stage::Base,
        Stage::ChunkStatistics,
        Stage::PageStatistics,
        Stage::Dictionary,
        Stage::Zstd,
        Stage::AsWritten,
    ];
}

/// One leaf's CPU seconds per stage (medians over the rounds).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LeafCost {
    /// The leaf's dotted Parquet path.
    pub path: String,
    /// Its Parquet physical type.
    pub physical: String,
    /// Its Arrow type.
    pub arrow: String,
    /// The top-level field it belongs to.
    pub field: String,
    /// Non-null values the leaf holds.
    pub values: u64,
    /// CPU seconds of each stage (in [`Stage::ALL`]'s order) in each round (in round order,
    /// so that a round's stages pair up).
    pub samples: Vec<Vec<f64>>,
}

impl LeafCost {
    fn stage(&self, stage: Stage) -> &[f64] {
        let index = Stage::ALL
            .iter()
            .position(|s| *s == stage)
            .expect("every stage is in ALL");
        &self.samples[index]
    }

    /// The median CPU seconds of `stage`.
    pub fn of(&self, stage: Stage) -> f64 {
        median(self.stage(stage))
    }

    /// The median over rounds of `stage` less `from` in the same round.
    pub fn difference(&self, stage: Stage, from: Stage) -> f64 {
        let paired: Vec<f64> = self
            .stage(stage)
            .iter()
            .zip(self.stage(from))
            .map(|(a, b)| a - b)
            .collect();
        median(&paired)
    }
}

/// One top-level field's `compute_leaves` CPU seconds (median over the rounds).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FieldLevels {
    /// The field's name.
    pub field: String,
    /// Its leaves.
    pub leaves: usize,
    /// Median CPU seconds of computing its leaves' levels from the Arrow nesting.
    pub seconds: f64,
}

/// A workload's map.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkloadCosts {
    /// The workload's name.
    pub name: String,
    /// Rows encoded.
    pub rows: u64,
    /// Rows per row group of the newest experiment (each stage cuts the same row groups).
    pub row_group_rows: Option<usize>,
    /// Rounds each figure is the median of.
    pub rounds: usize,
    /// Per leaf.
    pub leaves: Vec<LeafCost>,
    /// Per top-level field.
    pub fields: Vec<FieldLevels>,
}
