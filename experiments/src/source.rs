//! Producer-side wiring: the catalog's optimizations resolved, once per producer thread, into a
//! monomorphized batch maker. Nothing is decided per row.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use shredlab_generator::rng::{RowSeeding, ScalarSeeding};
use shredlab_generator::text::{
    DirectDigits, DirectName, FreshName, FreshNumber, InternedName, NameInterner, NameText,
    NumberText, ReusedNameBuffer, ReusedNumberBuffer,
};
use shredlab_generator::{
    contact_schema, contacts_to_batch, BitGuidedIndex, ConfigError, ContactBatchBuilder,
    ContactBuilder, ContactGenerator, ContactSampler, GuidedIndex, PerCallSampler, PhoneTypeColumn,
    PhoneTypeEncoding, PhoneTypeKeys, PhoneTypeStrings, PrecomputedSampler, RankTable,
    RawContactBuilder, SkewConfig,
};

use crate::catalog::Optimization;
use crate::optimizations::Optimizations;

/// Makes the batches of one producer thread.
pub trait BatchMaker: Send {
    /// The batch of rows `rows`.
    fn make(&mut self, rows: Range<u64>) -> RecordBatch;
    /// Takes back a batch this maker made, to reuse its buffers (a no-op by default).
    fn recycle(&mut self, _batch: RecordBatch) {}
}

/// What all producers share: the schema, and a maker for each producer thread.
pub trait BatchSource: Sync {
    /// The schema of every batch.
    fn schema(&self) -> SchemaRef;
    /// A maker for one producer thread.
    fn maker(&self) -> Box<dyn BatchMaker + '_>;
}

/// Contact batches built the way a set of optimizations says.
#[derive(Debug)]
pub struct ContactSource {
    seed: u64,
    skew: SkewConfig,
    optimizations: Optimizations,
    sampler: SharedSampler,
    interner: Arc<NameInterner>,
}

/// The one sampler the optimizations select, built once (which also validates the skew, so a
/// bad configuration fails here rather than in a producer) and shared by producers unless each
/// builds a copy of its own ([`Optimization::ThreadLocalBuilders`]; the shared one then only
/// validates). Only this kind of sampler is built: the name tables of the others would cost
/// startup time that no row uses.
#[derive(Debug)]
enum SharedSampler {
    PerCall(Arc<PerCallSampler>),
    Searched(Arc<PrecomputedSampler>),
    Guided(Arc<PrecomputedSampler<GuidedIndex>>),
    BitGuided(Arc<PrecomputedSampler<BitGuidedIndex>>),
    BitGuidedScalarSeeded(Arc<PrecomputedSampler<BitGuidedIndex, ScalarSeeding>>),
}

impl SharedSampler {
    fn try_new(skew: &SkewConfig, optimizations: Optimizations) -> Result<Self, ConfigError> {
        let precomputed = optimizations.has(Optimization::PrecomputedSampling);
        let lookups = optimizations.has(Optimization::LookedUpSmallWeights);
        let bit_guided = precomputed && optimizations.has(Optimization::BitGuidedRanks);
        let skew = skew.clone();
        Ok(
            if bit_guided && optimizations.has(Optimization::ScalarRowSeeds) {
                Self::BitGuidedScalarSeeded(Arc::new(precomputed_sampler(skew, lookups)?))
            } else if bit_guided {
                Self::BitGuided(Arc::new(precomputed_sampler(skew, lookups)?))
            } else if precomputed && optimizations.has(Optimization::GuidedNameRanks) {
                Self::Guided(Arc::new(precomputed_sampler(skew, lookups)?))
            } else if precomputed {
                Self::Searched(Arc::new(precomputed_sampler(skew, lookups)?))
            } else {
                Self::PerCall(Arc::new(PerCallSampler::try_new(skew)?))
            },
        )
    }
}

