//! The levels of a list's (or map's) rows: each present, non-empty list is its elements' entries,
//! the first of them at the level of the list's own row; a null or empty list is one entry.

use std::ops::Range;

use parquet::errors::Result;

use super::{fill, write, LeafLevels, Levels, Node};
use crate::encode::shape::ListOffsets;

/// Below this many rows, a list's elements are walked run by run: the spanned walk's scratch
/// levels cost more than they save.
const SPANNED_MIN_ROWS: usize = 64;

/// A list node of the nesting, with what its rows need.
#[derive(Clone, Copy)]
pub(super) struct List<'a> {
    pub node: &'a Node,
    pub offsets: &'a ListOffsets,
    pub child: &'a Node,
    /// The repetition level of the list's elements.
    pub level: i16,
}

/// Appends the levels of a list's rows `range`, the first entry at `first_rep` and every later
/// row's first at `next_rep`.
pub(super) fn write_list(
    list: List<'_>,
    range: Range<usize>,
    first_rep: i16,
    next_rep: i16,
    out: &mut [Option<LeafLevels>],
) -> Result<()> {
    let spanned = !list.child.repeated_below
        && range.len() >= SPANNED_MIN_ROWS
        && elements_all_present(list, &range);
    let rows = Rows {
        list,
        range,
        first_rep,
        next_rep,
    };
    if spanned {
        write_spanned(&rows, out)
    } else {
        write_runs(&rows, out)
    }
}

/// Whether every element in the span of `range`'s lists belongs to a present list: no null
/// list of the range covers elements (Arrow allows it; fixed-size lists always do).
fn elements_all_present(list: List<'_>, range: &Range<usize>) -> bool {
    let Some(nulls) = &list.node.nulls else {
        return true;
    };
    // One pass over the lengths without branches: null lists come at random (40% of the
    // contacts'), too often for a walk of the valid runs between them to pay.
    let mut covered = false;
    list.offsets.for_each_len(range.clone(), |row, len| {
        covered |= (len > 0) & nulls.is_null(row);
    });
    !covered
}

/// Appends the levels of `range` where each element is one entry per leaf (no list below) and
/// every element lies under a present list: the child's levels for the whole span of elements
/// at once, then one pass per leaf over its entries that interleaves them with the entries of
/// null and empty lists, as the rows' [`Layout`] (made once for all leaves) places them.
fn write_spanned(rows: &Rows<'_>, out: &mut [Option<LeafLevels>]) -> Result<()> {
    let Rows { list, range, .. } = rows;
    let span = list.offsets.range(range.start).start..list.offsets.range(range.end - 1).end;
    let leaves = list.node.leaves.clone();
    // The child's entries, one per element: definition levels, and the values the leaf's own
    // list of positions takes as they come (a null or empty list carries none).
    let mut scratch: Vec<Option<LeafLevels>> = out
        .iter_mut()
        .enumerate()
        .map(|(slot, leaf)| {
            let leaf = leaf.as_mut().filter(|_| leaves.contains(&slot))?;
            let values = std::mem::take(&mut leaf.values);
            Some(LeafLevels {
                def: leaf.def.as_ref().map(|_| Levels::default()),
                rep: None,
                values,
                array: leaf.array.clone(),
                uniform: false,
            })
        })
        .collect();
    // On an error the levels are dropped, with the positions taken out of `out`.
    write(list.child, span.clone(), 0, 0, &mut scratch)?;
    let layout = Layout::of(rows, &span);
    for (leaf, elements) in out[leaves.clone()].iter_mut().zip(&mut scratch[leaves]) {
        let (Some(leaf), Some(elements)) = (leaf, elements) else {
            continue;
        };
        leaf.values = std::mem::take(&mut elements.values);
        leaf.uniform &= span.is_empty();
        if let (Some(def), Some(rep)) = (&mut leaf.def, &mut leaf.rep) {
            layout.extend(&elements.def.take().unwrap_or_default(), def);
            rep.extend_from_slice(&layout.rep);
        }
    }
    Ok(())
}

