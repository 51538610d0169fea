//! The measurement: each leaf encoded alone under each stage's properties, in rounds that visit
//! the (leaf, stage) pairs in a new order each, timed by the thread's own CPU clock; every
//! round's figure is kept, so that stages can be compared round by round.

use std::io;
use std::sync::Arc;

use anyhow::{Context, Result};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowLeafColumn, ArrowRowGroupWriterFactory};
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::flat::{leaf_paths, leaf_values};
use super::{FieldLevels, LeafCost, Stage, Workload, WorkloadCosts};
use crate::stats::median;

/// A leaf's columns ready for its writer: the leaf as it is (levels computed) and flat.
struct PreparedLeaf {
    cost: LeafCost,
    /// Its position among the workload's Parquet columns.
    index: usize,
    /// Per batch, the leaf's `compute_leaves` output.
    nested: Vec<ArrowLeafColumn>,
    /// The one-field schema of the flat values, and the values per batch.
    flat_schema: SchemaRef,
    flat: Vec<ArrowLeafColumn>,
}

/// Measures `workload` in `rounds` rounds.
pub fn measure(workload: &Workload, rounds: usize) -> Result<WorkloadCosts> {
    let leaves = prepare(workload)?;
    let group_rows = workload.properties.max_row_group_row_count();
    let batch_rows: Vec<usize> = workload.batches.iter().map(RecordBatch::num_rows).collect();
    let mut samples = vec![vec![Vec::with_capacity(rounds); Stage::ALL.len()]; leaves.len()];
    let mut pairs: Vec<(usize, usize)> = (0..leaves.len())
        .flat_map(|leaf| (0..Stage::ALL.len()).map(move |stage| (leaf, stage)))
        .collect();
    let mut levels = vec![Vec::with_capacity(rounds); workload.schema.fields().len()];
    for round in 0..rounds {
        // A new order each round, so that no stage always follows another on warm buffers.
        pairs.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(round as u64));
        for &(leaf, stage) in &pairs {
            let seconds = encode(
                &leaves[leaf],
                workload,
                Stage::ALL[stage],
                group_rows,
                &batch_rows,
            )
            .with_context(|| format!("{}: {}", workload.name, leaves[leaf].cost.path))?;
            samples[leaf][stage].push(seconds);
        }
        for (index, field) in workload.schema.fields().iter().enumerate() {
            levels[index].push(compute_levels(field, &workload.batches, index)?);
        }
    }
    let fields = workload
        .schema
        .fields()
        .iter()
        .zip(&levels)
        .map(|(field, seconds)| FieldLevels {
            field: field.name().clone(),
            leaves: leaf_paths(field).len(),
            seconds: median(seconds),
        })
        .collect();
    let leaves = leaves
        .into_iter()
        .zip(samples)
        .map(|(leaf, samples)| LeafCost {
            samples,
            ..leaf.cost
        })
        .collect();
    Ok(WorkloadCosts {
        name: workload.name.clone(),
        rows: workload.batches.iter().map(|b| b.num_rows() as u64).sum(),
        row_group_rows: group_rows,
        rounds,
        leaves,
        fields,
    })
}

