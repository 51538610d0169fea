//! Generation speed of the fast paths, per stage: one row's random stream (seeded as 32 and as
//! 33 seed it), name ranks, and whole batches as experiments 15, 26 and 34 build them (guide-table
//! ranks, names and digits written straight into the column buffers, buffers recycled; 26 with
//! bit-guided ranks and looked-up small weights; 34 with those into raw column vectors). Run
//! with `cargo bench -p shredlab-generator`.
// criterion_group! generates a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::distr::weighted::WeightedIndex;
use rand::Rng;
use shredlab_generator::rng::{row_rng, PackedSeeding, RowSeeding, ScalarSeeding};
use shredlab_generator::text::{DirectDigits, DirectName};
use shredlab_generator::{
    BitGuidedIndex, ContactBatchBuilder, ContactBuilder, ContactGenerator, ContactSampler,
    GuidedIndex, PhoneTypeKeys, PrecomputedSampler, RankTable, RawContactBuilder, SkewConfig,
};

/// The builders experiments 15 to 33 use.
type Builders = ContactBatchBuilder<PhoneTypeKeys, DirectName, DirectDigits>;

const ROWS: u64 = 16_384;

fn row_streams(c: &mut Criterion) {
    let mut group = c.benchmark_group("row_rng");
    group.throughput(Throughput::Elements(ROWS));
    fn first_words<Seeding: RowSeeding>() -> u64 {
        (0..ROWS).fold(0u64, |acc, row| acc ^ Seeding::row_rng(42, row).next_u64())
    }
    group.bench_function("seed", |b| b.iter(first_words::<PackedSeeding>));
    group.bench_function("seed_scalar", |b| b.iter(first_words::<ScalarSeeding>));
    group.finish();
}

fn name_ranks(c: &mut Criterion) {
    let weights: Vec<f64> = (1..=2_000).map(|k| 1.0 / k as f64).collect();
    let mut group = c.benchmark_group("zipf_rank_2000");
    group.throughput(Throughput::Elements(ROWS));
    fn draws<R: RankTable>(table: &R) -> usize {
        (0..ROWS).map(|row| table.draw(&mut row_rng(7, row))).sum()
    }
    let guided = GuidedIndex::from_weights(&weights).expect("valid weights");
    let bit_guided = BitGuidedIndex::from_weights(&weights).expect("valid weights");
    let binary = WeightedIndex::<f64>::from_weights(&weights).expect("valid weights");
    group.bench_function("guided", |b| b.iter(|| draws(black_box(&guided))));
    group.bench_function("bit_guided", |b| b.iter(|| draws(black_box(&bit_guided))));
    group.bench_function("binary_search", |b| b.iter(|| draws(black_box(&binary))));
    group.finish();
}

fn batches(c: &mut Criterion) {
    let skew = SkewConfig::default;
    let mut group = c.benchmark_group("batch");
    group.throughput(Throughput::Elements(ROWS));
    let bit_guided_lookups =
        || PrecomputedSampler::<BitGuidedIndex>::try_with_lookups(skew()).expect("valid skew");
    fast_path(
        &mut group,
        "fast_path_16384_rows",
        PrecomputedSampler::<GuidedIndex>::try_with_ranks(skew()).expect("valid skew"),
        Builders::default(),
    );
    fast_path(
        &mut group,
        "bit_guided_lookups_16384_rows",
        bit_guided_lookups(),
        Builders::default(),
    );
    fast_path(
        &mut group,
        "raw_vectors_16384_rows",
        bit_guided_lookups(),
        RawContactBuilder::default(),
    );
    group.finish();
}

/// Builds and recycles 16,384-row batches drawn with `sampler` into `builder`.
fn fast_path<S: ContactSampler>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    sampler: S,
    mut builder: impl ContactBuilder,
) {
    let generator = ContactGenerator::new(42, sampler);
    let mut start = 0;
    group.bench_function(name, |b| {
        b.iter(|| {
            let batch = builder.build(&generator, start..start + ROWS);
            start += ROWS;
            builder.recycle(batch);
        })
    });
}

criterion_group!(benches, row_streams, name_ranks, batches);
criterion_main!(benches);
