//! A column without children: its values by kind of type, as an Arrow array, as a dictionary,
//! and the most memory one value takes.

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Decimal128Array, Float64Array, NullArray};
use arrow_buffer::bit_util::get_bit;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;
use half::f16;

use super::arrays::{float_array, integer_array, written_bytes, ByteValues};
use super::booleans::Booleans;
use super::bytes::Bytes;
use super::draw::{Draw, Hashed, Slot, Stream, ValueDraws};
use super::error::error;
use super::floats::Floats;
use super::laid::{laid_entries, NO_ENTRY};
use super::numbers::Integers;
use super::parquet_types::Conversion;
use super::vocabulary::Picker;
use super::{Params, SpecError, SpecPaths};

/// A leaf's values, by kind of type.
#[derive(Debug, Clone)]
pub(super) enum Leaf {
    Null,
    Boolean(Booleans),
    Integer(Integers),
    Float(Floats),
    Bytes(Bytes),
}

impl Leaf {
    /// The values of `data_type` under `params`, stored by `conversion`.
    pub fn new(
        data_type: &DataType,
        conversion: Conversion,
        params: &Params,
        stream: Stream,
        path: &str,
    ) -> Result<Self, SpecError> {
        if let Some(integers) = Integers::new(data_type, conversion, params, path) {
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

    /// An identifier of the value of `slot` within the vocabulary, if values come from one.
    pub fn vocabulary_index(&self, stream: Stream, slot: Slot) -> Option<usize> {
        match self {
            // Values of several words: an identifier of the combination.
            Leaf::Bytes(b) => b.vocabulary_index(stream, slot),
            _ => self
                .picker()
                .map(|picker| picker.pick(stream, slot, Draw::Value)),
        }
    }

    /// `slot`'s value as a number two values of `data_type` share only when equal, for values
    /// not drawn from a vocabulary: integers as stored, floats by the stored width's bits,
    /// sequential strings by their number; `None` for the rest.
    pub fn value_identity(&self, data_type: &DataType, stream: Stream, slot: Slot) -> Option<i128> {
        match self {
            Leaf::Integer(integers) => Some(integers.value(stream, slot)),
            Leaf::Float(floats) => {
                let value = floats.value(stream, slot);
                Some(match data_type {
                    DataType::Float16 => i128::from(f16::from_f64(value).to_bits()),
                    DataType::Float32 => i128::from((value as f32).to_bits()),
                    _ => i128::from(value.to_bits()),
                })
            }
            Leaf::Bytes(bytes) => bytes.sequential_number(slot),
            Leaf::Boolean(_) | Leaf::Null => None,
        }
    }

    /// What picks a value's entry by its value draw, when values come from one vocabulary
    /// list: the entry's index is the value's [`Self::vocabulary_index`].
    pub fn picker(&self) -> Option<&Picker> {
        match self {
            Leaf::Boolean(b) => b.picker(),
            Leaf::Integer(i) => i.picker(),
            Leaf::Float(f) => f.picker(),
            Leaf::Bytes(b) => b.picker(),
            Leaf::Null => None,
        }
    }

    /// Writes values by the faster paths `paths` turns on: the same values either way.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        match self {
            Leaf::Bytes(bytes) => bytes.set_paths(paths),
            Leaf::Integer(integers) => integers.set_paths(paths),
            Leaf::Boolean(booleans) => booleans.set_paths(paths),
            Leaf::Float(floats) => floats.set_paths(paths),
            Leaf::Null => {}
        }
    }

    /// The longest string or binary value, in bytes (`None` for other types).
    pub fn max_len(&self) -> Option<u64> {
        match self {
            Leaf::Bytes(bytes) => Some(bytes.max_len()),
            _ => None,
        }
    }

    /// The most bytes one value of `data_type` takes in a batch: the value and its offset
    /// (and view).
    pub fn slot_bytes(&self, data_type: &DataType) -> u128 {
        let fixed = data_type.primitive_width().unwrap_or(0) as u128;
        let Leaf::Bytes(bytes) = self else {
            return fixed.max(u128::from(matches!(self, Leaf::Boolean(_))));
        };
        let offsets = match data_type {
            DataType::Utf8 | DataType::Binary => 4,
            DataType::LargeUtf8 | DataType::LargeBinary => 8,
            // Views are made from 64-bit offsets, and take 16 bytes each.
            DataType::Utf8View | DataType::BinaryView => 8 + 16,
            _ => 0,
        };
        u128::from(bytes.max_len()) + offsets
    }

