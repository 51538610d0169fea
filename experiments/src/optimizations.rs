//! How the catalog's optimizations relate (what each acts through, what takes its place) and
//! the set of them that one run has on.

use shredlab_generator::spec::SpecPaths;

use crate::catalog::{CatalogError, Optimization, CATALOG};

impl Optimization {
    /// The optimizations this one acts through: without them it changes nothing (the code path
    /// it alters is not taken).
    pub fn needs(self) -> &'static [Optimization] {
        use Optimization::*;
        match self {
            // Text strategies and interning apply to builders, not to per-row structs.
            ReuseNumberBuffer | ReuseNameBuffer | InternedNames | DirectNames | DirectDigits => {
                &[NoRowStructs]
            }
            GuidedNameRanks | LookedUpSmallWeights | BitGuidedRanks => &[PrecomputedSampling],
            // Built into the bit-guided sampler, the one the catalog uses from 26 on.
            ScalarRowSeeds => &[PrecomputedSampling, BitGuidedRanks],
            // Replaces the builders of a dictionary-keyed phone_type column, and the text
            // strategies whose output it writes: without them an ablation means the builders.
            RawColumnVectors => &[NoRowStructs, DictionaryPhoneType, DirectNames, DirectDigits],
            // Only persistent builders can take spent buffers back.
            RecyclingChannel => &[ThreadLocalBuilders],
            // The fused workers' row groups are the writers that take the encoder.
            NativeEncoder => &[FusedRowGroups],
            _ => &[],
        }
    }

    /// The optimizations that take this one's place when both are on: it then changes nothing.
    pub fn yields_to(self) -> &'static [Optimization] {
        use Optimization::*;
        match self {
            // Interning is what 09 measures, and only the builders intern.
            RawColumnVectors => &[InternedNames],
            // Direct writes bypass the page cache whose per-page allocation it saves.
            PreallocatedFiles => &[DirectWrites],
            _ => &[],
        }
    }
}

/// 64-bit words in an [`Optimizations`] set: as many as the catalog needs, so the set grows with
/// the catalog and has no fixed width.
const WORDS: usize = Optimization::ALL.len().div_ceil(64);

/// A set of small indices, one bit each in `W` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bits<const W: usize>([u64; W]);

impl<const W: usize> Bits<W> {
    const EMPTY: Self = Self([0; W]);

    fn contains(&self, index: usize) -> bool {
        self.0[index / 64] & (1 << (index % 64)) != 0
    }

    fn insert(&mut self, index: usize) {
        self.0[index / 64] |= 1 << (index % 64);
    }

    fn remove(&mut self, index: usize) {
        self.0[index / 64] &= !(1 << (index % 64));
    }
}

/// A set of optimizations, resolved once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Optimizations(Bits<WORDS>);

impl Default for Optimizations {
    fn default() -> Self {
        Self(Bits::EMPTY)
    }
}

impl Optimizations {
    /// Whether `o` is on.
    pub fn has(self, o: Optimization) -> bool {
        self.0.contains(o as usize)
    }

    /// Switches `o` on.
    pub fn enable(&mut self, o: Optimization) {
        self.0.insert(o as usize);
    }

    /// Switches `o` off.
    pub fn disable(&mut self, o: Optimization) {
        self.0.remove(o as usize);
    }

    /// The spec generator's faster paths these switch on (each the same rows).
    pub fn spec_paths(self) -> SpecPaths {
        SpecPaths {
            direct_digits: self.has(Optimization::SpecDirectDigits),
            word_moves: self.has(Optimization::SpecWordMoves),
            bit_guided_draws: self.has(Optimization::SpecBitGuidedDraws),
            null_skips: self.has(Optimization::SpecNullSkips),
            shared_slot_keys: self.has(Optimization::SpecSharedSlotKeys),
            resolved_draws: self.has(Optimization::SpecResolvedDraws),
            narrow_guides: self.has(Optimization::SpecNarrowGuides),
            map_key_picks: self.has(Optimization::SpecMapKeyPicks),
            wide_hashes: self.has(Optimization::SpecWideHashes),
            map_key_chunks: self.has(Optimization::SpecMapKeyChunks),
            laid_vocabulary: self.has(Optimization::SpecLaidVocabulary),
        }
    }

    /// The optimizations that are on, in catalog order.
    pub fn iter(self) -> impl Iterator<Item = Optimization> {
        Optimization::ALL
            .iter()
            .copied()
            .filter(move |o| self.has(*o))
    }

