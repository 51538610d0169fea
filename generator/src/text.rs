//! Ways of turning drawn names and phone ids into string values. They write identical text and
//! differ only in allocation and formatting cost, which is what optimizations 02-04 and the
//! digit-writing experiment measure.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, RwLock};

use arrow_array::builder::StringBuilder;

use crate::contact::format_phone_number;

/// Appends a contact's name, `first last`, to a string column.
pub trait NameText: Send {
    /// Appends `first last` as one value.
    fn append(&mut self, first: &str, last: &str, out: &mut StringBuilder);
}

/// Appends a phone id's number text, `+91-` and ten zero-padded digits, to a string column.
pub trait NumberText: Send {
    /// Appends the number of phone `id` as one value.
    fn append(&mut self, id: u64, out: &mut StringBuilder);
}

/// A freshly allocated `String` per name (`format!`).
#[derive(Debug, Default, Clone)]
pub struct FreshName;

impl NameText for FreshName {
    fn append(&mut self, first: &str, last: &str, out: &mut StringBuilder) {
        out.append_value(format!("{first} {last}"));
    }
}

/// One `String` buffer, cleared and reused for every name.
#[derive(Debug, Default, Clone)]
pub struct ReusedNameBuffer(String);

impl NameText for ReusedNameBuffer {
    #[inline]
    fn append(&mut self, first: &str, last: &str, out: &mut StringBuilder) {
        self.0.clear();
        self.0.push_str(first);
        self.0.push(' ');
        self.0.push_str(last);
        out.append_value(&self.0);
    }
}

/// Writes straight into the column's value buffer: no intermediate string at all.
#[derive(Debug, Default, Clone)]
pub struct DirectName;

impl NameText for DirectName {
    #[inline]
    fn append(&mut self, first: &str, last: &str, out: &mut StringBuilder) {
        // Writes to an in-memory builder cannot fail.
        let _ = out.write_str(first);
        let _ = out.write_char(' ');
        let _ = out.write_str(last);
        out.append_value("");
    }
}

/// Names interned in one table shared by every producer: each name is looked up under a lock
/// and its `Arc<str>` cloned. The study's optimization 09, a regression: the lock word and the
/// reference counts are written by every core, so their cache lines bounce between cores.
#[derive(Debug, Default, Clone)]
pub struct InternedName {
    table: Arc<NameInterner>,
    key: String,
}

/// The shared table behind [`InternedName`].
#[derive(Debug, Default)]
pub struct NameInterner(RwLock<HashMap<Box<str>, Arc<str>>>);

impl NameInterner {
    fn intern(&self, name: &str) -> Arc<str> {
        let found = self
            .0
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(name)
            .cloned();
        found.unwrap_or_else(|| {
            let mut table = self
                .0
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            table
                .entry(name.into())
                .or_insert_with(|| name.into())
                .clone()
        })
    }
}

impl InternedName {
    /// Interns into `table`, shared with the other producers.
    pub fn new(table: Arc<NameInterner>) -> Self {
        Self {
            table,
            key: String::new(),
        }
    }
}

impl NameText for InternedName {
    fn append(&mut self, first: &str, last: &str, out: &mut StringBuilder) {
        self.key.clear();
        self.key.push_str(first);
        self.key.push(' ');
        self.key.push_str(last);
        let interned = self.table.intern(&self.key);
        out.append_value(&*interned);
    }
}

/// A freshly allocated `String` per number (`format!`).
#[derive(Debug, Default, Clone)]
pub struct FreshNumber;

impl NumberText for FreshNumber {
    fn append(&mut self, id: u64, out: &mut StringBuilder) {
        out.append_value(format_phone_number(id));
    }
}

/// One `String` buffer reused for every number, still formatted with `write!`.
#[derive(Debug, Default, Clone)]
pub struct ReusedNumberBuffer(String);

impl NumberText for ReusedNumberBuffer {
    #[inline]
    fn append(&mut self, id: u64, out: &mut StringBuilder) {
        self.0.clear();
        // Writes to a String cannot fail.
        let _ = write!(self.0, "+91-{id:010}");
        out.append_value(&self.0);
    }
}

