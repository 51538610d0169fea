//! The canonical order in which a row's attributes are drawn. Every build path goes through
//! [`draw_contacts`], so all paths consume each row's random stream identically.

use std::ops::Range;

use crate::contact::PhoneType;
use crate::sampler::ContactSampler;

/// Receives a contact's attributes, in row order, as they are drawn.
pub trait ContactSink {
    /// The contact is named `first last`.
    fn name(&mut self, first: &'static str, last: &'static str);
    /// The contact's name is NULL.
    fn null_name(&mut self);
    /// One phone of the current contact: `number_id` is `None` for a NULL number.
    fn phone(&mut self, number_id: Option<u64>, phone_type: Option<PhoneType>);
    /// The current contact's phones are complete; `count == 0` means a NULL list.
    fn end_phones(&mut self, count: usize);
}

/// Draws rows `rows` under `seed` into `sink`. Phone `k` of row `r` gets id `r * max_phones + k`,
/// unique without any shared counter.
#[inline]
pub fn draw_contacts<S, K>(seed: u64, rows: Range<u64>, sampler: &S, sink: &mut K)
where
    S: ContactSampler + ?Sized,
    K: ContactSink + ?Sized,
{
    let stride = u64::from(sampler.skew().max_phones);
    for row in rows {
        let mut rng = sampler.row_rng(seed, row);
        if sampler.name_is_null(&mut rng) {
            sink.null_name();
        } else {
            let first = sampler.first_name(&mut rng);
            let last = sampler.last_name(&mut rng);
            sink.name(first, last);
        }
        let count = sampler.phone_count(&mut rng);
        for k in 0..count {
            let shape = sampler.phone_shape(&mut rng);
            let phone_type = shape.has_type().then(|| sampler.phone_type(&mut rng));
            let number_id = shape.has_number().then_some(row * stride + k as u64);
            sink.phone(number_id, phone_type);
        }
        sink.end_phones(count);
    }
}
