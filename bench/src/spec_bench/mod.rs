//! The spec generator measured (`make spec-bench`): how close the contacts preset's data is to
//! the hand-written generator's ([`closeness`]), what generating it through a spec costs, and
//! the lineitem preset beside `tpchgen-cli` ([`readme`]).

pub mod closeness;
mod paired;
pub mod readme;