/// Digits written by hand, two at a time from a table, straight into the value buffer: no
/// `fmt` machinery and no UTF-8 validation of a scratch buffer.
#[derive(Debug, Default, Clone)]
pub struct DirectDigits;

impl NumberText for DirectDigits {
    #[inline]
    fn append(&mut self, id: u64, out: &mut StringBuilder) {
        // Writes to an in-memory builder cannot fail.
        let _ = out.write_str("+91-");
        let mut rest = id % 10_000_000_000;
        let mut pairs = [0usize; 5];
        for pair in pairs.iter_mut().rev() {
            *pair = (rest % 100) as usize;
            rest /= 100;
        }
        for pair in pairs {
            let _ = out.write_str(&DIGIT_PAIRS[2 * pair..2 * pair + 2]);
        }
        out.append_value("");
    }
}

/// A phone number's text, `+91-` and the id's ten zero-padded digits, assembled in a local
/// array: the caller stores all fourteen bytes with one fixed-size copy, where [`DirectDigits`]
/// appends six pieces to the builder, each with its own capacity check.
#[inline]
pub fn phone_number_bytes(id: u64) -> [u8; 14] {
    let mut text = *b"+91-0000000000";
    let mut rest = id % 10_000_000_000;
    for at in [12, 10, 8, 6, 4] {
        let pair = 2 * (rest % 100) as usize;
        rest /= 100;
        text[at..at + 2].copy_from_slice(&DIGIT_PAIRS.as_bytes()[pair..pair + 2]);
    }
    text
}

/// "00", "01", ... "99", concatenated.
const DIGIT_PAIRS: &str = match std::str::from_utf8(&digit_pairs()) {
    Ok(text) => text,
    Err(_) => panic!("digit pairs are ASCII"),
};

const fn digit_pairs() -> [u8; 200] {
    let mut text = [0u8; 200];
    let mut n = 0;
    while n < 100 {
        text[2 * n] = b'0' + (n / 10) as u8;
        text[2 * n + 1] = b'0' + (n % 10) as u8;
        n += 1;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    fn numbers<N: NumberText + Default>(ids: &[u64]) -> Vec<String> {
        let mut out = StringBuilder::new();
        let mut text = N::default();
        ids.iter().for_each(|&id| text.append(id, &mut out));
        let array = out.finish();
        (0..array.len())
            .map(|i| array.value(i).to_string())
            .collect()
    }

    fn names<N: NameText + Default>() -> Vec<String> {
        let mut out = StringBuilder::new();
        let mut text = N::default();
        text.append("Ada", "Lovelace", &mut out);
        text.append("Al", "Ng", &mut out);
        let array = out.finish();
        (0..array.len())
            .map(|i| array.value(i).to_string())
            .collect()
    }

    #[test]
    fn number_strategies_agree() {
        let ids = [0, 7, 1234567890, 9_999_999_999, 42_000_000];
        // Written out by hand, not by the code under test: "+91-" and ten zero-padded digits.
        let expected = [
            "+91-0000000000",
            "+91-0000000007",
            "+91-1234567890",
            "+91-9999999999",
            "+91-0042000000",
        ];
        let formatted: Vec<_> = ids.iter().map(|&id| format_phone_number(id)).collect();
        assert_eq!(formatted, expected);
        assert_eq!(numbers::<FreshNumber>(&ids), expected);
        assert_eq!(numbers::<ReusedNumberBuffer>(&ids), expected);
        assert_eq!(numbers::<DirectDigits>(&ids), expected);
        let assembled: Vec<_> = ids
            .iter()
            .map(|&id| String::from_utf8(phone_number_bytes(id).to_vec()).unwrap())
            .collect();
        assert_eq!(assembled, expected);
    }

    #[test]
    fn name_strategies_agree() {
        let expected = vec!["Ada Lovelace".to_string(), "Al Ng".to_string()];
        assert_eq!(names::<FreshName>(), expected);
        assert_eq!(names::<ReusedNameBuffer>(), expected);
        assert_eq!(names::<DirectName>(), expected);
        assert_eq!(names::<InternedName>(), expected);
    }
}
