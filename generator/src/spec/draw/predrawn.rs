//! The draws a byte value is made of ([`ValueDraws`]): hashed where each is needed
//! ([`Hashed`]), or read from passes over a batch's slots that computed them beforehand eight
//! slots at a time (`spec-wide-hashes`: [`Predrawn`]). The same bits either way.

use super::lanes::draw_bits;
use super::{Draw, Slot, Stream};
use crate::spec::vocabulary::word_draw;

/// The draws of one value.
pub(in crate::spec) trait ValueDraws {
    /// The draw that picks word `n` of a value made of vocabulary words ([`word_draw`]).
    fn word(&self, n: usize) -> u64;
    /// The draw of the value's length.
    fn length(&self) -> u64;
    /// Random word `k` of the value's bytes (`Draw::Extra(k)`).
    fn random_word(&self, k: u64) -> u64;
}

/// A slot's draws, each hashed when it is asked for.
#[derive(Clone, Copy)]
pub(in crate::spec) struct Hashed {
    pub stream: Stream,
    pub slot: Slot,
}

impl ValueDraws for Hashed {
    #[inline(always)]
    fn word(&self, n: usize) -> u64 {
        self.stream.bits(self.slot, word_draw(n))
    }

    #[inline(always)]
    fn length(&self) -> u64 {
        self.stream.bits(self.slot, Draw::Length)
    }

    #[inline(always)]
    fn random_word(&self, k: u64) -> u64 {
        self.stream.bits(self.slot, Draw::Extra(k))
    }
}

/// Draws of a column's slots computed beforehand: the draws of a value's vocabulary words,
/// the length draw, the first random words, each where asked for; the values read only
/// these, and the random words past the first hashed.
#[derive(Debug, Default)]
pub(in crate::spec) struct Predrawn {
    /// Word `n`'s draws at `[n]`.
    words: Vec<Vec<u64>>,
    length: Vec<u64>,
    /// Random word `k`'s draws at `[k]`.
    random_words: Vec<Vec<u64>>,
}

impl Predrawn {
    /// For `slots` in `stream`: the draws of the first `words` vocabulary words, the length
    /// draw if `length`, and the first `random_words` random words.
    pub fn new(
        slots: &[Slot],
        stream: Stream,
        words: usize,
        length: bool,
        random_words: u64,
    ) -> Self {
        Self {
            words: (0..words)
                .map(|n| draw_bits(slots, stream, word_draw(n)))
                .collect(),
            length: match length {
                true => draw_bits(slots, stream, Draw::Length),
                false => Vec::new(),
            },
            random_words: (0..random_words)
                .map(|k| draw_bits(slots, stream, Draw::Extra(k)))
                .collect(),
        }
    }

    /// The draws of slot `i` of `slots` in `stream`, which these were computed for: the
    /// random words not computed are hashed.
    #[inline(always)]
    pub fn at<'a>(&'a self, i: usize, slots: &'a [Slot], stream: Stream) -> PredrawnAt<'a> {
        PredrawnAt {
            predrawn: self,
            i,
            slots,
            stream,
        }
    }
}

/// One slot's draws among [`Predrawn`]'s.
pub(in crate::spec) struct PredrawnAt<'a> {
    predrawn: &'a Predrawn,
    i: usize,
    /// The slots and stream the draws were computed for: what hashes a random word not
    /// computed (the slot read only then).
    slots: &'a [Slot],
    stream: Stream,
}

impl ValueDraws for PredrawnAt<'_> {
    /// Read: every word's draws are computed for values made of words (a hash here, for a
    /// word asked for but not computed, cost more in the loop than the read).
    #[inline(always)]
    fn word(&self, n: usize) -> u64 {
        self.predrawn.words[n][self.i]
    }

    /// Read: the length draws are computed for values of a drawn length.
    #[inline(always)]
    fn length(&self) -> u64 {
        self.predrawn.length[self.i]
    }

    #[inline(always)]
    fn random_word(&self, k: u64) -> u64 {
        let words = &self.predrawn.random_words;
        match words.get(k as usize) {
            Some(bits) => bits[self.i],
            None => self.stream.bits(self.slots[self.i], Draw::Extra(k)),
        }
    }
}

/// One draw of every slot of a batch, for a loop over the slots to read: computed beforehand
/// in a pass over them (`spec-wide-hashes`), or hashed as each is read.
pub(in crate::spec) enum SlotDraws {
    Computed(Vec<u64>),
    Hashed { stream: Stream, draw: Draw },
}

impl SlotDraws {
    /// `stream`'s draw `draw` of `slots`, computed beforehand if `wide`.
    pub fn new(slots: &[Slot], stream: Stream, draw: Draw, wide: bool) -> Self {
        match wide {
            true => Self::Computed(draw_bits(slots, stream, draw)),
            false => Self::Hashed { stream, draw },
        }
    }

    /// The draw of `slot`, slot `i` of the slots these are for.
    #[inline(always)]
    pub fn bits(&self, i: usize, slot: Slot) -> u64 {
        match self {
            Self::Computed(bits) => bits[i],
            Self::Hashed { stream, draw } => stream.bits(slot, *draw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Hashed, Predrawn, Slot, Stream, ValueDraws};

    #[test]
    fn slot_draws_are_the_slots_draws_computed_or_not() {
        use super::{Draw, SlotDraws};
        let stream = Stream::new(8, 2);
        let slots: Vec<Slot> = (7..30).map(|row| Slot::row(row, false)).collect();
        for wide in [false, true] {
            let draws = SlotDraws::new(&slots, stream, Draw::Length, wide);
            for (i, &slot) in slots.iter().enumerate() {
                assert_eq!(draws.bits(i, slot), stream.bits(slot, Draw::Length), "{i}");
            }
        }
    }

    #[test]
    fn every_draw_is_the_slots_draw_computed_or_not() {
        let stream = Stream::new(3, 9).sharing_keys(true);
        let slots: Vec<Slot> = (100..140).map(|row| Slot::row(row, true)).collect();
        for (words, random_words) in [(2, 3), (4, 1), (4, 0)] {
            let predrawn = Predrawn::new(&slots, stream, words, true, random_words);
            for (i, &slot) in slots.iter().enumerate() {
                let (hashed, at) = (Hashed { stream, slot }, predrawn.at(i, &slots, stream));
                assert_eq!(at.length(), hashed.length());
                for n in 0..words {
                    assert_eq!(at.word(n), hashed.word(n), "word {n} of {i}");
                }
                for k in 0..5 {
                    assert_eq!(at.random_word(k), hashed.random_word(k), "{k} of {i}");
                }
            }
        }
    }
}
