//! [`HybridRle`]: the RLE / bit-packing hybrid encoding of levels, emitting the bytes parquet's
//! `RleEncoder` emits for the same values, but fed whole runs at a time.
//!
//! parquet decides group by group: values are staged in groups of eight; a group that repeats
//! one value turns the run into an RLE run, which then grows without staging until the value
//! changes; other groups join a bit-packed run of at most 63 groups. Reproducing that state
//! machine exactly is what keeps the files identical, and a run of `n` equal levels still costs
//! at most eight steps of it rather than `n`.

/// Values staged per group.
const GROUP: usize = 8;
/// A bit-packed run ends before it reaches this many groups.
const MAX_GROUPS: usize = 64;

/// An RLE / bit-packing hybrid encoder of small unsigned values.
#[derive(Debug)]
pub(crate) struct HybridRle {
    bit_width: u8,
    /// The finished runs.
    out: Vec<u8>,
    /// The open bit-packed run's whole groups, packed, and how many there are.
    packed: Vec<u8>,
    groups: usize,
    /// The values of the open group: fewer than eight.
    pending: Vec<u64>,
    /// The last value put and how many times in a row it came.
    current: u64,
    repeat: usize,
}

impl HybridRle {
    /// An encoder of values up to `bit_width` bits wide.
    pub(crate) fn new(bit_width: u8) -> Self {
        Self {
            bit_width,
            out: Vec::new(),
            // Room for the whole run and the eight bytes `pack` writes before cutting back.
            packed: Vec::with_capacity(usize::from(bit_width) * MAX_GROUPS + 8),
            groups: 0,
            pending: Vec::with_capacity(GROUP),
            current: 0,
            repeat: 0,
        }
    }

    /// An encoder of levels up to `max_level`, as wide as parquet's level encoder makes it.
    pub(crate) fn for_levels(max_level: i16) -> Self {
        Self::new((16 - max_level.leading_zeros()) as u8)
    }

    /// Encodes each value of `levels`: an open RLE run grows by a whole run of its value at
    /// once, and a group of eight starting on a group boundary is decided in one step, as
    /// parquet's `RleEncoder::put_batch` does; the rest goes value by value.
    pub(crate) fn put_levels(&mut self, levels: &[i16]) {
        // Levels are never negative.
        self.put_values(levels, |level| level as u64);
    }

    /// Encodes `count` copies of `value` (a leaf's uniform levels): the steps of [`Self::put`]
    /// that open an RLE run of it, at most sixteen, then the rest at once.
    pub(crate) fn put_run(&mut self, value: u64, mut count: usize) {
        while count > 0 && !(self.repeat >= GROUP && self.current == value) {
            self.put(value);
            count -= 1;
        }
        self.repeat += count;
    }

    /// Encodes each of `values`, as `widen` makes them unsigned, as [`Self::put_levels`] does.
    pub(crate) fn put_values<T: Copy>(&mut self, values: &[T], widen: impl Fn(T) -> u64) {
        let mut at = 0;
        while at < values.len() {
            let value = widen(values[at]);
            let whole_group = values.len() - at >= GROUP;
            let open_run = self.repeat >= GROUP;
            if open_run && self.current == value {
                let run = values[at..]
                    .iter()
                    .take_while(|&&next| widen(next) == value)
                    .count();
                self.repeat += run;
                at += run;
            } else if whole_group && self.pending.is_empty() {
                // Nothing is staged while a run is open: it took its eight values whole.
                if open_run {
                    // The run ends here. parquet then stages the next eight values one at a
                    // time from nothing staged, which decides them as one group would.
                    self.flush_rle_run();
                }
                self.put_group(&values[at..at + GROUP], &widen);
                at += GROUP;
            } else {
                self.put(value);
                at += 1;
            }
        }
    }

    /// Encodes a group of eight values that starts on a group boundary, no RLE run open.
    fn put_group<T: Copy>(&mut self, group: &[T], widen: impl Fn(T) -> u64) {
        let values: [u64; GROUP] = std::array::from_fn(|index| widen(group[index]));
        // All eight compared, without stopping at the first that differs: no branch per value.
        let uniform = values
            .iter()
            .fold(true, |same, &next| same & (next == values[0]));
        if uniform {
            if self.groups > 0 {
                self.close_bit_packed_run();
            }
            self.current = values[0];
            self.repeat = GROUP;
        } else {
            self.pack_group(values.into_iter());
            self.current = values[GROUP - 1];
        }
    }

    /// Encodes one value, as `RleEncoder::put` does.
    fn put(&mut self, value: u64) {
        if self.current == value {
            self.repeat += 1;
            if self.repeat > GROUP {
                return;
            }
        } else {
            if self.repeat >= GROUP {
                self.flush_rle_run();
            }
            self.repeat = 1;
            self.current = value;
        }
        self.pending.push(value);
        if self.pending.len() == GROUP {
            self.commit_group();
        }
    }

