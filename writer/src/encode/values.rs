//! A leaf's values, gathered into the physical type parquet's typed column writer takes, with
//! the conversions `ArrowColumnWriter` applies (narrow integers widened, unsigned ones
//! reinterpreted, `Date64` cut to days where the schema coerces it to a `DATE`, decimals of
//! low precision cut to their unscaled value's low 32 or 64 bits).

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int8Type, UInt16Type, UInt8Type};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, OffsetSizeTrait};
use arrow_buffer::{i256, ArrowNativeType, ScalarBuffer};
use arrow_schema::DataType;
use bytes::Bytes;
use parquet::basic::Type as PhysicalType;
use parquet::column::writer::{ColumnWriter, ColumnWriterImpl};
use parquet::data_type::{AsBytes, ByteArray, DataType as ParquetDataType, FixedLenByteArray};
use parquet::errors::{ParquetError, Result};
use parquet::schema::types::ColumnDescriptor;

use super::batches::MiniBatch;
use super::fixed_len;
use super::levels::{LeafLevels, Levels};
use super::positions::Selection;

/// Milliseconds in a day: `Date64` written as a parquet `DATE` is a day count.
const MILLIS_PER_DAY: i64 = 86_400_000;

/// Whether the native encoder writes leaves of `data_type` as the leaf `descr`'s physical
/// type, as `ArrowColumnWriter` does: the pairs the Arrow to Parquet schema conversion makes (a
/// schema given by hand may pair them otherwise; those leaves go to `ArrowColumnWriter`).
pub(crate) fn written_as(data_type: &DataType, descr: &ColumnDescriptor) -> bool {
    match descr.physical_type() {
        PhysicalType::BOOLEAN => matches!(data_type, DataType::Boolean),
        PhysicalType::INT32 => matches!(
            data_type,
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::Date32
                | DataType::Date64
                | DataType::Time32(_)
                | DataType::Decimal32(..)
                | DataType::Decimal64(..)
                | DataType::Decimal128(..)
                | DataType::Decimal256(..)
        ),
        PhysicalType::INT64 => matches!(
            data_type,
            DataType::Int64
                | DataType::UInt64
                | DataType::Date64
                | DataType::Time64(_)
                | DataType::Timestamp(_, _)
                | DataType::Duration(_)
                | DataType::Decimal64(..)
                | DataType::Decimal128(..)
                | DataType::Decimal256(..)
        ),
        PhysicalType::FLOAT => matches!(data_type, DataType::Float32),
        PhysicalType::DOUBLE => matches!(data_type, DataType::Float64),
        PhysicalType::BYTE_ARRAY => matches!(
            data_type,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary
        ),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => fixed_len::written_as(data_type, descr.type_length()),
        PhysicalType::INT96 => false,
    }
}

/// Writes `leaf` (its values, definition and repetition levels) to `writer`, one call per
/// mini-batch of `batches` (levels and values ranges); returns the bytes handed over (values in
/// their physical form, two per level).
///
/// # Errors
///
/// What the column writer fails on, or a leaf type [`supported`] does not list.
pub(crate) fn write(
    writer: &mut ColumnWriter<'_>,
    leaf: &LeafLevels,
    batches: &[MiniBatch],
) -> Result<usize> {
    let (array, at) = (&leaf.array, &leaf.values.selection());
    match writer {
        ColumnWriter::BoolColumnWriter(typed) => {
            let bits = array.as_boolean().values();
            let values: Vec<bool> = at.gather(|i| bits.value(i));
            write_batches(typed, &values, leaf, batches)
        }
        ColumnWriter::Int32ColumnWriter(typed) => {
            write_batches(typed, &int32_values(array, at)?, leaf, batches)
        }
        ColumnWriter::Int64ColumnWriter(typed) => {
            write_batches(typed, &int64_values(array, at), leaf, batches)
        }
        ColumnWriter::FloatColumnWriter(typed) => {
            write_batches(typed, &gather(&words::<f32>(array), at), leaf, batches)
        }
        ColumnWriter::DoubleColumnWriter(typed) => {
            write_batches(typed, &gather(&words::<f64>(array), at), leaf, batches)
        }
        ColumnWriter::ByteArrayColumnWriter(typed) => {
            write_batches(typed, &byte_array_values(array, at)?, leaf, batches)
        }
        ColumnWriter::FixedLenByteArrayColumnWriter(typed) => {
            let length = typed.get_descriptor().type_length().max(1) as usize;
            let mut bytes = Bytes::from(fixed_len::gather(array, at, length)?);
            let values: Vec<FixedLenByteArray> = (0..at.len())
                .map(|_| ByteArray::from(bytes.split_to(length)).into())
                .collect();
            write_batches(typed, &values, leaf, batches)
        }
        _ => Err(unsupported(array.data_type())),
    }
}

fn write_batches<T: ParquetDataType>(
    typed: &mut ColumnWriterImpl<'_, T>,
    values: &[T::T],
    leaf: &LeafLevels,
    batches: &[MiniBatch],
) -> Result<usize> {
    let def = leaf.def.as_ref().map(Levels::spelled);
    for (levels, range) in batches {
        let def = def.as_deref().map(|d| &d[levels.clone()]);
        let rep = leaf.rep.as_ref().map(|r| &r[levels.clone()]);
        typed.write_batch(&values[range.clone()], def, rep)?;
    }
    let value_bytes: usize = values.iter().map(|v| v.as_bytes().len()).sum();
    let levels = leaf.def.as_ref().map_or(0, Levels::len) + leaf.rep.as_ref().map_or(0, Vec::len);
    Ok(value_bytes + 2 * levels)
}