    /// The whole vocabulary as an array of `data_type`: a dictionary's values.
    pub fn dictionary(&self, data_type: &DataType, path: &str) -> Result<ArrayRef, SpecError> {
        if stored_as_fixed_bytes(data_type) {
            return Err(error(
                path,
                format!("dictionaries of {data_type} are stored as fixed-length byte arrays, which arrow-rs's Parquet reader cannot read back as a dictionary: drop the dictionary"),
            ));
        }
        self.vocabulary_array(data_type, path)
    }

    /// The whole vocabulary as an array of `data_type`.
    pub fn vocabulary_array(
        &self,
        data_type: &DataType,
        path: &str,
    ) -> Result<ArrayRef, SpecError> {
        let needs_vocabulary = || {
            error(
                path,
                "a dictionary-encoded field draws from a vocabulary: give it values or cardinality (one word list at most)",
            )
        };
        match self {
            Leaf::Integer(integers) => {
                let entries = integers.vocabulary().ok_or_else(needs_vocabulary)?;
                Ok(integer_array(data_type, entries.into_iter(), None))
            }
            Leaf::Float(floats) => {
                let entries = floats.vocabulary().ok_or_else(needs_vocabulary)?;
                Ok(float_array(data_type, entries.iter().copied(), None))
            }
            Leaf::Bytes(bytes) => {
                let entries = bytes.vocabulary().ok_or_else(needs_vocabulary)?;
                // SAFETY: a text vocabulary's entries are a spec's strings, a shipped word
                // list's or random ASCII characters: UTF-8.
                unsafe { written_bytes(data_type, entries, None, path) }
            }
            Leaf::Boolean(_) | Leaf::Null => Err(error(
                path,
                format!("dictionaries of {data_type} are not written by Parquet writers: drop the dictionary"),
            )),
        }
    }

    /// The values for `slots`, as an array of `data_type`. Only the slots `drawn` marks (all
    /// when `None`) get a drawn value; the others, NULL in `nulls` (`spec-null-skips`), hold
    /// zeros, `false` or no bytes, which no reader sees.
    pub fn array(
        &self,
        data_type: &DataType,
        stream: Stream,
        slots: &[Slot],
        nulls: Option<NullBuffer>,
        drawn: Option<&BooleanBuffer>,
        path: &str,
    ) -> Result<ArrayRef, SpecError> {
        // A slot's bit read straight from the bytes, captured once: `BooleanBuffer::value`
        // checked the index and read the buffer's fields again at every slot.
        let drawn_bits = drawn.map(|d| (d.values(), d.offset()));
        let drawn =
            move |i: usize| drawn_bits.is_none_or(|(bits, offset)| get_bit(bits, offset + i));
        Ok(match self {
            Leaf::Null => Arc::new(NullArray::new(slots.len())),
            // Packed 64 values to a word: collecting an iterator appends them bit by bit.
            Leaf::Boolean(booleans) => Arc::new(BooleanArray::new(
                BooleanBuffer::collect_bool(slots.len(), |i| {
                    drawn(i) && booleans.value(stream, slots[i])
                }),
                nulls,
            )),
            // A loop for each, its value function inlined.
            Leaf::Integer(integers) => {
                match (integers.narrow_uniform(), integers.narrow_sequence()) {
                    (Some(uniform), _) => drawn_integers(data_type, slots, nulls, drawn, |slot| {
                        uniform.value(stream, slot)
                    }),
                    (_, Some(sequence)) => drawn_integers(data_type, slots, nulls, drawn, |slot| {
                        sequence.value(slot.ordinal)
                    }),
                    _ => drawn_integers(data_type, slots, nulls, drawn, |slot| {
                        integers.value(stream, slot)
                    }),
                }
            }
            Leaf::Float(floats) => {
                // Drawn in a loop of their own, as integers are (see `drawn_integers`).
                let values: Vec<f64> = (0..slots.len())
                    .map(|i| match drawn(i) {
                        true => floats.value(stream, slots[i]),
                        false => 0.0,
                    })
                    .collect();
                match data_type {
                    // Already the array's values: taken as they are, not copied.
                    DataType::Float64 => Arc::new(Float64Array::new(values.into(), nulls)),
                    _ => float_array(data_type, values.iter().copied(), nulls),
                }
            }
            Leaf::Bytes(bytes) => {
                let values = DrawnBytes::new(bytes, stream, slots, drawn);
                match bytes.predrawn(stream, slots) {
                    Some(predrawn) => {
                        values.array(data_type, |i| predrawn.at(i, slots, stream), nulls, path)?
                    }
                    None => {
                        let draws = |i: usize| Hashed {
                            stream,
                            slot: slots[i],
                        };
                        values.array(data_type, draws, nulls, path)?
                    }
                }
            }
        })
    }
}

