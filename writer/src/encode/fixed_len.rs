//! The values of a `FIXED_LEN_BYTE_ARRAY` leaf, laid out as `ArrowColumnWriter` lays them out:
//! fixed-size binaries as they are, decimals of high precision as their unscaled value's
//! big-endian two's complement cut to the column's length, half floats little-endian, and
//! intervals as parquet's 12 bytes (months, days, milliseconds, each a little-endian `u32`).

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type, DecimalType, Float16Type,
    IntervalDayTimeType, IntervalYearMonthType,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, IntervalUnit};
use parquet::errors::{ParquetError, Result};

use super::positions::Selection;

/// The bytes of a parquet `INTERVAL`.
const INTERVAL_BYTES: usize = 12;

/// Whether the native encoder writes leaves of `data_type` as `FIXED_LEN_BYTE_ARRAY` values
/// of `length` bytes: the types `ArrowColumnWriter` writes so, at the length it writes them
/// (a decimal's by its precision, within its Arrow width). A schema given by hand with another
/// length leaves the leaf to `ArrowColumnWriter`, which writes its own length whatever the
/// column's.
pub(crate) fn written_as(data_type: &DataType, length: i32) -> bool {
    let Ok(length) = usize::try_from(length) else {
        return false;
    };
    let decimal = |precision: u8, width: usize| {
        length == decimal_length(precision) && (1..=width).contains(&length)
    };
    match data_type {
        DataType::FixedSizeBinary(size) => usize::try_from(*size) == Ok(length) && length > 0,
        DataType::Decimal32(p, _) => decimal(*p, Decimal32Type::BYTE_LENGTH),
        DataType::Decimal64(p, _) => decimal(*p, Decimal64Type::BYTE_LENGTH),
        DataType::Decimal128(p, _) => decimal(*p, Decimal128Type::BYTE_LENGTH),
        DataType::Decimal256(p, _) => decimal(*p, Decimal256Type::BYTE_LENGTH),
        DataType::Float16 => length == 2,
        DataType::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => {
            length == INTERVAL_BYTES
        }
        _ => false,
    }
}

/// The bytes of a decimal of `precision` digits as parquet stores it in a fixed-length byte
/// array: the fewest that hold every unscaled value in two's complement, those of `precision`
/// digits needing the bits of 10^precision (which is never a power of two) and a sign bit.
fn decimal_length(precision: u8) -> usize {
    let bits = (f64::from(precision) * std::f64::consts::LOG2_10).floor() as usize + 1;
    (bits + 1).div_ceil(8)
}

/// Whether `data_type`'s Arrow buffer holds its values as the leaf stores them, so that a run
/// of them can be copied (or borrowed) as they are: fixed-size binaries and half floats.
pub(crate) fn stored_as_is(data_type: &DataType) -> bool {
    cfg!(target_endian = "little")
        && matches!(data_type, DataType::FixedSizeBinary(_) | DataType::Float16)
}

/// The values of `array` at the positions `at`, `length` bytes each, one after another.
///
/// # Errors
///
/// An Arrow type [`written_as`] does not take at `length`.
pub(crate) fn gather(array: &ArrayRef, at: &Selection<'_>, length: usize) -> Result<Vec<u8>> {
    if !written_as(array.data_type(), length as i32) {
        return Err(ParquetError::NYI(format!(
            "{} as FIXED_LEN_BYTE_ARRAY({length}) in the native encoder",
            array.data_type()
        )));
    }
    let mut bytes = Vec::with_capacity(at.len() * length);
    match array.data_type() {
        DataType::FixedSizeBinary(_) => {
            let binary = array.as_fixed_size_binary();
            at.for_each(|i| bytes.extend_from_slice(binary.value(i)));
        }
        DataType::Decimal32(..) => big_endian::<Decimal32Type, 4>(array, at, length, &mut bytes),
        DataType::Decimal64(..) => big_endian::<Decimal64Type, 8>(array, at, length, &mut bytes),
        DataType::Decimal128(..) => big_endian::<Decimal128Type, 16>(array, at, length, &mut bytes),
        DataType::Decimal256(..) => big_endian::<Decimal256Type, 32>(array, at, length, &mut bytes),
        DataType::Float16 => {
            let values = array.as_primitive::<Float16Type>().values();
            at.for_each(|i| bytes.extend_from_slice(&values[i].to_le_bytes()));
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            let months = array.as_primitive::<IntervalYearMonthType>().values();
            at.for_each(|i| {
                bytes.extend_from_slice(&months[i].to_le_bytes());
                bytes.extend_from_slice(&[0; 8]);
            });
        }
        // `written_as` admits no other type: a day-time interval.
        _ => {
            let intervals = array.as_primitive::<IntervalDayTimeType>().values();
            at.for_each(|i| {
                bytes.extend_from_slice(&[0; 4]);
                bytes.extend_from_slice(&intervals[i].days.to_le_bytes());
                bytes.extend_from_slice(&intervals[i].milliseconds.to_le_bytes());
            });
        }
    }
    Ok(bytes)
}

/// Appends each selected decimal's last `length` big-endian bytes (its `N` bytes cut to the
/// column's length, which holds every value of the precision).
fn big_endian<T, const N: usize>(
    array: &ArrayRef,
    at: &Selection<'_>,
    length: usize,
    out: &mut Vec<u8>,
) where
    T: DecimalType,
    T::Native: BigEndian<N>,
{
    let values = array.as_primitive::<T>().values();
    at.for_each(|i| out.extend_from_slice(&values[i].big_endian()[N - length..]));
}

/// A decimal's unscaled value as `N` big-endian bytes.
trait BigEndian<const N: usize> {
    fn big_endian(self) -> [u8; N];
}

impl BigEndian<4> for i32 {
    fn big_endian(self) -> [u8; 4] {
        self.to_be_bytes()
    }
}

impl BigEndian<8> for i64 {
    fn big_endian(self) -> [u8; 8] {
        self.to_be_bytes()
    }
}

impl BigEndian<16> for i128 {
    fn big_endian(self) -> [u8; 16] {
        self.to_be_bytes()
    }
}

impl BigEndian<32> for arrow_buffer::i256 {
    fn big_endian(self) -> [u8; 32] {
        self.to_be_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_length;

    /// The length holds the largest unscaled value of the precision, and one byte fewer does
    /// not (checked in `i128` up to 38 digits).
    #[test]
    fn decimal_lengths_are_the_fewest_bytes_that_hold_the_precision() {
        for precision in 1..=38u8 {
            let largest = 10i128.pow(u32::from(precision)) - 1;
            let length = decimal_length(precision);
            let fits = |bytes: usize| bytes >= 16 || largest < 1i128 << (8 * bytes - 1);
            assert!(fits(length), "{precision} digits in {length} bytes");
            assert!(length == 1 || !fits(length - 1), "{precision} digits");
        }
        assert_eq!(decimal_length(76), 32);
    }
}
