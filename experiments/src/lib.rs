//! The shredlab pipeline and its experiment catalog.
//!
//! This crate wires the generator (which knows nothing of writing) to Parquet writers (which know
//! nothing of contacts), under one [`catalog`] entry resolved into a [`config::PipelineConfig`].
//! In the default design, fused workers generate each row group with a batch maker from
//! [`source`] (or [`workload`] for a spec file) and encode it where it was made; the catalog's
//! earlier entries run producer threads that send batches over channels to writer threads
//! ([`pipeline`] runs both). The [`gate`] proves that every experiment wrote the same data.

pub mod alloc;
pub mod batches;
pub mod build_info;
pub mod catalog;
pub mod channel;
pub mod cli;
pub mod column_writing;
pub mod compression;
pub mod config;
pub mod counters;
pub mod encoder;
pub mod error;
pub mod fault;
mod fused;
pub mod gate;
pub mod generation;
mod joined;
pub mod leaf_encoders;
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
