//! [`SpecPaths`]: which of the spec generator's faster ways of writing values are on. Each is a
//! catalog entry of the pipeline (on any workload), and each writes the same rows as without.

/// The spec generator's faster paths, all off in [`SpecPaths::default`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpecPaths {
    /// Sequential and unique strings written digit by digit into the batch's bytes
    /// (`spec-direct-digits`) rather than through `core::fmt`.
    pub direct_digits: bool,
    /// Vocabulary entries (word lists, values, drawn vocabularies) appended to a string by one
    /// copy of known size (`spec-word-moves`) rather than a `memcpy` call each.
    pub word_moves: bool,
    /// Weighted draws (Zipf ranks, `weights`, `length_weights`) read from a guide table by the
    /// draw's top bits (`spec-bit-guided-draws`) rather than by the float made of them.
    pub bit_guided_draws: bool,
    /// The values of NULL slots left undrawn (`spec-null-skips`): zeros, `false` or no bytes
    /// under the NULLs, which no reader sees, instead of values drawn and hidden.
    pub null_skips: bool,
    /// Each slot's NULL and value draw keys (its address hashed with each draw's salt)
    /// computed once and shared by every column at the slot (`spec-shared-slot-keys`) rather
    /// than hashed again by each column.
    pub shared_slot_keys: bool,
    /// Per-value choices made once per batch (`spec-resolved-draws`) rather than for every
    /// value: a uniform integer column without a granule or conversion, over at most 2^64
    /// values, drawn by a loop of a hash and a multiply-shift; a NULL draw compared as an
    /// integer.
    pub resolved_draws: bool,
    /// Bit-guided tables of vocabularies of fewer than 32,768 entries made of 16-bit entries,
    /// twice the buckets in the same bytes (`spec-narrow-guides`), rather than 32-bit ones.
    pub narrow_guides: bool,
    /// A map's keys made from the vocabulary picks that kept them distinct within each map
    /// (`spec-map-key-picks`) rather than drawn again by the key column.
    pub map_key_picks: bool,
    /// Hashes computed in passes over a batch's slots, eight at a time in AVX-512 registers
    /// where the processor has AVX-512 F and DQ (`spec-wide-hashes`): slots' draw keys and
    /// item addresses, NULL draws, list lengths, dictionary keys and vocabulary words, rather
    /// than one by one as each value is made.
    pub wide_hashes: bool,
    /// A map's items gathered a chunk of maps at a time, hashed and their keys drawn in
    /// passes over the chunk, then deduplicated by a loop that reads the draws, with the marks
    /// of a vocabulary of at most 128 entries in registers (`spec-map-key-chunks`), rather than
    /// each item hashed, drawn and deduplicated in turn.
    pub map_key_chunks: bool,
    /// String and binary values of one vocabulary list laid out in passes
    /// (`spec-laid-vocabulary`): their picks, where each ends (summed from the entries'
    /// lengths), then each entry copied to its place, rather than appended one by one.
    pub laid_vocabulary: bool,
}

impl SpecPaths {
    /// Every path on.
    pub const ALL: Self = Self {
        direct_digits: true,
        word_moves: true,
        bit_guided_draws: true,
        null_skips: true,
        shared_slot_keys: true,
        resolved_draws: true,
        narrow_guides: true,
        map_key_picks: true,
        wide_hashes: true,
        map_key_chunks: true,
        laid_vocabulary: true,
    };
}
