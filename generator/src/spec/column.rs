//! One column of a spec, nested columns holding their children: its values for a list of
//! slots, as an Arrow array of the field's type.

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, FixedSizeListArray, MapArray, NullArray, StructArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef};

use super::arrays::{
    byte_array, dictionary_array, float_array, integer_array, key_capacity, list_array, offsets,
};
use super::bytes::Bytes;
use super::draw::{splitmix, Draw, Lengths, Slot, Stream};
use super::error::error;
use super::numbers::{Booleans, Floats, Integers};
use super::{Distribution, FieldSpec, Params, SpecError};

/// A leaf's values, by kind of type.
#[derive(Debug, Clone)]
enum Leaf {
    Null,
    Boolean(Booleans),
    Integer(Integers),
    Float(Floats),
    Bytes(Bytes),
}

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
    },
    Struct(Vec<Column>),
}

/// One column's generator.
#[derive(Debug, Clone)]
pub(super) struct Column {
    path: String,
    field: FieldRef,
    stream: Stream,
    null_probability: f64,
    kind: Kind,
}

impl Column {
    /// The column of `spec`, its position in the schema hashed into `position`.
    pub fn new(spec: &FieldSpec, seed: u64, position: u64) -> Result<Self, SpecError> {
        let stream = Stream::new(seed, position);
        let path = spec.path.as_str();
        let params = &spec.params;
        let children = || -> Result<Vec<Column>, SpecError> {
            spec.children
                .iter()
                .enumerate()
                .map(|(i, child)| Column::new(child, seed, splitmix(position ^ (i as u64 + 1))))
                .collect()
        };
        let first_child =
            || -> Result<Box<Column>, SpecError> { Ok(Box::new(children()?.swap_remove(0))) };
        let kind = match spec.field.data_type() {
            DataType::List(_) | DataType::LargeList(_) => Kind::List {
                lengths: Lengths::new(params, (0, 4)),
                item: first_child()?,
            },
            DataType::FixedSizeList(_, size) => Kind::FixedSizeList {
                size: *size as u64,
                item: first_child()?,
            },
            DataType::Map(_, sorted) => {
                check_map(spec, *sorted)?;
                Kind::Map {
                    lengths: Lengths::new(params, (0, 4)),
                    entries: first_child()?,
                }
            }
            DataType::Struct(_) => Kind::Struct(children()?),
            DataType::Dictionary(key_type, value_type) => {
                dictionary_kind(key_type, value_type, params, stream, path)?
            }
            other => Kind::Leaf(leaf(other, params, stream, path)?),
        };
        Ok(Self {
            path: spec.path.clone(),
            field: spec.field.clone(),
            stream,
            null_probability: params.null_probability,
            kind,
        })
    }

    /// An identifier of the value of `slot` within the column's vocabulary, if it has one.
    fn vocabulary_index(&self, slot: Slot) -> Option<usize> {
        let values = match &self.kind {
            Kind::Leaf(leaf) | Kind::Dictionary { values: leaf, .. } => leaf,
            _ => return None,
        };
        match values {
            Leaf::Boolean(b) => b.vocabulary_index(self.stream, slot),
            Leaf::Integer(i) => i.vocabulary_index(self.stream, slot),
            Leaf::Float(f) => f.vocabulary_index(self.stream, slot),
            Leaf::Bytes(b) => b.vocabulary_index(self.stream, slot),
            Leaf::Null => None,
        }
    }

