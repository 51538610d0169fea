//! One column of a spec, nested columns holding their children: its values for a list of
//! slots, as an Arrow array of the field's type.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BinaryViewArray, BooleanArray, DictionaryArray,
    FixedSizeBinaryArray, FixedSizeListArray, GenericListArray, LargeBinaryArray, LargeStringArray,
    MapArray, NullArray, PrimitiveArray, StringArray, StringViewArray, StructArray,
};
use arrow_buffer::{i256, BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, FieldRef, TimeUnit};
use half::f16;

use super::bytes::Bytes;
use super::draw::{splitmix, Draw, Lengths, Slot, Stream};
use super::numbers::{Booleans, Floats, Integers};
use super::parse::error;
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
                if *sorted {
                    return Err(error(
                        path,
                        "maps with keysSorted are not generated: set keysSorted to false",
                    ));
                }
                let key = spec.children.first().and_then(|e| e.children.first());
                if !key.is_some_and(|k| draws_distinct_keys(&k.params)) {
                    return Err(error(
                        path,
                        "a map's keys must be distinct within each map: give the key values, cardinality or vocabulary, or make it sequential or unique",
                    ));
                }
                Kind::Map {
                    lengths: Lengths::new(params, (0, 4)),
                    entries: first_child()?,
                }
            }
            DataType::Struct(_) => Kind::Struct(children()?),
            DataType::Dictionary(key_type, value_type) => {
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
                Kind::Dictionary { values, dictionary }
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
                .map(|&slot| self.stream.unit(slot, Draw::Null) >= self.null_probability)
                .collect()
        })
    }

    /// The column's values for `slots`.
    pub fn array(&self, slots: &[Slot]) -> Result<ArrayRef, SpecError> {
        let validity = self.validity(slots);
        let valid = |i: usize| validity.as_ref().is_none_or(|v| v[i]);
        let nulls = validity
            .as_deref()
            .map(|v| NullBuffer::new(BooleanBuffer::from(v)));
        let data_type = self.field.data_type();
        let failed = |e: arrow_schema::ArrowError| {
            error(&self.path, format!("cannot assemble the column: {e}"))
        };
        Ok(match &self.kind {
            Kind::Leaf(leaf) => leaf_array(leaf, data_type, self.stream, slots, nulls, &self.path)?,
            Kind::Dictionary { dictionary, .. } => {
                let DataType::Dictionary(key_type, _) = data_type else {
                    unreachable!("a dictionary column has a dictionary type")
                };
                // Every key is in range: the vocabulary is the dictionary.
                let keys = slots
                    .iter()
                    .map(|&slot| self.vocabulary_index(slot).unwrap_or(0));
                dictionary_array(key_type, keys, nulls, dictionary.clone()).map_err(failed)?
            }
            Kind::List { lengths, item } => {
                let mut items = Vec::new();
                let mut ends = Vec::with_capacity(slots.len());
                for (i, &slot) in slots.iter().enumerate() {
                    if valid(i) {
                        let length = lengths.draw(self.stream, slot);
                        items.extend((0..length).map(|k| slot.item(k, lengths.max())));
                    }
                    ends.push(items.len());
                }
                let values = item.array(&items)?;
                match data_type {
                    DataType::LargeList(field) => {
                        list_array::<i64>(field, &ends, values, nulls, &self.path)?
                    }
                    DataType::List(field) => {
                        list_array::<i32>(field, &ends, values, nulls, &self.path)?
                    }
                    _ => unreachable!("a list column has a list type"),
                }
            }
            Kind::Map { lengths, entries } => {
                let Kind::Struct(fields) = &entries.kind else {
                    unreachable!("map entries are a struct, checked at construction")
                };
                let key = &fields[0];
                let mut items = Vec::new();
                let mut ends = Vec::with_capacity(slots.len());
                let mut seen = Vec::new();
                for (i, &slot) in slots.iter().enumerate() {
                    if valid(i) {
                        seen.clear();
                        for k in 0..lengths.draw(self.stream, slot) {
                            let item = slot.item(k, lengths.max());
                            // A key drawn twice in one map keeps its first entry only.
                            match key.vocabulary_index(item) {
                                Some(id) if seen.contains(&id) => continue,
                                Some(id) => seen.push(id),
                                None => {}
                            }
                            items.push(item);
                        }
                    }
                    ends.push(items.len());
                }
                let DataType::Map(field, sorted) = data_type else {
                    unreachable!("a map column has a map type")
                };
                let entries = entries.array(&items)?;
                let entries = entries
                    .as_any()
                    .downcast_ref::<StructArray>()
                    .cloned()
                    .ok_or_else(|| error(&self.path, "map entries must be a struct"))?;
                Arc::new(
                    MapArray::try_new(
                        field.clone(),
                        offsets(&ends, &self.path)?,
                        entries,
                        nulls,
                        *sorted,
                    )
                    .map_err(failed)?,
                )
            }
            Kind::FixedSizeList { size, item } => {
                let items: Vec<Slot> = slots
                    .iter()
                    .flat_map(|&slot| (0..*size).map(move |k| slot.item(k, *size)))
                    .collect();
                let DataType::FixedSizeList(field, size) = data_type else {
                    unreachable!("a fixed-size list column has a fixed-size list type")
                };
                Arc::new(
                    FixedSizeListArray::try_new(field.clone(), *size, item.array(&items)?, nulls)
                        .map_err(failed)?,
                )
            }
            Kind::Struct(children) => {
                let DataType::Struct(fields) = data_type else {
                    unreachable!("a struct column has a struct type")
                };
                let columns = children
                    .iter()
                    .map(|c| c.array(slots))
                    .collect::<Result<Vec<_>, _>>()?;
                Arc::new(StructArray::try_new(fields.clone(), columns, nulls).map_err(failed)?)
            }
        })
    }
}

