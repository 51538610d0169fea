//! Samplers turn a row's random stream into contact attributes.
//!
//! Both samplers give identical results for the same random stream: they use the same `rand`
//! distributions and differ only in when those are built. [`PerCallSampler`] builds every
//! distribution object at each draw, as generic data generators do (the baseline);
//! [`PrecomputedSampler`] builds them once.

use std::marker::PhantomData;
use std::sync::Arc;

use rand::distr::weighted::WeightedIndex;
use rand::distr::{Distribution, Uniform};

use crate::config::{ConfigError, SkewConfig};
use crate::contact::{PhoneShape, PhoneType};
use crate::lookup::SmallWeights;
use crate::ranks::RankTable;
use crate::rng::{row_rng, PackedSeeding, RowRng, RowSeeding};
use crate::vocab;

/// Draws each attribute of a contact from a row's random stream.
pub trait ContactSampler: Sync {
    /// The configuration the sampler draws from.
    fn skew(&self) -> &SkewConfig;
    /// The random stream of `row` under `seed`: always [`row_rng`]'s, however it is seeded.
    #[inline]
    fn row_rng(&self, seed: u64, row: u64) -> RowRng {
        row_rng(seed, row)
    }
    /// Whether the contact's name is NULL.
    fn name_is_null(&self, rng: &mut RowRng) -> bool;
    /// A first name, by Zipf rank.
    fn first_name(&self, rng: &mut RowRng) -> &'static str;
    /// A last name, by Zipf rank.
    fn last_name(&self, rng: &mut RowRng) -> &'static str;
    /// The number of phones (0 means a NULL list).
    fn phone_count(&self, rng: &mut RowRng) -> usize;
    /// Which parts of a phone entry are present.
    fn phone_shape(&self, rng: &mut RowRng) -> PhoneShape;
    /// The type of a phone.
    fn phone_type(&self, rng: &mut RowRng) -> PhoneType;
}

/// Zipf-ranked name tables: rank `k` has weight `1 / k^s`. Built once per configuration because
/// they depend only on the fixed vocabularies; `R` is how a rank is found (binary search by
/// default, or a guide table), which never changes the rank drawn.
#[derive(Debug, Clone)]
pub struct NameTables<R = WeightedIndex<f64>> {
    first: R,
    last: R,
}

impl<R: RankTable> NameTables<R> {
    /// Tables for the embedded vocabularies with Zipf exponent `exponent`.
    pub fn new(exponent: f64) -> Result<Self, ConfigError> {
        let table = |len: usize| {
            let weights: Vec<f64> = (1..=len)
                .map(|rank| libm::pow(rank as f64, -exponent))
                .collect();
            R::from_weights(&weights).ok_or(ConfigError::ZipfExponent(exponent))
        };
        Ok(Self {
            first: table(vocab::first_names().len())?,
            last: table(vocab::last_names().len())?,
        })
    }

    #[inline]
    fn first(&self, rng: &mut RowRng) -> &'static str {
        vocab::first_names()[self.first.draw(rng)]
    }

    #[inline]
    fn last(&self, rng: &mut RowRng) -> &'static str {
        vocab::last_names()[self.last.draw(rng)]
    }
}

fn weighted(weights: &[u32]) -> WeightedIndex<u32> {
    WeightedIndex::new(weights).expect("weights were validated by SkewConfig::validate")
}

fn extra_phones(max_phones: u8) -> Uniform<usize> {
    Uniform::new_inclusive(3, usize::from(max_phones))
        .expect("max_phones >= 3 was validated by SkewConfig::validate")
}

/// Builds every distribution at each draw: the baseline's generic sampling.
#[derive(Debug, Clone)]
pub struct PerCallSampler {
    skew: SkewConfig,
    names: Arc<NameTables>,
}

impl PerCallSampler {
    /// A sampler for a validated configuration.
    pub fn try_new(skew: SkewConfig) -> Result<Self, ConfigError> {
        skew.validate()?;
        let names = Arc::new(NameTables::new(skew.name_zipf_exponent)?);
        Ok(Self { skew, names })
    }
}

impl ContactSampler for PerCallSampler {
    fn skew(&self) -> &SkewConfig {
        &self.skew
    }

    fn name_is_null(&self, rng: &mut RowRng) -> bool {
        let null = u32::from(self.skew.null_name_percent);
        weighted(&[100 - null, null]).sample(rng) == 1
    }

    fn first_name(&self, rng: &mut RowRng) -> &'static str {
        self.names.first(rng)
    }

    fn last_name(&self, rng: &mut RowRng) -> &'static str {
        self.names.last(rng)
    }

    fn phone_count(&self, rng: &mut RowRng) -> usize {
        match weighted(&self.skew.phone_count_weights).sample(rng) {
            3 => extra_phones(self.skew.max_phones).sample(rng),
            bucket => bucket,
        }
    }

    fn phone_shape(&self, rng: &mut RowRng) -> PhoneShape {
        PhoneShape::ALL[weighted(&self.skew.phone_shape_weights).sample(rng)]
    }

    fn phone_type(&self, rng: &mut RowRng) -> PhoneType {
        PhoneType::ALL[weighted(&self.skew.phone_type_weights).sample(rng)]
    }
}

