//! Placing leaf columns on workers: longest-processing-time-first by estimated cost, so one wide
//! column does not leave the other workers idle.

/// The worker of each leaf: leaves sorted by cost, each given to the least-loaded worker.
pub(crate) fn assign_leaves(costs: &[f64], workers: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0.0f64; workers.max(1)];
    let mut placement = vec![0; costs.len()];
    for leaf in order {
        let (worker, _) = load
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .expect("at least one worker");
        placement[leaf] = worker;
        load[worker] += costs[leaf].max(f64::MIN_POSITIVE);
    }
    placement
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balances_by_cost() {
        // One wide column alone on one worker, the rest together on the other.
        assert_eq!(assign_leaves(&[1.0, 10.0, 2.0, 3.0], 2), [1, 0, 1, 1]);
        assert_eq!(assign_leaves(&[1.0, 1.0, 1.0, 1.0], 2), [0, 1, 0, 1]);
        assert_eq!(assign_leaves(&[5.0], 4), [0]);
        assert_eq!(assign_leaves(&[0.0, 0.0, 0.0], 3), [0, 1, 2]);
    }
}