/// The byte values of `slots`: drawn where `drawn` says, none (or a fixed width's zeros)
/// elsewhere.
struct DrawnBytes<'a, D> {
    bytes: &'a Bytes,
    stream: Stream,
    slots: &'a [Slot],
    drawn: D,
}

impl<'a, D: Fn(usize) -> bool> DrawnBytes<'a, D> {
    fn new(bytes: &'a Bytes, stream: Stream, slots: &'a [Slot], drawn: D) -> Self {
        Self {
            bytes,
            stream,
            slots,
            drawn,
        }
    }

    /// The values as an array of `data_type`, `draws(i)` giving slot `i`'s draws: entries of
    /// one list laid out in passes (`spec-laid-vocabulary`), any other written one by one.
    fn array<V: ValueDraws>(
        self,
        data_type: &DataType,
        draws: impl Fn(usize) -> V,
        nulls: Option<NullBuffer>,
        path: &str,
    ) -> Result<ArrayRef, SpecError> {
        // SAFETY (both): a text value is made of UTF-8 pieces only (word lists, a spec's
        // strings, ASCII characters and digits), cut nowhere.
        if let Some((picker, entries, moves)) = self.bytes.laid_vocabulary() {
            let picks: Vec<usize> = (0..self.slots.len())
                .map(|i| match (self.drawn)(i) {
                    true => picker.pick_bits(draws(i).word(0)),
                    false => NO_ENTRY,
                })
                .collect();
            return unsafe { laid_entries(data_type, entries, &picks, moves, nulls, path) };
        }
        let values = Written {
            values: self,
            draws,
        };
        unsafe { written_bytes(data_type, &values, nulls, path) }
    }
}

/// [`DrawnBytes`] written one by one, `draws(i)` giving slot `i`'s draws.
struct Written<'a, D, W> {
    values: DrawnBytes<'a, D>,
    draws: W,
}

impl<D: Fn(usize) -> bool, V: ValueDraws, W: Fn(usize) -> V> ByteValues for Written<'_, D, W> {
    fn count(&self) -> usize {
        self.values.slots.len()
    }

    fn capacity(&self) -> usize {
        self.values.slots.len() * self.values.bytes.typical_len()
    }

    #[inline(always)]
    fn write(&self, i: usize, out: &mut Vec<u8>) {
        let DrawnBytes {
            bytes,
            stream,
            slots,
            drawn,
        } = &self.values;
        match drawn(i) {
            true => bytes.write(out, *stream, slots[i], &(self.draws)(i)),
            false => bytes.write_nothing(out),
        }
    }
}

/// An integer-like array of `data_type`: `value` of each slot `drawn` marks, 0 elsewhere.
fn drawn_integers(
    data_type: &DataType,
    slots: &[Slot],
    nulls: Option<NullBuffer>,
    drawn: impl Fn(usize) -> bool,
    value: impl Fn(Slot) -> i128,
) -> ArrayRef {
    // Drawn in one loop of its own, where the value function is inlined: drawn inside the
    // collection of each of the twenty types' arrays, it was called once per value.
    let values: Vec<i128> = (0..slots.len())
        .map(|i| match drawn(i) {
            true => value(slots[i]),
            false => 0,
        })
        .collect();
    match data_type {
        // Already the array's values: taken as they are, not copied.
        DataType::Decimal128(..) => {
            Arc::new(Decimal128Array::new(values.into(), nulls).with_data_type(data_type.clone()))
        }
        // Read from the slice: collected from `into_iter()`, the narrower values reused the
        // vector in place, and shrinking it copied them.
        _ => integer_array(data_type, values.iter().copied(), nulls),
    }
}

/// Whether Parquet stores a number of `data_type` as a fixed-length byte array: half floats,
/// and decimals of more than 18 digits (fewer fit a 64-bit integer).
fn stored_as_fixed_bytes(data_type: &DataType) -> bool {
    match data_type {
        DataType::Float16 => true,
        DataType::Decimal128(precision, _) | DataType::Decimal256(precision, _) => *precision > 18,
        _ => false,
    }
}