    /// Appends everything encoded since the last call to `sink` and starts afresh, as parquet's
    /// level encoder does at each page.
    pub(crate) fn finish_into(&mut self, sink: &mut Vec<u8>) {
        self.flush();
        sink.extend_from_slice(&self.out);
        self.out.clear();
        self.packed.clear();
        self.groups = 0;
        self.pending.clear();
        self.current = 0;
        self.repeat = 0;
    }

    /// At most how many bytes [`Self::finish_into`] would append now: the finished runs, the
    /// open bit-packed run and what closing it or the open RLE run adds (a group of padding,
    /// an indicator of up to ten bytes, a value of up to eight).
    pub(crate) fn len_bound(&self) -> usize {
        self.out.len() + self.packed.len() + usize::from(self.bit_width) + 10 + 8
    }

    /// The bytes parquet's `RleEncoder::len` counts now: the finished runs, and the open
    /// bit-packed run (whole groups and the open group) as if it were closed, without padding;
    /// an open RLE run counts only once it ends.
    pub(crate) fn estimated_len(&self) -> usize {
        let staged = self.groups * GROUP + self.pending.len();
        let open = match staged {
            0 => 0,
            _ => 1 + (staged * usize::from(self.bit_width)).div_ceil(8),
        };
        self.out.len() + open
    }

    /// Bytes held: the finished runs and the open bit-packed run.
    pub(crate) fn memory_size(&self) -> usize {
        self.out.capacity() + self.packed.capacity() + self.pending.capacity() * size_of::<u64>()
    }

    fn flush(&mut self) {
        if self.pending.is_empty() && self.groups == 0 && self.repeat == 0 {
            return;
        }
        let tail = self.pending.len();
        let all_repeat = self.groups == 0 && (self.repeat == tail || tail == 0);
        if self.repeat > 0 && all_repeat {
            self.flush_rle_run();
        } else {
            if tail > 0 {
                let pending = std::mem::take(&mut self.pending);
                let padded = pending.iter().copied().chain(std::iter::repeat(0));
                self.pack_group(padded.take(GROUP));
                self.pending = pending;
                self.pending.clear();
            }
            if self.groups > 0 {
                self.close_bit_packed_run();
            }
            self.repeat = 0;
        }
    }

    fn flush_rle_run(&mut self) {
        put_uleb(&mut self.out, (self.repeat as u64) << 1);
        let bytes = usize::from(self.bit_width).div_ceil(8);
        self.out
            .extend_from_slice(&self.current.to_le_bytes()[..bytes]);
        self.pending.clear();
        self.packed.clear();
        self.groups = 0;
        self.repeat = 0;
    }

    fn commit_group(&mut self) {
        if self.repeat >= GROUP {
            // The group repeats one value: it becomes an RLE run, closing the bit-packed one.
            self.pending.clear();
            if self.groups > 0 {
                self.close_bit_packed_run();
            }
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        self.pack_group(pending.iter().copied());
        self.pending = pending;
        self.pending.clear();
        self.repeat = 0;
    }

    /// Adds a whole group of eight values to the open bit-packed run, closing it at its
    /// longest.
    // Inlined into the group loop (it was a call per group, 2.5% of the contacts' samples).
    #[inline]
    fn pack_group(&mut self, group: impl Iterator<Item = u64>) {
        pack(group, self.bit_width, &mut self.packed);
        self.groups += 1;
        if self.groups + 1 >= MAX_GROUPS {
            self.close_bit_packed_run();
        }
    }

    fn close_bit_packed_run(&mut self) {
        self.out.push(((self.groups << 1) | 1) as u8);
        self.out.extend_from_slice(&self.packed);
        self.packed.clear();
        self.groups = 0;
    }
}

/// Packs one group of eight values `bit_width` bits each (at most 32), least significant
/// first: the group fills `bit_width` bytes.
#[inline]
fn pack(group: impl Iterator<Item = u64>, bit_width: u8, out: &mut Vec<u8>) {
    let width = u32::from(bit_width);
    if width <= 8 {
        // The common case, levels and small dictionaries: a group in one machine word.
        let bits = group.enumerate().fold(0u64, |bits, (index, value)| {
            bits | value << (index as u32 * width)
        });
        // All eight bytes, then cut back: a copy of known size, where one of `width` bytes
        // was a call to `memcpy` per group.
        let end = out.len() + width as usize;
        out.extend_from_slice(&bits.to_le_bytes());
        out.truncate(end);
        return;
    }
    // Fewer than 8 bits wait in the word between values, so a value of up to 56 bits fits.
    let (mut bits, mut filled) = (0u64, 0u32);
    for value in group {
        bits |= value << filled;
        filled += width;
        while filled >= 8 {
            out.push(bits as u8);
            bits >>= 8;
            filled -= 8;
        }
    }
}

/// Appends `value` as an unsigned LEB128 number: an RLE run's header, and the numbers of a
/// `DELTA_BINARY_PACKED` header.
pub(crate) fn put_uleb(sink: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        sink.push(value as u8 | 0x80);
        value >>= 7;
    }
    sink.push(value as u8);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::HybridRle;

