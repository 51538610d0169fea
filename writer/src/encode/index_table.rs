//! [`IndexTable`]: the open-addressing hash table in which a [`super::dictionary::Dictionary`]
//! finds its values' indices, whose lookups can be started ahead of the values they are for.
//!
//! A dictionary that grows to its page limit (131,072 `INT64` values at 1 MiB) outgrows the
//! L2 cache, so each new value's lookup is a cache miss: with hashbrown's tables, whose bucket
//! addresses are private, that miss was most of a column of distinct numbers' encoding time.
//! Here a lookup's slot is known from the hash alone, so [`IndexTable::prefetch`] asks for it
//! a few values ahead and the misses overlap.

/// How many values ahead of its lookup a value's slot is prefetched: enough lookups in flight
/// to hide a cache miss, few enough that the slot is still cached when its turn comes.
pub(crate) const PREFETCH_DISTANCE: usize = 16;

/// The largest table (in bytes) whose lookups are not prefetched: one that stays in a core's
/// L2 cache gains less from them than hashing the values in a pass of their own costs. A
/// quarter of this host's L2 (1 MiB a core), which the slots share with the values, the page
/// and the keys: tables of up to 1 MiB (a table of byte arrays grown eightfold past its first
/// size) missed there. Tables at their first size (64 and 128 KiB) are still looked up in one
/// pass. The dense index (`dense_index.rs`) prefetches past the same size.
pub(crate) const CACHED_BYTES: usize = 1 << 18;

/// The index no value takes: it marks a vacant slot (a dictionary page of 2^32 values would
/// be over parquet's 2 GiB page size long before).
const NO_INDEX: u32 = u32::MAX;

/// What a table's slot holds: a dictionary index, 32 bits of its value's hash (where the slot
/// goes, and what tells most other values apart without reading the stored value), and `at`,
/// where the value is stored when the index alone does not say (byte arrays: `()` for values
/// of one width, found at their index times it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Slot<T> {
    pub(crate) index: u32,
    pub(crate) hash: u32,
    pub(crate) at: T,
}

impl<T: Copy + Default> Slot<T> {
    /// A slot no value takes.
    fn vacant() -> Self {
        Self {
            index: NO_INDEX,
            hash: 0,
            at: T::default(),
        }
    }

    /// Whether no value takes this slot.
    fn is_vacant(&self) -> bool {
        self.index == NO_INDEX
    }
}

/// Slots in a power-of-two array, found by linear probing from the hash's low bits, at most
/// five eighths of them taken: a missing value's probe still ends within a cache line or two
/// (about 4 slots on average when that full, 2.5 at half full), and a table that must hold a
/// full dictionary page's values and the next mini-batch (131,072 `INT64` values and more)
/// fits the power of two below the one a half-full table takes (2 MiB of slots, not 4).
pub(crate) struct IndexTable<T> {
    slots: Vec<Slot<T>>,
    /// How many slots are taken.
    len: usize,
}

impl<T: Copy + Default> IndexTable<T> {
    /// A table without slots: the first value or [`Self::reserve`] allocates them.
    pub(crate) fn new() -> Self {
        Self {
            slots: Vec::new(),
            len: 0,
        }
    }

    /// Slots for `capacity` values: at least 8/5 as many, a power of two.
    fn slots_for(capacity: usize) -> usize {
        capacity
            .max(1)
            .saturating_mul(8)
            .div_ceil(5)
            .next_power_of_two()
    }

