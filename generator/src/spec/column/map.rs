//! A map column: its entries' items, whose keys are distinct within each map, and, where the
//! keys come from one vocabulary list, the key column made from the picks that kept them
//! distinct rather than drawn a second time (`spec-map-key-picks`).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, MapArray, StructArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;

use super::map_keys::{FewMarks, IdentifiedKeys, KeyFilter, ManyMarks, Marks, PickedKeys};
use super::{Column, Kind};
use crate::spec::arrays::{dictionary_array, offsets, written_bytes, ByteValues, Ends};
use crate::spec::bytes::Bytes;
use crate::spec::draw::{ItemSlots, Lengths, Slot};
use crate::spec::error::error;
use crate::spec::laid::laid_entries;
use crate::spec::leaf::Leaf;
use crate::spec::SpecError;

/// What a map column draws its entries by.
pub(super) struct MapKeys<'a> {
    pub lengths: &'a Lengths,
    /// The struct of key and value.
    pub entries: &'a Column,
    /// For each key vocabulary entry, the first entry of the same value, when some entries
    /// repeat another's ([`Column::first_equal_keys`]).
    pub first_equal: Option<&'a [usize]>,
}

/// The items of a batch's maps, end to end, and what the deduplication learnt of them.
struct MapItems {
    items: Vec<Slot>,
    /// Where each map ends in `items`.
    ends: Ends,
    /// Each kept item's vocabulary pick, when the key column is made from them.
    picks: Option<Vec<usize>>,
}

/// The maps of a batch: their lengths, slots and which are not NULL.
#[derive(Clone, Copy)]
struct Maps<'a> {
    lengths: &'a Lengths,
    slots: &'a [Slot],
    validity: Option<&'a BooleanBuffer>,
    /// About how many items they hold: what the vectors of items are sized for.
    capacity: usize,
}

/// About how many map items a chunk gathers before they are filtered
/// (`spec-map-key-chunks`): their slots and draws stay in the first-level cache (16 KiB of
/// slots, 4 KiB of draws), where a batch's would not.
const CHUNK_ITEMS: usize = 512;

