//! Which of a map's drawn items it keeps: those whose key's value the map does not hold yet,
//! told by the key's vocabulary pick ([`PickedKeys`], marks per entry in [`Marks`]) or by the
//! value's identity ([`IdentifiedKeys`]).

use std::collections::HashSet;

use super::Column;
use crate::spec::arrays::Ends;
use crate::spec::draw::{Draw, Items, Slot, SlotDraws, Stream};
use crate::spec::vocabulary::Picker;

/// Which of a map's drawn items it keeps, item by item.
pub(super) trait KeyFilter {
    /// Starts the next map.
    fn next_map(&mut self);

    /// Whether to keep `item`, the next of the map: if so, the map holds its key from now on.
    fn keep(&mut self, item: Slot) -> bool;
}

/// Keys told apart by their vocabulary picks: a mark per vocabulary entry, set while the map
/// holds it, so that a key is looked up at once however long its map is.
pub(super) struct PickedKeys<'a, M> {
    picker: &'a Picker,
    stream: Stream,
    /// For each entry, the first of the same value ([`Column::first_equal_keys`]).
    first_equal: Option<&'a [usize]>,
    marks: M,
    /// Every kept item's pick (its value's first entry), map after map.
    picks: Vec<usize>,
    /// Where the current map's picks start (the item-by-item path's [`KeyFilter::next_map`]).
    map_start: usize,
}

impl<'a, M: Marks> PickedKeys<'a, M> {
    /// Keys of `stream` picked by `picker`, entries of equal values told by `first_equal`,
    /// in maps of about `items` items in all.
    pub fn new(
        picker: &'a Picker,
        stream: Stream,
        first_equal: Option<&'a [usize]>,
        marks: M,
        items: usize,
    ) -> Self {
        Self {
            picker,
            stream,
            first_equal,
            marks,
            picks: Vec::with_capacity(items),
            map_start: 0,
        }
    }

    /// Every kept item's pick, map after map.
    pub fn into_picks(self) -> Vec<usize> {
        self.picks
    }

    /// Keeps the items of the maps of `lengths` (in order), the items pushed to `items` since
    /// the last call: makes them whole, draws their keys (computed in a pass if `wide`), cuts
    /// the repeats out and pushes each map's end to `ends`.
    pub fn keep_chunk(&mut self, items: &mut Items, lengths: &[u64], wide: bool, ends: &mut Ends) {
        let first = items.whole();
        items.finish_pending(|pending| {
            debug_assert_eq!(lengths.iter().sum::<u64>(), pending.len() as u64);
            let draws = SlotDraws::new(pending, self.stream, Draw::Value, wide);
            self.keep_drawn(pending, &draws, lengths, first, ends)
        });
    }

    /// [`Self::keep_chunk`] once the items are whole: moves the kept ones to the front of
    /// `items`; how many they are. The marks and the picks' count live in locals, which
    /// the compiler keeps in registers ([`FewMarks`]).
    fn keep_drawn(
        &mut self,
        items: &mut [Slot],
        draws: &SlotDraws,
        lengths: &[u64],
        offset: usize,
        ends: &mut Ends,
    ) -> usize {
        let (picker, first_equal) = (self.picker, self.first_equal);
        let mut marks = std::mem::take(&mut self.marks);
        let before = self.picks.len();
        self.picks.resize(before + items.len(), 0);
        let picks = &mut self.picks[before..];
        let (mut kept, mut read) = (0, 0);
        for &length in lengths {
            let map_start = kept;
            for _ in 0..length {
                let pick = picker.pick_bits(draws.bits(read, items[read]));
                let pick = first_equal.map_or(pick, |first| first[pick]);
                // Written either way and kept unless a repeat: no branch the processor
                // cannot predict.
                let new = marks.mark(pick);
                picks[kept] = pick;
                items[kept] = items[read];
                kept += usize::from(new);
                read += 1;
            }
            marks.clear(&picks[map_start..kept]);
            ends.push(offset + kept);
        }
        self.picks.truncate(before + kept);
        self.marks = marks;
        kept
    }
}

