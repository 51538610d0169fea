//! The shredlab pipeline and its experiment catalog.
//!
//! This crate wires the generator (which knows nothing of writing) to Parquet writers (which know
//! nothing of contacts): producer threads build batches with [`source::ContactSource`], the
//! [`pipeline`] carries them over channels to writer threads, and the [`gate`] proves that every
//! experiment wrote the same data.

pub mod alloc;
pub mod batches;
pub mod build_info;
pub mod catalog;
pub mod channel;
pub mod cli;
pub mod compression;
pub mod config;
pub mod counters;
pub mod encoder;
pub mod error;
pub mod fault;
mod fused;
pub mod gate;
mod joined;
pub mod listing;
pub mod milestones;
pub mod optimizations;
pub mod output;
pub mod pipeline;
pub mod prebuilt;
pub mod process;
pub mod properties;
pub mod reorder;
pub mod report;
pub mod run;
pub mod shard;
pub mod signals;
pub mod source;
pub mod usage;
pub mod workload;
