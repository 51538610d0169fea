//! One column of the data gate's canonical row form: downcast once per batch into a [`Node`],
//! which then writes any row's bytes (the form is tabled in the module documentation of
//! [`crate::gate`]).

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType};
use arrow_buffer::i256;
use arrow_schema::{DataType, TimeUnit};

use super::GateError;

// Tags of the canonical row form (see the module doc and scripts/peers/shredlab_peers/digest.py).
const NULL: u8 = 0;
const STRING: u8 = 1;
const LIST: u8 = 2;
const STRUCT: u8 = 3;
const INT: u8 = 4;
const BOOL: u8 = 5;
const FLOAT: u8 = 6;
const BINARY: u8 = 7;
const DECIMAL: u8 = 8;
const DATE: u8 = 9;
const TIME: u8 = 10;
const TIMESTAMP: u8 = 11;

const MILLIS_PER_DAY: i64 = 86_400_000;

/// Nanoseconds per unit of a time or timestamp.
fn nanos_per(unit: &TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// A value read as `T` from a row index: each arm of [`Node::new`] downcasts once per batch.
type Reader<'a, T> = Box<dyn Fn(usize) -> T + 'a>;

/// One column, downcast once per batch, that writes any row's canonical bytes.
pub(super) enum Node<'a> {
    /// Always NULL: the Null type, or a dictionary without values.
    Null,
    Bytes(&'a dyn Array, u8, Reader<'a, &'a [u8]>),
    Dictionary {
        array: &'a dyn Array,
        keys: Vec<usize>,
        values: Box<Node<'a>>,
    },
    List {
        array: &'a dyn Array,
        offsets: Vec<usize>,
        values: Box<Node<'a>>,
    },
    Struct(&'a dyn Array, Vec<Node<'a>>),
    Int(&'a dyn Array, Reader<'a, i128>),
    Bool(&'a arrow_array::BooleanArray),
    Float(&'a dyn Array, Reader<'a, f64>),
    Decimal(&'a dyn Array, i8, Reader<'a, i256>),
    /// A tag and an i64: dates (milliseconds) and times (nanoseconds).
    Scaled(&'a dyn Array, u8, Reader<'a, i64>),
    /// Whether it has a time zone, and (whole seconds, nanoseconds) since the epoch.
    Timestamp(&'a dyn Array, bool, Reader<'a, (i64, u32)>),
}

/// A primitive column as a reader of its values mapped by `f`.
fn values<'a, T: ArrowPrimitiveType, V>(
    array: &'a dyn Array,
    f: impl Fn(T::Native) -> V + 'a,
) -> Reader<'a, V> {
    let a = array.as_primitive::<T>();
    Box::new(move |i| f(a.value(i)))
}

/// A timestamp `value` in `unit` as (whole seconds, nanoseconds): no unit overflows.
fn seconds_and_nanos(value: i64, unit: &TimeUnit) -> (i64, u32) {
    let per_second = 1_000_000_000 / nanos_per(unit);
    let nanos = value.rem_euclid(per_second) * nanos_per(unit);
    (value.div_euclid(per_second), nanos as u32)
}

fn list_node<'a>(
    array: &'a dyn Array,
    offsets: Vec<usize>,
    values: &'a ArrayRef,
) -> Result<Node<'a>, GateError> {
    Ok(Node::List {
        array,
        offsets,
        values: Box::new(Node::new(values.as_ref())?),
    })
}

impl<'a> Node<'a> {
    /// The node of `array`: its type decided once per batch.
    pub(super) fn new(array: &'a dyn Array) -> Result<Self, GateError> {
        if let Some(node) = Self::scalar(array).or_else(|| Self::temporal(array)) {
            return Ok(node);
        }
        Self::nested(array)?.ok_or_else(|| GateError::UnsupportedType(array.data_type().clone()))
    }

