//! The fast path: contacts drawn straight into Arrow buffers, no per-row values in between.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::builder::{PrimitiveBuilder, StringBuilder};
use arrow_array::types::UInt8Type;
use arrow_array::{ArrayRef, DictionaryArray, ListArray, RecordBatch, StringArray, StructArray};
use arrow_buffer::{NullBuffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::SchemaRef;

use crate::contact::PhoneType;
use crate::draw::{draw_contacts, ContactSink};
use crate::generator::ContactGenerator;
use crate::recycle;
use crate::sampler::ContactSampler;
use crate::schema::{contact_schema, phone_fields, phone_item_field, PhoneTypeEncoding};
use crate::text::{NameText, NumberText};

/// Builds the `phone_type` column in one encoding.
pub trait PhoneTypeColumn: Default + Send {
    /// The encoding this column produces.
    const ENCODING: PhoneTypeEncoding;
    /// Appends one value (`None` is NULL).
    fn append(&mut self, phone_type: Option<PhoneType>);
    /// Takes the values appended so far as an array, leaving the column empty.
    fn finish(&mut self) -> ArrayRef;
    /// Reuses the allocations of an array this column made, if nothing else holds them.
    fn recycle(&mut self, _array: ArrayRef) {}
}

/// `phone_type` as `Dictionary(UInt8, Utf8)` with the fixed dictionary Mobile, Work, Home.
#[derive(Debug, Default)]
pub struct PhoneTypeKeys(PrimitiveBuilder<UInt8Type>);

impl PhoneTypeColumn for PhoneTypeKeys {
    const ENCODING: PhoneTypeEncoding = PhoneTypeEncoding::Dictionary;

    #[inline]
    fn append(&mut self, phone_type: Option<PhoneType>) {
        self.0.append_option(phone_type.map(|t| t as u8));
    }

    fn finish(&mut self) -> ArrayRef {
        Arc::new(DictionaryArray::new(
            self.0.finish(),
            phone_type_dictionary(),
        ))
    }

    fn recycle(&mut self, array: ArrayRef) {
        if let Some(keys) = recycle::reclaim_keys(array) {
            self.0 = keys;
        }
    }
}

/// The dictionary of the `phone_type` column: every type's text, in key order.
pub fn phone_type_dictionary() -> ArrayRef {
    Arc::new(StringArray::from_iter_values(
        PhoneType::ALL.iter().map(|t| t.as_str()),
    ))
}

/// `phone_type` as plain `Utf8`.
#[derive(Debug, Default)]
pub struct PhoneTypeStrings(StringBuilder);

impl PhoneTypeColumn for PhoneTypeStrings {
    const ENCODING: PhoneTypeEncoding = PhoneTypeEncoding::Utf8;

    #[inline]
    fn append(&mut self, phone_type: Option<PhoneType>) {
        self.0.append_option(phone_type.map(PhoneType::as_str));
    }

    fn finish(&mut self) -> ArrayRef {
        Arc::new(self.0.finish())
    }

    fn recycle(&mut self, array: ArrayRef) {
        if let Some(strings) = recycle::reclaim_strings(array) {
            self.0 = strings;
        }
    }
}

/// Draws contacts directly into column builders and assembles the nested arrays at the end.
/// Keep one per thread and call [`ContactBuilder::build`] repeatedly: the builder and its
/// text buffers persist across batches.
#[derive(Debug)]
pub struct ContactBatchBuilder<T, Nm, Nu> {
    schema: SchemaRef,
    names: StringBuilder,
    name_text: Nm,
    numbers: StringBuilder,
    number_text: Nu,
    phone_types: T,
    list_offsets: Vec<i32>,
    list_nulls: NullBufferBuilder,
}

impl<T: PhoneTypeColumn, Nm: NameText + Default, Nu: NumberText + Default> Default
    for ContactBatchBuilder<T, Nm, Nu>
{
    fn default() -> Self {
        Self::new(Nm::default(), Nu::default())
    }
}

impl<T: PhoneTypeColumn, Nm: NameText, Nu: NumberText> ContactBatchBuilder<T, Nm, Nu> {
    /// A builder that writes names with `name_text` and numbers with `number_text`.
    pub fn new(name_text: Nm, number_text: Nu) -> Self {
        Self {
            schema: contact_schema(T::ENCODING),
            names: StringBuilder::new(),
            name_text,
            numbers: StringBuilder::new(),
            number_text,
            phone_types: T::default(),
            list_offsets: vec![0],
            list_nulls: NullBufferBuilder::new(0),
        }
    }

    /// The schema of the batches this builder makes.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn finish(&mut self) -> RecordBatch {
        let offsets = std::mem::replace(&mut self.list_offsets, vec![0]);
        contact_batch(
            &self.schema,
            T::ENCODING,
            ContactColumns {
                names: Arc::new(self.names.finish()),
                list_offsets: offsets,
                list_nulls: self.list_nulls.finish(),
                numbers: Arc::new(self.numbers.finish()),
                phone_types: self.phone_types.finish(),
            },
        )
    }
}

