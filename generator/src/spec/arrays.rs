//! Arrow arrays of a given type assembled from generated values: primitive, string and
//! binary, list and dictionary arrays.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BinaryViewArray, DictionaryArray,
    FixedSizeBinaryArray, GenericListArray, LargeBinaryArray, LargeStringArray, OffsetSizeTrait,
    PrimitiveArray, StringArray, StringViewArray,
};
use arrow_buffer::{i256, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef, TimeUnit};
use half::f16;

use super::error::{error, SpecError};

/// Matches `$data_type` against the eight Arrow integer types and evaluates `$body` with
/// `$arrow` naming the matched Arrow type and `$native` its Rust type, so each type gets its
/// own monomorphized arm; any other type is matched by `$other` and evaluates `$fallback`.
macro_rules! match_integer_type {
    ($data_type:expr, |$arrow:ident, $native:ident| $body:expr, $other:pat => $fallback:expr) => {
        match $data_type {
            DataType::Int8 => match_integer_type!(@arm Int8Type, i8, $arrow, $native, $body),
            DataType::Int16 => match_integer_type!(@arm Int16Type, i16, $arrow, $native, $body),
            DataType::Int32 => match_integer_type!(@arm Int32Type, i32, $arrow, $native, $body),
            DataType::Int64 => match_integer_type!(@arm Int64Type, i64, $arrow, $native, $body),
            DataType::UInt8 => match_integer_type!(@arm UInt8Type, u8, $arrow, $native, $body),
            DataType::UInt16 => match_integer_type!(@arm UInt16Type, u16, $arrow, $native, $body),
            DataType::UInt32 => match_integer_type!(@arm UInt32Type, u32, $arrow, $native, $body),
            DataType::UInt64 => match_integer_type!(@arm UInt64Type, u64, $arrow, $native, $body),
            $other => $fallback,
        }
    };
    (@arm $arrow_type:ty, $native_type:ty, $arrow:ident, $native:ident, $body:expr) => {{
        type $arrow = $arrow_type;
        type $native = $native_type;
        $body
    }};
}

/// A primitive array of `data_type` (whose Arrow type is `T`) from `values`.
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
pub(super) fn integer_array(
    data_type: &DataType,
    values: impl Iterator<Item = i128>,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    macro_rules! of {
        ($t:ty, $native:ty) => {
            primitive::<$t>(values.map(|v| v as $native), data_type, nulls)
        };
    }
    match_integer_type!(
        data_type,
        |Arrow, Native| primitive::<Arrow>(values.map(|v| v as Native), data_type, nulls),
        other => match other {
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
    )
}

/// A floating-point array of `data_type` from `values`.
pub(super) fn float_array(
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

/// Where each list of a column ends among its items, in order: never decreasing, as
/// [`Ends::push`] keeps them, so that the offsets made of them need no check of their order.
#[derive(Debug, PartialEq)]
pub(super) struct Ends(Vec<usize>);

impl Ends {
    /// Room for `lists` ends.
    pub fn with_capacity(lists: usize) -> Self {
        Self(Vec::with_capacity(lists))
    }

    /// Appends where the next list ends: `end`, which is never before the last end (a list
    /// ends where the one before it does, or after).
    #[inline]
    pub fn push(&mut self, end: usize) {
        let last = self.0.last().copied().unwrap_or(0);
        // Checked in release builds too: the offsets are made without Arrow's check, so a
        // caller's bug here would otherwise become an unsound array, not an error.
        assert!(end >= last, "list ends never decrease");
        self.0.push(end);
    }
}

/// A list array with offsets of type `O` from the end of each list in `values`.
pub(super) fn list_array<O: OffsetSizeTrait>(
    field: &FieldRef,
    ends: &Ends,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    let array = GenericListArray::<O>::try_new(field.clone(), offsets(ends, path)?, values, nulls)
        .map_err(|e| error(path, format!("cannot assemble the column: {e}")))?;
    Ok(Arc::new(array))
}

/// Offsets from the end of each list; fails when they do not fit `O`.
pub(super) fn offsets<O: OffsetSizeTrait>(
    Ends(ends): &Ends,
    path: &str,
) -> Result<OffsetBuffer<O>, SpecError> {
    // Ends never decrease, so the last one fitting means they all do: one check, then a
    // conversion loop the compiler vectorizes (checked end by end, the conversion took 10% of
    // the contacts spec's generation samples).
    if O::from_usize(ends.last().copied().unwrap_or(0)).is_none() {
        return Err(beyond_offsets(path));
    }
    let mut offsets = Vec::with_capacity(ends.len() + 1);
    offsets.push(O::usize_as(0));
    offsets.extend(ends.iter().map(|&end| O::usize_as(end)));
    // SAFETY: from 0, the ends never decrease (`Ends` keeps them so), and the last fits.
    Ok(unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) })
}

