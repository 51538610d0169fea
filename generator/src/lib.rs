//! Reproducible generator of nested, Zipf-skewed *contact* records as Arrow `RecordBatch`es.
//!
//! A contact is a nullable name and a nullable list of phones, each phone a struct of a nullable
//! unique number and a nullable type (see [`contact_schema`]). The generator knows Arrow but
//! nothing of Parquet or of how batches are written.
//!
//! # Determinism
//! Each row draws from its own random stream seeded by `(seed, row)` (see [`rng`]), and all build
//! paths consume that stream in one canonical order ([`draw_contacts`]). So the data is the same
//! whatever the batch size, thread count or build path.
//!
//! # Build paths
//! - Baseline: [`ContactGenerator::contacts`] makes per-row [`Contact`] values with fresh
//!   strings, and [`contacts_to_batch`] converts them with Arrow's generic builders.
//! - Fast: [`ContactBatchBuilder`] draws straight into column buffers, with the string-building
//!   strategy ([`text`]) and `phone_type` encoding chosen by type parameters.
//! - Raw: [`RawContactBuilder`] draws into plain vectors that become Arrow arrays once per
//!   batch, with no builder call per value.
//!
//! Both fast paths are [`ContactBuilder`]s: keep one per thread, build batch after batch and
//! give each back when written, so its buffers are reused.
//!
//! ```
//! use shredlab_generator::{
//!     contacts_to_batch, ContactBatchBuilder, ContactBuilder, ContactGenerator, PhoneTypeEncoding,
//!     PhoneTypeKeys, PrecomputedSampler, RawContactBuilder, SkewConfig,
//!     text::{DirectDigits, DirectName},
//! };
//!
//! let generator = ContactGenerator::new(42, PrecomputedSampler::try_new(SkewConfig::default())?);
//! let mut builder = ContactBatchBuilder::<PhoneTypeKeys, DirectName, DirectDigits>::default();
//! let fast = builder.build(&generator, 1_000..2_000);
//! let baseline = contacts_to_batch(&generator.contacts(1_000..2_000), PhoneTypeEncoding::Dictionary);
//! assert_eq!(fast, baseline);
//! assert_eq!(RawContactBuilder::default().build(&generator, 1_000..2_000), baseline);
//! # Ok::<(), shredlab_generator::ConfigError>(())
//! ```

mod baseline;
mod batch;
mod config;
mod contact;
mod draw;
mod generator;
mod lookup;
mod ranks;
mod raw;
mod recycle;
pub mod rng;
mod sampler;
mod schema;
pub mod spec;
pub mod text;
pub mod vocab;

pub use baseline::{contacts_to_batch, ContactCollector};
pub use batch::{
    phone_type_dictionary, ContactBatchBuilder, ContactBuilder, PhoneTypeColumn, PhoneTypeKeys,
    PhoneTypeStrings,
};
pub use config::{ConfigError, SkewConfig, MAX_PHONES_LIMIT, PHONE_ID_DIGITS, PHONE_ID_SPACE};
pub use contact::{format_phone_number, Contact, Phone, PhoneShape, PhoneType};
pub use draw::{draw_contacts, ContactSink};
pub use generator::ContactGenerator;
pub use lookup::SmallWeights;
pub use ranks::{BitGuidedIndex, GuideEntry, GuidedIndex, RankTable, ScaledFraction, WordPoint};
pub use raw::RawContactBuilder;
pub use sampler::{ContactSampler, NameTables, PerCallSampler, PrecomputedSampler};
pub use schema::{contact_schema, phone_fields, phone_item_field, PhoneTypeEncoding};
