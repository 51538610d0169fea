//! The raw path: contacts drawn into plain vectors (text bytes, offsets, validity words,
//! dictionary keys) that become Arrow arrays once per batch.
//!
//! [`ContactBatchBuilder`](crate::ContactBatchBuilder) appends through Arrow's builders, which
//! pay per value: a call for each value or NULL, a capacity check for each piece of text, a
//! branch in the null-buffer builder, and a call to the C library's `memcpy` for each name part,
//! whose length is known only at run time. Here a name is copied by fixed-size moves into room
//! made for the longest, a number's fourteen bytes are assembled in registers and stored at
//! once, and validity bits are gathered in a machine word. The batches are the same, array for
//! array.

use std::mem;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::types::UInt8Type;
use arrow_array::{ArrayRef, DictionaryArray, RecordBatch, StringArray, UInt8Array};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::SchemaRef;

use crate::batch::{contact_batch, phone_type_dictionary, ContactBuilder, ContactColumns};
use crate::contact::PhoneType;
use crate::draw::{draw_contacts, ContactSink};
use crate::generator::ContactGenerator;
use crate::recycle;
use crate::sampler::ContactSampler;
use crate::schema::{contact_schema, PhoneTypeEncoding};
use crate::text::phone_number_bytes;

/// The longest name part copied by fixed-size moves (every name of the vocabularies); a longer
/// one is appended as a slice.
const SHORT: usize = 16;

/// Draws contacts into plain vectors and makes them Arrow arrays once per batch: the batches of
/// `ContactBatchBuilder<PhoneTypeKeys, DirectName, DirectDigits>`, without a builder call per
/// value.
///
/// # Panics
/// `build` panics if one batch's names or numbers pass 2 GiB of text, or its phones 2^31, the
/// most 32-bit Arrow offsets address (the `pipeline` binary caps batches far below that).
#[derive(Debug)]
pub struct RawContactBuilder {
    schema: SchemaRef,
    names: RawText,
    numbers: RawText,
    type_keys: Vec<u8>,
    type_validity: Validity,
    list_offsets: Vec<i32>,
    list_validity: Validity,
}

impl Default for RawContactBuilder {
    fn default() -> Self {
        Self {
            schema: contact_schema(PhoneTypeEncoding::Dictionary),
            names: RawText::default(),
            numbers: RawText::default(),
            type_keys: Vec::new(),
            type_validity: Validity::default(),
            list_offsets: vec![0],
            list_validity: Validity::default(),
        }
    }
}

impl RawContactBuilder {
    /// The schema of the batches this builder makes (`phone_type` dictionary-keyed).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Empties every vector, keeping its allocation, so that a batch starts clean even after an
    /// earlier `build` panicked half-way through `finish`.
    fn clear(&mut self) {
        self.names.clear();
        self.numbers.clear();
        self.type_keys.clear();
        self.type_validity.clear();
        self.list_offsets.clear();
        self.list_offsets.push(0);
        self.list_validity.clear();
    }

    /// Makes room for `rows` more contacts with a phone each, so that a fresh builder grows its
    /// vectors once instead of doubling them through the batch.
    fn reserve(&mut self, rows: usize) {
        self.names.reserve(rows, SHORT);
        self.numbers.reserve(rows, phone_number_bytes(0).len());
        self.type_keys.reserve(rows);
        self.type_validity.reserve(rows);
        self.list_offsets.reserve(rows);
        self.list_validity.reserve(rows);
    }

    fn finish(&mut self) -> RecordBatch {
        let phones = self.type_keys.len();
        assert!(
            i32::try_from(phones).is_ok(),
            "one batch holds {phones} phones, beyond the 2^31 that 32-bit list offsets address: \
             build smaller batches"
        );
        let keys = UInt8Array::new(
            ScalarBuffer::from(mem::take(&mut self.type_keys)),
            self.type_validity.finish(),
        );
        let phone_types = DictionaryArray::<UInt8Type>::new(keys, phone_type_dictionary());
        contact_batch(
            &self.schema,
            PhoneTypeEncoding::Dictionary,
            ContactColumns {
                names: self.names.finish(),
                list_offsets: mem::replace(&mut self.list_offsets, vec![0]),
                list_nulls: self.list_validity.finish(),
                numbers: self.numbers.finish(),
                phone_types: Arc::new(phone_types),
            },
        )
    }
}

impl ContactBuilder for RawContactBuilder {
    fn build<S: ContactSampler + ?Sized>(
        &mut self,
        generator: &ContactGenerator<S>,
        rows: Range<u64>,
    ) -> RecordBatch {
        self.clear();
        self.reserve(rows.end.saturating_sub(rows.start) as usize);
        draw_contacts(generator.seed(), rows, generator.sampler(), self);
        self.finish()
    }

