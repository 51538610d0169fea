//! The row-addressable random number scheme.
//!
//! Every row gets its own xoshiro256++ generator, seeded from `(seed, row)` alone, exactly as
//! `rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ row * GOLDEN)` seeds it: with the
//! first four outputs of SplitMix64 started at that key. A row's content therefore depends only on the
//! seed, its row number and the skew configuration, never on which thread generates it or how
//! rows are split into batches, and a generator can start at any row for free (shards, batches).
//! xoshiro256++ has a fixed, documented output (unlike `rand`'s `SmallRng`), so a seed gives the
//! same data across builds; tests pin [`RowRng`] to `rand_xoshiro`'s stream. Zipf tables are
//! computed with the `libm` crate's `pow`, the same arithmetic on every machine (the C library's
//! picks a variant by the CPU, and glibc's FMA and SSE2 ones round some powers differently).

use std::convert::Infallible;
use std::hint::black_box;

use rand::rand_core::utils::fill_bytes_via_next_word;
use rand::TryRng;

/// The 64-bit golden ratio: multiplying by it (odd) maps distinct rows to distinct keys. It is
/// also SplitMix64's increment.
pub(crate) const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's two multipliers, in the order [`splitmix`] applies them (after shifts of 30
/// and 27 bits; a shift of 31 ends it).
pub(crate) const SPLITMIX_MULTIPLIERS: [u64; 2] = [0xBF58_476D_1CE4_E5B9, 0x94D0_49BB_1331_11EB];

/// SplitMix64's output for the state before `z`: a bijection of u64 with full avalanche.
#[inline]
pub(crate) fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(SPLITMIX_MULTIPLIERS[0]);
    z = (z ^ (z >> 27)).wrapping_mul(SPLITMIX_MULTIPLIERS[1]);
    z ^ (z >> 31)
}

/// A uniform f64 in `[0, 1)` from the top 53 bits of `word`: every such float a multiple of
/// 2^-53, exactly.
#[inline]
pub fn unit_fraction(word: u64) -> f64 {
    (word >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The random generator of one row: xoshiro256++ (Blackman and Vigna), the algorithm and output
/// of `rand_xoshiro::Xoshiro256PlusPlus`.
#[derive(Debug, Clone)]
pub struct RowRng {
    s: [u64; 4],
}

impl RowRng {
    #[inline]
    fn next(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// The generator seeded by SplitMix64 from `key`, as `rand_xoshiro`'s `seed_from_u64` seeds,
    /// but with the four words put straight into the state: the library goes through a 32-byte
    /// seed that it stores, checks for all zero and loads back, and the check's wide load spans
    /// four narrow stores, a store-forwarding stall on every row.
    #[inline]
    fn from_key(key: u64) -> Self {
        // Consecutive SplitMix64 states differ and its output is a bijection, so at most one
        // word is zero: the all-zero state, xoshiro's one forbidden state, cannot occur.
        Self {
            s: [0, 1, 2, 3].map(|k| splitmix(splitmix_state(key, k))),
        }
    }

    /// [`RowRng::from_key`] with each word's SplitMix64 input passed through
    /// [`std::hint::black_box`]: the optimizer cannot see the four words as one computation in
    /// four lanes, so it leaves each in general registers instead of packing them into vector
    /// registers. The words, and so the stream, are the same.
    #[inline]
    fn from_key_scalar(key: u64) -> Self {
        let word = |k| splitmix(black_box(splitmix_state(key, k)));
        Self {
            s: [word(0), word(1), word(2), word(3)],
        }
    }
}

impl TryRng for RowRng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        // The upper bits, as rand_xoshiro: the lowest have linear dependencies.
        Ok((self.next() >> 32) as u32)
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.next())
    }

    #[inline]
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        fill_bytes_via_next_word(dest, || self.try_next_u64())
    }
}

/// SplitMix64's state before its output `k` (0-based), started at `key`.
#[inline]
fn splitmix_state(key: u64, k: u64) -> u64 {
    key.wrapping_add(k.wrapping_mul(GOLDEN))
}

/// The key the generator of `row` under `seed` is seeded from.
#[inline]
fn row_key(seed: u64, row: u64) -> u64 {
    seed ^ row.wrapping_mul(GOLDEN)
}

