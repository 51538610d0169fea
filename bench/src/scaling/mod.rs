//! Multi-process memory-bandwidth scaling: the analysis of a `make scaling` run and the
//! bandwidth-ceiling model that carries it to bigger machines. The charts are in
//! [`crate::charts::scaling`], the bandwidth probe in [`crate::stream`].

pub mod analysis;
pub mod model;
