//! A dictionary-encoded column: keys picked from the value leaf's vocabulary, which is the
//! dictionary.

use arrow_array::ArrayRef;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;

use super::{Column, Kind};
use crate::spec::arrays::{dictionary_array, key_capacity};
use crate::spec::draw::{Draw, Slot, SlotDraws, Stream};
use crate::spec::error::error;
use crate::spec::leaf::Leaf;
use crate::spec::parquet_types::{parquet_type, Conversion};
use crate::spec::{FieldSpec, SpecError};

impl Column {
    /// The dictionary array of `slots`: their keys into `dictionary`, drawn where `drawn`
    /// marks (every slot when `None`).
    pub(super) fn dictionary_array(
        &self,
        dictionary: &ArrayRef,
        slots: &[Slot],
        drawn: Option<&BooleanBuffer>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let DataType::Dictionary(key_type, _) = self.field.data_type() else {
            unreachable!("a dictionary column has a dictionary type")
        };
        // Every key is in range: the vocabulary is the dictionary, one list of entries, which a
        // picker draws from. A NULL slot's key is 0 when it is not drawn.
        let Some(picker) = self.picker() else {
            return Err(error(
                &self.path,
                "a dictionary draws from one vocabulary list",
            ));
        };
        // Drawn in a loop of its own, the pick inlined: drawn inside the collection of each key
        // type's array, it was a call per key.
        let draws = SlotDraws::new(slots, self.stream, Draw::Value, self.wide_hashes);
        let keys: Vec<usize> = (0..slots.len())
            .map(|i| match drawn.is_none_or(|d| d.value(i)) {
                true => picker.pick_bits(draws.bits(i, slots[i])),
                false => 0,
            })
            .collect();
        dictionary_array(key_type, keys.iter().copied(), nulls, dictionary.clone())
            .map_err(|e| self.assembly_error(e))
    }
}

/// The dictionary-encoded column of `spec`: its values' leaf, whose vocabulary is the
/// dictionary, which keys of `key_type` must address.
pub(super) fn dictionary_kind(
    key_type: &DataType,
    value_type: &DataType,
    spec: &FieldSpec,
    stream: Stream,
    parquet_types: bool,
) -> Result<Kind, SpecError> {
    let path = spec.path.as_str();
    let conversion = Conversion::of(value_type, parquet_types);
    let values = Leaf::new(value_type, conversion, &spec.params, stream, path)?;
    let value_type = if parquet_types {
        parquet_type(value_type)
    } else {
        value_type.clone()
    };
    let dictionary = values.dictionary(&value_type, path)?;
    let capacity = key_capacity(key_type);
    if dictionary.len() as u64 > capacity {
        return Err(error(
            path,
            format!(
                "{} dictionary entries do not fit {key_type} keys (at most {capacity}): use a wider indexType",
                dictionary.len()
            ),
        ));
    }
    Ok(Kind::Dictionary { values, dictionary })
}
