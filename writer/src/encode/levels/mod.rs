//! Repetition and definition levels computed from the Arrow nesting, range by range.
//!
//! Each node hands whole ranges to its children: a struct passes its runs of valid rows down at
//! once, a list the child range of each run of present, non-empty lists (or, with no list below
//! it and no null list covering elements, its whole span of elements once, interleaved with the
//! entries of its null and empty lists: `list.rs`), and a leaf appends its levels for a range in
//! one pass over its validity bitmap. The levels are the Dremel
//! encoding of the Arrow data under the Parquet schema parquet's `ArrowSchemaConverter` makes
//! of it (an optional field adds one definition level, a list or map its repeated group one
//! definition and one repetition level), so they are the ones `compute_leaves` gives; the
//! encoder's tests compare the files byte for byte.

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::bit_chunk_iterator::UnalignedBitChunk;
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field};
use parquet::errors::{ParquetError, Result};

use super::positions::Positions;
use super::shape::{ListOffsets, Nesting};

mod buffer;
mod list;
mod validity;

pub(crate) use buffer::{LevelSlice, Levels};

/// One leaf column's share of a batch, as parquet's column writer takes it.
#[derive(Debug)]
pub(crate) struct LeafLevels {
    /// Definition levels, one per entry (one level and a count while all alike); `None` where
    /// the leaf's maximum is 0.
    pub def: Option<Levels>,
    /// Repetition levels, one per entry; `None` outside every list.
    pub rep: Option<Vec<i16>>,
    /// Positions in `array` of the values the entries carry (the non-null ones), in order.
    pub values: Positions,
    /// The leaf's Arrow array.
    pub array: ArrayRef,
    /// Whether `compute_leaves` would hand these levels over as uniform runs: the leaf has
    /// definition levels, all the same, no list on its path had an element in the batch, and
    /// they were never spelled out one by one (`Kind::Leaf`). Its column writer then cuts
    /// mini-batches of `data_page_row_count_limit` levels instead of `write_batch_size`, which
    /// moves page boundaries.
    pub uniform: bool,
}

impl LeafLevels {
    /// How many entries there are: levels, or values where the leaf has none.
    pub(crate) fn entries(&self) -> usize {
        match (&self.def, &self.rep) {
            (Some(def), _) => def.len(),
            (None, Some(rep)) => rep.len(),
            (None, None) => self.values.len(),
        }
    }
}

/// A node of one column's nesting, with its validity and levels resolved for a batch.
struct Node {
    kind: Kind,
    /// Validity, only where the field is nullable and the array has nulls.
    nulls: Option<NullBuffer>,
    /// Nulls where the field is not nullable: writing one that is reachable is an error.
    forbidden: Option<NullBuffer>,
    /// The definition level when this node is present.
    def: i16,
    /// The leaf slots under this node.
    leaves: Range<usize>,
    /// Whether a list or map lies under this node, so that its rows can span several entries.
    repeated_below: bool,
}

enum Kind {
    /// A leaf; `spelled_out` where parquet's `write_leaf` appends its definition levels one by
    /// one, so that they are never uniform: the array has a logical null buffer that is not all
    /// null (even one without a null) and the leaf has definition levels.
    Leaf {
        spelled_out: bool,
    },
    Struct(Vec<Node>),
    /// A list or map: its child's ranges, the child, and the repetition level of its elements.
    List(ListOffsets, Box<Node>, i16),
}

/// The levels of every leaf of `field` (a top-level column) for `array`, in leaf order; a slot
/// is `None` where `wanted` says the leaf goes elsewhere.
///
/// # Errors
///
/// A null reachable in a field that is not nullable, which parquet's writer refuses too; a
/// nesting this module does not walk (list views, unions, run-end encoding); or a leaf count
/// other than `wanted`'s.
pub(crate) fn compute(
    field: &Field,
    array: &ArrayRef,
    wanted: &[bool],
) -> Result<Vec<Option<LeafLevels>>> {
    let mut arrays = Vec::with_capacity(wanted.len());
    let root = build(field, array, 0, 0, &mut arrays)?;
    if arrays.len() != wanted.len() {
        return Err(ParquetError::General(format!(
            "column '{}' has {} leaves, the encoder expected {}",
            field.name(),
            arrays.len(),
            wanted.len()
        )));
    }
    let mut out: Vec<Option<LeafLevels>> = arrays
        .into_iter()
        .zip(wanted)
        .map(|((array, max_def, max_rep), wanted)| {
            wanted.then(|| LeafLevels {
                def: (max_def > 0).then(Levels::default),
                rep: (max_rep > 0).then(Vec::new),
                values: Positions::default(),
                array,
                // Until a list on its path writes an element to it.
                uniform: true,
            })
        })
        .collect();
    write(&root, 0..array.len(), 0, 0, &mut out)?;
    for leaf in out.iter_mut().flatten() {
        leaf.uniform &= leaf.def.as_ref().is_some_and(Levels::all_alike);
    }
    Ok(out)
}

