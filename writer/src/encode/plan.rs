//! [`EncodePlan`]: which encoder writes each leaf column of a file, and the per-batch work
//! that feeds them (levels computed once per top-level column, for each encoder that needs
//! them).

use std::io::Write;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, SchemaRef};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowLeafColumn, ArrowWriterOptions};
use parquet::basic::Type as PhysicalType;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::{WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnDescPtr;

use super::batches::MiniBatches;
use super::column::NativeColumnWriter;
use super::encodings;
use super::fallback::FallbackFactory;
use super::leaf::{LeafData, LeafWriter};
use super::levels;
use super::pages::PageChunkWriter;
use super::project::project;
use super::shape::Nesting;
use super::values;
use super::{ColumnEncoder, LeafEncoders};

/// Which encoder writes each leaf column of one file's schema.
#[derive(Debug)]
pub(crate) struct EncodePlan {
    schema: SchemaRef,
    props: WriterPropertiesPtr,
    /// Per top-level column, per leaf: where the native encoder writes it, how.
    fields: Vec<Vec<Option<NativeLeaf>>>,
    /// Per top-level column, whether parquet writes any of its leaves: its factory then makes
    /// a writer for every leaf of the column.
    fallback_columns: Vec<bool>,
    /// Every leaf's path, in file order.
    paths: Vec<String>,
    /// parquet's writers for the top-level columns with a leaf in `fields` it writes.
    fallback: FallbackFactory,
}

/// A leaf the native encoder writes.
#[derive(Debug, Clone)]
struct NativeLeaf {
    descr: ColumnDescPtr,
    /// Whether it writes the pages too ([`PageChunkWriter`]), not parquet's typed writer.
    pages: bool,
}

impl EncodePlan {
    /// Plans `schema` for `file`, the file writer parquet opened for it with `options`: with
    /// [`ColumnEncoder::Native`], every leaf the native encoder supports goes to it.
    ///
    /// # Errors
    ///
    /// What parquet fails on when it sets up the column writers of the other leaves.
    pub fn new<W: Write + Send>(
        schema: SchemaRef,
        file: &SerializedFileWriter<W>,
        options: &ArrowWriterOptions,
        encoder: ColumnEncoder,
    ) -> Result<Self> {
        let parquet_schema = file.schema_descr();
        let props = Arc::clone(file.properties());
        let allowed = encoder == ColumnEncoder::Native && file_supported(&props);
        let mut descrs: Vec<Vec<ColumnDescPtr>> = vec![Vec::new(); schema.fields().len()];
        for (index, column) in parquet_schema.columns().iter().enumerate() {
            if let Some(leaves) = descrs.get_mut(parquet_schema.get_column_root_idx(index)) {
                leaves.push(column.clone());
            }
        }
        let fields: Vec<Vec<Option<NativeLeaf>>> = schema
            .fields()
            .iter()
            .zip(descrs)
            .map(|(field, leaves)| match allowed {
                true => native_leaves(field, leaves, &props),
                false => vec![None; leaves.len()],
            })
            .collect();
        let fallback_columns: Vec<bool> = fields
            .iter()
            .map(|f| f.iter().any(Option::is_none))
            .collect();
        let fallback = FallbackFactory::new(options, &schema, parquet_schema, &fallback_columns)?;
        Ok(Self {
            schema,
            props,
            fields,
            fallback_columns,
            paths: parquet_schema
                .columns()
                .iter()
                .map(|descr| descr.path().string())
                .collect(),
            fallback,
        })
    }

    /// Which encoder writes each leaf.
    pub fn leaf_encoders(&self) -> LeafEncoders {
        let mut encoders = LeafEncoders::default();
        for (leaf, path) in self.fields.iter().flatten().zip(self.paths.iter().cloned()) {
            match leaf {
                Some(NativeLeaf { pages: true, .. }) => encoders.native_pages.push(path),
                Some(NativeLeaf { pages: false, .. }) => encoders.native_levels.push(path),
                None => encoders.arrow_rs.push(path),
            }
        }
        encoders
    }

    /// The leaf writers of row group `row_group`: the native encoder's for every leaf it
    /// writes, parquet's for the others.
    ///
    /// # Errors
    ///
    /// A native writer's codec could not be set up, or parquet's factory failed.
    pub fn writers(&self, row_group: usize) -> Result<Vec<LeafWriter>> {
        let mut parquet = self.fallback.create(row_group)?.into_iter();
        let mut writers = Vec::with_capacity(self.paths.len());
        for (leaves, &fallback) in self.fields.iter().zip(&self.fallback_columns) {
            for leaf in leaves {
                let made = match fallback {
                    true => Some(parquet.next().ok_or_else(writers_not_per_leaf)?),
                    false => None,
                };
                writers.push(match (leaf, made) {
                    (Some(NativeLeaf { descr, pages: true }), _) => {
                        LeafWriter::Pages(PageChunkWriter::new(descr.clone(), &self.props)?)
                    }
                    (Some(NativeLeaf { descr, .. }), _) => {
                        LeafWriter::Native(NativeColumnWriter::new(descr.clone(), &self.props))
                    }
                    (None, Some(writer)) => LeafWriter::Arrow(writer),
                    (None, None) => return Err(writers_not_per_leaf()),
                });
            }
        }
        Ok(writers)
    }

    /// Encodes `batch` into `writers` (one row group's, from [`Self::writers`]), as
    /// `ArrowWriter` encodes a batch that fits in its row group.
    ///
    /// # Errors
    ///
    /// The batch's columns differ from the schema's, or what the encoders fail on (a null in a
    /// non-nullable field, a type parquet cannot write).
    pub fn write(&self, writers: &mut [LeafWriter], batch: &RecordBatch) -> Result<()> {
        if batch.num_columns() != self.schema.fields().len() {
            return Err(ParquetError::ArrowError(format!(
                "batch has {} columns, the writer's schema {}",
                batch.num_columns(),
                self.schema.fields().len()
            )));
        }
        let mut rest = writers;
        for (field, column) in batch.columns().iter().enumerate() {
            let leaves = self.fields[field].len();
            if rest.len() < leaves {
                return Err(writers_not_per_leaf());
            }
            let (these, others) = rest.split_at_mut(leaves);
            self.write_field(field, these, column)?;
            rest = others;
        }
        match rest.is_empty() {
            true => Ok(()),
            false => Err(writers_not_per_leaf()),
        }
    }

    /// Encodes `column`, one batch's column of top-level field `field`, into `writers`: that
    /// field's leaf writers, in leaf order.
    ///
    /// # Errors
    ///
    /// `writers` are not the field's, or what the encoders fail on.
    pub fn write_field(
        &self,
        field: usize,
        writers: &mut [LeafWriter],
        column: &ArrayRef,
    ) -> Result<()> {
        let (Some(leaves), Some(field)) = (self.fields.get(field), self.schema.fields().get(field))
        else {
            return Err(ParquetError::General(format!(
                "the writer's schema has no field {field}"
            )));
        };
        if writers.len() != leaves.len() {
            return Err(writers_not_per_leaf());
        }
        let wanted: Vec<bool> = leaves.iter().map(Option::is_some).collect();
        let native = match wanted.contains(&true) {
            true => {
                check_type(field, column)?;
                levels::compute(field, column, &wanted)?
            }
            false => Vec::new(),
        };
        let arrow = arrow_leaves(field, column, &wanted)?;
        for (index, writer) in writers.iter_mut().enumerate() {
            let data = match native.get(index).and_then(Option::as_ref) {
                Some(levels) => LeafData::Native(levels),
                None => LeafData::Arrow(
                    arrow
                        .get(index)
                        .and_then(Option::as_ref)
                        .ok_or_else(|| missing_leaf(field, index))?,
                ),
            };
            writer.write(data)?;
        }
        Ok(())
    }
}

/// `compute_leaves` for the leaves of `field` the native encoder does not write (`native` is
/// false), by leaf index; on the column cut down to those leaves where the native encoder
/// writes some.
fn arrow_leaves(
    field: &Field,
    column: &ArrayRef,
    native: &[bool],
) -> Result<Vec<Option<ArrowLeafColumn>>> {
    if !native.contains(&false) {
        return Ok(Vec::new());
    }
    let keep: Vec<bool> = native.iter().map(|n| !n).collect();
    match native
        .contains(&true)
        .then(|| project(field, column, &keep))
        .flatten()
    {
        Some((cut_field, cut_column, kept)) => {
            let mut leaves: Vec<Option<ArrowLeafColumn>> =
                (0..native.len()).map(|_| None).collect();
            for (index, leaf) in kept
                .into_iter()
                .zip(compute_leaves(&cut_field, &cut_column)?)
            {
                leaves[index] = Some(leaf);
            }
            Ok(leaves)
        }
        None => Ok(compute_leaves(field, column)?
            .into_iter()
            .map(Some)
            .collect()),
    }
}

/// Refuses a column whose type is not its field's: the native encoder walks the field's.
fn check_type(field: &Field, column: &ArrayRef) -> Result<()> {
    if column.data_type() == field.data_type() {
        return Ok(());
    }
    Err(ParquetError::ArrowError(format!(
        "column '{}' is {}, the writer's schema says {}",
        field.name(),
        column.data_type(),
        field.data_type()
    )))
}

fn missing_leaf(field: &Field, index: usize) -> ParquetError {
    ParquetError::General(format!(
        "compute_leaves gave no leaf {index} of column '{}'",
        field.name()
    ))
}

fn writers_not_per_leaf() -> ParquetError {
    ParquetError::General("the leaf writers given are not one per leaf of the schema".into())
}

/// Whether the file's properties leave room for the native encoder: content-defined chunking
/// and distinct-value counts are kept inside `ArrowColumnWriter`.
fn file_supported(props: &WriterPropertiesPtr) -> bool {
    props.content_defined_chunking().is_none() && !props.write_row_group_number_distinct_values()
}

/// Which of `field`'s leaves (with their descriptors) the native encoder writes, and how:
/// leaves whose pages it writes, and leaves inside a list or map whose levels it computes for
/// parquet's typed writer. A flat leaf has no repetition levels to save: the typed path would
/// only add copies to `ArrowColumnWriter`'s.
fn native_leaves(
    field: &Field,
    leaves: Vec<ColumnDescPtr>,
    props: &WriterProperties,
) -> Vec<Option<NativeLeaf>> {
    let mut expected = Vec::new();
    if Nesting::walkable(field) {
        expected_leaves(field, 0, 0, &mut expected);
    }
    let matches = expected.len() == leaves.len()
        && expected
            .iter()
            .zip(&leaves)
            .all(|((_, def, rep), d)| d.max_def_level() == *def && d.max_rep_level() == *rep);
    if !matches {
        return vec![None; leaves.len()];
    }
    expected
        .iter()
        .zip(leaves)
        .map(|((data_type, _, rep), descr)| {
            let pages = encodings::supported(&descr, data_type, props);
            let typed = values::written_as(data_type, &descr)
                && MiniBatches::new(&descr, props).budget_checks_agree(&descr, props)
                && !dictionary_byte_array(&descr, props)
                && !delta_layout_ignored(&descr, props);
            (pages || (*rep > 0 && typed)).then_some(NativeLeaf { descr, pages })
        })
        .collect()
}

/// Whether `descr` is a `BYTE_ARRAY` leaf written with a dictionary: parquet's typed writer
/// estimates its data pages one byte smaller than `ArrowColumnWriter` does, which can move a
/// page boundary.
fn dictionary_byte_array(descr: &ColumnDescPtr, props: &WriterProperties) -> bool {
    descr.physical_type() == PhysicalType::BYTE_ARRAY && props.dictionary_enabled(descr.path())
}

/// Whether `descr` is a `BYTE_ARRAY` leaf whose `DELTA_*` values parquet's typed writer lays
/// out in the blocks the properties set, where `ArrowColumnWriter` keeps the default layout
/// (parquet 60's byte-array writer does not read `delta_binary_packed_encoder_options`).
fn delta_layout_ignored(descr: &ColumnDescPtr, props: &WriterProperties) -> bool {
    descr.physical_type() == PhysicalType::BYTE_ARRAY
        && props
            .delta_binary_packed_encoder_options(descr.path())
            .is_some()
}

/// Each leaf of `field` in file order, with the maximum definition and repetition levels
/// [`levels::compute`] gives it.
fn expected_leaves(
    field: &Field,
    parent_def: i16,
    parent_rep: i16,
    out: &mut Vec<(DataType, i16, i16)>,
) {
    let def = parent_def + i16::from(field.is_nullable());
    match Nesting::of(field.data_type()) {
        Some(Nesting::Leaf) => out.push((field.data_type().clone(), def, parent_rep)),
        Some(Nesting::Struct) => {
            if let DataType::Struct(children) = field.data_type() {
                for child in children {
                    expected_leaves(child, def, parent_rep, out);
                }
            }
        }
        Some(Nesting::List(child)) => expected_leaves(&child, def + 1, parent_rep + 1, out),
        None => {}
    }
}
