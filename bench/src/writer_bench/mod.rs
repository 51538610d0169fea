//! `writer-bench`: `ParallelArrowWriter` against parquet's `ArrowWriter` over parquet-ext's
//! matrix (rows x columns x shape x compression) plus the generator's contacts.

pub mod cells;
pub mod data;
pub mod isolate;
pub mod measure;
pub mod plan;

pub use data::{spec_table, table, Shape};
pub use measure::{compare, write_all, Contender, WriterStats};