/// Whether values drawn under `params` can serve as a map's keys: from a vocabulary (then
/// deduplicated within each map), unique, or sequential with steps of at least 1.
fn draws_distinct_keys(params: &Params) -> bool {
    params.has_vocabulary()
        || params.unique
        || matches!(params.distribution, Distribution::Sequential { step } if step.abs() >= 1.0)
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
    match data_type {
        DataType::Boolean => Booleans::new(params, path).map(Leaf::Boolean),
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
            let entries = integers.entries().ok_or_else(needs_vocabulary)?;
            Ok(integer_array(data_type, entries.iter().copied(), None))
        }
        Leaf::Float(floats) => {
            let entries = floats.entries().ok_or_else(needs_vocabulary)?;
            Ok(float_array(data_type, entries.iter().copied(), None))
        }
        Leaf::Bytes(bytes) => {
            let entries = bytes.entries().ok_or_else(needs_vocabulary)?;
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

fn primitive<T: ArrowPrimitiveType>(
    values: impl Iterator<Item = T::Native>,
    data_type: &DataType,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    Arc::new(
        PrimitiveArray::<T>::new(values.collect::<ScalarBuffer<_>>(), nulls)
            .with_data_type(data_type.clone()),
    )
}

/// An integer-like array of `data_type` from values in range for it.
fn integer_array(
    data_type: &DataType,
    values: impl Iterator<Item = i128>,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    macro_rules! of {
        ($t:ty, $native:ty) => {
            primitive::<$t>(values.map(|v| v as $native), data_type, nulls)
        };
    }
    match data_type {
        DataType::Int8 => of!(Int8Type, i8),
        DataType::Int16 => of!(Int16Type, i16),
        DataType::Int32 => of!(Int32Type, i32),
        DataType::Int64 => of!(Int64Type, i64),
        DataType::UInt8 => of!(UInt8Type, u8),
        DataType::UInt16 => of!(UInt16Type, u16),
        DataType::UInt32 => of!(UInt32Type, u32),
        DataType::UInt64 => of!(UInt64Type, u64),
        DataType::Date32 => of!(Date32Type, i32),
        DataType::Date64 => of!(Date64Type, i64),
        DataType::Time32(TimeUnit::Second) => of!(Time32SecondType, i32),
        DataType::Time32(_) => of!(Time32MillisecondType, i32),
        DataType::Time64(TimeUnit::Microsecond) => of!(Time64MicrosecondType, i64),
        DataType::Time64(_) => of!(Time64NanosecondType, i64),
        DataType::Timestamp(TimeUnit::Second, _) => of!(TimestampSecondType, i64),
        DataType::Timestamp(TimeUnit::Millisecond, _) => of!(TimestampMillisecondType, i64),
        DataType::Timestamp(TimeUnit::Microsecond, _) => of!(TimestampMicrosecondType, i64),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => of!(TimestampNanosecondType, i64),
        DataType::Decimal128(..) => of!(Decimal128Type, i128),
        DataType::Decimal256(..) => {
            primitive::<Decimal256Type>(values.map(i256::from_i128), data_type, nulls)
        }
        other => unreachable!("{other} is not integer-like"),
    }
}

fn float_array(
    data_type: &DataType,
    values: impl Iterator<Item = f64>,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    match data_type {
        DataType::Float16 => primitive::<Float16Type>(values.map(f16::from_f64), data_type, nulls),
        DataType::Float32 => primitive::<Float32Type>(values.map(|v| v as f32), data_type, nulls),
        _ => primitive::<Float64Type>(values, data_type, nulls),
    }
}

/// A list array with offsets of type `O` from the end of each list in `values`.
fn list_array<O: arrow_array::OffsetSizeTrait>(
    field: &FieldRef,
    ends: &[usize],
    values: ArrayRef,
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    let array = GenericListArray::<O>::try_new(field.clone(), offsets(ends, path)?, values, nulls)
        .map_err(|e| error(path, format!("cannot assemble the column: {e}")))?;
    Ok(Arc::new(array))
}

/// Offsets from the end of each value; fails when they do not fit `O`.
fn offsets<O: arrow_array::OffsetSizeTrait>(
    ends: &[usize],
    path: &str,
) -> Result<OffsetBuffer<O>, SpecError> {
    let offsets = std::iter::once(0)
        .chain(ends.iter().copied())
        .map(|end| {
            O::from_usize(end).ok_or_else(|| {
                error(path, "a batch holds more than 32-bit offsets address: use a smaller batch size, or the Large variant of the type")
            })
        })
        .collect::<Result<Vec<O>, _>>()?;
    Ok(OffsetBuffer::new(ScalarBuffer::from(offsets)))
}

/// A string or binary array of `data_type` from values laid end to end in `data`.
fn byte_array(
    data_type: &DataType,
    data: Vec<u8>,
    ends: &[usize],
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    let data = Buffer::from_vec(data);
    Ok(match data_type {
        DataType::Utf8 => Arc::new(StringArray::new(offsets(ends, path)?, data, nulls)),
        DataType::LargeUtf8 => Arc::new(LargeStringArray::new(offsets(ends, path)?, data, nulls)),
        DataType::Utf8View => Arc::new(StringViewArray::from(&LargeStringArray::new(
            offsets(ends, path)?,
            data,
            nulls,
        ))),
        DataType::Binary => Arc::new(BinaryArray::new(offsets(ends, path)?, data, nulls)),
        DataType::LargeBinary => Arc::new(LargeBinaryArray::new(offsets(ends, path)?, data, nulls)),
        DataType::BinaryView => Arc::new(BinaryViewArray::from(&LargeBinaryArray::new(
            offsets(ends, path)?,
            data,
            nulls,
        ))),
        DataType::FixedSizeBinary(width) => {
            Arc::new(FixedSizeBinaryArray::new(*width, data, nulls))
        }
        other => unreachable!("{other} is not a string or binary type"),
    })
}

/// How many entries keys of `key_type` can address.
fn key_capacity(key_type: &DataType) -> u64 {
    match key_type {
        DataType::Int8 => i8::MAX as u64 + 1,
        DataType::Int16 => i16::MAX as u64 + 1,
        DataType::UInt8 => u64::from(u8::MAX) + 1,
        DataType::UInt16 => u64::from(u16::MAX) + 1,
        DataType::Int32 => i32::MAX as u64 + 1,
        _ => u64::from(u32::MAX) + 1,
    }
}

/// A dictionary array with keys of `key_type`.
fn dictionary_array(
    key_type: &DataType,
    keys: impl Iterator<Item = usize>,
    nulls: Option<NullBuffer>,
    dictionary: ArrayRef,
) -> Result<ArrayRef, arrow_schema::ArrowError> {
    macro_rules! of {
        ($t:ty, $native:ty) => {{
            let keys = PrimitiveArray::<$t>::new(keys.map(|k| k as $native).collect(), nulls);
            Arc::new(DictionaryArray::<$t>::try_new(keys, dictionary)?)
        }};
    }
    Ok(match key_type {
        DataType::Int8 => of!(Int8Type, i8),
        DataType::Int16 => of!(Int16Type, i16),
        DataType::Int32 => of!(Int32Type, i32),
        DataType::Int64 => of!(Int64Type, i64),
        DataType::UInt8 => of!(UInt8Type, u8),
        DataType::UInt16 => of!(UInt16Type, u16),
        DataType::UInt32 => of!(UInt32Type, u32),
        _ => of!(UInt64Type, u64),
    })
}
