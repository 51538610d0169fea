//! Shared by the generator's distribution tests.

/// Pearson's chi-square statistic of observed counts against expected probabilities.
pub fn chi_square(observed: &[u64], probabilities: &[f64]) -> f64 {
    let total: u64 = observed.iter().sum();
    observed
        .iter()
        .zip(probabilities)
        .map(|(&seen, &p)| {
            let expected = p * total as f64;
            (seen as f64 - expected).powi(2) / expected
        })
        .sum()
}
