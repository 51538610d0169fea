//! Random numbers addressed by cell: every draw is a hash of (column, slot, draw number), so a
//! value never depends on which batch, thread or part computes it.

use arrow_buffer::{BooleanBuffer, Buffer};

use super::vocabulary::Picker;
use super::words::append_cut;
use super::{Params, SpecPaths};

mod lanes;
mod predrawn;
mod slot;

pub(super) use crate::rng::splitmix;
use crate::rng::unit_fraction;
pub(super) use lanes::null_validity;
pub(super) use predrawn::{Hashed, Predrawn, SlotDraws, ValueDraws};
pub(super) use slot::{ItemSlots, Items, Slot};

/// Which of a cell's independent draws.
#[derive(Debug, Clone, Copy)]
pub(super) enum Draw {
    /// Whether the value is NULL.
    Null,
    /// The value, or the first of its words.
    Value,
    /// A normal value's second draw (its wedge test, for the few values that need one).
    Second,
    /// A list's or string's length.
    Length,
    /// Word `n` (from 1) of a value made of several words, chunk `n` of random text, or the
    /// further draws of the rare normal value that needs more than two.
    Extra(u64),
}

impl Draw {
    /// The salt, mixed: what a slot's address is xored with before it is hashed into the
    /// draw's key ([`Slot::key`]).
    fn salt_mix(self) -> u64 {
        self.salt().wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }

    fn salt(self) -> u64 {
        match self {
            Self::Null => 1,
            Self::Value => 2,
            Self::Second => 3,
            Self::Length => 4,
            Self::Extra(n) => 5 + n,
        }
    }
}

/// One column's random stream.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stream {
    seed: u64,
    /// Whether the NULL and value draws read the keys their slot computed once
    /// (`spec-shared-slot-keys`): the same bits either way.
    shared_keys: bool,
}

impl Stream {
    /// The stream of the column at `position` (a hash of its position in the schema) for
    /// `seed`, hashing every draw's key itself.
    pub fn new(seed: u64, position: u64) -> Self {
        Self {
            seed: splitmix(seed ^ splitmix(position)),
            shared_keys: false,
        }
    }

    /// This stream reading its slots' shared keys if `shared`; its slots must then have them
    /// ([`Slot::row`], [`ItemSlots::new`]).
    pub fn sharing_keys(self, shared: bool) -> Self {
        Self {
            shared_keys: shared,
            ..self
        }
    }

    /// Whether it reads its slots' shared keys.
    pub fn shares_keys(self) -> bool {
        self.shared_keys
    }

    /// A uniform u64.
    #[inline]
    pub fn bits(self, slot: Slot, draw: Draw) -> u64 {
        let key = match (self.shared_keys, draw) {
            (true, Draw::Null) => slot.null_key,
            (true, Draw::Value) => slot.value_key,
            _ => slot.key(draw),
        };
        splitmix(self.seed ^ key)
    }

    /// A uniform f64 in [0, 1).
    #[inline]
    pub fn fraction(self, slot: Slot, draw: Draw) -> f64 {
        unit_fraction(self.bits(slot, draw))
    }

    /// A bijective scramble of `ordinal`: distinct ordinals give distinct values.
    pub fn scramble(self, ordinal: u64) -> u64 {
        splitmix(ordinal ^ self.seed)
    }
}

/// The least `w >> 11` whose fraction (`w >> 11` times 2^-53, exactly) is at least
/// `probability`: a fraction is at least `probability` when its word's top 53 bits are at
/// least this, so the draw is compared without a conversion to a float.
pub(super) fn fraction_threshold(probability: f64) -> u64 {
    // Multiplying by a power of two is exact. A probability above 1 (or infinite) saturates
    // past every word, as no fraction reaches it; so must NaN, which no fraction compares
    // at least equal to, where a cast would give 0.
    let threshold = (probability * (1u64 << 53) as f64).ceil();
    match threshold.is_nan() {
        true => u64::MAX,
        false => threshold as u64,
    }
}

/// Bit `i` set where `valid(slots[i])` holds, for at most 64 slots.
#[inline(always)]
fn packed_bits(slots: &[Slot], valid: impl Fn(Slot) -> bool) -> u64 {
    let bits = slots.iter().enumerate();
    bits.fold(0, |word, (bit, &slot)| word | u64::from(valid(slot)) << bit)
}

