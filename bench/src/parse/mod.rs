//! Parsers of the raw output of the tools the scripts run: hyperfine, `perf stat`, cachegrind.

pub mod cachegrind;
pub mod hyperfine;
pub mod perf_stat;