    /// Runs of random lengths (0 to 40) of random levels up to `max`.
    fn runs(max: i16) -> impl Strategy<Value = Vec<i16>> {
        prop::collection::vec((0..=max, 0usize..40), 0..60).prop_map(|runs| {
            runs.into_iter()
                .flat_map(|(level, count)| std::iter::repeat_n(level, count))
                .collect()
        })
    }

    proptest! {
        /// Whole runs and groups at a time give the bytes of `put`, parquet's `RleEncoder::put`
        /// one value at a time, however the values are split into calls.
        #[test]
        fn batched_puts_are_value_by_value_puts(levels in runs(3), cuts in prop::collection::vec(0usize..200, 0..6)) {
            let mut one_by_one = HybridRle::new(2);
            levels.iter().for_each(|&level| one_by_one.put(level as u64));
            let mut expected = Vec::new();
            one_by_one.finish_into(&mut expected);

            let mut batched = HybridRle::new(2);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(levels.len())).collect();
            cuts.sort_unstable();
            let mut start = 0;
            for end in cuts.into_iter().chain([levels.len()]) {
                batched.put_levels(&levels[start..end]);
                start = end;
            }
            let mut actual = Vec::new();
            batched.finish_into(&mut actual);
            prop_assert_eq!(actual, expected);
        }

        /// A run put at once gives the bytes of its values put one by one, whatever came
        /// before it.
        #[test]
        fn a_run_put_at_once_is_value_by_value_puts(
            before in runs(3),
            level in 0u64..4,
            count in 0usize..100,
        ) {
            let mut one_by_one = HybridRle::new(2);
            let mut at_once = HybridRle::new(2);
            before.iter().for_each(|&level| one_by_one.put(level as u64));
            at_once.put_levels(&before);
            (0..count).for_each(|_| one_by_one.put(level));
            at_once.put_run(level, count);
            let (mut expected, mut actual) = (Vec::new(), Vec::new());
            one_by_one.finish_into(&mut expected);
            at_once.finish_into(&mut actual);
            prop_assert_eq!(actual, expected);
        }
    }

    fn encode(bit_width: u8, levels: &[i16]) -> Vec<u8> {
        let mut rle = HybridRle::new(bit_width);
        rle.put_levels(levels);
        let mut out = Vec::new();
        rle.finish_into(&mut out);
        out
    }

    #[test]
    fn a_long_run_is_one_rle_run() {
        // 100 << 1 = 200 as a two-byte varint, then the value in one byte.
        assert_eq!(encode(1, &[1; 100]), vec![0xc8, 0x01, 0x01]);
    }

    #[test]
    fn mixed_values_are_bit_packed_in_groups_of_eight() {
        // One group: indicator (1 << 1) | 1, then 0,1,0,1,0,1,0,1 at one bit each.
        assert_eq!(encode(1, &[0, 1, 0, 1, 0, 1, 0, 1]), vec![0x03, 0xaa]);
        // A partial group is padded with zeros.
        assert_eq!(encode(2, &[3, 1]), vec![0x03, 0x07, 0x00]);
    }

    #[test]
    fn wide_values_are_packed_across_bytes() {
        let mut rle = HybridRle::new(17);
        let values: Vec<u32> = (0..8).map(|i| (1 << 16) + i).collect();
        rle.put_values(&values, u64::from);
        let mut out = Vec::new();
        rle.finish_into(&mut out);
        // The indicator, then 8 values of 17 bits: 17 bytes.
        assert_eq!(out.len(), 18);
        assert_eq!(&out[..4], &[0x03, 0x00, 0x00, 0x03]);
    }

    #[test]
    fn a_bit_packed_run_ends_at_63_groups() {
        let alternating: Vec<i16> = (0..510).map(|i| i % 2).collect();
        let out = encode(1, &alternating);
        // 63 groups, (63 << 1) | 1, then the last 6 values padded to one group.
        assert_eq!(out[0], 0x7f);
        assert_eq!(out[64], 0x03);
        assert_eq!(out.len(), 1 + 63 + 1 + 1);
        assert_eq!(out[65], 0b0010_1010);
    }

    #[test]
    fn finishing_starts_a_fresh_page() {
        let mut rle = HybridRle::new(1);
        let mut first = Vec::new();
        rle.put_levels(&[1; 9]);
        rle.finish_into(&mut first);
        let mut second = Vec::new();
        rle.put_levels(&[1; 9]);
        rle.finish_into(&mut second);
        assert_eq!(first, second);
    }
}
