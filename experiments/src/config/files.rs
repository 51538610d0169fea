//! How a run's output files are written to disk, chosen from the catalog: early writeback (20),
//! preallocation (35), direct writes (31).

use shredlab_writer::FileOptions;

use crate::catalog::{newest_experiment, Optimization};
use crate::optimizations::Optimizations;

/// Bytes between early-writeback requests of a file (experiment 20 on): the kernel starts
/// writing each 8 MiB to disk while the next is produced, so the final sync waits only for the
/// tail.
pub const WRITEBACK_STEP: u64 = 8 << 20;

/// Bytes of disk blocks each output file reserves ahead of its writes (experiment 35 on): a
/// reservation every 64 MiB is 5 `fallocate` calls for a 10 M-row file, and holds at most
/// 64 MiB per file beyond what is written until the commit gives it back.
pub const PREALLOCATION_STEP: u64 = 64 << 20;

/// Bytes of each of a file's two direct-write buffers (experiment 31 on): large enough that
/// the disk takes each in one request, small enough that two per file stay well inside the
/// memory target.
pub const DIRECT_WRITE_BUFFER_BYTES: usize = 4 << 20;

/// The file options that `optimizations` switch on; one that is inert (preallocation beside
/// direct writes) is left out.
pub fn file_options(optimizations: Optimizations) -> FileOptions {
    FileOptions {
        writeback_step: optimizations
            .has(Optimization::EarlyWriteback)
            .then_some(WRITEBACK_STEP),
        preallocation_step: optimizations
            .acts(Optimization::PreallocatedFiles)
            .then_some(PREALLOCATION_STEP),
        direct_write_buffer: optimizations
            .has(Optimization::DirectWrites)
            .then_some(DIRECT_WRITE_BUFFER_BYTES),
    }
}

/// The file options of the catalog's newest entry: what `write_parquet` and the peers' timed
/// Rust writes use.
pub fn newest_file_options() -> FileOptions {
    let newest = Optimizations::for_experiment(newest_experiment())
        .expect("the newest experiment is in the catalog");
    file_options(newest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_option_follows_its_entry() {
        let at = |n| file_options(Optimizations::for_experiment(n).unwrap());
        assert_eq!(at(19), FileOptions::default());
        assert_eq!(at(20).writeback_step, Some(WRITEBACK_STEP));
        assert_eq!(at(31).direct_write_buffer, Some(DIRECT_WRITE_BUFFER_BYTES));
        assert_eq!(at(32).direct_write_buffer, None);
        assert_eq!(at(35).preallocation_step, Some(PREALLOCATION_STEP));
        let mut direct = Optimizations::for_experiment(35).unwrap();
        direct.enable(Optimization::DirectWrites);
        assert_eq!(file_options(direct).preallocation_step, None);
    }
}
