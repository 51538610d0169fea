//! One column of a spec, nested columns holding their children: its values for a list of
//! slots, as an Arrow array of the field's type.

use std::sync::Arc;

use arrow_array::{ArrayRef, FixedSizeListArray, StructArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef};

use super::arrays::{list_array, Ends};
use super::draw::{
    fraction_threshold, null_validity, splitmix, validity_bits, Draw, ItemSlots, Lengths, Slot,
    SlotDraws, Stream,
};
use super::error::error;
use super::leaf::Leaf;
use super::maps::check_map;
use super::parquet_types::{parquet_field, Conversion};
use super::vocabulary::Picker;
use super::{FieldSpec, SpecError, SpecPaths};

mod bounds;
mod dictionary;
mod map;
mod map_keys;

use dictionary::dictionary_kind;
use map::MapKeys;

/// What a column is made of.
#[derive(Debug, Clone)]
enum Kind {
    Leaf(Leaf),
    /// Keys drawn from the value leaf's vocabulary, which is the dictionary.
    Dictionary {
        values: Leaf,
        dictionary: ArrayRef,
    },
    /// List or LargeList.
    List {
        lengths: Lengths,
        item: Box<Column>,
    },
    FixedSizeList {
        size: u64,
        item: Box<Column>,
    },
    /// A map, its entries a struct of key and value; keys are distinct within each map.
    Map {
        lengths: Lengths,
        entries: Box<Column>,
        /// For each key vocabulary entry, the first of the same value, when some repeat one.
        first_equal: Option<Vec<usize>>,
    },
    Struct(Vec<Column>),
}

impl Kind {
    /// What the column of `spec`, with the columns of its `children`, is made of, drawing
    /// from `stream`.
    fn new(
        spec: &FieldSpec,
        stream: Stream,
        parquet_types: bool,
        mut children: Vec<Column>,
    ) -> Result<Self, SpecError> {
        let (path, params) = (spec.path.as_str(), &spec.params);
        // Lists and maps have one child, checked by the parser.
        let mut first_child = || Box::new(children.swap_remove(0));
        Ok(match spec.field.data_type() {
            DataType::List(_) | DataType::LargeList(_) => Kind::List {
                lengths: Lengths::new(params, (0, 4)),
                item: first_child(),
            },
            DataType::FixedSizeList(_, size) => Kind::FixedSizeList {
                size: *size as u64,
                item: first_child(),
            },
            DataType::Map(_, sorted) => {
                check_map(spec, *sorted)?;
                let entries = first_child();
                Kind::Map {
                    lengths: Lengths::new(params, (0, 4)),
                    first_equal: entries.first_equal_keys(),
                    entries,
                }
            }
            DataType::Struct(_) => Kind::Struct(children),
            DataType::Dictionary(key_type, value_type) => {
                dictionary_kind(key_type, value_type, spec, stream, parquet_types)?
            }
            other => Kind::Leaf(Leaf::new(
                other,
                Conversion::of(other, parquet_types),
                params,
                stream,
                path,
            )?),
        })
    }
}

/// One column's generator.
#[derive(Debug, Clone)]
pub(super) struct Column {
    path: String,
    /// The field of the arrays made: the spec's, or with the types Parquet keeps.
    field: FieldRef,
    stream: Stream,
    null_probability: f64,
    /// The values of NULL slots are not drawn (`spec-null-skips`).
    skip_nulls: bool,
    /// NULL draws compared as integers (`spec-resolved-draws`).
    resolved_draws: bool,
    /// A map's keys made from the picks that kept them distinct (`spec-map-key-picks`).
    map_key_picks: bool,
    /// Slot hashes and NULL draws computed eight slots at a time (`spec-wide-hashes`).
    wide_hashes: bool,
    /// A map's items filtered a chunk at a time (`spec-map-key-chunks`).
    map_key_chunks: bool,
    kind: Kind,
}

