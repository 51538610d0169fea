//! The samplers draw the configured distributions: chi-square goodness of fit over 200k draws.

mod common;

use std::collections::HashMap;

use shredlab_generator::rng::row_rng;
use shredlab_generator::vocab::{first_names, last_names};
use shredlab_generator::{
    ContactSampler, PerCallSampler, PhoneShape, PhoneType, PrecomputedSampler, SkewConfig,
};

use common::chi_square;

const DRAWS: u64 = 200_000;

/// Upper 0.1% critical values of chi-square by degrees of freedom (1..=20).
const CRITICAL_0_001: [f64; 20] = [
    10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32, 26.12, 27.88, 29.59, 31.26, 32.91, 34.53,
    36.12, 37.70, 39.25, 40.79, 42.31, 43.82, 45.31,
];

fn assert_fits(what: &str, observed: &[u64], probabilities: &[f64]) {
    let statistic = chi_square(observed, probabilities);
    let critical = CRITICAL_0_001[observed.len() - 2];
    assert!(
        statistic < critical,
        "{what}: chi-square {statistic:.2} >= {critical} (observed {observed:?})"
    );
}

fn normalized(weights: &[u32]) -> Vec<f64> {
    let total: u32 = weights.iter().sum();
    weights
        .iter()
        .map(|&w| f64::from(w) / f64::from(total))
        .collect()
}

fn draw<T>(
    sampler: &dyn ContactSampler,
    mut f: impl FnMut(&dyn ContactSampler, &mut shredlab_generator::rng::RowRng) -> T,
) -> Vec<T> {
    (0..DRAWS)
        .map(|row| f(sampler, &mut row_rng(99, row)))
        .collect()
}

fn histogram<T: std::hash::Hash + Eq>(values: Vec<T>, order: &[T]) -> Vec<u64> {
    let mut counts: HashMap<T, u64> = HashMap::new();
    for value in values {
        *counts.entry(value).or_default() += 1;
    }
    order
        .iter()
        .map(|key| counts.get(key).copied().unwrap_or(0))
        .collect()
}

fn samplers(skew: SkewConfig) -> [Box<dyn ContactSampler>; 2] {
    [
        Box::new(PerCallSampler::try_new(skew.clone()).unwrap()),
        Box::new(PrecomputedSampler::try_new(skew).unwrap()),
    ]
}

#[test]
fn categorical_attributes_follow_their_weights() {
    let skew = SkewConfig::default();
    for sampler in samplers(skew.clone()) {
        let sampler = sampler.as_ref();
        let nulls = histogram(draw(sampler, |s, r| s.name_is_null(r)), &[false, true]);
        assert_fits("name null", &nulls, &[0.8, 0.2]);

        let shapes = histogram(draw(sampler, |s, r| s.phone_shape(r)), &PhoneShape::ALL);
        assert_fits(
            "phone shape",
            &shapes,
            &normalized(&skew.phone_shape_weights),
        );

        let types = histogram(draw(sampler, |s, r| s.phone_type(r)), &PhoneType::ALL);
        assert_fits("phone type", &types, &normalized(&skew.phone_type_weights));

        // 0/1/2 at 40/45/10, and 3, 4, 5 sharing 5 uniformly.
        let counts = histogram(draw(sampler, |s, r| s.phone_count(r)), &[0, 1, 2, 3, 4, 5]);
        let third = 0.05 / 3.0;
        assert_fits(
            "phone count",
            &counts,
            &[0.40, 0.45, 0.10, third, third, third],
        );
    }
}

#[test]
fn names_are_zipfian_by_rank() {
    for exponent in [1.0, 1.5] {
        let skew = SkewConfig {
            name_zipf_exponent: exponent,
            ..SkewConfig::default()
        };
        for (vocabulary, pick) in [
            (
                first_names(),
                (|s, r| s.first_name(r)) as fn(&dyn ContactSampler, &mut _) -> &'static str,
            ),
            (last_names(), |s, r| s.last_name(r)),
        ] {
            let weights: Vec<f64> = (1..=vocabulary.len())
                .map(|k| (k as f64).powf(-exponent))
                .collect();
            let total: f64 = weights.iter().sum();
            // The top 15 ranks one by one, everything after them as one bucket.
            let mut probabilities: Vec<f64> = weights[..15].iter().map(|w| w / total).collect();
            probabilities.push(1.0 - probabilities.iter().sum::<f64>());
            for sampler in samplers(skew.clone()) {
                let mut observed = vec![0u64; 16];
                for name in draw(sampler.as_ref(), pick) {
                    let rank = vocabulary.iter().position(|v| *v == name).unwrap();
                    observed[rank.min(15)] += 1;
                }
                assert_fits(&format!("zipf s={exponent}"), &observed, &probabilities);
            }
        }
    }
}