/// The generator for `row` under `seed`.
#[inline]
pub fn row_rng(seed: u64, row: u64) -> RowRng {
    RowRng::from_key(row_key(seed, row))
}

/// How a row's generator is seeded. Every implementation gives [`row_rng`]'s generator, so the
/// data is the same; they differ only in the machine code the compiler makes of the seeding,
/// which runs once per row.
pub trait RowSeeding: Send + Sync + 'static {
    /// The generator for `row` under `seed`, equal to [`row_rng`]`(seed, row)`.
    fn row_rng(seed: u64, row: u64) -> RowRng;
}

/// [`row_rng`] itself: the four state words as one `map` over their indices. On x86-64's
/// baseline target, rustc 1.95 packs the four SplitMix64 computations into two SSE2 registers,
/// which have no 64-bit multiply: each multiply, two words at a time, becomes three 32-bit
/// multiplies, two shifts and two adds.
#[derive(Debug, Clone, Copy, Default)]
pub struct PackedSeeding;

impl RowSeeding for PackedSeeding {
    #[inline]
    fn row_rng(seed: u64, row: u64) -> RowRng {
        row_rng(seed, row)
    }
}

/// Each state word computed on its own, in general registers, where a 64-bit multiply is one
/// instruction: two multiplies per word, eight in all, and a store and a load per word, which
/// keep the words out of vector lanes (experiment 33). On a target with a 64-bit vector
/// multiply (AVX-512DQ) the packed form may win instead.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScalarSeeding;

impl RowSeeding for ScalarSeeding {
    #[inline]
    fn row_rng(seed: u64, row: u64) -> RowRng {
        RowRng::from_key_scalar(row_key(seed, row))
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    #[test]
    fn row_rng_is_rand_xoshiros_stream() {
        for (seed, row) in [
            (0, 0),
            (42, 1),
            (42, 9_999_999),
            (u64::MAX, u64::MAX),
            (7, 1 << 40),
        ] {
            let mut library = Xoshiro256PlusPlus::seed_from_u64(seed ^ row.wrapping_mul(GOLDEN));
            let mut ours = row_rng(seed, row);
            for _ in 0..8 {
                assert_eq!(ours.next_u64(), library.next_u64(), "seed {seed} row {row}");
            }
            assert_eq!(ours.next_u32(), library.next_u32());
            let (mut bytes, mut theirs) = ([0u8; 13], [0u8; 13]);
            ours.fill_bytes(&mut bytes);
            library.fill_bytes(&mut theirs);
            assert_eq!(bytes, theirs);
        }
    }

    #[test]
    fn splitmix_is_rand_xoshiros_splitmix64() {
        let mut library = rand_xoshiro::SplitMix64::seed_from_u64(12345);
        for k in 0..4u64 {
            assert_eq!(
                splitmix(12345u64.wrapping_add(k.wrapping_mul(GOLDEN))),
                library.next_u64()
            );
        }
    }

    #[test]
    fn every_seeding_gives_row_rngs_generator() {
        for seed in [0, 7, 42, u64::MAX] {
            for row in (0..10_000).chain([1 << 40, u64::MAX - 1, u64::MAX]) {
                // Four outputs: xoshiro256++'s whole state.
                let words = |mut rng: RowRng| [(); 4].map(|()| rng.next_u64());
                let expected = words(row_rng(seed, row));
                assert_eq!(words(PackedSeeding::row_rng(seed, row)), expected);
                assert_eq!(
                    words(ScalarSeeding::row_rng(seed, row)),
                    expected,
                    "{seed} {row}"
                );
            }
        }
    }

    #[test]
    fn rows_and_seeds_get_different_streams() {
        let first = |seed, row| row_rng(seed, row).next_u64();
        // Pinned: the row-seeding scheme is part of data version 1.
        assert_eq!(first(7, 11), 0xd155_ac72_9026_2c2a);
        assert_eq!(first(0, 0), 0x5317_5d61_490b_23df);
        assert_ne!(first(7, 11), first(7, 12));
        assert_ne!(first(7, 11), first(8, 11));
    }
}