    fn recycle(&mut self, batch: RecordBatch) {
        let Some(parts) = recycle::split_contacts(batch) else {
            return;
        };
        if let Some((offsets, values)) = recycle::reclaim_string_vecs(parts.names) {
            self.names.reuse(offsets, values);
        }
        if let Some(mut offsets) = parts.list_offsets {
            offsets.push(0);
            self.list_offsets = offsets;
        }
        if let Some((offsets, values)) = parts.numbers.and_then(recycle::reclaim_string_vecs) {
            self.numbers.reuse(offsets, values);
        }
        if let Some(keys) = parts.phone_types.and_then(recycle::reclaim_key_vec) {
            self.type_keys = keys;
        }
    }
}

impl ContactSink for RawContactBuilder {
    #[inline]
    fn name(&mut self, first: &'static str, last: &'static str) {
        self.names.push_name(first, last);
    }

    #[inline]
    fn null_name(&mut self) {
        self.names.push_null();
    }

    #[inline]
    fn phone(&mut self, number_id: Option<u64>, phone_type: Option<PhoneType>) {
        match number_id {
            Some(id) => self.numbers.push_number(id),
            None => self.numbers.push_null(),
        }
        // A NULL's key is 0, as Arrow's builders leave it: the arrays compare equal either way,
        // and the Parquet bytes never see it.
        self.type_keys.push(phone_type.map_or(0, |t| t as u8));
        self.type_validity.push(phone_type.is_some());
    }

    #[inline]
    fn end_phones(&mut self, count: usize) {
        // One key per phone: their count is the offset where the next contact's phones start.
        self.list_offsets.push(self.type_keys.len() as i32);
        self.list_validity.push(count > 0);
    }
}

/// One string column as plain vectors.
#[derive(Debug)]
struct RawText {
    values: Vec<u8>,
    offsets: Vec<i32>,
    validity: Validity,
}

impl Default for RawText {
    fn default() -> Self {
        Self {
            values: Vec::new(),
            offsets: vec![0],
            validity: Validity::default(),
        }
    }
}

impl RawText {
    fn clear(&mut self) {
        self.values.clear();
        self.offsets.clear();
        self.offsets.push(0);
        self.validity.clear();
    }

    fn reserve(&mut self, values: usize, bytes_per_value: usize) {
        self.values.reserve(values * bytes_per_value);
        self.offsets.reserve(values);
        self.validity.reserve(values);
    }

    /// Takes back the emptied allocations of an array this column made.
    fn reuse(&mut self, mut offsets: Vec<i32>, values: Vec<u8>) {
        offsets.push(0);
        self.offsets = offsets;
        self.values = values;
    }

    /// Closes the value whose bytes were just appended (none for a NULL).
    #[inline]
    fn end_value(&mut self, valid: bool) {
        // Lossless while the text stays within 2 GiB, which `finish` checks: offsets only grow,
        // so the last is the largest.
        self.offsets.push(self.values.len() as i32);
        self.validity.push(valid);
    }

    #[inline]
    fn push_null(&mut self) {
        self.end_value(false);
    }

    #[inline]
    fn push_number(&mut self, id: u64) {
        self.values.extend_from_slice(&phone_number_bytes(id));
        self.end_value(true);
    }

    /// Appends `first last`.
    #[inline]
    fn push_name(&mut self, first: &str, last: &str) {
        let (first, last) = (first.as_bytes(), last.as_bytes());
        let end = self.values.len() + first.len() + 1 + last.len();
        if first.len() <= SHORT && last.len() <= SHORT {
            // Room for the longest name, filled with zeros by wide fixed-size stores, then the
            // parts copied over it and the room cut back to the name.
            let start = self.values.len();
            self.values.extend_from_slice(&[0; 2 * SHORT + 1]);
            let room = &mut self.values[start..];
            copy_short(room, first);
            room[first.len()] = b' ';
            copy_short(&mut room[first.len() + 1..], last);
            self.values.truncate(end);
        } else {
            self.values.extend_from_slice(first);
            self.values.push(b' ');
            self.values.extend_from_slice(last);
        }
        self.end_value(true);
    }

    fn finish(&mut self) -> ArrayRef {
        // All three taken before any check, so that a panic leaves this column empty.
        let values = mem::take(&mut self.values);
        let offsets = mem::replace(&mut self.offsets, vec![0]);
        let nulls = self.validity.finish();
        assert!(
            i32::try_from(values.len()).is_ok(),
            "one batch holds {} bytes of text, beyond the 2 GiB that 32-bit offsets address: \
             build smaller batches",
            values.len()
        );
        assert!(nulls.as_ref().is_none_or(|n| n.len() == offsets.len() - 1));
        let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
        let values = Buffer::from_vec(values);
        debug_assert!(StringArray::try_new(offsets.clone(), values.clone(), nulls.clone()).is_ok());
        // SAFETY: the offsets are non-negative and non-decreasing (`OffsetBuffer::new` checks),
        // start at 0 and end at the text's length; every value between two of them is whole
        // `&str`s and a space, or ASCII digits, so valid UTF-8. `StringArray::try_new` would
        // check all of it again, byte by byte, for every batch.
        Arc::new(unsafe { StringArray::new_unchecked(offsets, values, nulls) })
    }
}

