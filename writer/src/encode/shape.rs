//! The shapes of Arrow nesting the native encoder walks, and the child ranges of list-like
//! arrays.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, FieldRef};

/// What a node of the nesting is, as far as levels go.
pub(crate) enum Nesting {
    /// A column of values (any type that is not nested).
    Leaf,
    /// A struct: its children share its rows.
    Struct,
    /// A list, large list, fixed-size list or map: each row is a range of the child's rows.
    List(FieldRef),
}

impl Nesting {
    /// The shape of `data_type`; `None` for nesting the native encoder does not walk (list
    /// views, unions, run-end encoded and dictionary-encoded nested values).
    pub(crate) fn of(data_type: &DataType) -> Option<Self> {
        match data_type {
            DataType::Struct(_) => Some(Self::Struct),
            DataType::List(child)
            | DataType::LargeList(child)
            | DataType::FixedSizeList(child, _)
            | DataType::Map(child, _) => Some(Self::List(child.clone())),
            DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::Union(_, _)
            | DataType::RunEndEncoded(_, _) => None,
            DataType::Dictionary(_, values) if values.is_nested() => None,
            _ => Some(Self::Leaf),
        }
    }

    /// Whether every node of `field` has a shape the native encoder walks.
    pub(crate) fn walkable(field: &Field) -> bool {
        match Self::of(field.data_type()) {
            None => false,
            Some(Self::Leaf) => true,
            Some(Self::List(child)) => Self::walkable(&child),
            Some(Self::Struct) => match field.data_type() {
                DataType::Struct(fields) => fields.iter().all(|f| Self::walkable(f)),
                _ => false,
            },
        }
    }
}

/// Where each row of a list-like array finds its elements in the child array.
pub(crate) enum ListOffsets {
    Small(OffsetBuffer<i32>),
    Large(OffsetBuffer<i64>),
    Fixed(usize),
}

impl ListOffsets {
    /// The offsets and child array of a list-like `array` (one [`Nesting::of`] calls a list).
    pub(crate) fn of(array: &ArrayRef) -> (Self, ArrayRef) {
        match array.data_type() {
            DataType::LargeList(_) => {
                let list = array.as_list::<i64>();
                (Self::Large(list.offsets().clone()), list.values().clone())
            }
            DataType::FixedSizeList(_, size) => {
                let list = array.as_fixed_size_list();
                let size = usize::try_from(*size).unwrap_or(0);
                (Self::Fixed(size), list.values().clone())
            }
            DataType::Map(_, _) => {
                let map = array.as_map();
                let entries: ArrayRef = Arc::new(map.entries().clone());
                (Self::Small(map.offsets().clone()), entries)
            }
            _ => {
                let list = array.as_list::<i32>();
                (Self::Small(list.offsets().clone()), list.values().clone())
            }
        }
    }

    /// The child rows of row `row`.
    #[inline]
    pub(crate) fn range(&self, row: usize) -> Range<usize> {
        match self {
            Self::Small(offsets) => offsets[row] as usize..offsets[row + 1] as usize,
            Self::Large(offsets) => offsets[row] as usize..offsets[row + 1] as usize,
            Self::Fixed(size) => row * size..(row + 1) * size,
        }
    }

    /// Calls `visit` with each row of `rows` and its element count, in order.
    #[inline]
    pub(crate) fn for_each_len(&self, rows: Range<usize>, mut visit: impl FnMut(usize, usize)) {
        match self {
            Self::Small(offsets) => lengths(&offsets[rows.start..=rows.end], rows.start, visit),
            Self::Large(offsets) => lengths(&offsets[rows.start..=rows.end], rows.start, visit),
            Self::Fixed(size) => rows.for_each(|row| visit(row, *size)),
        }
    }
}

/// Calls `visit` with each row from `first` on and its length, from consecutive `offsets`.
#[inline]
fn lengths<O: Copy + Into<i64>>(offsets: &[O], first: usize, mut visit: impl FnMut(usize, usize)) {
    for (row, pair) in (first..).zip(offsets.windows(2)) {
        visit(row, (pair[1].into() - pair[0].into()) as usize);
    }
}
