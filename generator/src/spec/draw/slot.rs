//! Where a value sits ([`Slot`]) and the slots of list items ([`ItemSlots`], [`Items`]).

use std::ops::Range;

use super::lanes;
use super::{splitmix, Draw};

/// The address multiplier that mixes a list's address into its items' (FNV-1a's prime).
const ITEM_MIX: u64 = 0x100_0000_01B3;

/// Where a value sits: the address its draws hash, and its ordinal (the row at the top level;
/// `parent * stride + index` for list items), which sequential and unique values count with.
///
/// The two keys are apart in memory on purpose (`repr(C)` keeps the order): side by side, the
/// compiler computed both hashes in SSE registers, which have no 64-bit multiply (about nine
/// instructions make one). The eight-lane kernels ([`lanes`]) read and write this layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(in crate::spec) struct Slot {
    pub(super) address: u64,
    /// The address hashed with the NULL draw's salt, once for every column at the slot
    /// (`spec-shared-slot-keys`): read by streams that share keys ([`super::Stream::sharing_keys`]),
    /// and 0 in the slots of a generator whose streams do not. Not in an `Option`: a stream
    /// knows whether it shares, and the slot stays 32 bytes.
    pub(super) null_key: u64,
    pub ordinal: u64,
    /// The address hashed with the value draw's salt, as `null_key` is.
    pub(super) value_key: u64,
}

impl Slot {
    /// The slot of a top-level row, its draw keys computed once if `shared` (as the
    /// generator's streams share keys).
    pub fn row(row: u64, shared: bool) -> Self {
        Self::at(row, row, shared)
    }

    /// The slots of `rows`, their draw keys computed once if `shared`; with `wide`
    /// (`spec-wide-hashes`), by the eight-lane kernels: the same slots.
    pub fn rows(rows: Range<u64>, shared: bool, wide: bool) -> Vec<Self> {
        match shared && wide {
            true => lanes::row_slots(rows),
            false => rows.map(|row| Self::row(row, shared)).collect(),
        }
    }

    /// The slot of item `index` of a list in this slot whose lists hold at most `stride` items,
    /// its draw keys computed once if `shared`; `index_hash` is `splitmix(index)`
    /// ([`ItemSlots`] keeps them).
    #[inline(always)]
    fn item(self, index_hash: u64, index: u64, stride: u64, shared: bool) -> Self {
        self.unhashed_item(index_hash, index, stride).hashed(shared)
    }

    /// [`Self::item`] before its hashes: the address's hash input in its place, no keys.
    #[inline(always)]
    fn unhashed_item(self, index_hash: u64, index: u64, stride: u64) -> Self {
        Self {
            address: self.address.wrapping_mul(ITEM_MIX) ^ index_hash,
            null_key: 0,
            ordinal: self.ordinal.wrapping_mul(stride).wrapping_add(index),
            value_key: 0,
        }
    }

    /// An unhashed item's slot ([`Self::unhashed_item`]) made whole: its address hashed, and
    /// its keys computed if `shared`.
    #[inline(always)]
    pub(super) fn hashed(self, shared: bool) -> Self {
        Self::at(splitmix(self.address), self.ordinal, shared)
    }

    /// A slot for vocabulary entry `rank`, outside every row's address space in practice.
    pub fn rank(rank: u64) -> Self {
        Self::at(splitmix(!rank), rank, false)
    }

    fn at(address: u64, ordinal: u64, shared: bool) -> Self {
        let mut slot = Self {
            address,
            null_key: 0,
            ordinal,
            value_key: 0,
        };
        if shared {
            slot.null_key = slot.key(Draw::Null);
            slot.value_key = slot.key(Draw::Value);
        }
        slot
    }

    /// The address hashed with `draw`'s salt: what every column's stream mixes into its draw.
    #[inline]
    pub(super) fn key(self, draw: Draw) -> u64 {
        splitmix(self.address ^ draw.salt_mix())
    }
}

/// The slots of list items, their index hashes computed once for the first indices rather
/// than once per item: lists are mostly short, and every list of a column shares them.
pub(in crate::spec) struct ItemSlots {
    index_hashes: Vec<u64>,
    /// At most this many items per list: the parent's stride.
    stride: u64,
    /// Whether the items' draw keys are computed once ([`super::Stream::shares_keys`]).
    shared: bool,
    /// Whether [`Items`] hashes its items in a pass of the eight-lane kernels at the end
    /// (`spec-wide-hashes`) rather than one by one as they come.
    wide: bool,
}

impl ItemSlots {
    /// Index hashes kept for at most this many first items.
    const KEPT: u64 = 256;

    /// For lists of at most `stride` items, drawn from by streams that share keys if
    /// `shared`; `wide` as [`Self::wide`] says.
    pub fn new(stride: u64, shared: bool, wide: bool) -> Self {
        Self {
            index_hashes: (0..stride.min(Self::KEPT)).map(splitmix).collect(),
            stride,
            shared,
            wide,
        }
    }

