//! The Rust side of `make peers`: the contacts handed to every writer as one Arrow IPC file,
//! the two Rust writers timed over it ([`timed_write`]), and the layout of any writer's Parquet
//! file as its readers will meet it ([`layout`]). The Python peers, the read-back digests and the
//! scans live in `scripts/peers/`; the report is drawn by [`report`] (`results peers`).

pub mod ipc;
pub mod layout;
pub mod report;
pub mod timed_write;