/// Resolves `array` into a [`Node`], appending each leaf's array and maximum levels.
fn build(
    field: &Field,
    array: &ArrayRef,
    parent_def: i16,
    parent_rep: i16,
    leaves: &mut Vec<(ArrayRef, i16, i16)>,
) -> Result<Node> {
    let nullable = field.is_nullable();
    let all_logical = array.logical_nulls();
    let logical = all_logical.clone().filter(|n| n.null_count() > 0);
    let (nulls, forbidden) = if nullable {
        (logical, None)
    } else {
        (None, logical)
    };
    let def = parent_def + i16::from(nullable);
    let first = leaves.len();
    let kind = match Nesting::of(field.data_type()) {
        Some(Nesting::Leaf) => {
            leaves.push((array.clone(), def, parent_rep));
            let spelled_out = def > 0 && all_logical.is_some_and(|n| n.null_count() != n.len());
            Kind::Leaf { spelled_out }
        }
        Some(Nesting::Struct) => {
            let DataType::Struct(fields) = field.data_type() else {
                unreachable!("Nesting::Struct is only given for struct types")
            };
            let array = array.as_struct();
            let children = fields
                .iter()
                .zip(array.columns())
                .map(|(child, column)| build(child, column, def, parent_rep, leaves))
                .collect::<Result<Vec<_>>>()?;
            Kind::Struct(children)
        }
        Some(Nesting::List(child_field)) => {
            let (offsets, values) = ListOffsets::of(array);
            let rep = parent_rep + 1;
            let child = build(&child_field, &values, def + 1, rep, leaves)?;
            Kind::List(offsets, Box::new(child), rep)
        }
        None => {
            return Err(ParquetError::NYI(format!(
                "levels of {} in the native encoder",
                field.data_type()
            )))
        }
    };
    let repeated_below = match &kind {
        Kind::Leaf { .. } => false,
        Kind::Struct(children) => children.iter().any(|child| child.repeated_below),
        Kind::List(..) => true,
    };
    Ok(Node {
        kind,
        repeated_below,
        nulls,
        forbidden,
        def,
        leaves: first..leaves.len(),
    })
}

/// Appends the levels of `node`'s rows `range`: the first entry gets `first_rep`, every later
/// row of the range `next_rep` (the level of the list the rows are elements of).
fn write(
    node: &Node,
    range: Range<usize>,
    first_rep: i16,
    next_rep: i16,
    out: &mut [Option<LeafLevels>],
) -> Result<()> {
    if range.is_empty() {
        return Ok(());
    }
    check_reachable(node, &range)?;
    match &node.kind {
        Kind::Leaf { spelled_out } => match &mut out[node.leaves.start] {
            Some(leaf) => {
                leaf.uniform &= !spelled_out;
                write_leaf(leaf, node, range, first_rep, next_rep)
            }
            None => Ok(()),
        },
        Kind::Struct(children) => {
            for_each_run(node, range, first_rep, next_rep, out, |run, rep, out| {
                children
                    .iter()
                    .try_for_each(|child| write(child, run.clone(), rep, next_rep, out))
            })
        }
        Kind::List(offsets, child, level) => {
            let list = list::List {
                node,
                offsets,
                child,
                level: *level,
            };
            list::write_list(list, range, first_rep, next_rep, out)
        }
    }
}

/// Calls `visit` on each run of valid rows of `range` and fills the null rows in between.
fn for_each_run(
    node: &Node,
    range: Range<usize>,
    first_rep: i16,
    next_rep: i16,
    out: &mut [Option<LeafLevels>],
    mut visit: impl FnMut(Range<usize>, i16, &mut [Option<LeafLevels>]) -> Result<()>,
) -> Result<()> {
    let rep_at = |row: usize| {
        if row == range.start {
            first_rep
        } else {
            next_rep
        }
    };
    let Some(nulls) = &node.nulls else {
        return visit(range.clone(), first_rep, out);
    };
    let null_rows = |out: &mut [Option<LeafLevels>], from: usize, to: usize| {
        if to > from {
            let leaves = node.leaves.clone();
            fill(out, leaves, node.def - 1, rep_at(from), next_rep, to - from);
        }
    };
    let mut row = range.start;
    for_each_valid_run(nulls, range.clone(), |valid| {
        null_rows(out, row, valid.start);
        row = valid.end;
        visit(valid.clone(), rep_at(valid.start), out)
    })?;
    null_rows(out, row, range.end);
    Ok(())
}

