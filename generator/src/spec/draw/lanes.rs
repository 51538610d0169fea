//! Draw hashes of eight slots at once (`spec-wide-hashes`): SplitMix64 in the 64-bit lanes of
//! AVX-512 registers, on processors with AVX-512 F and DQ (DQ has the 64-bit multiply), and
//! the scalar code elsewhere. Integer arithmetic in either, so the same bits.
//!
//! The kernels compute the slots' draw keys ([`row_slots`], [`hash_items`]), a column's NULL
//! draws packed into validity bytes ([`null_validity`]) and any of its draws for every slot
//! ([`draw_bits`]). A slot takes about nine scalar instructions per hash, a lane about one.

use std::ops::Range;

use arrow_buffer::BooleanBuffer;
#[cfg(target_arch = "x86_64")]
use arrow_buffer::Buffer;

#[cfg(target_arch = "x86_64")]
use super::packed_bits;
use super::slot::Slot;
use super::{validity_bits, Draw, Stream};

/// Whether this processor runs the eight-lane kernels (checked once by the standard library,
/// then read from a cache).
fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The slots of `rows` with their shared draw keys ([`Slot::row`] with `shared`).
pub(super) fn row_slots(rows: Range<u64>) -> Vec<Slot> {
    let mut slots: Vec<Slot> = Vec::with_capacity(rows.end.saturating_sub(rows.start) as usize);
    let mut next = rows.start;
    #[cfg(target_arch = "x86_64")]
    if available() {
        let blocks = (rows.end.saturating_sub(rows.start) / 8) as usize;
        // SAFETY: the processor has the features; the vector has room for every row, and the
        // kernel writes all of the first `8 * blocks` slots before the length covers them.
        unsafe {
            avx512::row_slots(rows.start, blocks, slots.as_mut_ptr());
            slots.set_len(8 * blocks);
        }
        next += 8 * blocks as u64;
    }
    slots.extend((next..rows.end).map(|row| Slot::row(row, true)));
    slots
}

/// Makes unhashed items' slots whole ([`Slot::hashed`]), their keys computed if `shared`.
pub(super) fn hash_items(items: &mut [Slot], shared: bool) {
    // The slots the kernels leave: all of them without the kernels.
    #[cfg(target_arch = "x86_64")]
    let items = match available() {
        true => {
            let (blocks, rest) = items.as_chunks_mut::<8>();
            // SAFETY: the processor has the features.
            unsafe { avx512::hash_items(blocks, shared) };
            rest
        }
        false => items,
    };
    items
        .iter_mut()
        .for_each(|slot| *slot = slot.hashed(shared));
}

/// Validity bits for `slots`: set where the slot's NULL draw in `stream`, its top 53 bits, is
/// at least `threshold` ([`super::fraction_threshold`]); with `wide`, eight slots to a byte by
/// the kernels where the processor has them.
pub(in crate::spec) fn null_validity(
    slots: &[Slot],
    stream: Stream,
    threshold: u64,
    // Read only where the kernels can run.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))] wide: bool,
) -> BooleanBuffer {
    let valid = |slot: Slot| stream.bits(slot, Draw::Null) >> 11 >= threshold;
    #[cfg(target_arch = "x86_64")]
    if wide && available() {
        let mut bytes = Vec::with_capacity(slots.len().div_ceil(8));
        let (blocks, tail) = slots.as_chunks::<8>();
        // SAFETY: the processor has the features.
        unsafe { avx512::valid_masks(blocks, stream, threshold, &mut bytes) };
        if !tail.is_empty() {
            bytes.push(packed_bits(tail, valid) as u8);
        }
        return BooleanBuffer::new(Buffer::from_vec(bytes), 0, slots.len());
    }
    validity_bits(slots, valid)
}