impl ContactSource {
    /// A source for `seed` and `skew` (validated here) under `optimizations`.
    pub fn try_new(
        seed: u64,
        skew: SkewConfig,
        optimizations: Optimizations,
    ) -> Result<Self, ConfigError> {
        Ok(Self {
            sampler: SharedSampler::try_new(&skew, optimizations)?,
            interner: Arc::default(),
            seed,
            skew,
            optimizations,
        })
    }

    fn on(&self, o: Optimization) -> bool {
        self.optimizations.has(o)
    }

    /// A precomputed sampler of this source's skew, searching name ranks with `R` and seeding
    /// rows with `Seeding`.
    fn precomputed<R: RankTable, Seeding: RowSeeding>(&self) -> PrecomputedSampler<R, Seeding> {
        precomputed_sampler(
            self.skew.clone(),
            self.on(Optimization::LookedUpSmallWeights),
        )
        .expect("skew validated by ContactSource")
    }

    fn encoding(&self) -> PhoneTypeEncoding {
        if self.on(Optimization::DictionaryPhoneType) {
            PhoneTypeEncoding::Dictionary
        } else {
            PhoneTypeEncoding::Utf8
        }
    }

    /// The shared sampler, or with thread-local state a private copy for this producer.
    fn producer_sampler<S>(&self, shared: &Arc<S>, build: impl FnOnce() -> S) -> Arc<S> {
        if self.on(Optimization::ThreadLocalBuilders) {
            Arc::new(build())
        } else {
            Arc::clone(shared)
        }
    }

    fn with_sampler<'a, S: ContactSampler + Send + 'static>(
        &'a self,
        sampler: Arc<S>,
    ) -> Box<dyn BatchMaker + 'a> {
        let generator = ContactGenerator::new(self.seed, sampler);
        if !self.on(Optimization::NoRowStructs) {
            return Box::new(RowStructMaker {
                generator,
                encoding: self.encoding(),
            });
        }
        match self.encoding() {
            PhoneTypeEncoding::Dictionary
                if self.optimizations.acts(Optimization::RawColumnVectors) =>
            {
                self.with_builder(generator, RawContactBuilder::default)
            }
            PhoneTypeEncoding::Dictionary => self.with_types::<_, PhoneTypeKeys>(generator),
            PhoneTypeEncoding::Utf8 => self.with_types::<_, PhoneTypeStrings>(generator),
        }
    }

    /// A maker whose builders come from `new_builder`: one kept for the producer's life with
    /// thread-local builders, a new one per batch without.
    fn with_builder<'a, S, B>(
        &'a self,
        generator: ContactGenerator<Arc<S>>,
        new_builder: impl Fn() -> B + Send + 'a,
    ) -> Box<dyn BatchMaker + 'a>
    where
        S: ContactSampler + Send + 'static,
        B: ContactBuilder + Send + 'a,
    {
        Box::new(BuilderMaker {
            generator,
            builder: new_builder(),
            new_builder,
            persistent: self.on(Optimization::ThreadLocalBuilders),
        })
    }

    fn with_types<'a, S, T>(
        &'a self,
        generator: ContactGenerator<Arc<S>>,
    ) -> Box<dyn BatchMaker + 'a>
    where
        S: ContactSampler + Send + 'static,
        T: PhoneTypeColumn + 'static,
    {
        if self.on(Optimization::InternedNames) {
            self.with_names::<_, T, _>(generator, InternedName::new(Arc::clone(&self.interner)))
        } else if self.on(Optimization::DirectNames) {
            self.with_names::<_, T, _>(generator, DirectName)
        } else if self.on(Optimization::ReuseNameBuffer) {
            self.with_names::<_, T, _>(generator, ReusedNameBuffer::default())
        } else {
            self.with_names::<_, T, _>(generator, FreshName)
        }
    }

    fn with_names<'a, S, T, Nm>(
        &'a self,
        generator: ContactGenerator<Arc<S>>,
        names: Nm,
    ) -> Box<dyn BatchMaker + 'a>
    where
        S: ContactSampler + Send + 'static,
        T: PhoneTypeColumn + 'static,
        Nm: NameText + Clone + 'static,
    {
        if self.on(Optimization::DirectDigits) {
            self.with_texts::<_, T, _, _>(generator, names, DirectDigits)
        } else if self.on(Optimization::ReuseNumberBuffer) {
            self.with_texts::<_, T, _, _>(generator, names, ReusedNumberBuffer::default())
        } else {
            self.with_texts::<_, T, _, _>(generator, names, FreshNumber)
        }
    }

    fn with_texts<'a, S, T, Nm, Nu>(
        &'a self,
        generator: ContactGenerator<Arc<S>>,
        names: Nm,
        numbers: Nu,
    ) -> Box<dyn BatchMaker + 'a>
    where
        S: ContactSampler + Send + 'static,
        T: PhoneTypeColumn + 'static,
        Nm: NameText + Clone + 'static,
        Nu: NumberText + Clone + 'static,
    {
        self.with_builder(generator, move || {
            ContactBatchBuilder::<T, _, _>::new(names.clone(), numbers.clone())
        })
    }
}