/// Below this many rows, runs are found bit by bit: setting up a word-wise scan costs more.
const SHORT_RANGE: usize = 64;

/// Calls `visit` on each run of valid rows of `range`, in order.
fn for_each_valid_run(
    nulls: &NullBuffer,
    range: Range<usize>,
    mut visit: impl FnMut(Range<usize>) -> Result<()>,
) -> Result<()> {
    if range.len() < SHORT_RANGE {
        let mut row = range.start;
        while row < range.end {
            if nulls.is_null(row) {
                row += 1;
                continue;
            }
            let start = row;
            while row < range.end && nulls.is_valid(row) {
                row += 1;
            }
            visit(start..row)?;
        }
        return Ok(());
    }
    let bits = nulls.inner();
    let runs = BitSliceIterator::new(bits.values(), bits.offset() + range.start, range.len());
    for (start, end) in runs {
        visit(range.start + start..range.start + end)?;
    }
    Ok(())
}

/// Appends a leaf's entries for `range` (all its ancestors present there).
fn write_leaf(
    leaf: &mut LeafLevels,
    node: &Node,
    range: Range<usize>,
    first_rep: i16,
    next_rep: i16,
) -> Result<()> {
    let len = range.len();
    let valid = node
        .nulls
        .as_ref()
        .map(|nulls| validity::valid_rows(nulls, &range));
    match (&node.nulls, &mut leaf.def) {
        // Nulls only (a sparse column's batch): one run of levels, no value.
        (Some(_), Some(def)) if valid == Some(0) => def.push_run(node.def - 1, len),
        (Some(nulls), Some(def)) if validity::frequent_nulls(len - valid.unwrap_or(len), len) => {
            let (def, values) = (def.spelled_mut(), leaf.values.listed_mut());
            validity::write_bits(nulls, range.clone(), node.def, def, values);
        }
        (Some(nulls), Some(def)) => {
            let mut row = range.start;
            let values = &mut leaf.values;
            for_each_valid_run(nulls, range.clone(), |valid| {
                def.push_run(node.def - 1, valid.start - row);
                def.push_run(node.def, valid.len());
                values.extend(valid.clone());
                row = valid.end;
                Ok(())
            })?;
            def.push_run(node.def - 1, range.end - row);
        }
        (_, def) => {
            if let Some(def) = def {
                def.push_run(node.def, len);
            }
            leaf.values.extend(range);
        }
    }
    push_rep(&mut leaf.rep, first_rep, next_rep, len);
    Ok(())
}

/// Appends `count` entries of definition level `def` to every wanted leaf in `leaves`.
fn fill(
    out: &mut [Option<LeafLevels>],
    leaves: Range<usize>,
    def: i16,
    first_rep: i16,
    next_rep: i16,
    count: usize,
) {
    for leaf in out[leaves].iter_mut().flatten() {
        if let Some(levels) = &mut leaf.def {
            levels.push_run(def, count);
        }
        push_rep(&mut leaf.rep, first_rep, next_rep, count);
    }
}

fn push_rep(rep: &mut Option<Vec<i16>>, first_rep: i16, next_rep: i16, count: usize) {
    if let (Some(rep), true) = (rep, count > 0) {
        rep.push(first_rep);
        rep.extend(std::iter::repeat_n(next_rep, count - 1));
    }
}

/// Refuses a null in a field that is not nullable, where every ancestor is present.
fn check_reachable(node: &Node, range: &Range<usize>) -> Result<()> {
    let Some(forbidden) = &node.forbidden else {
        return Ok(());
    };
    let (bits, at) = (forbidden.inner().values(), forbidden.offset() + range.start);
    if UnalignedBitChunk::new(bits, at, range.len()).count_ones() == range.len() {
        return Ok(());
    }
    Err(ParquetError::ArrowError(
        "a non-nullable field holds a null where its parents are present: mark the field nullable or fill the null"
            .to_string(),
    ))
}