impl Column {
    /// The map of `keys.entries` (a struct of key and value) for `slots`.
    pub(super) fn map_array(
        &self,
        keys: MapKeys,
        slots: &[Slot],
        validity: Option<&BooleanBuffer>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, SpecError> {
        let Kind::Struct(fields) = &keys.entries.kind else {
            unreachable!("map entries are a struct, checked at construction")
        };
        let key = &fields[0];
        let record_picks = self.map_key_picks && key.keys_from_picks();
        let MapItems { items, ends, picks } =
            self.map_items(&keys, key, slots, validity, record_picks);
        let entries = match picks {
            Some(picks) => {
                let picked = key.picked_array(&picks)?;
                let values = fields[1..].iter().map(|c| c.array(&items));
                let columns = std::iter::once(Ok(picked)).chain(values);
                let nulls = keys.entries.validity(&items).map(NullBuffer::new);
                keys.entries
                    .struct_array(columns.collect::<Result<_, _>>()?, nulls)?
            }
            None => keys.entries.array(&items)?,
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

    /// The items of the maps in `slots` (none for NULL maps): an item whose key has the value
    /// of one already in its map is left out, so a key drawn twice keeps its first entry
    /// only. With `record_picks`, each kept item's key pick too.
    fn map_items(
        &self,
        keys: &MapKeys,
        key: &Column,
        slots: &[Slot],
        validity: Option<&BooleanBuffer>,
        record_picks: bool,
    ) -> MapItems {
        let maps = Maps {
            lengths: keys.lengths,
            slots,
            validity,
            capacity: self.expected_items(keys.lengths, slots),
        };
        // A key with a picker is told by its pick (the first entry of its value); any other
        // through the column's, the leaf's and the values' identifiers, a call per key.
        let Some(picker) = key.picker() else {
            let mut filter = IdentifiedKeys::new(key, keys.lengths.max());
            let (items, ends) = self.kept_items(maps, &mut filter);
            return MapItems {
                items,
                ends,
                picks: None,
            };
        };
        let (stream, first_equal) = (key.stream, keys.first_equal);
        let capacity = maps.capacity;
        // Marks in registers, where the chunks' loop keeps them (`spec-map-key-chunks`).
        if self.map_key_chunks && picker.indices() <= FewMarks::ENTRIES {
            let marks = FewMarks::default();
            let filter = PickedKeys::new(picker, stream, first_equal, marks, capacity);
            return self.picked_items(maps, filter, record_picks);
        }
        let marks = ManyMarks::new(picker.indices());
        let filter = PickedKeys::new(picker, stream, first_equal, marks, capacity);
        self.picked_items(maps, filter, record_picks)
    }

    /// The items `filter` keeps, and with `record_picks` their picks: a chunk of maps at a time
    /// with `spec-map-key-chunks`, else item by item.
    fn picked_items<M: Marks>(
        &self,
        maps: Maps,
        mut filter: PickedKeys<M>,
        record_picks: bool,
    ) -> MapItems {
        let (items, ends) = match self.map_key_chunks {
            true => self.kept_in_chunks(maps, &mut filter),
            false => self.kept_items(maps, &mut filter),
        };
        let picks = record_picks.then(|| filter.into_picks());
        MapItems { items, ends, picks }
    }

    /// The items of `maps` that `filter` keeps, hashed and filtered one by one; where each
    /// map ends among them.
    fn kept_items(&self, maps: Maps, filter: &mut impl KeyFilter) -> (Vec<Slot>, Ends) {
        let mut items = Vec::with_capacity(maps.capacity);
        // Hashed as they come, not at the end (`spec-wide-hashes`): the filter reads each item's key.
        let item_slots = ItemSlots::new(maps.lengths.max(), self.stream.shares_keys(), false);
        let ends = self.lists(maps.lengths, maps.slots, maps.validity, |slot, length| {
            filter.next_map();
            for k in 0..length {
                let item = item_slots.item(slot, k);
                // Pushed, then taken back unless kept: no branch on whether a key repeats,
                // which the processor cannot predict.
                let kept = filter.keep(item);
                items.push(item);
                items.truncate(items.len() - usize::from(!kept));
            }
            items.len()
        });
        (items, ends)
    }

    /// [`Self::kept_items`] a chunk of maps at a time (`spec-map-key-chunks`): the chunk's
    /// items gathered unhashed, then hashed and their keys' value draws computed in passes
    /// (eight at a time with `spec-wide-hashes`), then filtered by a loop that reads them.
    fn kept_in_chunks<M: Marks>(
        &self,
        maps: Maps,
        filter: &mut PickedKeys<M>,
    ) -> (Vec<Slot>, Ends) {
        let item_slots = self.item_slots(maps.lengths.max());
        let mut items = item_slots.collect(maps.capacity);
        let mut ends = Ends::with_capacity(maps.slots.len());
        // The lengths of the maps gathered and not yet filtered, and their items' count.
        let mut chunk = Vec::with_capacity(CHUNK_ITEMS);
        let mut gathered = 0;
        self.each_list(maps.lengths, maps.slots, maps.validity, |slot, length| {
            items.push_list(slot, length);
            chunk.push(length);
            gathered += length as usize;
            if gathered >= CHUNK_ITEMS {
                filter.keep_chunk(&mut items, &chunk, self.wide_hashes, &mut ends);
                chunk.clear();
                gathered = 0;
            }
        });
        filter.keep_chunk(&mut items, &chunk, self.wide_hashes, &mut ends);
        (items.finish(), ends)
    }

    /// For each vocabulary entry of these map entries' key, the first entry of the same value,
    /// when some entries repeat another's (listed twice, cut to one width, rounded to one
    /// half float, random entries alike): the deduplication compares these, so equal keys
    /// count as one. `None` when every entry is distinct, or the key has no picker.
    pub(super) fn first_equal_keys(&self) -> Option<Vec<usize>> {
        let Kind::Struct(fields) = &self.kind else {
            return None;
        };
        let key = fields.first()?;
        key.picker()?;
        let vocabulary = match &key.kind {
            // Booleans have no Arrow vocabulary array: their entries are compared as they are.
            Kind::Leaf(Leaf::Boolean(booleans)) => return first_equal(booleans.entries()?),
            Kind::Leaf(leaf) => leaf
                .vocabulary_array(key.field.data_type(), &key.path)
                .ok()?,
            Kind::Dictionary { dictionary, .. } => dictionary.clone(),
            _ => return None,
        };
        first_equal_entries(vocabulary.as_ref())
    }

    /// An identifier of `slot`'s value as a map key, equal only for equal values: its
    /// vocabulary index, or the value's own identity ([`Leaf::value_identity`]); `None` for
    /// values distinct by construction (unique strings).
    pub(super) fn key_identity(&self, slot: Slot) -> Option<i128> {
        if let Some(index) = self.vocabulary_index(slot) {
            return Some(index as i128);
        }
        match &self.kind {
            Kind::Leaf(leaf) => leaf.value_identity(self.field.data_type(), self.stream, slot),
            _ => None,
        }
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
            // SAFETY (both): a vocabulary's entries are a spec's strings, a shipped word
            // list's or random ASCII characters: UTF-8.
            Kind::Leaf(Leaf::Bytes(bytes)) => match bytes.laid_vocabulary() {
                Some((_, entries, moves)) => unsafe {
                    laid_entries(data_type, entries, picks, moves, None, &self.path)
                },
                None => {
                    let values = PickedBytes { bytes, picks };
                    unsafe { written_bytes(data_type, &values, None, &self.path) }
                }
            },
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

/// For each entry of `vocabulary`, the first entry of the same bytes (the same value: floats
/// compared by their bits), or `None` when every entry is distinct.
fn first_equal_entries(vocabulary: &dyn Array) -> Option<Vec<usize>> {
    let data = vocabulary.to_data();
    let entries: Vec<&[u8]> = match vocabulary.data_type() {
        DataType::Utf8 => byte_entries(vocabulary.as_string::<i32>().iter()),
        DataType::LargeUtf8 => byte_entries(vocabulary.as_string::<i64>().iter()),
        DataType::Utf8View => byte_entries(vocabulary.as_string_view().iter()),
        DataType::Binary => byte_entries(vocabulary.as_binary::<i32>().iter()),
        DataType::LargeBinary => byte_entries(vocabulary.as_binary::<i64>().iter()),
        DataType::BinaryView => byte_entries(vocabulary.as_binary_view().iter()),
        DataType::FixedSizeBinary(_) => byte_entries(vocabulary.as_fixed_size_binary().iter()),
        other => {
            let width = other.primitive_width()?;
            let values = &data.buffers().first()?.as_slice()[data.offset() * width..];
            values.chunks_exact(width).take(data.len()).collect()
        }
    };
    first_equal(&entries)
}

/// For each of `entries`, the index of the first equal one, or `None` when all are distinct.
fn first_equal<T: Hash + Eq>(entries: &[T]) -> Option<Vec<usize>> {
    let mut firsts = HashMap::with_capacity(entries.len());
    let first_equal: Vec<usize> = (0..entries.len())
        .map(|i| *firsts.entry(&entries[i]).or_insert(i))
        .collect();
    let repeats = first_equal.iter().enumerate().any(|(i, &first)| first != i);
    repeats.then_some(first_equal)
}

/// The bytes of each entry (none for a NULL, which a vocabulary does not hold).
fn byte_entries<'a, T: AsRef<[u8]> + ?Sized + 'a>(
    entries: impl Iterator<Item = Option<&'a T>>,
) -> Vec<&'a [u8]> {
    entries
        .map(|entry| entry.map_or(&[][..], AsRef::as_ref))
        .collect()
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
