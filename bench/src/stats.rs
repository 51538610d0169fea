//! Statistics for comparing runs: order statistics, the Mann-Whitney U test (independent
//! samples), the Wilcoxon signed-rank test (paired samples), and Holm's correction for testing
//! many comparisons at once.

/// The median of `values` (mean of the middle two for an even count); NaN when empty.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

/// The `q`-quantile (0..=1) by linear interpolation between order statistics.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let position = q.clamp(0.0, 1.0) * (sorted.len().saturating_sub(1)) as f64;
    let (low, high) = (position.floor() as usize, position.ceil() as usize);
    let weight = position - low as f64;
    sorted[low] * (1.0 - weight) + sorted[high] * weight
}

/// Two-sided p-value of the Mann-Whitney U test that `a` and `b` come from the same
/// distribution (normal approximation with tie and continuity corrections). Robust to the
/// outliers a shared machine produces, unlike a t-test.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> Option<f64> {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&v| (v, true))
        .chain(b.iter().map(|&v| (v, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = pooled.len();
    let (mut rank_sum_a, mut tie_term, mut i) = (0.0, 0.0, 0);
    while i < n {
        let mut j = i;
        while j + 1 < n && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        let average_rank = (i + j) as f64 / 2.0 + 1.0;
        let ties = (j - i + 1) as f64;
        tie_term += ties.powi(3) - ties;
        rank_sum_a += pooled[i..=j].iter().filter(|(_, in_a)| *in_a).count() as f64 * average_rank;
        i = j + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let mean = n1 * n2 / 2.0;
    let total = n1 + n2;
    let variance = n1 * n2 / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
    if variance <= 0.0 {
        return Some(1.0);
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    Some(libm::erfc(z / std::f64::consts::SQRT_2).min(1.0))
}

/// Two-sided p-value of the Wilcoxon signed-rank test that paired `differences` are symmetric
/// about zero: for runs timed side by side in rounds, the difference of each round, which
/// cancels the drift a shared machine has from round to round. Zero differences are dropped.
/// Exact (by counting the rank sums of every sign pattern) for up to 60 differences without
/// ties, else the normal approximation with tie and continuity corrections. `None` when no
/// difference is left.
pub fn wilcoxon_signed_rank_p(differences: &[f64]) -> Option<f64> {
    let mut nonzero: Vec<f64> = differences.iter().copied().filter(|d| *d != 0.0).collect();
    if nonzero.is_empty() {
        return None;
    }
    nonzero.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let n = nonzero.len();
    let (mut positive_rank_sum, mut tie_term, mut tied, mut i) = (0.0, 0.0, false, 0);
    while i < n {
        let mut j = i;
        while j + 1 < n && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        let average_rank = (i + j) as f64 / 2.0 + 1.0;
        let ties = (j - i + 1) as f64;
        tied |= ties > 1.0;
        tie_term += ties.powi(3) - ties;
        positive_rank_sum +=
            nonzero[i..=j].iter().filter(|d| **d > 0.0).count() as f64 * average_rank;
        i = j + 1;
    }
    let total = (n * (n + 1) / 2) as f64;
    let smaller = positive_rank_sum.min(total - positive_rank_sum);
    if !tied && n <= 60 {
        return Some((2.0 * exact_lower_tail(n, smaller as usize)).min(1.0));
    }
    let nf = n as f64;
    let mean = total / 2.0;
    let variance = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
    if variance <= 0.0 {
        return Some(1.0);
    }
    let z = ((mean - smaller) - 0.5).max(0.0) / variance.sqrt();
    Some(libm::erfc(z / std::f64::consts::SQRT_2).min(1.0))
}

/// P(W <= w) for the signed-rank statistic W of `n` untied differences under the null
/// hypothesis: the share of the 2^n sign patterns whose positive ranks sum to at most `w`.
fn exact_lower_tail(n: usize, w: usize) -> f64 {
    // ways[s]: sign patterns of the ranks so far whose positive ranks sum to s.
    let mut ways = vec![0.0f64; n * (n + 1) / 2 + 1];
    ways[0] = 1.0;
    for rank in 1..=n {
        for s in (rank..ways.len()).rev() {
            ways[s] += ways[s - rank];
        }
    }
    ways[..=w].iter().sum::<f64>() / 2f64.powi(n as i32)
}

/// Holm's step-down adjustment of `p_values`, in their order: with m comparisons, the k-th
/// smallest p is multiplied by m - k + 1, the results made non-decreasing and capped at 1.
/// Comparing each adjusted p with alpha keeps the chance of any false "significant" at most
/// alpha across all m comparisons (the family-wise error rate).
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running_max = 0.0f64;
    for (rank, &index) in order.iter().enumerate() {
        running_max = running_max.max(((m - rank) as f64 * p_values[index]).min(1.0));
        adjusted[index] = running_max;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_statistics() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), 2.0);
        assert_eq!(quantile(&[1.0, 2.0], 0.5), 1.5);
    }

    #[test]
    fn wilcoxon_matches_hand_computed_values() {
        // All 5 differences positive: W- = 0, P = 2 / 2^5.
        assert_eq!(
            wilcoxon_signed_rank_p(&[1.0, 2.0, 3.0, 4.0, 5.0]),
            Some(0.0625)
        );
        // Ranks 1..=4 with rank 1 negative: W- = 1; P(W <= 1) = 2 / 16, two-sided 0.25.
        assert_eq!(wilcoxon_signed_rank_p(&[-0.1, 0.2, 0.3, 0.4]), Some(0.25));
        // Positive ranks 2 and 4: W- = 4, and 7 of the 16 sign patterns have W <= 4.
        assert_eq!(wilcoxon_signed_rank_p(&[-1.0, 1.5, -2.0, 2.5]), Some(0.875));
        assert_eq!(wilcoxon_signed_rank_p(&[0.0, 0.0]), None);
        // Twenty rounds that all favour one side are significant; ties take the approximation.
        let one_sided: Vec<f64> = (1..=20).map(f64::from).collect();
        assert!(wilcoxon_signed_rank_p(&one_sided).unwrap() < 1e-5);
        let tied = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let p = wilcoxon_signed_rank_p(&tied).unwrap();
        assert!((0.005..0.02).contains(&p), "{p}");
    }

    #[test]
    fn holm_matches_the_textbook_example() {
        // p = 0.01, 0.04, 0.03, 0.005 (m = 4): sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1
        // = 0.02, 0.03, 0.06, 0.04 -> monotone 0.02, 0.03, 0.06, 0.06.
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        let expected = [0.03, 0.06, 0.06, 0.02];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-12, "{adjusted:?}");
        }
        assert_eq!(holm(&[0.5, 0.9]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn mann_whitney_matches_hand_computed_values() {
        // Fully separated samples of 10: U = 0, z = (50 - 0.5) / sqrt(175) = 3.7418,
        // p = erfc(3.7418 / sqrt 2) = 0.000183.
        let fast: Vec<f64> = (0..10).map(|i| 1.0 + i as f64 * 0.01).collect();
        let slow: Vec<f64> = (0..10).map(|i| 2.0 + i as f64 * 0.01).collect();
        let p = mann_whitney_p(&fast, &slow).unwrap();
        assert!((p - 0.000183).abs() < 0.00001, "{p}");
        // Identical samples: no evidence of a difference.
        assert!(mann_whitney_p(&fast, &fast).unwrap() > 0.9);
        // Interleaved samples are not significant.
        let odd: Vec<f64> = (0..10).map(|i| (2 * i + 1) as f64).collect();
        let even: Vec<f64> = (0..10).map(|i| (2 * i) as f64).collect();
        assert!(mann_whitney_p(&odd, &even).unwrap() > 0.5);
        assert_eq!(mann_whitney_p(&[], &fast), None);
    }
}