impl<M: Marks> KeyFilter for PickedKeys<'_, M> {
    fn next_map(&mut self) {
        self.marks.clear(&self.picks[self.map_start..]);
        self.map_start = self.picks.len();
    }

    #[inline(always)]
    fn keep(&mut self, item: Slot) -> bool {
        let pick = self.picker.pick(self.stream, item, Draw::Value);
        let pick = self.first_equal.map_or(pick, |first| first[pick]);
        let new = self.marks.mark(pick);
        // Pushed either way, then taken back unless new: without a branch the processor
        // cannot predict.
        self.picks.push(pick);
        self.picks.truncate(self.picks.len() - usize::from(!new));
        new
    }
}

/// The vocabulary entries one map holds. `Default` is a placeholder left in a
/// [`PickedKeys`] while its marks are in a local ([`PickedKeys::keep_chunk`]), never marked.
pub(super) trait Marks: Default {
    /// Marks entry `pick` as held; whether it was not held yet.
    fn mark(&mut self, pick: usize) -> bool;

    /// Marks none held, where `held` are the entries marked since the last clear.
    fn clear(&mut self, held: &[usize]);
}

/// The marks of a vocabulary of at most [`Self::ENTRIES`] entries, a bit each, in one value
/// (`spec-map-key-chunks`): in a local, the compiler keeps it in registers, so a key waits for
/// no store of the key before it, and a map is cleared by one assignment.
#[derive(Default)]
pub(super) struct FewMarks(u128);

impl FewMarks {
    /// The most vocabulary entries the marks hold.
    pub const ENTRIES: usize = u128::BITS as usize;
}

impl Marks for FewMarks {
    #[inline(always)]
    fn mark(&mut self, pick: usize) -> bool {
        let bit = 1u128 << pick;
        let new = self.0 & bit == 0;
        self.0 |= bit;
        new
    }

    #[inline(always)]
    fn clear(&mut self, _held: &[usize]) {
        self.0 = 0;
    }
}

/// The marks of any vocabulary: bit `i % 64` of word `i / 64` for entry `i`.
#[derive(Default)]
pub(super) struct ManyMarks(Vec<u64>);

impl ManyMarks {
    /// Marks for a vocabulary of `entries` entries, none held.
    pub fn new(entries: usize) -> Self {
        Self(vec![0; entries.div_ceil(64)])
    }
}

impl Marks for ManyMarks {
    #[inline(always)]
    fn mark(&mut self, pick: usize) -> bool {
        let (word, bit) = (pick / 64, 1 << (pick % 64));
        let new = self.0[word] & bit == 0;
        // Marked either way: without a branch the processor cannot predict.
        self.0[word] |= bit;
        new
    }

    fn clear(&mut self, held: &[usize]) {
        // Clearing only the map's own entries keeps the cost per key, whatever the vocabulary.
        for &pick in held {
            self.0[pick / 64] &= !(1 << (pick % 64));
        }
    }
}

/// Keys told apart by their values' identities ([`Column::key_identity`]).
pub(super) struct IdentifiedKeys<'a> {
    key: &'a Column,
    seen: SeenKeys,
}

impl<'a> IdentifiedKeys<'a> {
    /// The keys of column `key`, in maps at most `longest` long.
    pub fn new(key: &'a Column, longest: u64) -> Self {
        Self {
            key,
            seen: SeenKeys::new(longest),
        }
    }
}

impl KeyFilter for IdentifiedKeys<'_> {
    fn next_map(&mut self) {
        self.seen.clear();
    }

    fn keep(&mut self, item: Slot) -> bool {
        // Values distinct by construction have no identity: always kept.
        self.key
            .key_identity(item)
            .is_none_or(|id| self.seen.insert(id))
    }
}

/// The identities of the keys kept in one map: found by a scan while maps are short, through
/// a set when they can be long (a scan per key would be quadratic).
struct SeenKeys {
    kept: Vec<i128>,
    set: Option<HashSet<i128>>,
}

impl SeenKeys {
    /// Maps at most `longest` long: a set past 32 keys.
    fn new(longest: u64) -> Self {
        Self {
            kept: Vec::new(),
            set: (longest > 32).then(HashSet::new),
        }
    }