    /// The slot of item `index` of the list at `slot`.
    #[inline(always)]
    pub fn item(&self, slot: Slot, index: u64) -> Slot {
        slot.item(self.index_hash(index), index, self.stride, self.shared)
    }

    #[inline(always)]
    fn index_hash(&self, index: u64) -> u64 {
        match self.index_hashes.get(index as usize) {
            Some(&hash) => hash,
            None => splitmix(index),
        }
    }

    /// An empty collection of items, room made for `capacity`.
    pub fn collect(&self, capacity: usize) -> Items<'_> {
        Items {
            slots: self,
            items: Vec::with_capacity(capacity),
            whole: 0,
        }
    }
}

/// List items' slots gathered list by list; [`Items::finish`] gives them whole.
pub(in crate::spec) struct Items<'a> {
    slots: &'a ItemSlots,
    /// Whole slots, or with `spec-wide-hashes` unhashed ones ([`Slot::unhashed_item`]) from
    /// `whole` on, until [`Items::finish_pending`] or [`Items::finish`].
    items: Vec<Slot>,
    /// How many of the first items are whole.
    whole: usize,
}

impl Items<'_> {
    /// How many of the items are whole: those [`Self::finish_pending`] kept.
    pub fn whole(&self) -> usize {
        self.whole
    }

    /// Appends the `length` items of the list at `slot`; how many items there are now.
    #[inline(always)]
    pub fn push_list(&mut self, slot: Slot, length: u64) -> usize {
        let slots = self.slots;
        // Pushed one by one: most lists are short, and `extend`'s set-up per list cost more
        // than the pushes' capacity checks.
        for index in 0..length {
            let hash = slots.index_hash(index);
            self.items.push(match slots.wide {
                true => slot.unhashed_item(hash, index, slots.stride),
                false => slot.item(hash, index, slots.stride, slots.shared),
            });
        }
        self.items.len()
    }

    /// Makes whole the items pushed since the last call, then hands them to `keep`, which
    /// moves the ones to keep to the front and says how many they are: the others go.
    pub fn finish_pending(&mut self, keep: impl FnOnce(&mut [Slot]) -> usize) {
        let pending = &mut self.items[self.whole..];
        if self.slots.wide {
            lanes::hash_items(pending, self.slots.shared);
        }
        let kept = keep(pending).min(pending.len());
        self.whole += kept;
        self.items.truncate(self.whole);
    }

    /// The items' slots, whole.
    pub fn finish(mut self) -> Vec<Slot> {
        self.finish_pending(|pending| pending.len());
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::{splitmix, ItemSlots, Slot};

    #[test]
    fn item_slots_hash_every_index_alike_kept_or_not() {
        let stride = ItemSlots::KEPT + 10;
        for shared in [false, true] {
            let items = ItemSlots::new(stride, shared, false);
            let slot = Slot::row(12345, shared);
            for index in [0, 1, ItemSlots::KEPT - 1, ItemSlots::KEPT, stride - 1] {
                let expected = slot.item(splitmix(index), index, stride, shared);
                assert_eq!(items.item(slot, index), expected, "{index}");
            }
        }
    }

    #[test]
    fn items_hashed_at_the_end_are_the_items_hashed_as_they_come() {
        let stride = ItemSlots::KEPT + 3;
        let lists: Vec<(Slot, u64)> = (0..40u64)
            .map(|row| {
                (
                    row.wrapping_mul(0x9E37_79B9) << 20,
                    (row * 7) % (stride + 1),
                )
            })
            .map(|(row, length)| (Slot::row(row, false), length))
            .collect();
        for shared in [false, true] {
            let gathered = |wide| {
                let item_slots = ItemSlots::new(stride, shared, wide);
                let mut items = item_slots.collect(0);
                let ends: Vec<usize> = lists
                    .iter()
                    .map(|&(slot, length)| items.push_list(slot, length))
                    .collect();
                (ends, items.finish())
            };
            let (one_by_one, at_the_end) = (gathered(false), gathered(true));
            assert!(one_by_one.1.len() > 1000);
            assert_eq!(one_by_one, at_the_end, "shared {shared}");
        }
    }

    #[test]
    fn rows_made_together_are_rows_made_one_by_one() {
        for rows in [0..0, 0..1, 5..13, 1000..1100, u64::MAX - 20..u64::MAX] {
            for shared in [false, true] {
                let one_by_one: Vec<Slot> = rows.clone().map(|r| Slot::row(r, shared)).collect();
                assert_eq!(Slot::rows(rows.clone(), shared, true), one_by_one);
                assert_eq!(Slot::rows(rows.clone(), shared, false), one_by_one);
            }
        }
    }
}