/// The leaves of `workload`, each with its levels computed and its flat values.
fn prepare(workload: &Workload) -> Result<Vec<PreparedLeaf>> {
    let parquet = ArrowSchemaConverter::new().convert(&workload.schema)?;
    let mut prepared = Vec::new();
    for (index, field) in workload.schema.fields().iter().enumerate() {
        let paths = leaf_paths(field);
        let mut by_leaf: Vec<Vec<ArrowLeafColumn>> = paths.iter().map(|_| Vec::new()).collect();
        for batch in &workload.batches {
            for (nth, leaf) in compute_leaves(field, batch.column(index))?
                .into_iter()
                .enumerate()
            {
                by_leaf[nth].push(leaf);
            }
        }
        for (path, nested) in paths.into_iter().zip(by_leaf) {
            let names: Vec<&str> = path.iter().map(String::as_str).collect();
            let flat: Vec<ArrayRef> = workload
                .batches
                .iter()
                .map(|batch| leaf_values(batch.column(index), &names))
                .collect::<Result<_, _>>()?;
            let values = flat.iter().map(|a| a.len() as u64).sum();
            let flat_field = Field::new("values", flat[0].data_type().clone(), false);
            let column = parquet.column(prepared.len());
            prepared.push(PreparedLeaf {
                index: prepared.len(),
                cost: LeafCost {
                    path: column.path().string(),
                    physical: column.physical_type().to_string(),
                    arrow: flat_field.data_type().to_string(),
                    field: field.name().clone(),
                    values,
                    samples: Vec::new(),
                },
                nested,
                flat: flat
                    .iter()
                    .map(|array| Ok(compute_leaves(&flat_field, array)?.remove(0)))
                    .collect::<Result<_>>()?,
                flat_schema: Arc::new(Schema::new(vec![flat_field])),
            });
        }
    }
    Ok(prepared)
}

/// The properties of `stage`: plain (PLAIN values, no dictionary, no statistics, no
/// compression) with the stage's one setting on, or the workload's own.
fn properties(stage: Stage, workload: &WriterProperties) -> Result<WriterProperties> {
    let plain = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None)
        .set_compression(Compression::UNCOMPRESSED)
        .set_max_row_group_row_count(workload.max_row_group_row_count());
    Ok(match stage {
        Stage::Flat | Stage::Base => plain.build(),
        Stage::ChunkStatistics => plain
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .build(),
        Stage::PageStatistics => plain
            .set_statistics_enabled(EnabledStatistics::Page)
            .build(),
        Stage::Dictionary => plain.set_dictionary_enabled(true).build(),
        Stage::Zstd => plain
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
            .build(),
        Stage::AsWritten => workload.clone(),
    })
}

/// CPU seconds of encoding one leaf under `stage`, row group by row group (cut at the first
/// batch boundary at or past `group_rows`), closing each column chunk.
fn encode(
    leaf: &PreparedLeaf,
    workload: &Workload,
    stage: Stage,
    group_rows: Option<usize>,
    batch_rows: &[usize],
) -> Result<f64> {
    let (schema, columns, index) = match stage {
        Stage::Flat => (&leaf.flat_schema, &leaf.flat, 0),
        _ => (&workload.schema, &leaf.nested, leaf.index),
    };
    let properties = Arc::new(properties(stage, &workload.properties)?);
    let parquet = ArrowSchemaConverter::new().convert(schema)?;
    let file = SerializedFileWriter::new(io::sink(), parquet.root_schema_ptr(), properties)?;
    let factory = ArrowRowGroupWriterFactory::new(&file, Arc::clone(schema));
    let limit = group_rows.unwrap_or(usize::MAX);
    let mut seconds = 0.0;
    let mut batches = columns.iter().zip(batch_rows).peekable();
    let mut group = 0;
    while batches.peek().is_some() {
        let mut writer = factory.create_column_writers(group)?.swap_remove(index);
        let started = thread_cpu_seconds();
        let mut rows = 0;
        while rows < limit {
            let Some((column, count)) = batches.next() else {
                break;
            };
            writer.write(column)?;
            rows += count;
        }
        writer.close()?;
        seconds += thread_cpu_seconds() - started;
        group += 1;
    }
    Ok(seconds)
}

/// CPU seconds of computing the levels of top-level field `index` for every batch.
fn compute_levels(field: &Field, batches: &[RecordBatch], index: usize) -> Result<f64> {
    let started = thread_cpu_seconds();
    for batch in batches {
        std::hint::black_box(compute_leaves(field, batch.column(index))?);
    }
    Ok(thread_cpu_seconds() - started)
}

/// The calling thread's CPU time, user and system, in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(
        status, 0,
        "CLOCK_THREAD_CPUTIME_ID is always available on Linux"
    );
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}
