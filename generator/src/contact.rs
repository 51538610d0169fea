//! The contact record as plain Rust values, used by the baseline path and by tests.

/// The kind of a phone number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhoneType {
    /// Mobile phone.
    Mobile = 0,
    /// Work phone.
    Work = 1,
    /// Home phone.
    Home = 2,
}

impl PhoneType {
    /// Every type, in dictionary-key order.
    pub const ALL: [PhoneType; 3] = [PhoneType::Mobile, PhoneType::Work, PhoneType::Home];

    /// The type's text, as stored in the `phone_type` column.
    pub fn as_str(self) -> &'static str {
        match self {
            PhoneType::Mobile => "Mobile",
            PhoneType::Work => "Work",
            PhoneType::Home => "Home",
        }
    }
}

/// Which parts of a phone entry are present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhoneShape {
    /// Number and type.
    NumberAndType,
    /// Number, NULL type.
    NumberOnly,
    /// NULL number, type.
    TypeOnly,
    /// Both NULL.
    Neither,
}

impl PhoneShape {
    /// Every shape, in the order of [`crate::SkewConfig::phone_shape_weights`].
    pub const ALL: [PhoneShape; 4] = [
        PhoneShape::NumberAndType,
        PhoneShape::NumberOnly,
        PhoneShape::TypeOnly,
        PhoneShape::Neither,
    ];

    /// Whether the entry has a number.
    pub fn has_number(self) -> bool {
        matches!(self, PhoneShape::NumberAndType | PhoneShape::NumberOnly)
    }

    /// Whether the entry has a type.
    pub fn has_type(self) -> bool {
        matches!(self, PhoneShape::NumberAndType | PhoneShape::TypeOnly)
    }
}

/// One phone entry of a contact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phone {
    /// `+91-` and a 10-digit id, or NULL.
    pub number: Option<String>,
    /// The type's text, or NULL.
    pub phone_type: Option<String>,
}

/// One contact row. `phones` is `None` for a contact without phones (a NULL list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contact {
    /// "First Last", or NULL.
    pub name: Option<String>,
    /// The phones, or NULL when there are none.
    pub phones: Option<Vec<Phone>>,
}

/// Formats a phone id as its number text: `+91-` and ten zero-padded digits.
pub fn format_phone_number(id: u64) -> String {
    format!("+91-{id:010}")
}