    /// Fails when a batch of `rows` rows could hold more than 32-bit offsets address.
    pub fn check_rows(&self, rows: u128) -> Result<(), SpecError> {
        let limit = i32::MAX as u128;
        let too_many = |what: &str, needed: u128| {
            error(
                &self.path,
                format!(
                    "a batch could hold {needed} {what}, beyond the 2^31 that {} addresses: use a smaller batch size, or the Large variant of the type",
                    self.field.data_type()
                ),
            )
        };
        match (&self.kind, self.field.data_type()) {
            (Kind::Leaf(Leaf::Bytes(bytes)), DataType::Utf8 | DataType::Binary) => {
                let needed = rows.saturating_mul(u128::from(bytes.max_len()));
                if needed > limit {
                    return Err(too_many("bytes", needed));
                }
                Ok(())
            }
            (Kind::List { lengths, item }, data_type)
            | (
                Kind::Map {
                    lengths,
                    entries: item,
                },
                data_type,
            ) => {
                let items = rows.saturating_mul(u128::from(lengths.max()));
                if items > limit && !matches!(data_type, DataType::LargeList(_)) {
                    return Err(too_many("items", items));
                }
                item.check_rows(items)
            }
            (Kind::FixedSizeList { size, item }, _) => {
                item.check_rows(rows.saturating_mul(u128::from(*size)))
            }
            (Kind::Struct(children), _) => children.iter().try_for_each(|c| c.check_rows(rows)),
            _ => Ok(()),
        }
    }

    /// Which of `slots` hold a value (`None`: all of them).
    fn validity(&self, slots: &[Slot]) -> Option<Vec<bool>> {
        (self.null_probability > 0.0).then(|| {
            slots
                .iter()
                .map(|&slot| self.stream.fraction(slot, Draw::Null) >= self.null_probability)
                .collect()
        })
    }

    /// The column's values for `slots`.
    pub fn array(&self, slots: &[Slot]) -> Result<ArrayRef, SpecError> {
        let validity = self.validity(slots);
        let nulls = validity
            .as_deref()
            .map(|v| NullBuffer::new(BooleanBuffer::from(v)));
        let validity = validity.as_deref();
        match &self.kind {
            Kind::Leaf(leaf) => leaf_array(
                leaf,
                self.field.data_type(),
                self.stream,
                slots,
                nulls,
                &self.path,
            ),
            Kind::Dictionary { dictionary, .. } => self.dictionary_array(dictionary, slots, nulls),
            Kind::List { lengths, item } => self.list_array(lengths, item, slots, validity, nulls),
            Kind::Map { lengths, entries } => {
                self.map_array(lengths, entries, slots, validity, nulls)
            }
            Kind::FixedSizeList { size, item } => {
                self.fixed_size_list_array(*size, item, slots, nulls)
            }
            Kind::Struct(children) => self.struct_array(children, slots, nulls),
        }
    }

    /// The error for an array Arrow refuses to assemble.
    fn assembly_error(&self, e: ArrowError) -> SpecError {
        error(&self.path, format!("cannot assemble the column: {e}"))
    }

    fn dictionary_array(
        &self,
        dictionary: &ArrayRef,
        slots: &[Slot],
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let DataType::Dictionary(key_type, _) = self.field.data_type() else {
            unreachable!("a dictionary column has a dictionary type")
        };
        // Every key is in range: the vocabulary is the dictionary.
        let keys = slots
            .iter()
            .map(|&slot| self.vocabulary_index(slot).unwrap_or(0));
        dictionary_array(key_type, keys, nulls, dictionary.clone())
            .map_err(|e| self.assembly_error(e))
    }

    fn list_array(
        &self,
        lengths: &Lengths,
        item: &Column,
        slots: &[Slot],
        validity: Option<&[bool]>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let (items, ends) = self.list_items(lengths, slots, validity, None);
        let values = item.array(&items)?;
        match self.field.data_type() {
            DataType::LargeList(field) => {
                list_array::<i64>(field, &ends, values, nulls, &self.path)
            }
            DataType::List(field) => list_array::<i32>(field, &ends, values, nulls, &self.path),
            _ => unreachable!("a list column has a list type"),
        }
    }

