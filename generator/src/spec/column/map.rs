//! A map column: its entries' items, whose keys are distinct within each map, and, where the
//! keys come from one vocabulary list, the key column made from the picks that kept them
//! distinct rather than drawn a second time (`spec-map-key-picks`).

use std::sync::Arc;

use arrow_array::{ArrayRef, MapArray, StructArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;

use super::{Column, Kind};
use crate::spec::arrays::{dictionary_array, offsets, written_bytes, ByteValues};
use crate::spec::bytes::Bytes;
use crate::spec::draw::{Draw, Lengths, Slot};
use crate::spec::error::error;
use crate::spec::leaf::Leaf;
use crate::spec::SpecError;

/// The items of a batch's maps, end to end, and what the deduplication learnt of them.
struct MapItems {
    items: Vec<Slot>,
    /// Where each map ends in `items`.
    ends: Vec<usize>,
    /// Each kept item's vocabulary pick, when the key column is made from them.
    picks: Option<Vec<usize>>,
}

impl Column {
    /// The map of `entries` (a struct of key and value) for `slots`.
    pub(super) fn map_array(
        &self,
        lengths: &Lengths,
        entries: &Column,
        slots: &[Slot],
        validity: Option<&BooleanBuffer>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let Kind::Struct(fields) = &entries.kind else {
            unreachable!("map entries are a struct, checked at construction")
        };
        let key = &fields[0];
        let record_picks = self.map_key_picks && key.keys_from_picks();
        let MapItems { items, ends, picks } =
            self.map_items(lengths, key, slots, validity, record_picks);
        let entries = match picks {
            Some(picks) => {
                let keys = key.picked_array(&picks)?;
                let values = fields[1..].iter().map(|c| c.array(&items));
                let columns = std::iter::once(Ok(keys)).chain(values);
                let nulls = entries.validity(&items).map(NullBuffer::new);
                entries.struct_array(columns.collect::<Result<_, _>>()?, nulls)?
            }
            None => entries.array(&items)?,
        };
        let DataType::Map(field, sorted) = self.field.data_type() else {
            unreachable!("a map column has a map type")
        };
        let entries = entries
            .as_any()
            .downcast_ref::<StructArray>()
            .cloned()
            .ok_or_else(|| error(&self.path, "map entries must be a struct"))?;
        let offsets = offsets(&ends, &self.path)?;
        let map = MapArray::try_new(field.clone(), offsets, entries, nulls, *sorted)
            .map_err(|e| self.assembly_error(e))?;
        Ok(Arc::new(map))
    }

    /// The items of the maps in `slots` (none for NULL maps): an item whose `key` is already
    /// in its map is left out, so a key drawn twice keeps its first entry only. With
    /// `record_picks`, each kept item's key pick too.
    fn map_items(
        &self,
        lengths: &Lengths,
        key: &Column,
        slots: &[Slot],
        validity: Option<&BooleanBuffer>,
        record_picks: bool,
    ) -> MapItems {
        let mut items = Vec::with_capacity(self.expected_items(lengths, slots));
        let mut picks = record_picks.then(|| Vec::with_capacity(items.capacity()));
        // A key's identifier by its picker where it has one: a call per key through the
        // column's, the leaf's and the values' vocabulary_index otherwise.
        let key_picker = key.picker();
        let key_id = |item: Slot| match key_picker {
            Some(picker) => Some(picker.pick(key.stream, item, Draw::Value)),
            None => key.vocabulary_index(item),
        };
        let mut seen = Vec::new();
        let ends = self.lists(lengths, slots, validity, |slot, length| {
            seen.clear();
            for k in 0..length {
                let item = slot.item(k, lengths.max());
                match key_id(item) {
                    Some(id) if seen.contains(&id) => continue,
                    Some(id) => seen.push(id),
                    None => {}
                }
                items.push(item);
            }
            // Picks are recorded only for keys with a picker: every kept item's is in `seen`.
            if let Some(picks) = &mut picks {
                picks.extend_from_slice(&seen);
            }
            items.len()
        });
        MapItems { items, ends, picks }
    }

    /// Whether the column's values can be made from their vocabulary picks alone
    /// ([`Self::picked_array`]): never NULL, and strings, binaries or dictionary keys of one
    /// vocabulary list.
    fn keys_from_picks(&self) -> bool {
        // A picker means one vocabulary list: for bytes, the list `Bytes::write_entry` copies.
        let picked = matches!(
            self.kind,
            Kind::Leaf(Leaf::Bytes(_)) | Kind::Dictionary { .. }
        );
        picked && self.null_probability <= 0.0 && self.picker().is_some()
    }

    /// The column's values whose vocabulary picks are `picks`: the array [`Column::array`]
    /// makes for slots whose value draws pick them. Only for a column
    /// [`Self::keys_from_picks`] accepts.
    fn picked_array(&self, picks: &[usize]) -> Result<ArrayRef, SpecError> {
        let data_type = self.field.data_type();
        match &self.kind {
            Kind::Leaf(Leaf::Bytes(bytes)) => {
                let values = PickedBytes { bytes, picks };
                // SAFETY: a vocabulary's entries are a spec's strings, a shipped word list's
                // or random ASCII characters: UTF-8.
                unsafe { written_bytes(data_type, &values, None, &self.path) }
            }
            Kind::Dictionary { dictionary, .. } => {
                let DataType::Dictionary(key_type, _) = data_type else {
                    unreachable!("a dictionary column has a dictionary type")
                };
                dictionary_array(key_type, picks.iter().copied(), None, dictionary.clone())
                    .map_err(|e| self.assembly_error(e))
            }
            _ => unreachable!("keys_from_picks accepts only strings, binaries and dictionaries"),
        }
    }
}

/// Byte values by their vocabulary picks.
struct PickedBytes<'a> {
    bytes: &'a Bytes,
    picks: &'a [usize],
}

impl ByteValues for PickedBytes<'_> {
    fn count(&self) -> usize {
        self.picks.len()
    }

    fn capacity(&self) -> usize {
        self.picks.len() * self.bytes.typical_len()
    }

    #[inline(always)]
    fn write(&self, i: usize, out: &mut Vec<u8>) {
        self.bytes.write_entry(out, self.picks[i]);
    }
}