/// A list's rows and the repetition levels their first entries take.
struct Rows<'a> {
    list: List<'a>,
    range: Range<usize>,
    first_rep: i16,
    next_rep: i16,
}

impl Rows<'_> {
    /// The repetition level of `row`'s first entry.
    fn rep_at(&self, row: usize) -> i16 {
        match row == self.range.start {
            true => self.first_rep,
            false => self.next_rep,
        }
    }
}

/// Where a list's rows put their entries, the same for every leaf below it: each entry's
/// repetition level, and the definition level of each entry a null or empty list stands for.
/// Every list covers at least one entry (its elements, or its own), so the entries are laid out
/// from the lists' lengths in one pass over the offsets, with no per-entry branch.
struct Layout {
    rep: Vec<i16>,
    /// Per entry, a null or empty list's definition level or [`ELEMENT`]; empty where every
    /// entry is an element's.
    def: Vec<i16>,
    /// Where [`Self::def`] is not empty: the entry of each element, in order.
    elements: Vec<usize>,
}

/// In [`Layout::def`], an entry that is an element's: the leaf's own levels give its level.
const ELEMENT: i16 = -1;

impl Layout {
    /// The layout of `rows`, whose lists' elements are `span`.
    fn of(rows: &Rows<'_>, span: &Range<usize>) -> Self {
        let Rows { list, range, .. } = rows;
        let mut empty = 0;
        list.offsets
            .for_each_len(range.clone(), |_, len| empty += usize::from(len == 0));
        let entries = span.len() + empty;
        let mut rep = vec![list.level; entries];
        let mut def = match empty {
            0 => Vec::new(),
            _ => vec![ELEMENT; entries],
        };
        let mut at = 0;
        let nulls = list.node.nulls.as_ref();
        let mut elements = Vec::new();
        if def.is_empty() {
            list.offsets.for_each_len(range.clone(), |_, len| {
                rep[at] = rows.next_rep;
                at += len;
            });
        } else {
            // Without branches on the lengths, which follow no pattern (in the contacts, 40%
            // of the lists are null, at random).
            list.offsets.for_each_len(range.clone(), |row, len| {
                rep[at] = rows.next_rep;
                let own = list.node.def - i16::from(nulls.is_some_and(|n| n.is_null(row)));
                def[at] = if len == 0 { own } else { ELEMENT };
                at += len.max(1);
            });
            // Each entry is written at the next element's slot, which moves on past elements
            // only: no branch on the kind of entry. The slot after the last takes the entries
            // of lists after it.
            elements.resize(span.len() + 1, 0);
            let mut next = 0;
            for (entry, &level) in def.iter().enumerate() {
                elements[next] = entry;
                next += usize::from(level == ELEMENT);
            }
            elements.truncate(span.len());
        }
        if let Some(first) = rep.first_mut() {
            *first = rows.first_rep;
        }
        Self { rep, def, elements }
    }

    /// Appends one leaf's definition levels: its elements' (`element_defs`, the span's) with
    /// the entries of null and empty lists between them. Elements all alike with no such entry
    /// stay one run. Otherwise the entries are copied whole, then each element's level stored
    /// at its entry: no store waits on the one before, where a merge walking both carried its
    /// position from entry to entry.
    fn extend(&self, element_defs: &Levels, def: &mut Levels) {
        match (element_defs, self.def.is_empty()) {
            (Levels::Same { level, count }, true) => def.push_run(*level, *count),
            (Levels::Spelled(levels), true) => def.spelled_mut().extend_from_slice(levels),
            (Levels::Same { level, .. }, false) => {
                let entry_level = |&entry: &i16| if entry == ELEMENT { *level } else { entry };
                def.spelled_mut().extend(self.def.iter().map(entry_level));
            }
            (Levels::Spelled(levels), false) => {
                let def = def.spelled_mut();
                let start = def.len();
                def.extend_from_slice(&self.def);
                let entries = &mut def[start..];
                for (&at, &level) in self.elements.iter().zip(levels) {
                    entries[at] = level;
                }
            }
        }
    }
}

