//! valgrind cachegrind's summary (`--cache-sim=yes --branch-sim=yes`): simulated instruction,
//! cache and branch counts, used where the hardware counters are not available.

use serde::{Deserialize, Serialize};

/// The totals cachegrind prints at exit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cachegrind {
    /// Instructions executed (`I refs`).
    pub instructions: u64,
    /// Data reads and writes (`D refs`).
    pub data_refs: u64,
    /// First-level data cache misses (`D1 misses`).
    pub d1_misses: u64,
    /// Last-level misses, instructions and data (`LL misses`).
    pub ll_misses: u64,
    /// Last-level references (`LL refs`).
    pub ll_refs: u64,
    /// Branches, conditional and indirect.
    pub branches: u64,
    /// Mispredicted branches.
    pub mispredicts: u64,
}

fn first_number(text: &str) -> Option<u64> {
    let digits: String = text
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

impl Cachegrind {
    /// Parses the `==PID== key: value` summary lines; `None` when the instruction count is missing.
    pub fn parse(text: &str) -> Option<Self> {
        let mut summary = Self::default();
        let mut found_instructions = false;
        for line in text.lines() {
            let body = line.split_once("== ").map_or(line, |(_, rest)| rest);
            let Some((key, value)) = body.split_once(':') else {
                continue;
            };
            let key: String = key.split_whitespace().collect::<Vec<_>>().join(" ");
            let Some(value) = first_number(value) else {
                continue;
            };
            match key.as_str() {
                "I refs" => {
                    summary.instructions = value;
                    found_instructions = true;
                }
                "D refs" => summary.data_refs = value,
                "D1 misses" => summary.d1_misses = value,
                "LL refs" => summary.ll_refs = value,
                "LL misses" => summary.ll_misses = value,
                "Branches" => summary.branches = value,
                "Mispredicts" => summary.mispredicts = value,
                _ => {}
            }
        }
        found_instructions.then_some(summary)
    }

    /// D1 misses per data reference.
    pub fn d1_miss_rate(&self) -> f64 {
        self.d1_misses as f64 / self.data_refs.max(1) as f64
    }

    /// LL misses per LL reference.
    pub fn ll_miss_rate(&self) -> f64 {
        self.ll_misses as f64 / self.ll_refs.max(1) as f64
    }

    /// Mispredicts per branch.
    pub fn branch_miss_rate(&self) -> f64 {
        self.mispredicts as f64 / self.branches.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_summary() {
        let summary =
            Cachegrind::parse(include_str!("../../tests/fixtures/cachegrind.txt")).unwrap();
        assert_eq!(summary.instructions, 138_030_607);
        assert_eq!(summary.data_refs, 59_153_343);
        assert_eq!(summary.d1_misses, 715_751);
        assert_eq!(summary.ll_refs, 759_395);
        assert_eq!(summary.ll_misses, 91_488);
        assert_eq!(summary.branches, 21_206_447);
        assert_eq!(summary.mispredicts, 915_418);
        assert!((summary.branch_miss_rate() - 915_418.0 / 21_206_447.0).abs() < 1e-12);
    }

    #[test]
    fn other_output_is_not_a_summary() {
        assert_eq!(Cachegrind::parse("error: no such file"), None);
    }
}