    fn map_array(
        &self,
        lengths: &Lengths,
        entries: &Column,
        slots: &[Slot],
        validity: Option<&[bool]>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let Kind::Struct(fields) = &entries.kind else {
            unreachable!("map entries are a struct, checked at construction")
        };
        let (items, ends) = self.list_items(lengths, slots, validity, Some(&fields[0]));
        let DataType::Map(field, sorted) = self.field.data_type() else {
            unreachable!("a map column has a map type")
        };
        let entries = entries.array(&items)?;
        let entries = entries
            .as_any()
            .downcast_ref::<StructArray>()
            .cloned()
            .ok_or_else(|| error(&self.path, "map entries must be a struct"))?;
        let offsets = offsets(&ends, &self.path)?;
        let map = MapArray::try_new(field.clone(), offsets, entries, nulls, *sorted)
            .map_err(|e| self.assembly_error(e))?;
        Ok(Arc::new(map))
    }

    /// The items of the lists in `slots` (none for NULL lists), end to end, and where each list
    /// ends. With a map's `key` column, an item whose key is already in its map is left out:
    /// a key drawn twice keeps its first entry only.
    fn list_items(
        &self,
        lengths: &Lengths,
        slots: &[Slot],
        validity: Option<&[bool]>,
        key: Option<&Column>,
    ) -> (Vec<Slot>, Vec<usize>) {
        let mut items = Vec::new();
        let mut ends = Vec::with_capacity(slots.len());
        let mut seen = Vec::new();
        for (i, &slot) in slots.iter().enumerate() {
            if validity.is_none_or(|v| v[i]) {
                let length = lengths.draw(self.stream, slot);
                let list = (0..length).map(|k| slot.item(k, lengths.max()));
                match key {
                    None => items.extend(list),
                    Some(key) => {
                        seen.clear();
                        items.extend(list.filter(|&item| match key.vocabulary_index(item) {
                            Some(id) if seen.contains(&id) => false,
                            Some(id) => {
                                seen.push(id);
                                true
                            }
                            None => true,
                        }));
                    }
                }
            }
            ends.push(items.len());
        }
        (items, ends)
    }

    fn fixed_size_list_array(
        &self,
        size: u64,
        item: &Column,
        slots: &[Slot],
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let items: Vec<Slot> = slots
            .iter()
            .flat_map(|&slot| (0..size).map(move |k| slot.item(k, size)))
            .collect();
        let DataType::FixedSizeList(field, size) = self.field.data_type() else {
            unreachable!("a fixed-size list column has a fixed-size list type")
        };
        let array = FixedSizeListArray::try_new(field.clone(), *size, item.array(&items)?, nulls)
            .map_err(|e| self.assembly_error(e))?;
        Ok(Arc::new(array))
    }

    fn struct_array(
        &self,
        children: &[Column],
        slots: &[Slot],
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let DataType::Struct(fields) = self.field.data_type() else {
            unreachable!("a struct column has a struct type")
        };
        let columns = children
            .iter()
            .map(|c| c.array(slots))
            .collect::<Result<Vec<_>, _>>()?;
        let array = StructArray::try_new(fields.clone(), columns, nulls)
            .map_err(|e| self.assembly_error(e))?;
        Ok(Arc::new(array))
    }
}

/// Fails unless the map `spec` can be generated: keys unsorted, and drawn distinct.
fn check_map(spec: &FieldSpec, sorted: bool) -> Result<(), SpecError> {
    if sorted {
        return Err(error(
            &spec.path,
            "maps with keysSorted are not generated: set keysSorted to false",
        ));
    }
    let key = spec.children.first().and_then(|e| e.children.first());
    if !key.is_some_and(|k| draws_distinct_keys(&k.params)) {
        return Err(error(
            &spec.path,
            "a map's keys must be distinct within each map: give the key values, cardinality or vocabulary, or make it sequential or unique",
        ));
    }
    Ok(())
}

/// Whether values drawn under `params` can serve as a map's keys: from a vocabulary (then
/// deduplicated within each map), unique, or sequential with steps of at least 1.
fn draws_distinct_keys(params: &Params) -> bool {
    params.draws_from_vocabulary()
        || params.unique
        || matches!(params.distribution, Distribution::Sequential { step } if step.abs() >= 1.0)
}

