//! The Rust side of `make peers`: the contacts handed to every writer as one Arrow IPC file,
//! the two Rust writers timed over it ([`timed_write`]), and the layout of any writer's Parquet
//! file as its readers will meet it ([`layout`]). The Python peers, the read-back digests and the
//! scans live in `scripts/peers/`. `results peers` turns the raw files ([`records`]) into
//! medians and p-values ([`analysis`]), the README ([`readme`], its read side's tables in
//! `read_tables.rs`) and the charts ([`crate::charts::peers`]).

pub mod analysis;
#[cfg(test)]
mod fixture;
pub mod ipc;
pub mod layout;
mod read_tables;
pub mod readme;
pub mod records;
pub mod timed_write;
