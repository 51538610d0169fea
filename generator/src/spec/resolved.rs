//! Integer draws whose per-value choices are made once per column (`spec-resolved-draws`):
//! a uniform draw that only scales a hash, and a sequence that only multiplies an ordinal. Each
//! gives exactly what `Integers::value` gives; the numbers module decides when one applies.

use super::draw::{below, Draw, Slot, Stream};

/// A uniform draw of one of `span` whole values from `first` on: an integer column's values
/// with every per-value choice made once.
#[derive(Debug, Clone, Copy)]
pub(super) struct NarrowUniform {
    first: i128,
    span: Span,
}

/// How many values a [`NarrowUniform`] draws from.
#[derive(Debug, Clone, Copy)]
pub(super) enum Span {
    /// Fewer than 2^64: the value draw's word scaled down.
    Below(u64),
    /// Exactly 2^64 (a whole 64-bit type): the two draws' 128-bit number modulo 2^64, which is
    /// the second draw's word.
    Whole,
}

impl NarrowUniform {
    /// The draw of one of `span` whole values from `first` on.
    pub fn new(first: i128, span: Span) -> Self {
        Self { first, span }
    }

    /// The value of `slot`: [`Integers::value`](super::numbers::Integers::value)'s.
    #[inline]
    pub fn value(self, stream: Stream, slot: Slot) -> i128 {
        let offset = match self.span {
            Span::Below(span) => below(stream.bits(slot, Draw::Value), span),
            Span::Whole => stream.bits(slot, Draw::Second),
        };
        (self.first as u128).wrapping_add(u128::from(offset)) as i128
    }
}

/// A sequence of whole steps of `size` from `lo` (from `hi` counting `down`) wrapping within
/// `[lo, hi]`: an integer column's sequential values with every per-value choice made once.
#[derive(Debug, Clone, Copy)]
pub(super) struct NarrowSequence {
    lo: i64,
    hi: i64,
    width: u64,
    size: u64,
    down: bool,
}

impl NarrowSequence {
    /// Whole steps of `size` through `[lo, hi]`, counting `down` from `hi`.
    pub fn new((lo, hi): (i64, i64), size: u64, down: bool) -> Self {
        Self {
            lo,
            hi,
            width: hi.abs_diff(lo),
            size,
            down,
        }
    }

    /// The value of `ordinal`: [`Integers::value`](super::numbers::Integers::value)'s.
    #[inline]
    pub fn value(self, ordinal: u64) -> i128 {
        let offset = match ordinal.checked_mul(self.size) {
            Some(offset) if offset <= self.width => offset,
            // Wrapped as [`Integers::value`](super::numbers::Integers::value) wraps: its 128-bit product saturates.
            _ => {
                let product = u128::from(ordinal) * u128::from(self.size);
                (product.min(i128::MAX as u128) % (u128::from(self.width) + 1)) as u64
            }
        };
        // Within [lo, hi], so exact in 64 bits: the wrapping only carries the cast.
        i128::from(match self.down {
            true => self.hi.wrapping_sub(offset as i64),
            false => self.lo.wrapping_add(offset as i64),
        })
    }
}
