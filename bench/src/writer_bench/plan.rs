//! The cells of one `writer-bench` run, in order, before any data is made: each is measured in
//! a process of its own ([`super::isolate`]), which makes its data from this description.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use shredlab_experiments::compression::CompressionSpec;
use shredlab_experiments::optimizations::Optimizations;
use shredlab_experiments::source::{BatchSource, ContactSource};
use shredlab_experiments::workload::SpecWorkload;
use shredlab_generator::spec::SpecPaths;
use shredlab_generator::SkewConfig;

use super::data::{spec_table, table, Shape};

/// What one cell writes, and how compressed.
#[derive(Debug, Clone)]
pub struct PlannedCell {
    /// The cell's rows.
    pub data: CellData,
    /// Its codec.
    pub compression: CompressionSpec,
}

/// Where a cell's rows come from.
#[derive(Debug, Clone)]
pub enum CellData {
    /// A table of the matrix.
    Table {
        /// Its column mix.
        shape: Shape,
        /// Top-level columns.
        columns: usize,
        /// Rows.
        rows: usize,
    },
    /// `rows` rows of the spec workload in a file.
    Spec {
        /// The spec file.
        path: PathBuf,
        /// Rows.
        rows: usize,
    },
    /// `rows` contacts from the generator.
    Contacts(usize),
}

/// A cell's rows, made, with what its table row says about them.
#[derive(Debug)]
pub struct CellTable {
    /// The shape's name, the spec file's stem, or `contacts`.
    pub name: String,
    /// Top-level columns.
    pub columns: usize,
    /// Rows.
    pub rows: usize,
    /// The schema and the batches.
    pub data: (SchemaRef, Vec<RecordBatch>),
}

/// The matrix (every row count, column count and shape, under every compression), each spec
/// workload under every compression, then `contacts_rows` contacts uncompressed (none if 0).
pub fn plan(
    (rows, columns): (&[usize], &[usize]),
    (specs, spec_rows): (&[PathBuf], usize),
    contacts_rows: usize,
    compressions: &[CompressionSpec],
) -> Vec<PlannedCell> {
    let mut sources = Vec::new();
    for &rows in rows {
        for &columns in columns {
            for shape in [Shape::Simple, Shape::Complex] {
                sources.push(CellData::Table {
                    shape,
                    columns,
                    rows,
                });
            }
        }
    }
    sources.extend(specs.iter().map(|path| CellData::Spec {
        path: path.clone(),
        rows: spec_rows,
    }));
    let mut cells: Vec<PlannedCell> = sources
        .iter()
        .flat_map(|data| {
            compressions.iter().map(|&compression| PlannedCell {
                data: data.clone(),
                compression,
            })
        })
        .collect();
    if contacts_rows > 0 {
        cells.push(PlannedCell {
            data: CellData::Contacts(contacts_rows),
            compression: CompressionSpec::None,
        });
    }
    cells
}

impl CellData {
    /// Makes the cell's rows: the same for every process, from fixed seeds.
    ///
    /// # Errors
    ///
    /// The spec file or the generator failed.
    pub fn make(&self) -> Result<CellTable> {
        Ok(match self {
            &CellData::Table {
                shape,
                columns,
                rows,
            } => CellTable {
                name: shape.name().to_string(),
                columns,
                rows,
                data: table(shape, columns, rows, 7),
            },
            CellData::Spec { path, rows } => spec_cell(path, *rows)?,
            &CellData::Contacts(rows) => CellTable {
                name: "contacts".to_string(),
                columns: 2,
                rows,
                data: contacts(rows)?,
            },
        })
    }
}

/// `rows` rows of the spec workload in `path`, written by every faster path as the newest
/// experiment writes them, named by the file's stem.
fn spec_cell(path: &Path, rows: usize) -> Result<CellTable> {
    let workload = SpecWorkload::load(path, 42, SpecPaths::ALL)?;
    let data = spec_table(workload.generator(), rows, 4096)
        .map_err(|e| anyhow!("spec file {}: {e}", path.display()))?;
    let name = path
        .file_stem()
        .map_or_else(|| "spec".into(), |s| s.to_string_lossy().into_owned());
    Ok(CellTable {
        name,
        columns: data.0.fields().len(),
        rows,
        data,
    })
}

/// `rows` contacts in batches of 4,096 (experiment 14's generator).
fn contacts(rows: usize) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let optimizations = Optimizations::for_experiment(14)?;
    let source = ContactSource::try_new(42, SkewConfig::default(), optimizations)?;
    let mut maker = source.maker();
    let batches = (0..rows as u64)
        .step_by(4096)
        .map(|start| maker.make(start..(start + 4096).min(rows as u64)))
        .collect();
    Ok((source.schema(), batches))
}