/// `stream`'s draw `draw` for each of `slots` ([`Stream::bits`]).
pub(super) fn draw_bits(slots: &[Slot], stream: Stream, draw: Draw) -> Vec<u64> {
    let mut bits = Vec::with_capacity(slots.len());
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the processor has the features.
        unsafe { avx512::draw_bits(slots.as_chunks::<8>().0, stream, draw, &mut bits) };
    }
    // The slots the kernels did not do: all of them without the kernels.
    let rest = &slots[bits.len()..];
    bits.extend(rest.iter().map(|&slot| stream.bits(slot, draw)));
    bits
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::super::{Draw, Stream};
    use super::Slot;
    use crate::rng::{GOLDEN, SPLITMIX_MULTIPLIERS};

    /// A slot's four fields, each in the lane of its slot among eight.
    struct Fields {
        address: __m512i,
        null_key: __m512i,
        ordinal: __m512i,
        value_key: __m512i,
    }

    /// A constant in every lane.
    #[target_feature(enable = "avx512f")]
    fn splat(value: u64) -> __m512i {
        _mm512_set1_epi64(value as i64)
    }

    /// Lane indices, the first lane's last as `_mm512_set_epi64` takes them.
    #[target_feature(enable = "avx512f")]
    fn lanes(indices: [i64; 8]) -> __m512i {
        let [a, b, c, d, e, f, g, h] = indices;
        _mm512_set_epi64(h, g, f, e, d, c, b, a)
    }

    /// SplitMix64 ([`crate::rng::splitmix`]) of each lane.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn splitmix(z: __m512i) -> __m512i {
        let z = _mm512_add_epi64(z, splat(GOLDEN));
        let z = _mm512_xor_si512(z, _mm512_srli_epi64::<30>(z));
        let z = _mm512_mullo_epi64(z, splat(SPLITMIX_MULTIPLIERS[0]));
        let z = _mm512_xor_si512(z, _mm512_srli_epi64::<27>(z));
        let z = _mm512_mullo_epi64(z, splat(SPLITMIX_MULTIPLIERS[1]));
        _mm512_xor_si512(z, _mm512_srli_epi64::<31>(z))
    }

    /// The address hashed with `draw`'s salt in each lane ([`Slot::key`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn key(address: __m512i, draw: Draw) -> __m512i {
        splitmix(_mm512_xor_si512(address, splat(draw.salt_mix())))
    }

    /// The fields of eight slots, transposed from their four 64-byte rows.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load(block: &[Slot; 8]) -> Fields {
        let rows = block.as_ptr().cast::<__m512i>();
        // SAFETY: eight 32-byte slots are four 64-byte vectors; unaligned loads.
        let [r0, r1, r2, r3] = [0, 1, 2, 3].map(|k| unsafe { _mm512_loadu_si512(rows.add(k)) });
        // Addresses and NULL keys of slots 0-3 (4-7), then ordinals and value keys.
        let first = lanes([0, 4, 8, 12, 1, 5, 9, 13]);
        let second = lanes([2, 6, 10, 14, 3, 7, 11, 15]);
        let (a01, b01) = (
            _mm512_permutex2var_epi64(r0, first, r1),
            _mm512_permutex2var_epi64(r0, second, r1),
        );
        let (a23, b23) = (
            _mm512_permutex2var_epi64(r2, first, r3),
            _mm512_permutex2var_epi64(r2, second, r3),
        );
        Fields {
            address: _mm512_shuffle_i64x2::<0b0100_0100>(a01, a23),
            null_key: _mm512_shuffle_i64x2::<0b1110_1110>(a01, a23),
            ordinal: _mm512_shuffle_i64x2::<0b0100_0100>(b01, b23),
            value_key: _mm512_shuffle_i64x2::<0b1110_1110>(b01, b23),
        }
    }

    /// Writes eight slots from their fields, transposed back into four 64-byte rows.
    ///
    /// # Safety
    /// `out` must be valid for writing eight slots.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn store(fields: Fields, out: *mut Slot) {
        let pairs = |from: [i64; 8]| {
            let index = lanes(from);
            (
                _mm512_permutex2var_epi64(fields.address, index, fields.null_key),
                _mm512_permutex2var_epi64(fields.ordinal, index, fields.value_key),
            )
        };
        // Address and NULL key of slots 0-3 interleaved (then 4-7), and so ordinal and value key.
        let low = pairs([0, 8, 1, 9, 2, 10, 3, 11]);
        let high = pairs([4, 12, 5, 13, 6, 14, 7, 15]);
        let (even, odd) = (
            lanes([0, 1, 8, 9, 2, 3, 10, 11]),
            lanes([4, 5, 12, 13, 6, 7, 14, 15]),
        );
        let rows = [
            _mm512_permutex2var_epi64(low.0, even, low.1),
            _mm512_permutex2var_epi64(low.0, odd, low.1),
            _mm512_permutex2var_epi64(high.0, even, high.1),
            _mm512_permutex2var_epi64(high.0, odd, high.1),
        ];
        let out = out.cast::<__m512i>();
        for (k, row) in rows.into_iter().enumerate() {
            // SAFETY: the caller's eight slots are these four vectors; unaligned stores.
            unsafe { _mm512_storeu_si512(out.add(k), row) };
        }
    }

    /// Fields with the shared draw keys of `address` (zeros without `shared`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn with_keys(address: __m512i, ordinal: __m512i, shared: bool) -> Fields {
        let (null_key, value_key) = match shared {
            true => (key(address, Draw::Null), key(address, Draw::Value)),
            false => (_mm512_setzero_si512(), _mm512_setzero_si512()),
        };
        Fields {
            address,
            null_key,
            ordinal,
            value_key,
        }
    }

    /// Writes the slots of `blocks` blocks of eight rows from `first`, shared keys computed.
    ///
    /// # Safety
    /// `out` must be valid for writing `8 * blocks` slots.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) unsafe fn row_slots(first: u64, blocks: usize, out: *mut Slot) {
        let mut rows = _mm512_add_epi64(splat(first), lanes([0, 1, 2, 3, 4, 5, 6, 7]));
        for block in 0..blocks {
            // SAFETY: block `block` of the caller's slots.
            unsafe { store(with_keys(rows, rows, true), out.add(8 * block)) };
            rows = _mm512_add_epi64(rows, splat(8));
        }
    }

    /// [`Slot::hashed`] for unhashed items' slots, eight at a time, in place.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn hash_items(blocks: &mut [[Slot; 8]], shared: bool) {
        for block in blocks {
            let unhashed = load(block);
            let fields = with_keys(splitmix(unhashed.address), unhashed.ordinal, shared);
            // SAFETY: the block holds eight slots.
            unsafe { store(fields, block.as_mut_ptr()) };
        }
    }

    /// Appends `stream`'s draw `draw` for each slot of `blocks` to `out`.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn draw_bits(blocks: &[[Slot; 8]], stream: Stream, draw: Draw, out: &mut Vec<u64>) {
        let seed = splat(stream.seed);
        for block in blocks {
            let fields = load(block);
            let keys = match (stream.shared_keys, draw) {
                (true, Draw::Null) => fields.null_key,
                (true, Draw::Value) => fields.value_key,
                _ => key(fields.address, draw),
            };
            // SAFETY: eight u64 lanes are the vector's 64 bytes, any bits a valid u64.
            let lanes: [u64; 8] =
                unsafe { std::mem::transmute(splitmix(_mm512_xor_si512(seed, keys))) };
            out.extend_from_slice(&lanes);
        }
    }

    /// Appends to `masks` a byte for each block, bit `i` set where slot `i`'s NULL draw in
    /// `stream` reaches `threshold`.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn valid_masks(
        blocks: &[[Slot; 8]],
        stream: Stream,
        threshold: u64,
        masks: &mut Vec<u8>,
    ) {
        let (seed, threshold) = (splat(stream.seed), splat(threshold));
        masks.extend(blocks.iter().map(|block| {
            let fields = load(block);
            let keys = match stream.shared_keys {
                true => fields.null_key,
                false => key(fields.address, Draw::Null),
            };
            let bits = splitmix(_mm512_xor_si512(seed, keys));
            _mm512_cmpge_epu64_mask(_mm512_srli_epi64::<11>(bits), threshold)
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::{draw_bits, hash_items, null_validity, row_slots};
    use crate::spec::draw::{fraction_threshold, Draw, Slot, Stream};

    /// Slots of every kind: rows without keys, rows with, and unhashed-looking addresses.
    fn slots(count: u64) -> Vec<Slot> {
        (0..count)
            .map(|k| Slot::row(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k, k % 3 == 0))
            .collect()
    }

    #[test]
    fn validity_bits_are_each_slots_null_draw() {
        for count in [0, 1, 7, 8, 9, 64, 100, 1027] {
            let slots = slots(count);
            for shared in [false, true] {
                let stream = Stream::new(42, count).sharing_keys(shared);
                let slots: Vec<Slot> = slots.iter().map(|s| s.hashed(shared)).collect();
                for probability in [0.0, 0.05, 0.5, 0.999, 1.0] {
                    let threshold = fraction_threshold(probability);
                    for wide in [false, true] {
                        let bits = null_validity(&slots, stream, threshold, wide);
                        assert_eq!(bits.len() as u64, count);
                        for (i, slot) in slots.iter().enumerate() {
                            let valid = stream.fraction(*slot, Draw::Null) >= probability;
                            assert_eq!(bits.value(i), valid, "{count} {i} wide {wide}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn drawn_bits_are_each_slots_draw() {
        let draws = [
            Draw::Null,
            Draw::Value,
            Draw::Length,
            Draw::Extra(1),
            Draw::Extra(9),
        ];
        for count in [0, 3, 8, 17, 1000] {
            for shared in [false, true] {
                let stream = Stream::new(7, count).sharing_keys(shared);
                let slots: Vec<Slot> = slots(count).iter().map(|s| s.hashed(shared)).collect();
                for draw in draws {
                    let one_by_one: Vec<u64> =
                        slots.iter().map(|&s| stream.bits(s, draw)).collect();
                    assert_eq!(
                        draw_bits(&slots, stream, draw),
                        one_by_one,
                        "{count} {draw:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn items_hashed_together_are_items_hashed_one_by_one() {
        for count in [0, 5, 8, 31, 1000] {
            for shared in [false, true] {
                let mut together = slots(count);
                let one_by_one: Vec<Slot> = together.iter().map(|s| s.hashed(shared)).collect();
                hash_items(&mut together, shared);
                assert_eq!(together, one_by_one, "{count} {shared}");
            }
        }
    }

    #[test]
    fn row_slots_are_rows_with_shared_keys() {
        for rows in [0..0, 3..4, 0..8, 17..1041, u64::MAX - 9..u64::MAX] {
            let one_by_one: Vec<Slot> = rows.clone().map(|row| Slot::row(row, true)).collect();
            assert_eq!(row_slots(rows), one_by_one);
        }
    }
}
