//! The Arrow schema of a contact.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

/// How the `phone_type` column is stored. The data is the same either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhoneTypeEncoding {
    /// Plain `Utf8`, as in the study's baseline.
    Utf8,
    /// `Dictionary(UInt8, Utf8)`, the study's optimization 01.
    Dictionary,
}

impl PhoneTypeEncoding {
    /// The Arrow type of the `phone_type` column.
    pub fn data_type(self) -> DataType {
        match self {
            Self::Utf8 => DataType::Utf8,
            Self::Dictionary => {
                DataType::Dictionary(Box::new(DataType::UInt8), Box::new(DataType::Utf8))
            }
        }
    }
}

/// Fields of the struct inside the `phones` list: `number` and `phone_type`, both nullable.
pub fn phone_fields(encoding: PhoneTypeEncoding) -> Fields {
    Fields::from(vec![
        Field::new("number", DataType::Utf8, true),
        Field::new("phone_type", encoding.data_type(), true),
    ])
}

/// The list item field of `phones`. Items are never null: a contact without phones has a NULL list.
pub fn phone_item_field(encoding: PhoneTypeEncoding) -> Arc<Field> {
    Arc::new(Field::new(
        "item",
        DataType::Struct(phone_fields(encoding)),
        false,
    ))
}

/// `name: Utf8 (nullable)`, `phones: List<Struct<number: Utf8, phone_type>> (nullable)`.
pub fn contact_schema(encoding: PhoneTypeEncoding) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("name", DataType::Utf8, true),
        Field::new("phones", DataType::List(phone_item_field(encoding)), true),
    ]))
}