impl Column {
    /// The column of `spec`, its position in the schema hashed into `position`; with
    /// `parquet_types`, its types are stored as `parquet_type` says.
    pub fn new(
        spec: &FieldSpec,
        seed: u64,
        position: u64,
        parquet_types: bool,
    ) -> Result<Self, SpecError> {
        let stream = Stream::new(seed, position);
        let children = spec
            .children
            .iter()
            .enumerate()
            .map(|(i, child)| {
                let position = splitmix(position ^ (i as u64 + 1));
                Column::new(child, seed, position, parquet_types)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            path: spec.path.clone(),
            field: if parquet_types {
                parquet_field(&spec.field)
            } else {
                spec.field.clone()
            },
            stream,
            null_probability: spec.params.null_probability,
            skip_nulls: false,
            resolved_draws: false,
            map_key_picks: false,
            wide_hashes: false,
            map_key_chunks: false,
            kind: Kind::new(spec, stream, parquet_types, children)?,
        })
    }

    /// [`Leaf::set_paths`] for every leaf of the column; lists and maps draw their lengths by
    /// the paths too.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        self.stream = self.stream.sharing_keys(paths.shared_slot_keys);
        self.skip_nulls = paths.null_skips;
        self.resolved_draws = paths.resolved_draws;
        self.map_key_picks = paths.map_key_picks;
        self.wide_hashes = paths.wide_hashes;
        self.map_key_chunks = paths.map_key_chunks;
        match &mut self.kind {
            Kind::Leaf(leaf) | Kind::Dictionary { values: leaf, .. } => leaf.set_paths(paths),
            Kind::List { item, lengths }
            | Kind::Map {
                entries: item,
                lengths,
                ..
            } => {
                lengths.set_paths(paths);
                item.set_paths(paths);
            }
            Kind::FixedSizeList { item, .. } => item.set_paths(paths),
            Kind::Struct(children) => children.iter_mut().for_each(|child| child.set_paths(paths)),
        }
    }

    /// The field of the column's arrays.
    pub fn field(&self) -> &FieldRef {
        &self.field
    }

    /// Where the column is in the spec, e.g. `fields[2]`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// An identifier of the value of `slot` within the column's vocabulary, if it has one.
    fn vocabulary_index(&self, slot: Slot) -> Option<usize> {
        match &self.kind {
            Kind::Leaf(leaf) | Kind::Dictionary { values: leaf, .. } => {
                leaf.vocabulary_index(self.stream, slot)
            }
            _ => None,
        }
    }

    /// What picks a value's entry by its value draw, when values come from one vocabulary
    /// list: its pick is the value's [`Self::vocabulary_index`], without a choice per value.
    fn picker(&self) -> Option<&Picker> {
        match &self.kind {
            Kind::Leaf(leaf) | Kind::Dictionary { values: leaf, .. } => leaf.picker(),
            _ => None,
        }
    }

    /// Which of `slots` hold a value (`None`: all of them), packed straight into validity
    /// words: no vector of one `bool` per slot to pack afterwards.
    fn validity(&self, slots: &[Slot]) -> Option<BooleanBuffer> {
        if self.null_probability <= 0.0 {
            return None;
        }
        let stream = self.stream;
        // NULL draws compared as integers (`spec-resolved-draws`), eight at a time with
        // `spec-wide-hashes`.
        if self.resolved_draws || self.wide_hashes {
            let threshold = fraction_threshold(self.null_probability);
            return Some(null_validity(slots, stream, threshold, self.wide_hashes));
        }
        Some(validity_bits(slots, |slot| {
            stream.fraction(slot, Draw::Null) >= self.null_probability
        }))
    }

    /// The column's values for `slots`.
    pub fn array(&self, slots: &[Slot]) -> Result<ArrayRef, SpecError> {
        let validity = self.validity(slots);
        let nulls = validity.clone().map(NullBuffer::new);
        let validity = validity.as_ref();
        // The slots whose values are drawn: those with one, or all (`spec-null-skips` off).
        let drawn = validity.filter(|_| self.skip_nulls);
        match &self.kind {
            Kind::Leaf(leaf) => leaf.array(
                self.field.data_type(),
                self.stream,
                slots,
                nulls,
                drawn,
                &self.path,
            ),
            Kind::Dictionary { dictionary, .. } => {
                self.dictionary_array(dictionary, slots, drawn, nulls)
            }
            Kind::List { lengths, item } => self.list_array(lengths, item, slots, validity, nulls),
            Kind::Map {
                lengths,
                entries,
                first_equal,
            } => {
                let keys = MapKeys {
                    lengths,
                    entries,
                    first_equal: first_equal.as_deref(),
                };
                self.map_array(keys, slots, validity, nulls)
            }
            Kind::FixedSizeList { size, item } => {
                self.fixed_size_list_array(*size, item, slots, nulls)
            }
            Kind::Struct(children) => {
                let columns = children.iter().map(|c| c.array(slots));
                self.struct_array(columns.collect::<Result<_, _>>()?, nulls)
            }
        }
    }

    /// The error for an array Arrow refuses to assemble.
    fn assembly_error(&self, e: ArrowError) -> SpecError {
        error(&self.path, format!("cannot assemble the column: {e}"))
    }

    fn list_array(
        &self,
        lengths: &Lengths,
        item: &Column,
        slots: &[Slot],
        validity: Option<&BooleanBuffer>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let item_slots = self.item_slots(lengths.max());
        let mut items = item_slots.collect(self.expected_items(lengths, slots));
        let ends = self.lists(lengths, slots, validity, |slot, length| {
            items.push_list(slot, length)
        });
        let values = item.array(&items.finish())?;
        match self.field.data_type() {
            DataType::LargeList(field) => {
                list_array::<i64>(field, &ends, values, nulls, &self.path)
            }
            DataType::List(field) => list_array::<i32>(field, &ends, values, nulls, &self.path),
            _ => unreachable!("a list column has a list type"),
        }
    }

    /// The slots of the column's list items, at most `stride` to a list.
    fn item_slots(&self, stride: u64) -> ItemSlots {
        ItemSlots::new(stride, self.stream.shares_keys(), self.wide_hashes)
    }

    /// About how many items the lists of `slots` hold together: what their vector is sized for.
    fn expected_items(&self, lengths: &Lengths, slots: &[Slot]) -> usize {
        lengths.expected_total(slots.len() as f64 * (1.0 - self.null_probability))
    }

    /// Calls `list` with the slot and drawn length of each list in `slots` (0 for a NULL list,
    /// [`Self::each_list`]) and returns where each list ends: the count `list` returns after
    /// it.
    fn lists(
        &self,
        lengths: &Lengths,
        slots: &[Slot],
        validity: Option<&BooleanBuffer>,
        mut list: impl FnMut(Slot, u64) -> usize,
    ) -> Ends {
        let mut ends = Ends::with_capacity(slots.len());
        self.each_list(lengths, slots, validity, |slot, length| {
            ends.push(list(slot, length))
        });
        ends
    }

    /// Calls `list` with the slot and drawn length of each list in `slots`, 0 for a NULL list.
    fn each_list(
        &self,
        lengths: &Lengths,
        slots: &[Slot],
        validity: Option<&BooleanBuffer>,
        mut list: impl FnMut(Slot, u64),
    ) {
        let draws = SlotDraws::new(slots, self.stream, Draw::Length, self.wide_hashes);
        for (i, &slot) in slots.iter().enumerate() {
            let length = match validity.is_none_or(|v| v.value(i)) {
                true => lengths.of_bits(draws.bits(i, slot)),
                false => 0,
            };
            list(slot, length);
        }
    }

    fn fixed_size_list_array(
        &self,
        size: u64,
        item: &Column,
        slots: &[Slot],
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let item_slots = self.item_slots(size);
        // Sized ahead: the vector never grows.
        let mut items = item_slots.collect(slots.len() * size as usize);
        for &slot in slots {
            items.push_list(slot, size);
        }
        let items = items.finish();
        let DataType::FixedSizeList(field, size) = self.field.data_type() else {
            unreachable!("a fixed-size list column has a fixed-size list type")
        };
        let array = FixedSizeListArray::try_new(field.clone(), *size, item.array(&items)?, nulls)
            .map_err(|e| self.assembly_error(e))?;
        Ok(Arc::new(array))
    }

    /// The struct of the children's `columns`.
    fn struct_array(
        &self,
        columns: Vec<ArrayRef>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let DataType::Struct(fields) = self.field.data_type() else {
            unreachable!("a struct column has a struct type")
        };
        let array = StructArray::try_new(fields.clone(), columns, nulls)
            .map_err(|e| self.assembly_error(e))?;
        Ok(Arc::new(array))
    }
}