/// Values written as bytes, one after the other, into one buffer.
pub(super) trait ByteValues {
    /// How many values there are.
    fn count(&self) -> usize;

    /// About how many bytes they take together: what the buffer is sized for.
    fn capacity(&self) -> usize;

    /// Appends value `i` to `out`. Implementations are `#[inline(always)]`: each of the loops
    /// of [`written_bytes`] (one per offset width) then has it inlined, where a closure, with
    /// three callers, was called once per value.
    fn write(&self, i: usize, out: &mut Vec<u8>);
}

/// A string or binary array of `data_type` holding `values`, each value's end kept as an
/// offset of the type's width as it is written.
///
/// # Safety
/// For a string type, `values` writes only valid UTF-8: the array is made without checking it.
pub(super) unsafe fn written_bytes(
    data_type: &DataType,
    values: &impl ByteValues,
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    let mut data = Vec::with_capacity(values.capacity());
    match data_type {
        DataType::FixedSizeBinary(width) => {
            for i in 0..values.count() {
                values.write(i, &mut data);
            }
            Ok(Arc::new(FixedSizeBinaryArray::new(
                *width,
                data.into(),
                nulls,
            )))
        }
        DataType::Utf8 | DataType::Binary => {
            let offsets = laid::<i32>(values, &mut data);
            // SAFETY: passed on.
            unsafe { narrow_byte_array(data_type, data, offsets, nulls, path) }
        }
        _ => {
            let offsets = laid::<i64>(values, &mut data);
            // SAFETY: passed on.
            unsafe { wide_byte_array(data_type, data, offsets, nulls, path) }
        }
    }
}

/// The offsets of the ends of `values` as they are appended to `data`, cast to `O` as
/// written: a loop without a check per value (see [`checked_offsets`]). A plain loop: as an
/// iterator's closure, the value's writing was a call per value.
fn laid<O: OffsetSizeTrait>(values: &impl ByteValues, data: &mut Vec<u8>) -> Vec<O> {
    let mut offsets = Vec::with_capacity(values.count() + 1);
    offsets.push(O::usize_as(0));
    for i in 0..values.count() {
        values.write(i, data);
        offsets.push(O::usize_as(data.len()));
    }
    offsets
}

/// `offsets` of values laid in `length` bytes, cast as [`laid`] casts them: lengths never
/// decrease, so the last fitting `O` means no cast wrapped.
fn checked_offsets<O: OffsetSizeTrait>(
    offsets: Vec<O>,
    length: usize,
    path: &str,
) -> Result<OffsetBuffer<O>, SpecError> {
    match O::from_usize(length) {
        // SAFETY: each offset is the buffer's length after a value was appended, from 0: they
        // never decrease, and the last, the largest, fits `O`.
        Some(_) => Ok(unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) }),
        None => Err(beyond_offsets(path)),
    }
}

/// A Utf8 or Binary array of the values of `data` ending at `offsets`.
///
/// # Safety
/// For Utf8, `data` is valid UTF-8 between every two offsets.
pub(super) unsafe fn narrow_byte_array(
    data_type: &DataType,
    data: Vec<u8>,
    offsets: Vec<i32>,
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    let offsets = checked_offsets(offsets, data.len(), path)?;
    let data = Buffer::from_vec(data);
    Ok(match data_type {
        // SAFETY: the offsets are checked and end at the buffer's end; the text by the caller.
        DataType::Utf8 => Arc::new(unsafe { StringArray::new_unchecked(offsets, data, nulls) }),
        _ => Arc::new(BinaryArray::new(offsets, data, nulls)),
    })
}

/// A LargeUtf8, LargeBinary or view array of the values of `data` ending at `offsets`.
///
/// # Safety
/// For the string types, `data` is valid UTF-8 between every two offsets.
pub(super) unsafe fn wide_byte_array(
    data_type: &DataType,
    data: Vec<u8>,
    offsets: Vec<i64>,
    nulls: Option<NullBuffer>,
    path: &str,
) -> Result<ArrayRef, SpecError> {
    let offsets = checked_offsets(offsets, data.len(), path)?;
    let data = Buffer::from_vec(data);
    // SAFETY: the offsets are checked and end at the buffer's end; the text by the caller.
    let text =
        || unsafe { LargeStringArray::new_unchecked(offsets.clone(), data.clone(), nulls.clone()) };
    let binary = || LargeBinaryArray::new(offsets.clone(), data.clone(), nulls.clone());
    Ok(match data_type {
        DataType::LargeUtf8 => Arc::new(text()),
        DataType::Utf8View => Arc::new(StringViewArray::from(&text())),
        DataType::LargeBinary => Arc::new(binary()),
        DataType::BinaryView => Arc::new(BinaryViewArray::from(&binary())),
        other => unreachable!("{other} is not a string or binary type"),
    })
}

