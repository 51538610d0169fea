//! What one column of a batch can take: the rows Arrow's 32-bit offsets address, and the
//! bytes a slot holds while its batch is generated (the spec's memory bound).

use arrow_schema::DataType;

use super::{Column, Kind};
use crate::spec::draw::Slot;
use crate::spec::error::error;
use crate::spec::SpecError;

/// The bytes a slot's address takes while its batch is generated.
const SLOT_BYTES: u128 = std::mem::size_of::<Slot>() as u128;

impl Column {
    /// Fails when a batch of `rows` rows could hold more than Arrow's 32-bit offsets address.
    pub fn check_rows(&self, rows: u128) -> Result<(), SpecError> {
        let data_type = self.field.data_type();
        let beyond = |what: &str, needed: u128| -> Result<(), SpecError> {
            if needed <= i32::MAX as u128 {
                return Ok(());
            }
            let fix = match data_type {
                DataType::Utf8 | DataType::Binary | DataType::List(_) => {
                    "use a smaller batch size, or the Large variant of the type"
                }
                _ => "use a smaller batch size",
            };
            Err(error(
                &self.path,
                format!("a batch could hold {needed} {what}, beyond the 2^31 that {data_type} addresses: {fix}"),
            ))
        };
        match (&self.kind, data_type) {
            (
                Kind::Leaf(leaf),
                DataType::Utf8 | DataType::Binary | DataType::FixedSizeBinary(_),
            ) => {
                let longest = leaf.max_len().unwrap_or(0);
                beyond("bytes", rows.saturating_mul(u128::from(longest)))
            }
            (Kind::List { lengths, item }, _)
            | (
                Kind::Map {
                    lengths,
                    entries: item,
                    ..
                },
                _,
            ) => {
                let items = rows.saturating_mul(u128::from(lengths.max()));
                if !matches!(data_type, DataType::LargeList(_)) {
                    beyond("items", items)?;
                }
                item.check_rows(items)
            }
            (Kind::FixedSizeList { size, item }, _) => {
                let items = rows.saturating_mul(u128::from(*size));
                beyond("items", items)?;
                item.check_rows(items)
            }
            (Kind::Struct(children), _) => children.iter().try_for_each(|c| c.check_rows(rows)),
            _ => Ok(()),
        }
    }

    /// The most bytes one slot of the column takes while its batch is generated: its value,
    /// offset and validity, and the items of its lists with their slots.
    pub fn slot_bytes(&self) -> u128 {
        let validity = u128::from(self.null_probability > 0.0);
        let items = |count: u64, item: &Column| {
            u128::from(count).saturating_mul(SLOT_BYTES + item.slot_bytes())
        };
        let own = match &self.kind {
            Kind::Leaf(leaf) => leaf.slot_bytes(self.field.data_type()),
            Kind::Dictionary { .. } => match self.field.data_type() {
                DataType::Dictionary(key, _) => key.primitive_width().unwrap_or(8) as u128,
                _ => 8,
            },
            // An end (8 bytes) and an offset (at most 8) per list.
            Kind::List { lengths, item } => 16 + items(lengths.max(), item),
            Kind::Map {
                lengths, entries, ..
            } => 16 + items(lengths.max(), entries),
            Kind::FixedSizeList { size, item } => items(*size, item),
            Kind::Struct(children) => children
                .iter()
                .fold(0u128, |sum, c| sum.saturating_add(c.slot_bytes())),
        };
        own.saturating_add(validity)
    }
}