/// Copies `src` (at most [`SHORT`] bytes) to the start of `dst` (at least [`SHORT`] bytes) with
/// two overlapping moves of one fixed size, chosen by the length's size class, where `memcpy`
/// would be a call that dispatches on the length.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    let len = src.len();
    debug_assert!(len <= SHORT && dst.len() >= SHORT);
    if len >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[len - 8..len].copy_from_slice(&src[len - 8..]);
    } else if len >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[len - 4..len].copy_from_slice(&src[len - 4..]);
    } else if len >= 2 {
        dst[..2].copy_from_slice(&src[..2]);
        dst[len - 2..len].copy_from_slice(&src[len - 2..]);
    } else if len == 1 {
        dst[0] = src[0];
    }
}

/// Validity bits gathered 64 at a time in a word, one bit per value, set for a valid one.
#[derive(Debug, Default)]
struct Validity {
    words: Vec<u64>,
    word: u64,
    len: usize,
}

impl Validity {
    fn clear(&mut self) {
        self.words.clear();
        self.word = 0;
        self.len = 0;
    }

    fn reserve(&mut self, values: usize) {
        self.words.reserve(values / 64 + 1);
    }

    #[inline]
    fn push(&mut self, valid: bool) {
        self.word |= u64::from(valid) << (self.len % 64);
        self.len += 1;
        if self.len.is_multiple_of(64) {
            self.words.push(mem::take(&mut self.word));
        }
    }

    /// The bits pushed since the last call; `None` when no value is NULL, as Arrow's builders
    /// leave an array without NULLs.
    fn finish(&mut self) -> Option<NullBuffer> {
        if !self.len.is_multiple_of(64) {
            self.words.push(mem::take(&mut self.word));
        }
        let len = mem::take(&mut self.len);
        // Bits past `len` are clear, so this counts the valid values.
        let valid: usize = self
            .words
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum();
        if valid == len {
            self.words.clear();
            return None;
        }
        let bits = BooleanBuffer::new(Buffer::from_vec(mem::take(&mut self.words)), 0, len);
        Some(NullBuffer::new(bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn short_copies_reproduce_every_length() {
        let text = b"ABCDEFGHIJKLMNOP";
        for len in 0..=SHORT {
            let mut dst = [b'.'; SHORT];
            copy_short(&mut dst, &text[..len]);
            assert_eq!(&dst[..len], &text[..len], "length {len}");
            assert!(dst[len..].iter().all(|&b| b == b'.'), "length {len}");
        }
    }

    #[test]
    fn names_of_any_length_are_written_whole() {
        let long = "Wolfeschlegelsteinhausen";
        let mut text = RawText::default();
        for (first, last) in [
            ("Al", "Ng"),
            ("A", "B"),
            ("Maximilian", long),
            (long, ""),
            ("", ""),
        ] {
            text.push_name(first, last);
        }
        text.push_null();
        let array = text.finish();
        let names = array.as_any().downcast_ref::<StringArray>().unwrap();
        let expected = [
            Some("Al Ng".to_string()),
            Some("A B".to_string()),
            Some(format!("Maximilian {long}")),
            Some(format!("{long} ")),
            Some(" ".to_string()),
            None,
        ];
        assert_eq!(
            names
                .iter()
                .map(|n| n.map(str::to_string))
                .collect::<Vec<_>>(),
            expected
        );
    }

    #[test]
    fn recycled_batches_give_their_allocations_back() {
        let generator = ContactGenerator::new(
            3,
            crate::PrecomputedSampler::try_new(crate::SkewConfig::default()).unwrap(),
        );
        let mut builder = RawContactBuilder::default();
        let batch = builder.build(&generator, 0..4_000);
        let kept = batch.clone();
        builder.recycle(batch);
        // Still held by `kept`: nothing may be taken back (`finish` left the builder empty).
        assert_eq!(builder.names.values.capacity(), 0);
        builder.recycle(kept);
        assert!(builder.names.values.capacity() >= 4_000);
        assert!(builder.numbers.values.capacity() >= 4_000);
        assert!(builder.names.offsets.capacity() > 4_000);
        assert!(builder.type_keys.capacity() >= 3_000);
        assert!(builder.list_offsets.capacity() > 4_000);
        assert_eq!(
            (
                builder.names.offsets.as_slice(),
                builder.list_offsets.as_slice()
            ),
            (&[0][..], &[0][..])
        );
        assert!(builder.names.values.is_empty() && builder.type_keys.is_empty());
    }

    #[test]
    fn validity_counts_across_words_and_omits_all_valid_bits() {
        let mut validity = Validity::default();
        (0..130).for_each(|i| validity.push(i % 3 != 0));
        let nulls = validity.finish().expect("has NULLs");
        assert_eq!(nulls.len(), 130);
        assert_eq!(nulls.null_count(), (0..130).filter(|i| i % 3 == 0).count());
        assert!((0..130).all(|i| nulls.is_valid(i) == (i % 3 != 0)));
        (0..64).for_each(|_| validity.push(true));
        assert!(validity.finish().is_none());
    }
}