impl BatchSource for ContactSource {
    fn schema(&self) -> SchemaRef {
        contact_schema(self.encoding())
    }

    fn maker(&self) -> Box<dyn BatchMaker + '_> {
        match &self.sampler {
            SharedSampler::BitGuidedScalarSeeded(shared) => {
                self.with_sampler(self.producer_sampler(shared, || self.precomputed()))
            }
            SharedSampler::BitGuided(shared) => {
                self.with_sampler(self.producer_sampler(shared, || self.precomputed()))
            }
            SharedSampler::Guided(shared) => {
                self.with_sampler(self.producer_sampler(shared, || self.precomputed()))
            }
            SharedSampler::Searched(shared) => {
                self.with_sampler(self.producer_sampler(shared, || self.precomputed()))
            }
            SharedSampler::PerCall(shared) => {
                let skew = self.skew.clone();
                self.with_sampler(self.producer_sampler(shared, || {
                    PerCallSampler::try_new(skew).expect("skew validated by ContactSource")
                }))
            }
        }
    }
}

/// A precomputed sampler searching name ranks with `R` and seeding rows with `Seeding`, its
/// small weights looked up in tables when `lookups` is on.
fn precomputed_sampler<R: RankTable, Seeding: RowSeeding>(
    skew: SkewConfig,
    lookups: bool,
) -> Result<PrecomputedSampler<R, Seeding>, ConfigError> {
    if lookups {
        PrecomputedSampler::try_with_lookups(skew)
    } else {
        PrecomputedSampler::try_with_ranks(skew)
    }
}

/// The baseline assembly: per-row structs, then Arrow's generic builders.
struct RowStructMaker<S> {
    generator: ContactGenerator<Arc<S>>,
    encoding: PhoneTypeEncoding,
}

impl<S: ContactSampler + Send> BatchMaker for RowStructMaker<S> {
    fn make(&mut self, rows: Range<u64>) -> RecordBatch {
        contacts_to_batch(&self.generator.contacts(rows), self.encoding)
    }
}

/// Rows drawn straight into column buffers by a [`ContactBuilder`]. Without persistence a new
/// builder (schema, text buffers) is made for every batch, as code that builds per call does.
struct BuilderMaker<S, B, F> {
    generator: ContactGenerator<Arc<S>>,
    builder: B,
    new_builder: F,
    persistent: bool,
}

impl<S, B, F> BatchMaker for BuilderMaker<S, B, F>
where
    S: ContactSampler + Send,
    B: ContactBuilder + Send,
    F: Fn() -> B + Send,
{
    fn make(&mut self, rows: Range<u64>) -> RecordBatch {
        if !self.persistent {
            self.builder = (self.new_builder)();
        }
        self.builder.build(&self.generator, rows)
    }

    fn recycle(&mut self, batch: RecordBatch) {
        if self.persistent {
            self.builder.recycle(batch);
        }
    }
}