impl<T: PhoneTypeColumn, Nm: NameText, Nu: NumberText> ContactBuilder
    for ContactBatchBuilder<T, Nm, Nu>
{
    fn build<S: ContactSampler + ?Sized>(
        &mut self,
        generator: &ContactGenerator<S>,
        rows: Range<u64>,
    ) -> RecordBatch {
        let len = rows.end.saturating_sub(rows.start) as usize;
        self.list_offsets.reserve(len);
        draw_contacts(generator.seed(), rows, generator.sampler(), self);
        self.finish()
    }

    fn recycle(&mut self, batch: RecordBatch) {
        let Some(parts) = recycle::split_contacts(batch) else {
            return;
        };
        if let Some(builder) = recycle::reclaim_strings(parts.names) {
            self.names = builder;
        }
        if let Some(mut offsets) = parts.list_offsets {
            offsets.push(0);
            self.list_offsets = offsets;
        }
        if let Some(builder) = parts.numbers.and_then(recycle::reclaim_strings) {
            self.numbers = builder;
        }
        if let Some(phone_types) = parts.phone_types {
            self.phone_types.recycle(phone_types);
        }
    }
}

/// Builds batches of contacts, keeping its buffers from one batch to the next. Keep one per
/// thread and call [`ContactBuilder::build`] repeatedly.
pub trait ContactBuilder {
    /// Draws rows `rows` of `generator` into one batch.
    fn build<S: ContactSampler + ?Sized>(
        &mut self,
        generator: &ContactGenerator<S>,
        rows: Range<u64>,
    ) -> RecordBatch;

    /// Takes back the buffers of a batch this builder made, once nothing else holds them, as
    /// capacity for the next batches: a steady stream of batches then reuses its text, offset
    /// and key allocations instead of allocating (and faulting in) new ones. Call between
    /// builds; buffers still shared are simply dropped.
    fn recycle(&mut self, batch: RecordBatch);
}

/// A batch's finished columns, before they are nested into the contact schema.
pub(crate) struct ContactColumns {
    /// The `name` column.
    pub names: ArrayRef,
    /// One offset per contact into the phones, plus the end.
    pub list_offsets: Vec<i32>,
    /// Which contacts have phones (`None`: all of them).
    pub list_nulls: Option<NullBuffer>,
    /// The phones' `number` column.
    pub numbers: ArrayRef,
    /// The phones' `phone_type` column.
    pub phone_types: ArrayRef,
}

/// Nests `columns` into a batch of `schema`, the contact schema with `phone_type` stored as
/// `encoding`.
pub(crate) fn contact_batch(
    schema: &SchemaRef,
    encoding: PhoneTypeEncoding,
    columns: ContactColumns,
) -> RecordBatch {
    let phones = StructArray::new(
        phone_fields(encoding),
        vec![columns.numbers, columns.phone_types],
        None,
    );
    let list = ListArray::new(
        phone_item_field(encoding),
        OffsetBuffer::new(ScalarBuffer::from(columns.list_offsets)),
        Arc::new(phones),
        columns.list_nulls,
    );
    RecordBatch::try_new(schema.clone(), vec![columns.names, Arc::new(list)])
        .expect("columns are built to match the contact schema")
}

impl<T: PhoneTypeColumn, Nm: NameText, Nu: NumberText> ContactSink
    for ContactBatchBuilder<T, Nm, Nu>
{
    #[inline]
    fn name(&mut self, first: &'static str, last: &'static str) {
        self.name_text.append(first, last, &mut self.names);
    }

    #[inline]
    fn null_name(&mut self) {
        self.names.append_null();
    }

    #[inline]
    fn phone(&mut self, number_id: Option<u64>, phone_type: Option<PhoneType>) {
        match number_id {
            Some(id) => self.number_text.append(id, &mut self.numbers),
            None => self.numbers.append_null(),
        }
        self.phone_types.append(phone_type);
    }

    #[inline]
    fn end_phones(&mut self, count: usize) {
        let end = self.list_offsets.last().copied().unwrap_or(0) + count as i32;
        self.list_offsets.push(end);
        self.list_nulls.append(count > 0);
    }
}