    /// Text, binary, integer, boolean, float and decimal columns, and the Null type.
    fn scalar(array: &'a dyn Array) -> Option<Self> {
        use DataType as T;
        Some(match array.data_type() {
            T::Null => Node::Null,
            T::Utf8 => {
                let a = array.as_string::<i32>();
                Node::Bytes(array, STRING, Box::new(move |i| a.value(i).as_bytes()))
            }
            T::LargeUtf8 => {
                let a = array.as_string::<i64>();
                Node::Bytes(array, STRING, Box::new(move |i| a.value(i).as_bytes()))
            }
            T::Utf8View => {
                let a = array.as_string_view();
                Node::Bytes(array, STRING, Box::new(move |i| a.value(i).as_bytes()))
            }
            T::Binary => {
                let a = array.as_binary::<i32>();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::LargeBinary => {
                let a = array.as_binary::<i64>();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::BinaryView => {
                let a = array.as_binary_view();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::FixedSizeBinary(_) => {
                let a = array.as_fixed_size_binary();
                Node::Bytes(array, BINARY, Box::new(move |i| a.value(i)))
            }
            T::Int8 => Node::Int(array, values::<Int8Type, _>(array, i128::from)),
            T::Int16 => Node::Int(array, values::<Int16Type, _>(array, i128::from)),
            T::Int32 => Node::Int(array, values::<Int32Type, _>(array, i128::from)),
            T::Int64 => Node::Int(array, values::<Int64Type, _>(array, i128::from)),
            T::UInt8 => Node::Int(array, values::<UInt8Type, _>(array, i128::from)),
            T::UInt16 => Node::Int(array, values::<UInt16Type, _>(array, i128::from)),
            T::UInt32 => Node::Int(array, values::<UInt32Type, _>(array, i128::from)),
            T::UInt64 => Node::Int(array, values::<UInt64Type, _>(array, i128::from)),
            T::Boolean => Node::Bool(array.as_boolean()),
            T::Float16 => Node::Float(array, values::<Float16Type, _>(array, |v| v.to_f64())),
            T::Float32 => Node::Float(array, values::<Float32Type, _>(array, f64::from)),
            T::Float64 => Node::Float(array, values::<Float64Type, _>(array, |v| v)),
            T::Decimal32(_, scale) => {
                Node::Decimal(array, *scale, values::<Decimal32Type, _>(array, i256::from))
            }
            T::Decimal64(_, scale) => {
                Node::Decimal(array, *scale, values::<Decimal64Type, _>(array, i256::from))
            }
            T::Decimal128(_, scale) => Node::Decimal(
                array,
                *scale,
                values::<Decimal128Type, _>(array, i256::from_i128),
            ),
            T::Decimal256(_, scale) => {
                Node::Decimal(array, *scale, values::<Decimal256Type, _>(array, |v| v))
            }
            _ => return None,
        })
    }

    /// Date, time and timestamp columns, in any unit.
    fn temporal(array: &'a dyn Array) -> Option<Self> {
        use DataType as T;
        Some(match array.data_type() {
            T::Date32 => Node::Scaled(
                array,
                DATE,
                values::<Date32Type, _>(array, |days| i64::from(days) * MILLIS_PER_DAY),
            ),
            T::Date64 => Node::Scaled(array, DATE, values::<Date64Type, _>(array, |ms| ms)),
            T::Time32(unit) => {
                let scale = nanos_per(unit);
                let nanos = move |v: i32| i64::from(v) * scale;
                Node::Scaled(
                    array,
                    TIME,
                    match unit {
                        TimeUnit::Second => values::<Time32SecondType, _>(array, nanos),
                        _ => values::<Time32MillisecondType, _>(array, nanos),
                    },
                )
            }
            T::Time64(unit) => {
                let scale = nanos_per(unit);
                let nanos = move |v: i64| v * scale;
                Node::Scaled(
                    array,
                    TIME,
                    match unit {
                        TimeUnit::Microsecond => values::<Time64MicrosecondType, _>(array, nanos),
                        _ => values::<Time64NanosecondType, _>(array, nanos),
                    },
                )
            }
            T::Timestamp(unit, zone) => {
                let unit = *unit;
                let split = move |v: i64| seconds_and_nanos(v, &unit);
                let reader = match unit {
                    TimeUnit::Second => values::<TimestampSecondType, _>(array, split),
                    TimeUnit::Millisecond => values::<TimestampMillisecondType, _>(array, split),
                    TimeUnit::Microsecond => values::<TimestampMicrosecondType, _>(array, split),
                    TimeUnit::Nanosecond => values::<TimestampNanosecondType, _>(array, split),
                };
                Node::Timestamp(array, zone.is_some(), reader)
            }
            _ => return None,
        })
    }

    /// Dictionary, list, map and struct columns, whose children are nodes in turn.
    fn nested(array: &'a dyn Array) -> Result<Option<Self>, GateError> {
        use DataType as T;
        Ok(Some(match array.data_type() {
            T::Dictionary(_, _) => {
                let dictionary = array.as_any_dictionary();
                if dictionary.values().is_empty() {
                    // Keys index the values, so with none every key is NULL (a column chunk of
                    // NULLs reads back so); `normalized_keys` would panic on it.
                    Node::Null
                } else {
                    Node::Dictionary {
                        array,
                        keys: dictionary.normalized_keys(),
                        values: Box::new(Node::new(dictionary.values().as_ref())?),
                    }
                }
            }
            T::List(_) => {
                let list = array.as_list::<i32>();
                let offsets = list.offsets().iter().map(|&o| o as usize).collect();
                list_node(array, offsets, list.values())?
            }
            T::LargeList(_) => {
                let list = array.as_list::<i64>();
                let offsets = list.offsets().iter().map(|&o| o as usize).collect();
                list_node(array, offsets, list.values())?
            }
            T::FixedSizeList(_, size) => {
                let list = array.as_fixed_size_list();
                let size = *size as usize;
                let offsets = (0..=list.len())
                    .map(|i| (list.offset() + i) * size)
                    .collect();
                list_node(array, offsets, list.values())?
            }
            // A map is its entries: a list of (key, value) structs, as readers without a map
            // type (polars) return it.
            T::Map(_, _) => {
                let map = array.as_map();
                let offsets = map.offsets().iter().map(|&o| o as usize).collect();
                Node::List {
                    array,
                    offsets,
                    values: Box::new(Node::Struct(
                        map.entries(),
                        vec![
                            Node::new(map.keys().as_ref())?,
                            Node::new(map.values().as_ref())?,
                        ],
                    )),
                }
            }
            T::Struct(_) => Node::Struct(
                array,
                array
                    .as_struct()
                    .columns()
                    .iter()
                    .map(|c| Node::new(c.as_ref()))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Ok(None),
        }))
    }

    fn is_null(&self, i: usize) -> bool {
        match self {
            Node::Null => true,
            Node::Bytes(a, ..)
            | Node::Dictionary { array: a, .. }
            | Node::List { array: a, .. }
            | Node::Struct(a, _)
            | Node::Int(a, _)
            | Node::Float(a, _)
            | Node::Decimal(a, ..)
            | Node::Scaled(a, ..)
            | Node::Timestamp(a, ..) => a.is_null(i),
            Node::Bool(a) => a.is_null(i),
        }
    }

    /// Appends row `i`'s canonical bytes to `out`.
    pub(super) fn encode(&self, i: usize, out: &mut Vec<u8>) {
        if self.is_null(i) {
            out.push(NULL);
            return;
        }
        match self {
            Node::Null => unreachable!("a Null column has only nulls"),
            Node::Bytes(_, tag, value) => {
                let bytes = value(i);
                out.push(*tag);
                out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                out.extend_from_slice(bytes);
            }
            Node::Dictionary { keys, values, .. } => values.encode(keys[i], out),
            Node::List {
                offsets, values, ..
            } => {
                let (start, end) = (offsets[i], offsets[i + 1]);
                out.push(LIST);
                out.extend_from_slice(&((end - start) as u64).to_le_bytes());
                (start..end).for_each(|item| values.encode(item, out));
            }
            Node::Struct(_, fields) => {
                out.push(STRUCT);
                fields.iter().for_each(|field| field.encode(i, out));
            }
            Node::Int(_, value) => {
                out.push(INT);
                out.extend_from_slice(&value(i).to_le_bytes());
            }
            Node::Bool(a) => out.extend_from_slice(&[BOOL, u8::from(a.value(i))]),
            Node::Float(_, value) => {
                out.push(FLOAT);
                out.extend_from_slice(&value(i).to_bits().to_le_bytes());
            }
            Node::Decimal(_, scale, value) => {
                out.extend_from_slice(&[DECIMAL, *scale as u8]);
                out.extend_from_slice(&value(i).to_le_bytes());
            }
            Node::Scaled(_, tag, value) => {
                out.push(*tag);
                out.extend_from_slice(&value(i).to_le_bytes());
            }
            Node::Timestamp(_, zoned, value) => {
                let (seconds, nanos) = value(i);
                out.extend_from_slice(&[TIMESTAMP, u8::from(*zoned)]);
                out.extend_from_slice(&seconds.to_le_bytes());
                out.extend_from_slice(&nanos.to_le_bytes());
            }
        }
    }
}
