//! The baseline path: rows drawn into per-row [`Contact`] values with freshly allocated strings,
//! then converted to a batch through Arrow's generic nested builders, as the study's first
//! version did.

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, ListBuilder, StringBuilder, StringDictionaryBuilder, StructBuilder,
};
use arrow_array::types::UInt8Type;
use arrow_array::{ArrayRef, RecordBatch, StringArray};

use crate::contact::{format_phone_number, Contact, Phone, PhoneType};
use crate::draw::ContactSink;
use crate::schema::{contact_schema, phone_fields, phone_item_field, PhoneTypeEncoding};

/// Collects drawn rows as [`Contact`] values, allocating a fresh `String` for every value.
#[derive(Debug, Default)]
pub struct ContactCollector {
    contacts: Vec<Contact>,
    name: Option<String>,
    phones: Vec<Phone>,
}

impl ContactCollector {
    /// The contacts collected so far, leaving the collector empty.
    pub fn take(&mut self) -> Vec<Contact> {
        std::mem::take(&mut self.contacts)
    }
}

impl ContactSink for ContactCollector {
    fn name(&mut self, first: &'static str, last: &'static str) {
        self.name = Some(format!("{first} {last}"));
    }

    fn null_name(&mut self) {
        self.name = None;
    }

    fn phone(&mut self, number_id: Option<u64>, phone_type: Option<PhoneType>) {
        self.phones.push(Phone {
            number: number_id.map(format_phone_number),
            phone_type: phone_type.map(|t| t.as_str().to_string()),
        });
    }

    fn end_phones(&mut self, count: usize) {
        let phones = (count > 0).then(|| std::mem::take(&mut self.phones));
        self.contacts.push(Contact {
            name: self.name.take(),
            phones,
        });
    }
}

/// Converts contacts into a batch of the contact schema with `phone_type` in `encoding`.
pub fn contacts_to_batch(contacts: &[Contact], encoding: PhoneTypeEncoding) -> RecordBatch {
    let mut names = StringBuilder::new();
    let type_builder: Box<dyn ArrayBuilder> = match encoding {
        PhoneTypeEncoding::Utf8 => Box::new(StringBuilder::new()),
        PhoneTypeEncoding::Dictionary => {
            let dictionary = StringArray::from_iter_values(PhoneType::ALL.map(PhoneType::as_str));
            Box::new(
                StringDictionaryBuilder::<UInt8Type>::new_with_dictionary(0, &dictionary)
                    .expect("three phone types fit UInt8 keys"),
            )
        }
    };
    let phone_builder = StructBuilder::new(
        phone_fields(encoding),
        vec![Box::new(StringBuilder::new()), type_builder],
    );
    let mut phones = ListBuilder::new(phone_builder).with_field(phone_item_field(encoding));
    for contact in contacts {
        names.append_option(contact.name.as_deref());
        let Some(list) = &contact.phones else {
            phones.append_null();
            continue;
        };
        let entries = phones.values();
        for phone in list {
            append_phone(entries, phone, encoding);
        }
        phones.append(true);
    }
    let columns: Vec<ArrayRef> = vec![Arc::new(names.finish()), Arc::new(phones.finish())];
    RecordBatch::try_new(contact_schema(encoding), columns)
        .expect("columns are built to match the contact schema")
}

fn append_phone(entries: &mut StructBuilder, phone: &Phone, encoding: PhoneTypeEncoding) {
    entries
        .field_builder::<StringBuilder>(0)
        .expect("field 0 is the number")
        .append_option(phone.number.as_deref());
    match encoding {
        PhoneTypeEncoding::Utf8 => entries
            .field_builder::<StringBuilder>(1)
            .expect("field 1 is the plain phone type")
            .append_option(phone.phone_type.as_deref()),
        PhoneTypeEncoding::Dictionary => entries
            .field_builder::<StringDictionaryBuilder<UInt8Type>>(1)
            .expect("field 1 is the dictionary phone type")
            .append_option(phone.phone_type.as_deref()),
    }
    entries.append(true);
}