    /// Starts the next map.
    fn clear(&mut self) {
        self.kept.clear();
        if let Some(set) = &mut self.set {
            set.clear();
        }
    }

    /// Keeps `id` unless the map holds it already; whether it was new.
    fn insert(&mut self, id: i128) -> bool {
        let new = match &mut self.set {
            Some(set) => set.insert(id),
            None => !self.kept.contains(&id),
        };
        if new {
            self.kept.push(id);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::{FewMarks, KeyFilter, ManyMarks, Marks, PickedKeys};
    use crate::spec::arrays::Ends;
    use crate::spec::draw::{ItemSlots, Slot, Stream};
    use crate::spec::vocabulary::Picker;
    use crate::spec::SpecPaths;

    /// Maps of every length up to 40, NULL ones (length 0) among them, for 2,000 rows.
    fn maps() -> Vec<(Slot, u64)> {
        (0..2_000u64)
            .map(|row| (Slot::row(row, true), (row * row * 7 + row / 3) % 41))
            .collect()
    }

    /// The kept items, map ends and picks of `maps`, filtered item by item.
    fn one_by_one(picker: &Picker, first_equal: Option<&[usize]>) -> (Vec<Slot>, Ends, Vec<usize>) {
        let stream = Stream::new(5, 11).sharing_keys(true);
        let marks = ManyMarks::new(picker.indices());
        let mut filter = PickedKeys::new(picker, stream, first_equal, marks, 0);
        let item_slots = ItemSlots::new(40, true, false);
        let (mut items, mut ends) = (Vec::new(), Ends::with_capacity(0));
        for (slot, length) in maps() {
            filter.next_map();
            for k in 0..length {
                let item = item_slots.item(slot, k);
                if filter.keep(item) {
                    items.push(item);
                }
            }
            ends.push(items.len());
        }
        (items, ends, filter.into_picks())
    }

    /// The same, a chunk of about `chunk` items at a time.
    fn in_chunks<M: Marks>(
        picker: &Picker,
        first_equal: Option<&[usize]>,
        marks: M,
        chunk: u64,
        wide: bool,
    ) -> (Vec<Slot>, Ends, Vec<usize>) {
        let stream = Stream::new(5, 11).sharing_keys(true);
        let mut filter = PickedKeys::new(picker, stream, first_equal, marks, 0);
        let item_slots = ItemSlots::new(40, true, wide);
        let (mut items, mut ends) = (item_slots.collect(0), Ends::with_capacity(0));
        let mut lengths = Vec::new();
        for (slot, length) in maps() {
            items.push_list(slot, length);
            lengths.push(length);
            if lengths.iter().sum::<u64>() >= chunk {
                filter.keep_chunk(&mut items, &lengths, wide, &mut ends);
                lengths.clear();
            }
        }
        filter.keep_chunk(&mut items, &lengths, wide, &mut ends);
        (items.finish(), ends, filter.into_picks())
    }

    #[test]
    fn chunks_keep_the_items_the_item_by_item_filter_keeps() {
        for entries in [1, 3, 30, 128, 129, 500] {
            let weights: Vec<f64> = (1..=entries).map(|k| 1.0 / k as f64).collect();
            let mut picker = Picker::from_weights(&weights).expect("valid weights");
            picker.set_paths(SpecPaths::ALL);
            // Entries equal in sevens: each counts as the first of its value.
            let sevens: Vec<usize> = (0..entries).map(|i| i % 7).collect();
            for first_equal in [None, Some(&sevens[..])] {
                let expected = one_by_one(&picker, first_equal);
                assert!(expected.0.len() > 5_000 || entries < 30, "{entries}");
                for (chunk, wide) in [(1, false), (37, true), (512, true), (100_000, false)] {
                    let many = ManyMarks::new(entries);
                    let got = in_chunks(&picker, first_equal, many, chunk, wide);
                    assert!(got == expected, "{entries} entries, chunks of {chunk}");
                    if entries <= FewMarks::ENTRIES {
                        let few = in_chunks(&picker, first_equal, FewMarks::default(), chunk, wide);
                        assert!(few == expected, "{entries} entries in registers, {chunk}");
                    }
                }
            }
        }
    }
}