/// Appends the levels of a list's rows `range` run by run: each run of present, non-empty lists
/// is one write of the child over the run's elements; the first entry of every list after the
/// run's first then gets the level of the list's own rows.
fn write_runs(rows: &Rows<'_>, out: &mut [Option<LeafLevels>]) -> Result<()> {
    let Rows { list, next_rep, .. } = *rows;
    let range = rows.range.clone();
    let List {
        node,
        offsets,
        child,
        level,
    } = list;
    let is_null = |row: usize| node.nulls.as_ref().is_some_and(|n| n.is_null(row));
    // The child rows of `row`, `None` where the list is null or empty.
    let elements_of = |row: usize| {
        let elements = offsets.range(row);
        (!elements.is_empty() && !is_null(row)).then_some(elements)
    };
    let mut reached = false;
    // Per leaf, its entries before a run of lists: where the run's restamping starts.
    let mut before = Vec::new();
    let mut row = range.start;
    while row < range.end {
        let rep = rows.rep_at(row);
        let Some(first) = elements_of(row) else {
            // A run of null lists, or of empty ones: one entry per row, all alike.
            let null = is_null(row);
            let mut end = row + 1;
            while end < range.end && elements_of(end).is_none() && is_null(end) == null {
                end += 1;
            }
            let def = if null { node.def - 1 } else { node.def };
            fill(out, node.leaves.clone(), def, rep, next_rep, end - row);
            row = end;
            continue;
        };
        let (mut end, mut last) = (row + 1, first.end);
        while end < range.end {
            match elements_of(end) {
                Some(elements) => last = elements.end,
                None => break,
            }
            end += 1;
        }
        let elements = first.start..last;
        if end == row + 1 {
            write(child, elements, rep, level, out)?;
        } else {
            before.clear();
            before.extend(out[node.leaves.clone()].iter().map(|leaf| {
                leaf.as_ref()
                    .and_then(|l| l.rep.as_ref())
                    .map_or(0, Vec::len)
            }));
            write(child, elements.clone(), rep, level, out)?;
            let starts = (row + 1..end).map(|r| offsets.range(r).start - elements.start);
            restamp_leaves(list, out, &before, starts, next_rep);
        }
        reached = true;
        row = end;
    }
    if reached {
        for leaf in out[node.leaves.clone()].iter_mut().flatten() {
            leaf.uniform = false;
        }
    }
    Ok(())
}

/// Gives the first entry of each list of a run but its first (`starts`: their first elements,
/// counted from the run's) the repetition level `row_rep` of a new row, in every leaf below
/// `list`; `before` holds each leaf's entries before the run.
fn restamp_leaves(
    list: List<'_>,
    out: &mut [Option<LeafLevels>],
    before: &[usize],
    starts: impl Iterator<Item = usize> + Clone,
    row_rep: i16,
) {
    for (leaf, &before) in out[list.node.leaves.clone()].iter_mut().zip(before) {
        let Some(rep) = leaf.as_mut().and_then(|l| l.rep.as_mut()) else {
            continue;
        };
        if list.child.repeated_below {
            restamp(&mut rep[before..], starts.clone(), list.level, row_rep);
        } else {
            // One entry per element: the element's index is its entry's.
            starts
                .clone()
                .for_each(|start| rep[before + start] = row_rep);
        }
    }
}

/// Gives the entries that start the list elements `starts` (indices among the elements the
/// entries `rep` hold, ascending) the repetition level `row_rep` of a new list. An entry starts
/// an element where its level is at most `level`, the list's own.
fn restamp(rep: &mut [i16], mut starts: impl Iterator<Item = usize>, level: i16, row_rep: i16) {
    let Some(mut next) = starts.next() else {
        return;
    };
    let mut element = 0;
    for entry in rep.iter_mut() {
        if *entry > level {
            continue;
        }
        if element == next {
            *entry = row_rep;
            match starts.next() {
                Some(start) => next = start,
                None => return,
            }
        }
        element += 1;
    }
}