/// Validity bits for `slots`, set where `valid` holds, packed a word of 64 at a time. A loop
/// over the slots themselves: through Arrow's `collect_bool`, the draw's settings were read
/// from its closure at every bit, and every slot index was checked against the length.
pub(super) fn validity_bits(slots: &[Slot], valid: impl Fn(Slot) -> bool) -> BooleanBuffer {
    let words: Vec<u64> = slots
        .chunks(64)
        .map(|chunk| packed_bits(chunk, &valid))
        .collect();
    BooleanBuffer::new(Buffer::from_vec(words), 0, slots.len())
}

/// A uniform integer in `0..n` from 64 random bits (Lemire's multiply-shift).
#[inline(always)]
pub(super) fn below(bits: u64, n: u64) -> u64 {
    ((u128::from(bits) * u128::from(n)) >> 64) as u64
}

/// How much more than the mean total a batch's item vector is sized for: the room a sample's
/// spread around its mean needs.
const ITEM_SLACK: f64 = 1.0625;

/// The lengths of a column's lists, strings or binaries.
#[derive(Debug, Clone)]
pub(super) struct Lengths {
    min: u64,
    max: u64,
    weights: Option<Picker>,
    /// The mean length drawn.
    mean: f64,
}

impl Lengths {
    /// From `min_length`, `max_length` and `length_weights`, with defaults for what is missing.
    pub fn new(params: &Params, default: (u64, u64)) -> Self {
        let min = match (params.min_length, params.max_length) {
            (Some(min), _) => min,
            // One weight per length from 0, as the parser counts them.
            (None, _) if !params.length_weights.is_empty() => 0,
            // The default minimum, but never above the maximum given.
            (None, Some(max)) => default.0.min(max),
            (None, None) => default.0,
        };
        let max = params
            .max_length
            .unwrap_or_else(|| default.1.max(min))
            .max(min);
        let weights = Picker::from_weights(&params.length_weights);
        let mean = match weights {
            // Shares of the total, so that no sum overflows whatever the weights' size.
            Some(_) => {
                let total: f64 = params.length_weights.iter().sum();
                let weighted = params.length_weights.iter().enumerate();
                let above_min: f64 = weighted.map(|(i, w)| i as f64 * (w / total)).sum();
                (min as f64 + above_min).clamp(min as f64, max as f64)
            }
            None => (min as f64 + max as f64) / 2.0,
        };
        Self {
            min,
            max,
            weights,
            mean,
        }
    }

    /// The mean length drawn (weighted by `length_weights` when given).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The longest length drawn.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// About how many items `lists` lists hold together, a little more than their mean but
    /// never more than their longest: what a batch's item vector is sized for, so that it
    /// rarely grows (each growth copies it).
    pub fn expected_total(&self, lists: f64) -> usize {
        let likely = lists * self.mean * ITEM_SLACK;
        // A float cast saturates: no overflow, whatever the count.
        likely.min(lists * self.max as f64) as usize
    }

    /// Draws weighted lengths by the faster paths `paths` turns on: the same lengths.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        if let Some(picker) = &mut self.weights {
            picker.set_paths(paths);
        }
    }

    /// The length a value's [`Draw::Length`] of these random `bits` draws.
    #[inline(always)]
    pub fn of_bits(&self, bits: u64) -> u64 {
        match &self.weights {
            Some(picker) => self.min + picker.pick_bits(bits) as u64,
            None => self.min + below(bits, self.max - self.min + 1),
        }
    }
}

/// 64 characters, so that one random bit pattern of 6 bits picks one.
const TEXT_ALPHABET: &[u8; 64] =
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -";

/// Appends `length` random characters (`text`) or bytes to `out`: a draw's word makes 10
/// characters (6 bits each) or 8 bytes, each word's appended as one copy of known size (the
/// last one's cut to what is left) rather than byte by byte with a capacity check each.
/// Word `k` is the value's random word `k` in `draws`.
pub(super) fn random_bytes(out: &mut Vec<u8>, draws: &impl ValueDraws, length: u64, text: bool) {
    let length = length as usize;
    // Exactly the value's bytes: a batch's buffer sized for its values never grows.
    out.reserve(length);
    // A loop for each kind, so that each word's copy has a size known at compile time (one
    // loop for both copied a word by a call to `memcpy`).
    match text {
        true => append_words(out, draws, length, text_of),
        false => append_words(out, draws, length, u64::to_le_bytes),
    }
}

