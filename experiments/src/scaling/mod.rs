//! Multi-process memory-bandwidth scaling: the STREAM probe, the bandwidth-ceiling model, and the
//! report and charts of `make scaling`.

pub mod model;
pub mod plots;
pub mod report;
pub mod stream;
