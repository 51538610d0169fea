//! [`ContactGenerator`]: a seed plus a sampler, addressable by row.

use std::ops::Range;

use crate::baseline::ContactCollector;
use crate::contact::Contact;
use crate::draw::{draw_contacts, ContactSink};
use crate::sampler::ContactSampler;

/// Generates any range of contact rows; row `r`'s content depends only on the seed, `r` and the
/// sampler's skew configuration.
#[derive(Debug, Clone)]
pub struct ContactGenerator<S: ?Sized> {
    seed: u64,
    sampler: S,
}

impl<S: ContactSampler> ContactGenerator<S> {
    /// A generator drawing with `sampler` under `seed`.
    pub fn new(seed: u64, sampler: S) -> Self {
        Self { seed, sampler }
    }
}

impl<S: ContactSampler + ?Sized> ContactGenerator<S> {
    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The sampler.
    pub fn sampler(&self) -> &S {
        &self.sampler
    }

    /// Draws `rows` into any sink.
    pub fn draw_into<K: ContactSink + ?Sized>(&self, rows: Range<u64>, sink: &mut K) {
        draw_contacts(self.seed, rows, &self.sampler, sink);
    }

    /// Rows `rows` as per-row values (the baseline path).
    pub fn contacts(&self, rows: Range<u64>) -> Vec<Contact> {
        let mut collector = ContactCollector::default();
        self.draw_into(rows, &mut collector);
        collector.take()
    }
}