/// How many draws a random value of at most `length` characters (`text`) or bytes takes.
pub(super) fn random_words(length: u64, text: bool) -> u64 {
    length.div_ceil(match text {
        true => TEXT_PER_WORD as u64,
        false => 8,
    })
}

/// Appends `length` bytes made of the words `bytes_of` makes of the value's draws, `N` bytes
/// each.
#[inline(always)]
fn append_words<const N: usize>(
    out: &mut Vec<u8>,
    draws: &impl ValueDraws,
    length: usize,
    bytes_of: impl Fn(u64) -> [u8; N],
) {
    for chunk in 0..length.div_ceil(N) {
        let bits = draws.random_word(chunk as u64);
        append_cut(out, &bytes_of(bits), (length - chunk * N).min(N));
    }
}

/// The characters one word of random bits makes.
const TEXT_PER_WORD: usize = 10;

/// The 10 characters of `bits`, the lowest 6 bits first.
#[inline]
fn text_of(mut bits: u64) -> [u8; TEXT_PER_WORD] {
    std::array::from_fn(|_| {
        let character = TEXT_ALPHABET[(bits & 63) as usize];
        bits >>= 6;
        character
    })
}

#[cfg(test)]
mod tests {
    use super::{random_bytes, Draw, Hashed, Slot, Stream, TEXT_ALPHABET};

    /// What the characters of a value are: draw `k`'s word gives characters `10k..10k+10`
    /// (bytes `8k..8k+8`), the lowest bits first.
    fn byte_by_byte(stream: Stream, slot: Slot, length: u64, text: bool) -> Vec<u8> {
        (0..length)
            .map(|i| match text {
                true => {
                    let bits = stream.bits(slot, Draw::Extra(i / 10));
                    TEXT_ALPHABET[((bits >> (6 * (i % 10))) & 63) as usize]
                }
                false => (stream.bits(slot, Draw::Extra(i / 8)) >> (8 * (i % 8))) as u8,
            })
            .collect()
    }

    #[test]
    fn a_fraction_reaches_a_probability_when_its_bits_reach_the_threshold() {
        use super::fraction_threshold;
        use crate::rng::unit_fraction;
        let probabilities = [
            5e-324,
            1e-300,
            2f64.powi(-53),
            1e-9,
            0.05,
            0.1,
            0.2,
            1.0 / 3.0,
        ];
        let more = [0.5, 0.999, 1.0, 2.0, f64::INFINITY, f64::NAN];
        for probability in probabilities.into_iter().chain(more) {
            let threshold = fraction_threshold(probability);
            let near = [
                0,
                1,
                threshold.saturating_sub(1),
                threshold,
                threshold.saturating_add(1),
            ];
            for top in near.into_iter().chain((1..64).map(|k| (1u64 << 53) / k)) {
                let top = top.min((1 << 53) - 1);
                for low in [0, 0x7ff] {
                    let word = top << 11 | low;
                    assert_eq!(
                        word >> 11 >= threshold,
                        unit_fraction(word) >= probability,
                        "{probability} {word:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn words_cut_to_the_length_give_the_bytes_of_each_draw() {
        let stream = Stream::new(42, 7);
        for (row, length) in (0..=41).enumerate() {
            let slot = Slot::row(row as u64, row % 2 == 0);
            // Without room to spare, the last word's bytes are copied; with room, the whole
            // word is and is cut back.
            for (text, spare) in [(true, 0), (false, 0), (true, 64), (false, 64)] {
                let mut out = Vec::with_capacity(4 + spare);
                out.extend_from_slice(b"kept");
                random_bytes(&mut out, &Hashed { stream, slot }, length, text);
                assert_eq!(&out[..4], b"kept");
                assert_eq!(out[4..], byte_by_byte(stream, slot, length, text));
            }
        }
    }
}