/// A batch's values of a fixed-width leaf, in its physical type.
pub(crate) enum FixedWidth {
    /// Booleans, one byte each (0 or 1): bit-packed only when their page is written.
    Boolean(Vec<u8>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
}

/// The values of `array` at the positions `at`, for a leaf of the fixed-width type `physical`.
///
/// # Errors
///
/// An Arrow type the encoder does not write as `physical`, or a physical type that is not one
/// of `BOOLEAN`, `INT32`, `INT64`, `FLOAT` and `DOUBLE`.
pub(crate) fn fixed_width_values(
    array: &ArrayRef,
    at: &Selection<'_>,
    physical: PhysicalType,
) -> Result<FixedWidth> {
    Ok(match physical {
        PhysicalType::BOOLEAN => {
            let Some(booleans) = array.as_boolean_opt() else {
                return Err(unsupported(array.data_type()));
            };
            let bits = booleans.values();
            FixedWidth::Boolean(at.gather(|i| u8::from(bits.value(i))))
        }
        PhysicalType::INT32 => FixedWidth::Int32(int32_values(array, at)?),
        PhysicalType::INT64 => FixedWidth::Int64(int64_values(array, at)),
        PhysicalType::FLOAT => FixedWidth::Float(gather(&words::<f32>(array), at)),
        PhysicalType::DOUBLE => FixedWidth::Double(gather(&words::<f64>(array), at)),
        _ => return Err(unsupported(array.data_type())),
    })
}

/// The values of a leaf written as parquet `INT32`.
fn int32_values(array: &ArrayRef, at: &Selection<'_>) -> Result<Vec<i32>> {
    Ok(match array.data_type() {
        DataType::Int8 => widen::<Int8Type>(array, at),
        DataType::Int16 => widen::<Int16Type>(array, at),
        DataType::UInt8 => widen::<UInt8Type>(array, at),
        DataType::UInt16 => widen::<UInt16Type>(array, at),
        DataType::Date64 => narrow(&words::<i64>(array), at, |millis| {
            (millis / MILLIS_PER_DAY) as i32
        }),
        // Decimals of low precision keep their unscaled value's low 32 bits, as in
        // ArrowColumnWriter.
        DataType::Decimal64(..) => narrow(&words::<i64>(array), at, |v| v as i32),
        DataType::Decimal128(..) => narrow(&words::<i128>(array), at, |v| v as i32),
        DataType::Decimal256(..) => narrow(&words::<i256>(array), at, |v| v.as_i128() as i32),
        // Every other INT32 leaf is 32 bits wide in Arrow too: UInt32 wraps past i32::MAX, as
        // in ArrowColumnWriter.
        DataType::Int32
        | DataType::UInt32
        | DataType::Date32
        | DataType::Time32(_)
        | DataType::Decimal32(..) => gather(&words::<i32>(array), at),
        other => return Err(unsupported(other)),
    })
}

/// The values of a leaf written as parquet `INT64`: every such Arrow type is 64 bits wide but
/// wider decimals, which keep their unscaled value's low 64 bits, as in ArrowColumnWriter.
fn int64_values(array: &ArrayRef, at: &Selection<'_>) -> Vec<i64> {
    match array.data_type() {
        DataType::Decimal128(..) => narrow(&words::<i128>(array), at, |v| v as i64),
        DataType::Decimal256(..) => narrow(&words::<i256>(array), at, |v| v.as_i128() as i64),
        _ => gather(&words::<i64>(array), at),
    }
}

fn narrow<T: ArrowNativeType, N>(values: &[T], at: &Selection<'_>, cast: fn(T) -> N) -> Vec<N> {
    at.gather(|i| cast(values[i]))
}

/// The values of a `BYTE_ARRAY` leaf, sharing the array's value buffer.
fn byte_array_values(array: &ArrayRef, at: &Selection<'_>) -> Result<Vec<ByteArray>> {
    match array.data_type() {
        DataType::Utf8 => {
            let strings = array.as_string::<i32>();
            Ok(slices(strings.value_offsets(), strings.values(), at))
        }
        DataType::LargeUtf8 => {
            let strings = array.as_string::<i64>();
            Ok(slices(strings.value_offsets(), strings.values(), at))
        }
        DataType::Binary => {
            let binary = array.as_binary::<i32>();
            Ok(slices(binary.value_offsets(), binary.values(), at))
        }
        DataType::LargeBinary => {
            let binary = array.as_binary::<i64>();
            Ok(slices(binary.value_offsets(), binary.values(), at))
        }
        other => Err(unsupported(other)),
    }
}

fn slices<O: OffsetSizeTrait>(
    offsets: &[O],
    data: &arrow_buffer::Buffer,
    at: &Selection<'_>,
) -> Vec<ByteArray> {
    let data = Bytes::from(data.clone());
    at.gather(|i| ByteArray::from(data.slice(offsets[i].as_usize()..offsets[i + 1].as_usize())))
}

/// The array's values as `T`, reinterpreted bit for bit (the array's width must be `T`'s).
fn words<T: ArrowNativeType>(array: &ArrayRef) -> ScalarBuffer<T> {
    let data = array.to_data();
    ScalarBuffer::new(data.buffers()[0].clone(), data.offset(), data.len())
}

fn gather<T: ArrowNativeType>(values: &[T], at: &Selection<'_>) -> Vec<T> {
    at.gather(|i| values[i])
}

fn widen<T: ArrowPrimitiveType>(array: &ArrayRef, at: &Selection<'_>) -> Vec<i32>
where
    T::Native: Into<i32>,
{
    let values = array.as_primitive::<T>().values();
    at.gather(|i| values[i].into())
}

fn unsupported(data_type: &DataType) -> ParquetError {
    ParquetError::NYI(format!("{data_type} leaves in the native encoder"))
}