/// The error for a batch whose values pass what the offsets of its type address.
pub(super) fn beyond_offsets(path: &str) -> SpecError {
    error(
        path,
        "a batch holds more than 32-bit offsets address: use a smaller batch size, or the Large variant of the type",
    )
}

/// How many entries keys of `key_type` can address.
pub(super) fn key_capacity(key_type: &DataType) -> u64 {
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
pub(super) fn dictionary_array(
    key_type: &DataType,
    keys: impl Iterator<Item = usize>,
    nulls: Option<NullBuffer>,
    dictionary: ArrayRef,
) -> Result<ArrayRef, ArrowError> {
    match_integer_type!(
        key_type,
        |Key, Native| keyed_dictionary::<Key>(keys.map(|k| k as Native), nulls, dictionary),
        // Not a key type (only a schema made by hand names one): the batch's assembly refuses
        // the mismatch.
        _ => keyed_dictionary::<UInt64Type>(keys.map(|k| k as u64), nulls, dictionary)
    )
}

/// A dictionary array with keys of Arrow type `K`.
fn keyed_dictionary<K: ArrowDictionaryKeyType>(
    keys: impl Iterator<Item = K::Native>,
    nulls: Option<NullBuffer>,
    dictionary: ArrayRef,
) -> Result<ArrayRef, ArrowError> {
    let keys = PrimitiveArray::<K>::new(keys.collect(), nulls);
    Ok(Arc::new(DictionaryArray::<K>::try_new(keys, dictionary)?))
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use arrow_schema::DataType;

    use super::{checked_offsets, offsets, written_bytes, Ends};
    use crate::spec::words::WordList;

    #[test]
    fn written_values_read_back_in_every_byte_type() {
        let entries = ["ab", "", "h\u{e9}llo w\u{f6}rld", "z"];
        let list = WordList::new(entries);
        let types = [
            DataType::Utf8,
            DataType::LargeUtf8,
            DataType::Utf8View,
            DataType::Binary,
            DataType::LargeBinary,
            DataType::BinaryView,
        ];
        for data_type in types {
            // SAFETY: the entries are Rust strings.
            let array = unsafe { written_bytes(&data_type, &list, None, "f") }.unwrap();
            assert_eq!(array.data_type(), &data_type);
            array.to_data().validate_full().unwrap();
            let read: Vec<Vec<u8>> = (0..array.len())
                .map(|i| match &data_type {
                    DataType::Utf8 => array.as_string::<i32>().value(i).into(),
                    DataType::LargeUtf8 => array.as_string::<i64>().value(i).into(),
                    DataType::Utf8View => array.as_string_view().value(i).into(),
                    DataType::Binary => array.as_binary::<i32>().value(i).into(),
                    DataType::LargeBinary => array.as_binary::<i64>().value(i).into(),
                    _ => array.as_binary_view().value(i).into(),
                })
                .collect();
            let expected: Vec<Vec<u8>> = entries.iter().map(|e| e.as_bytes().to_vec()).collect();
            assert_eq!(read, expected, "{data_type}");
        }
        let fixed = WordList::new(["abc", "def"]);
        // SAFETY: not a string type.
        let array = unsafe { written_bytes(&DataType::FixedSizeBinary(3), &fixed, None, "f") };
        assert_eq!(array.unwrap().as_fixed_size_binary().value(1), b"def");
    }

    #[test]
    fn values_beyond_the_offset_type_are_refused_with_the_fix() {
        let beyond = i32::MAX as usize + 1;
        let error = checked_offsets::<i32>(vec![0, 5], beyond, "fields[3]").unwrap_err();
        assert!(error.to_string().contains("fields[3]"), "{error}");
        assert!(error.to_string().contains("Large variant"), "{error}");
        assert!(checked_offsets::<i32>(vec![0, 5], 5, "f").is_ok());
        assert!(checked_offsets::<i64>(vec![0, 5], beyond, "f").is_ok());
    }

    fn ends(list: &[usize]) -> Ends {
        let mut ends = Ends::with_capacity(list.len());
        list.iter().for_each(|&end| ends.push(end));
        ends
    }

    #[test]
    fn offsets_start_at_zero_and_follow_the_ends() {
        let made = offsets::<i32>(&ends(&[0, 3, 3, 7]), "f").unwrap();
        assert_eq!(made.as_ref(), &[0, 0, 3, 3, 7]);
        assert_eq!(offsets::<i64>(&ends(&[]), "f").unwrap().as_ref(), &[0]);
    }

    #[test]
    fn ends_beyond_the_offset_type_are_refused_with_the_fix() {
        let beyond = i32::MAX as usize + 1;
        let error = offsets::<i32>(&ends(&[5, beyond]), "fields[1]").unwrap_err();
        assert!(error.to_string().contains("fields[1]"), "{error}");
        assert!(error.to_string().contains("Large variant"), "{error}");
        assert!(offsets::<i64>(&ends(&[5, beyond]), "fields[1]").is_ok());
    }
}
