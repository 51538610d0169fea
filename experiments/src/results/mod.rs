//! The measurement harness's analysis side: parse raw tool output (hyperfine, perf stat,
//! cachegrind) into per-experiment summaries, then draw the charts and the results README.

pub mod cachegrind;
pub mod hyperfine;
pub mod perf_stat;
pub mod plots;
pub mod readme;
pub mod stats;
pub mod summary;
pub mod sweeps;