    /// How many values the table holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// How many values the table holds before it must grow.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len() * 5 / 8
    }

    /// Makes room for `additional` more values, moving every slot to a larger array if the
    /// table lacks it (by the kept hashes: no value is read).
    pub(crate) fn reserve(&mut self, additional: usize) {
        let wanted = self.len.saturating_add(additional);
        if wanted <= self.capacity() {
            return;
        }
        let old = std::mem::replace(
            &mut self.slots,
            vec![Slot::vacant(); Self::slots_for(wanted)],
        );
        for slot in old.into_iter().filter(|slot| !slot.is_vacant()) {
            let at = self.vacant_from(slot.hash);
            self.slots[at] = slot;
        }
    }

    /// The first vacant slot on `hash`'s probe.
    fn vacant_from(&self, hash: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        while !self.slots[at].is_vacant() {
            at = (at + 1) & mask;
        }
        at
    }

    /// Whether the table is too large for the cache: its lookups then gain from prefetching,
    /// and a batch of values is hashed ahead of them (see [`Self::hash_at`]).
    pub(crate) fn prefetches(&self) -> bool {
        self.allocation_size() > CACHED_BYTES
    }

    /// The hash of the value at `position` among those being looked up: `hashes` holds them
    /// all when the table [`Self::prefetches`], and then the slot of the value
    /// [`PREFETCH_DISTANCE`] later starts loading; otherwise (`hashes` empty) it is computed
    /// `now`.
    #[inline(always)]
    pub(crate) fn hash_at(
        &self,
        hashes: &[u32],
        position: usize,
        now: impl FnOnce() -> u32,
    ) -> u32 {
        match hashes.get(position) {
            Some(&hash) => {
                if let Some(&ahead) = hashes.get(position + PREFETCH_DISTANCE) {
                    self.prefetch(ahead);
                }
                hash
            }
            None => now(),
        }
    }

    /// Starts loading the slot where `hash`'s probe begins into the cache, so that a lookup of
    /// it some values later finds it there.
    #[inline(always)]
    fn prefetch(&self, hash: u32) {
        prefetch(&self.slots[hash as usize & (self.slots.len() - 1)]);
    }

    /// The slot of the value whose hash is `hash` and for which `holds` is true given
    /// `stored` (where the table's values are kept), or, if no slot holds it, the slot
    /// `vacant` makes (storing the value in `stored`), now in the table.
    #[inline(always)]
    pub(crate) fn find_or_insert<V: ?Sized>(
        &mut self,
        hash: u32,
        stored: &mut V,
        holds: impl Fn(&Slot<T>, &V) -> bool,
        vacant: impl FnOnce(&mut V) -> Slot<T>,
    ) -> Slot<T> {
        if self.len >= self.capacity() {
            self.reserve(self.len.max(1));
        }
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.is_vacant() {
                let slot = vacant(stored);
                self.slots[at] = slot;
                self.len += 1;
                return slot;
            }
            if slot.hash == hash && holds(&slot, stored) {
                return slot;
            }
            at = (at + 1) & mask;
        }
    }

    /// Bytes held by the slots.
    pub(crate) fn allocation_size(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<T>>()
    }
}

/// Starts loading `place` into the cache, so that a read of it some values later finds it
/// there.
#[inline(always)]
pub(crate) fn prefetch<T>(place: &T) {
    // SAFETY: a prefetch only hints the cache: it reads nothing, cannot fault, and SSE,
    // which it needs, is part of every x86-64 CPU.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            std::ptr::from_ref(place).cast(),
        );
    }
    // Elsewhere the lookups go unprefetched: std's portable prefetch is not stable.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = place;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values whose hashes collide (all in one probe) are each found again, and a table that
    /// grows past its capacity, by `reserve` or by inserts alone, keeps every value.
    #[test]
    fn finds_every_value_it_inserted_through_collisions_and_growth() {
        let mut table = IndexTable::<()>::new();
        let hash_of = |value: u32| value % 3;
        let insert = |table: &mut IndexTable<()>, index: u32| {
            let hash = hash_of(index);
            let holds = |slot: &Slot<()>, _: &()| slot.index == index;
            let vacant = |_: &mut ()| Slot {
                index,
                hash,
                at: (),
            };
            table.find_or_insert(hash, &mut (), holds, vacant)
        };
        for value in 0..100 {
            assert_eq!(insert(&mut table, value).index, value);
            if value == 50 {
                table.reserve(1000);
                assert!(table.capacity() >= 1050);
            }
        }
        assert_eq!(table.len(), 100);
        for value in 0..100 {
            assert_eq!(
                insert(&mut table, value),
                Slot {
                    index: value,
                    hash: hash_of(value),
                    at: ()
                }
            );
        }
        assert_eq!(table.len(), 100);
        assert!(table.capacity() >= table.len());
    }
}