/// Builds every distribution once: the lightweight sampling of optimization 06. `R` chooses how
/// name ranks are searched ([`crate::GuidedIndex`] for a guide table), `Seeding` how each
/// row's stream is seeded ([`crate::rng::ScalarSeeding`] to keep it out of vector registers);
/// neither changes what is drawn.
#[derive(Debug, Clone)]
pub struct PrecomputedSampler<R = WeightedIndex<f64>, Seeding = PackedSeeding> {
    seeding: PhantomData<Seeding>,
    skew: SkewConfig,
    names: Arc<NameTables<R>>,
    name_null: SmallWeights,
    phone_count: SmallWeights,
    extra_phones: Uniform<usize>,
    phone_shape: SmallWeights,
    phone_type: SmallWeights,
}

impl PrecomputedSampler {
    /// A sampler for a validated configuration, searching name ranks as `WeightedIndex` does.
    pub fn try_new(skew: SkewConfig) -> Result<Self, ConfigError> {
        Self::try_with_ranks(skew)
    }
}

impl<R: RankTable, Seeding: RowSeeding> PrecomputedSampler<R, Seeding> {
    /// A sampler for a validated configuration, searching name ranks with `R`.
    pub fn try_with_ranks(skew: SkewConfig) -> Result<Self, ConfigError> {
        Self::try_with(skew, SmallWeights::search)
    }

    /// [`PrecomputedSampler::try_with_ranks`], with the NULL, count, shape and type weights
    /// looked up in tables instead of searched ([`SmallWeights::lookup`], identical draws).
    pub fn try_with_lookups(skew: SkewConfig) -> Result<Self, ConfigError> {
        Self::try_with(skew, SmallWeights::lookup)
    }

    fn try_with(
        skew: SkewConfig,
        small: fn(&[u32]) -> Option<SmallWeights>,
    ) -> Result<Self, ConfigError> {
        skew.validate()?;
        let null = u32::from(skew.null_name_percent);
        let table = |weights: &[u32]| {
            small(weights).expect("weights were validated by SkewConfig::validate")
        };
        Ok(Self {
            seeding: PhantomData,
            names: Arc::new(NameTables::new(skew.name_zipf_exponent)?),
            name_null: table(&[100 - null, null]),
            phone_count: table(&skew.phone_count_weights),
            extra_phones: extra_phones(skew.max_phones),
            phone_shape: table(&skew.phone_shape_weights),
            phone_type: table(&skew.phone_type_weights),
            skew,
        })
    }
}

impl<R: RankTable, Seeding: RowSeeding> ContactSampler for PrecomputedSampler<R, Seeding> {
    fn skew(&self) -> &SkewConfig {
        &self.skew
    }

    #[inline]
    fn row_rng(&self, seed: u64, row: u64) -> RowRng {
        Seeding::row_rng(seed, row)
    }

    #[inline]
    fn name_is_null(&self, rng: &mut RowRng) -> bool {
        self.name_null.draw(rng) == 1
    }

    #[inline]
    fn first_name(&self, rng: &mut RowRng) -> &'static str {
        self.names.first(rng)
    }

    #[inline]
    fn last_name(&self, rng: &mut RowRng) -> &'static str {
        self.names.last(rng)
    }

    #[inline]
    fn phone_count(&self, rng: &mut RowRng) -> usize {
        match self.phone_count.draw(rng) {
            3 => self.extra_phones.sample(rng),
            bucket => bucket,
        }
    }

    #[inline]
    fn phone_shape(&self, rng: &mut RowRng) -> PhoneShape {
        PhoneShape::ALL[self.phone_shape.draw(rng)]
    }

    #[inline]
    fn phone_type(&self, rng: &mut RowRng) -> PhoneType {
        PhoneType::ALL[self.phone_type.draw(rng)]
    }
}

impl<S: ContactSampler + Send + ?Sized> ContactSampler for Arc<S> {
    fn skew(&self) -> &SkewConfig {
        (**self).skew()
    }

    #[inline]
    fn row_rng(&self, seed: u64, row: u64) -> RowRng {
        (**self).row_rng(seed, row)
    }

    #[inline]
    fn name_is_null(&self, rng: &mut RowRng) -> bool {
        (**self).name_is_null(rng)
    }

    #[inline]
    fn first_name(&self, rng: &mut RowRng) -> &'static str {
        (**self).first_name(rng)
    }

    #[inline]
    fn last_name(&self, rng: &mut RowRng) -> &'static str {
        (**self).last_name(rng)
    }

    #[inline]
    fn phone_count(&self, rng: &mut RowRng) -> usize {
        (**self).phone_count(rng)
    }

    #[inline]
    fn phone_shape(&self, rng: &mut RowRng) -> PhoneShape {
        (**self).phone_shape(rng)
    }

    #[inline]
    fn phone_type(&self, rng: &mut RowRng) -> PhoneType {
        (**self).phone_type(rng)
    }
}
