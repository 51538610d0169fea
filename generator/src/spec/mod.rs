//! Workloads described in a spec file (issue 17, work in progress): an Arrow schema in the JSON
//! form of Arrow's integration tests, with the generator's parameters as field metadata.
//!
//! [`parse`] turns the text into a validated [`Spec`]; every error names the field's path, e.g.
//! `fields[2].children[0]: zipf_s must be > 0`. Generation is not written yet.

mod generate;
mod parse;

pub use generate::SpecGenerator;
pub use parse::{parse, Distribution, FieldSpec, Params, Spec, SpecError};
