//! Byte-array bounds cut to a length as parquet's column writer cuts them for the column index
//! and the chunk statistics: a minimum is cut short, a maximum cut short and raised so that it
//! stays an upper bound; UTF-8 strings are cut on character boundaries and stay UTF-8.

use parquet::basic::{ConvertedType, LogicalType};
use parquet::schema::types::ColumnDescPtr;

/// `value` as a lower bound of at most `length` bytes, and whether it was cut.
pub(crate) fn min(descr: &ColumnDescPtr, length: Option<usize>, value: &[u8]) -> (Vec<u8>, bool) {
    cut(length, value, |length| match utf8(descr, value) {
        Some(text) => {
            let end = (1..=length).rev().find(|&end| text.is_char_boundary(end))?;
            Some(value[..end].to_vec())
        }
        None => Some(value[..length].to_vec()),
    })
}

/// `value` as an upper bound of at most `length` bytes, and whether it was cut.
pub(crate) fn max(descr: &ColumnDescPtr, length: Option<usize>, value: &[u8]) -> (Vec<u8>, bool) {
    cut(length, value, |length| match utf8(descr, value) {
        Some(text) => {
            // A character is at most 4 bytes: a boundary lies within the last 4 positions.
            let end = (length.saturating_sub(3)..=length)
                .rev()
                .find(|&end| text.is_char_boundary(end))?;
            raise_last_char(text.get(..end)?)
        }
        None => raise_last_byte(value[..length].to_vec()),
    })
}

/// `value` unchanged unless it is longer than `length` and `shorten` finds a shorter bound.
fn cut(
    length: Option<usize>,
    value: &[u8],
    shorten: impl FnOnce(usize) -> Option<Vec<u8>>,
) -> (Vec<u8>, bool) {
    match length
        .filter(|&length| value.len() > length)
        .and_then(shorten)
    {
        Some(shorter) => (shorter, true),
        None => (value.to_vec(), false),
    }
}

/// `value` as text if the leaf holds UTF-8 strings and it is valid UTF-8.
fn utf8<'a>(descr: &ColumnDescPtr, value: &'a [u8]) -> Option<&'a str> {
    let is_text = descr.logical_type_ref() == Some(&LogicalType::String)
        || descr.converted_type() == ConvertedType::UTF8;
    is_text.then(|| std::str::from_utf8(value).ok()).flatten()
}

/// `text` with its last character that can be raised without growing raised by one code
/// point, and the characters after it dropped; `None` if none can.
fn raise_last_char(text: &str) -> Option<Vec<u8>> {
    text.char_indices().rev().find_map(|(at, c)| {
        let next = char::from_u32(u32::from(c) + 1).filter(|n| n.len_utf8() == c.len_utf8())?;
        let mut raised = text.as_bytes()[..at + c.len_utf8()].to_vec();
        next.encode_utf8(&mut raised[at..]);
        Some(raised)
    })
}

/// `bytes` plus one, as a big-endian number of its length; `None` if every byte is 0xFF.
fn raise_last_byte(mut bytes: Vec<u8>) -> Option<Vec<u8>> {
    for byte in bytes.iter_mut().rev() {
        let (raised, overflow) = byte.overflowing_add(1);
        *byte = raised;
        if !overflow {
            return Some(bytes);
        }
    }
    None
}
