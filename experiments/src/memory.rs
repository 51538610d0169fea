//! Resident-memory readings of this process from `/proc` (Linux), for peak-memory figures.

use std::fs;

/// The kernel's `VmRSS` (current) or `VmHWM` (peak) of this process, in bytes.
fn status_bytes(key: &str) -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Current resident set size, if the platform reports it.
pub fn current_rss() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// Peak resident set size since start or the last [`reset_peak`].
pub fn peak_rss() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// Resets the peak to the current size (Linux >= 4.0: `5` into `/proc/self/clear_refs`).
/// Returns whether the reset took effect.
pub fn reset_peak() -> bool {
    fs::write("/proc/self/clear_refs", "5").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_follows_a_large_allocation() {
        if !reset_peak() {
            return; // not Linux, or /proc unavailable: nothing to measure
        }
        let before = peak_rss().unwrap();
        let block = std::hint::black_box(vec![1u8; 64 << 20]);
        let after = peak_rss().unwrap();
        assert!(after >= before + (60 << 20), "{before} -> {after}");
        drop(block);
        assert!(current_rss().unwrap() <= after);
    }
}
