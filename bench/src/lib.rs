//! shredlab's measurement side: everything that turns runs of the pipeline into figures.
//!
//! It reads what the measurement scripts leave behind (hyperfine JSON, `perf stat` CSV,
//! cachegrind summaries) through [`parse`], condenses each experiment into a [`summary`] (with its
//! CPU [`floor`] and heap figures), compares
//! experiments with [`stats`] (and the pipeline's topologies with [`designs`]), and draws every chart in [`charts`] and the results README in
//! [`readme`]. Beside that it measures on its own: the writer benchmark ([`writer_bench`]), the
//! STREAM bandwidth probe ([`stream`]), the multi-process [`scaling`] analysis and model, and
//! the long-run memory table ([`long_run`]), the
//! memory breakdown by setting ([`memory`]), the spec generator's figures ([`spec_bench`]) and
//! arrow-rs's encoding CPU per leaf column and stage ([`leaf_costs`]).
//! Timed rounds carry the host's [`steal`] beside them.
//! Every report's tables are written by [`markdown`]'s one table writer, and every run's
//! figures are kept across commits in [`history`].
//!
//! The pipeline itself lives in `shredlab-experiments`; nothing here is needed to run it.

pub mod ab;
pub mod charts;
pub mod designs;
pub mod floor;
pub mod history;
pub mod index_page;
pub mod leaf_costs;
pub mod long_run;
pub mod markdown;
pub mod memory;
pub mod parse;
pub mod peers;
pub mod profile;
pub mod readme;
pub mod role_counters;
pub mod scaling;
pub mod spec_bench;
pub mod stats;
pub mod steal;
pub mod stream;
pub mod summary;
pub mod targets;
pub mod timeline;
pub mod writer_bench;