/// A dictionary-encoded column: its values' leaf, whose vocabulary is the dictionary, which
/// keys of `key_type` must address.
fn dictionary_kind(
    key_type: &DataType,
    value_type: &DataType,
    params: &Params,
    stream: Stream,
    path: &str,
) -> Result<Kind, SpecError> {
    let values = leaf(value_type, params, stream, path)?;
    let dictionary = vocabulary_array(&values, value_type, path)?;
    let capacity = key_capacity(key_type);
    if dictionary.len() as u64 > capacity {
        return Err(error(
            path,
            format!(
                "{} dictionary entries do not fit {key_type} keys (at most {capacity}): use a wider indexType",
                dictionary.len()
            ),
        ));
    }
    Ok(Kind::Dictionary { values, dictionary })
}

/// The leaf values for `data_type` under `params`.
fn leaf(
    data_type: &DataType,
    params: &Params,
    stream: Stream,
    path: &str,
) -> Result<Leaf, SpecError> {
    if let Some(integers) = Integers::new(data_type, params, path) {
        return integers.map(Leaf::Integer);
    }
    if let Some(floats) = Floats::new(data_type, params, path) {
        return floats.map(Leaf::Float);
    }
    if let Some(bytes) = Bytes::new(data_type, params, stream, path) {
        return bytes.map(Leaf::Bytes);
    }
    if let Some(booleans) = Booleans::new(data_type, params, path) {
        return booleans.map(Leaf::Boolean);
    }
    match data_type {
        DataType::Null => Ok(Leaf::Null),
        other => Err(error(path, format!("{other} values are not generated"))),
    }
}

/// A dictionary's values: the whole vocabulary of its value leaf.
fn vocabulary_array(
    values: &Leaf,
    data_type: &DataType,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    let needs_vocabulary = || {
        error(
            path,
            "a dictionary-encoded field draws from a vocabulary: give it values or cardinality (one word list at most)",
        )
    };
    match values {
        Leaf::Integer(integers) => {
            let entries = integers.vocabulary().ok_or_else(needs_vocabulary)?;
            Ok(integer_array(data_type, entries.iter().copied(), None))
        }
        Leaf::Float(floats) => {
            let entries = floats.vocabulary().ok_or_else(needs_vocabulary)?;
            Ok(float_array(data_type, entries.iter().copied(), None))
        }
        Leaf::Bytes(bytes) => {
            let entries = bytes.vocabulary().ok_or_else(needs_vocabulary)?;
            let mut data = Vec::new();
            let ends: Vec<usize> = entries
                .iter()
                .map(|e| {
                    data.extend_from_slice(e);
                    data.len()
                })
                .collect();
            byte_array(data_type, data, &ends, None, path)
        }
        Leaf::Boolean(_) | Leaf::Null => Err(error(
            path,
            format!("dictionaries of {data_type} are not written by Parquet writers: drop the dictionary"),
        )),
    }
}

/// The values of `leaf` for `slots`, as an array of `data_type`.
fn leaf_array(
    leaf: &Leaf,
    data_type: &DataType,
    stream: Stream,
    slots: &[Slot],
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    Ok(match leaf {
        Leaf::Null => Arc::new(NullArray::new(slots.len())),
        Leaf::Boolean(booleans) => Arc::new(BooleanArray::new(
            slots
                .iter()
                .map(|&s| booleans.value(stream, s))
                .collect::<BooleanBuffer>(),
            nulls,
        )),
        Leaf::Integer(integers) => integer_array(
            data_type,
            slots.iter().map(|&s| integers.value(stream, s)),
            nulls,
        ),
        Leaf::Float(floats) => float_array(
            data_type,
            slots.iter().map(|&s| floats.value(stream, s)),
            nulls,
        ),
        Leaf::Bytes(bytes) => {
            let mut data = Vec::with_capacity(slots.len() * bytes.typical_len());
            let ends: Vec<usize> = slots
                .iter()
                .map(|&s| {
                    bytes.write(&mut data, stream, s);
                    data.len()
                })
                .collect();
            byte_array(data_type, data, &ends, nulls, path)?
        }
    })
}
