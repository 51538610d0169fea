//! Workloads described in a spec file: an Arrow schema in the JSON form of Arrow's integration
//! tests, with the generator's parameters as field metadata (every key is documented in
//! `SPEC.md`).
//!
//! [`parse`] turns the text into a [`Spec`], checking its syntax; [`SpecGenerator::new`] checks
//! that each field's parameters fit its type. Every error names the field's path, e.g.
//! `fields[2].children[0]: zipf_s must be > 0`.
//!
//! Generation is row-addressable: every value is a hash of (seed, column, row, item), so the
//! rows are the same for any batch size, thread count or part split.
//!
//! ```
//! use shredlab_generator::spec::{parse, SpecGenerator};
//!
//! let spec = parse(r#"{"fields": [
//!     {"name": "id", "nullable": false, "type": {"name": "int", "bitWidth": 64},
//!      "metadata": {"distribution": "sequential"}},
//!     {"name": "level", "type": {"name": "utf8"},
//!      "metadata": {"distribution": "categorical", "values": ["INFO", "WARN"], "weights": [9, 1]}}
//! ]}"#)?;
//! let generator = SpecGenerator::new(&spec, 42)?;
//! let batch = generator.batch(1_000..2_000)?;
//! assert_eq!(batch.num_rows(), 1_000);
//! # Ok::<(), shredlab_generator::spec::SpecError>(())
//! ```

mod arrays;
mod booleans;
mod bytes;
mod column;
mod digits;
mod domain;
mod draw;
mod error;
mod exact;
mod floats;
mod generate;
mod laid;
mod leaf;
mod maps;
mod memory;
mod normal;
mod numbers;
mod parquet_types;
mod parse;
mod paths;
mod resolved;
mod sources;
mod tree;
mod vocabulary;
mod words;
mod writing;

pub use error::SpecError;
pub use exact::Number;
pub use generate::SpecGenerator;
pub use memory::{MAX_BATCH_BYTES, MAX_VOCABULARY_BYTES};
pub use parquet_types::parquet_type;
pub use parse::{parse, MAX_NESTING, WORD_LISTS};
pub use paths::SpecPaths;
pub use tree::{Distribution, FieldSpec, LeafWriting, Params, Spec};
pub use writing::{ColumnWriting, StatisticsLevel, ValueEncoding, WRITING_KEYS};
