//! Placing columns on workers: longest-processing-time-first by estimated cost, so one wide
//! column does not leave the other workers idle.

/// The worker of each item: items sorted by cost, each given to the least-loaded worker, where
/// `load` starts as the work still queued on each worker and ends with these items' added.
pub(crate) fn assign_by_cost(costs: &[f64], load: &mut [f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
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

    fn assign(costs: &[f64], workers: usize) -> Vec<usize> {
        assign_by_cost(costs, &mut vec![0.0; workers])
    }

    #[test]
    fn balances_by_cost() {
        // One wide column alone on one worker, the rest together on the other.
        assert_eq!(assign(&[1.0, 10.0, 2.0, 3.0], 2), [1, 0, 1, 1]);
        assert_eq!(assign(&[1.0, 1.0, 1.0, 1.0], 2), [0, 1, 0, 1]);
        assert_eq!(assign(&[5.0], 4), [0]);
        assert_eq!(assign(&[0.0, 0.0, 0.0], 3), [0, 1, 2]);
    }

    #[test]
    fn work_in_flight_steers_the_next_row_group() {
        // The wide column of the next row group goes to the worker the previous one left idle.
        let mut load = vec![0.0; 2];
        assert_eq!(assign_by_cost(&[8.0, 1.0, 1.0], &mut load), [0, 1, 1]);
        assert_eq!(load, [8.0, 2.0]);
        assert_eq!(assign_by_cost(&[8.0, 1.0, 1.0], &mut load), [1, 0, 0]);
        assert_eq!(load, [10.0, 10.0]);
    }
}
