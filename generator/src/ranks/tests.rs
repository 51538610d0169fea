//! The rank tables against `WeightedIndex<f64>`, against a search per bucket, and against
//! each other.

use rand::Rng;

use super::bits::SETTLED;
use super::*;
use crate::rng::{row_rng, unit_fraction};

#[test]
fn guide_tables_draw_what_weighted_index_draws() {
    for (n, exponent) in [
        (1500, 1.0),
        (2000, 1.0),
        (1000, 0.0),
        (1000, 2.5),
        (3, 1.0),
        (1, 1.0),
    ] {
        let weights: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-exponent)).collect();
        let binary = WeightedIndex::<f64>::from_weights(&weights).unwrap();
        let guided = GuidedIndex::from_weights(&weights).unwrap();
        let bit_guided = BitGuidedIndex::from_weights(&weights).unwrap();
        for row in 0..200_000 {
            let mut rngs = [row_rng(5, row), row_rng(5, row), row_rng(5, row)];
            let expected = binary.draw(&mut rngs[0]);
            assert_eq!(
                guided.draw(&mut rngs[1]),
                expected,
                "n={n} s={exponent} row={row}"
            );
            assert_eq!(
                bit_guided.draw(&mut rngs[2]),
                expected,
                "n={n} s={exponent} row={row}"
            );
            let next = rngs.map(|mut rng| rng.next_u64());
            assert!(next[1] == next[0] && next[2] == next[0], "same words used");
        }
    }
}

/// The index of `chosen` by binary search, as `WeightedIndex` finds it.
fn searched(cumulative: &[f64], chosen: f64) -> u32 {
    cumulative.partition_point(|&c| c <= chosen) as u32
}

#[test]
fn guide_tables_hold_what_a_search_per_bucket_finds() {
    let zipf = |n: u32, exponent: f64| -> Vec<f64> {
        (1..=n).map(|k| f64::from(k).powf(-exponent)).collect()
    };
    // Zero weights repeat a sum, which the sweep must pass over as the search does.
    let weight_sets = [
        zipf(2000, 1.0),
        zipf(1000, 0.0),
        zipf(1000, 2.5),
        zipf(40, 8.0),
        zipf(1, 1.0),
        vec![0.0, 2.0, 0.0, 0.0, 1.0, 0.0],
        vec![0.0, 1.0],
    ];
    for weights in weight_sets {
        let n = weights.len();
        let guided = GuidedIndex::from_weights(&weights).unwrap();
        for (g, &index) in guided.guide.iter().enumerate() {
            let lowest = g as f64 / guided.scale;
            assert_eq!(index, searched(&guided.cumulative, lowest), "n={n} g={g}");
        }
        let bit_guided = BitGuidedIndex::from_weights(&weights).unwrap();
        let shift = bit_guided.shift;
        let index_of = |word: u64| {
            let chosen = bit_guided.point.point(word);
            searched(&bit_guided.cumulative, chosen)
        };
        for (bucket, &entry) in (0u64..).zip(&bit_guided.guide) {
            let lowest = index_of(bucket << shift);
            let highest = index_of(((bucket + 1) << shift).wrapping_sub(1));
            let settled = if lowest == highest { SETTLED } else { 0 };
            assert_eq!(entry, lowest | settled, "n={n} bucket={bucket}");
        }
    }
}

/// The spec generator's tables: read by the draw's bits (compact, built from the weights or
/// from a value-guided table, with 32-bit entries or with 16-bit ones and twice the buckets in
/// the same bytes), they find the index the value-guided table finds for the point
/// `unit_fraction(word) * total`, for random words and for the words at every bucket's edges,
/// where rounding decides.
#[test]
fn compact_bit_guided_tables_find_what_the_point_finds() {
    let weight_sets = [
        (1..=1500).map(|k| 1.0 / f64::from(k)).collect::<Vec<_>>(),
        vec![45.0, 10.0, 1.6666667, 1.6666667, 1.6666667],
        vec![55.0, 35.0, 10.0],
        vec![0.0, 2.0, 0.0, 0.0, 1.0, 0.0],
        vec![1e-300, 1.0, 1e300],
        vec![3.0],
    ];
    for weights in weight_sets {
        let n = weights.len();
        let guided = GuidedIndex::from_weights(&weights).unwrap();
        let compact = BitGuidedIndex::<ScaledFraction>::compact(&weights).unwrap();
        let converted = BitGuidedIndex::<ScaledFraction>::compact_of(&guided).unwrap();
        assert_eq!(compact.guide, converted.guide, "n={n}");
        let narrow = BitGuidedIndex::<ScaledFraction, u16>::narrow_of(&guided).unwrap();
        assert_eq!(narrow.guide.len(), 2 * compact.guide.len(), "n={n}");
        assert!(compact.guide.len() <= n * BUCKETS_PER_INDEX, "n={n}");
        assert!(compact.guide.len() * 2 > n * BUCKETS_PER_INDEX, "n={n}");
        let edges = (0u64..narrow.guide.len() as u64).flat_map(|bucket| {
            let first = bucket << narrow.shift;
            [
                first,
                first.wrapping_sub(1),
                first | 0x7ff,
                first + (1 << 11),
            ]
        });
        let random = (0..100_000).map(|row| row_rng(3, row).next_u64());
        for word in edges.chain(random).chain([0, u64::MAX]) {
            let expected = guided.index_of(unit_fraction(word) * guided.total());
            assert_eq!(
                compact.index_of_word(word),
                expected,
                "n={n} word={word:#x}"
            );
            assert_eq!(narrow.index_of_word(word), expected, "n={n} word={word:#x}");
        }
    }
}

#[test]
fn rejects_unusable_weights() {
    assert!(GuidedIndex::from_weights(&[]).is_none());
    assert!(GuidedIndex::from_weights(&[0.0, 0.0]).is_none());
    assert!(GuidedIndex::from_weights(&[1.0, f64::NAN]).is_none());
    assert!(BitGuidedIndex::from_weights(&[]).is_none());
    assert!(BitGuidedIndex::from_weights(&[0.0, 0.0]).is_none());
    assert!(BitGuidedIndex::from_weights(&[1.0, -1.0]).is_none());
    assert!(BitGuidedIndex::<ScaledFraction>::compact(&[f64::INFINITY]).is_none());
    assert!(BitGuidedIndex::<ScaledFraction>::compact(&[0.0]).is_none());
    // 16-bit entries take fewer than 32,768 indices (their top bit marks settled buckets).
    let fits = GuidedIndex::from_weights(&vec![1.0; (1 << 15) - 1]).unwrap();
    assert!(BitGuidedIndex::<ScaledFraction, u16>::narrow_of(&fits).is_some());
    let beyond = GuidedIndex::from_weights(&vec![1.0; 1 << 15]).unwrap();
    assert!(BitGuidedIndex::<ScaledFraction, u16>::narrow_of(&beyond).is_none());
}

#[test]
fn zero_weights_are_never_drawn() {
    let table = BitGuidedIndex::from_weights(&[0.0, 2.0, 0.0, 0.0, 1.0, 0.0]).unwrap();
    for row in 0..50_000 {
        let index = table.draw(&mut row_rng(9, row));
        assert!(index == 1 || index == 4, "row {row}: {index}");
    }
}