    /// The optimizations that are on but change nothing, because one they need is off or one
    /// they yield to is on.
    pub fn inert(self) -> impl Iterator<Item = Optimization> {
        self.iter().filter(move |o| !self.acts(*o))
    }

    /// Whether `o` is on and changes something: everything it needs is on, and nothing it
    /// yields to.
    pub fn acts(self, o: Optimization) -> bool {
        self.has(o)
            && o.needs().iter().all(|need| self.has(*need))
            && !o.yields_to().iter().any(|other| self.has(*other))
    }

    /// The optimizations of experiment `number`: entries `1..=number` folded in order.
    pub fn for_experiment(number: u32) -> Result<Self, CatalogError> {
        let entries = CATALOG
            .get(..=number as usize)
            .ok_or(CatalogError::UnknownExperiment(number))?;
        let mut set = Self::default();
        for entry in entries {
            if let Some(o) = entry.adds {
                set.enable(o);
            }
            if let Some(o) = entry.reverts {
                set.disable(o);
            }
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_acts_through_a_contacts_optimization_is_contacts_only() {
        for &o in Optimization::ALL {
            if o.needs().iter().any(|n| n.contacts_only()) {
                assert!(o.contacts_only(), "{o} needs a contacts-only optimization");
            }
        }
    }

    #[test]
    fn interning_is_on_only_at_nine() {
        for n in 0..CATALOG.len() as u32 {
            let set = Optimizations::for_experiment(n).unwrap();
            assert_eq!(
                set.has(Optimization::InternedNames),
                n == 9,
                "experiment {n}"
            );
            assert_eq!(set.has(Optimization::TwoWriters), n >= 5, "experiment {n}");
        }
        assert_eq!(
            Optimizations::for_experiment(0).unwrap(),
            Optimizations::default()
        );
    }

    #[test]
    fn no_catalog_experiment_holds_an_inert_optimization() {
        for n in 0..CATALOG.len() as u32 {
            let set = Optimizations::for_experiment(n).unwrap();
            assert_eq!(set.inert().count(), 0, "experiment {n}");
        }
        let mut alone = Optimizations::default();
        alone.enable(Optimization::DirectDigits);
        assert_eq!(
            alone.inert().collect::<Vec<_>>(),
            [Optimization::DirectDigits]
        );
    }

    #[test]
    fn an_optimization_is_inert_beside_one_it_yields_to_or_without_one_it_needs() {
        let raw = Optimization::RawColumnVectors;
        let mut set = Optimizations::for_experiment(34).unwrap();
        assert!(set.acts(raw));
        set.enable(Optimization::InternedNames);
        assert!(!set.acts(raw));
        assert_eq!(set.inert().collect::<Vec<_>>(), [raw]);
        set.disable(Optimization::InternedNames);
        set.disable(Optimization::DirectDigits);
        assert_eq!(set.inert().collect::<Vec<_>>(), [raw]);
        let mut files = Optimizations::for_experiment(35).unwrap();
        files.enable(Optimization::DirectWrites);
        let preallocation = Optimization::PreallocatedFiles;
        assert_eq!(files.inert().collect::<Vec<_>>(), [preallocation]);
    }

    #[test]
    fn the_set_grows_past_64_optimizations() {
        // The set's width follows the catalog: a 64th or a 200th optimization gets its bit in a
        // further word, without a change here.
        let mut bits = Bits::<4>::EMPTY;
        for index in [0, 63, 64, 127, 200] {
            bits.insert(index);
        }
        let held: Vec<usize> = (0..256).filter(|i| bits.contains(*i)).collect();
        assert_eq!(held, [0, 63, 64, 127, 200]);
        bits.remove(64);
        assert!(!bits.contains(64) && bits.contains(63) && bits.contains(127));
        assert!(WORDS * 64 >= Optimization::ALL.len());
    }

    #[test]
    fn every_optimization_has_its_own_bit() {
        let mut set = Optimizations::default();
        for &o in Optimization::ALL {
            set.enable(o);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), Optimization::ALL);
        for &o in Optimization::ALL {
            set.disable(o);
            assert!(!set.has(o), "{o}");
        }
        assert_eq!(set, Optimizations::default());
    }

    #[test]
    fn experiments_past_the_catalog_are_rejected() {
        let n = CATALOG.len() as u32;
        assert_eq!(
            Optimizations::for_experiment(n),
            Err(CatalogError::UnknownExperiment(n))
        );
    }
}
