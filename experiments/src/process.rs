//! Resident-memory and CPU-time readings of this process from `/proc` (Linux), for the
//! pipeline's milestones and the benchmarks' peak-memory and CPU figures.

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

/// `USER_HZ`: the unit of `/proc`'s CPU times, 100 on every mainstream Linux ABI.
const TICKS_PER_SECOND: f64 = 100.0;

/// User plus system CPU time of this process so far, every thread included (ended ones too),
/// in seconds at the kernel's `USER_HZ` resolution (10 ms).
pub fn cpu_seconds() -> Option<f64> {
    let stat = fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces: state is
    // field 3 of proc(5), utime 14 and stime 15.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) as f64 / TICKS_PER_SECOND)
}

/// The CPU time a hypervisor has taken from this machine's CPUs since boot, all CPUs together,
/// in seconds (10 ms resolution): time a virtual CPU had work but the host ran something else.
/// `None` without `/proc/stat` or where the kernel does not say (bare metal says 0).
pub fn machine_steal_seconds() -> Option<f64> {
    steal_ticks(&fs::read_to_string("/proc/stat").ok()?).map(|t| t as f64 / TICKS_PER_SECOND)
}

/// The steal column of `/proc/stat`'s first line: `cpu user nice system idle iowait irq
/// softirq steal ...` (proc(5); steal since Linux 2.6.11).
fn steal_ticks(stat: &str) -> Option<u64> {
    let all_cpus = stat.lines().next()?.strip_prefix("cpu ")?;
    all_cpus.split_whitespace().nth(7)?.parse().ok()
}

/// Resets the peak to the current size (Linux >= 4.0: `5` into `/proc/self/clear_refs`).
/// Returns whether the reset took effect.
pub fn reset_peak() -> bool {
    fs::write("/proc/self/clear_refs", "5").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Linux only: elsewhere these readings are `None` by design, and there is nothing to test.
    #[cfg(target_os = "linux")]
    #[test]
    fn peak_follows_a_large_allocation() {
        assert!(reset_peak(), "/proc/self/clear_refs is not writable");
        let before = peak_rss().unwrap();
        let block = std::hint::black_box(vec![1u8; 64 << 20]);
        let after = peak_rss().unwrap();
        assert!(after >= before + (60 << 20), "{before} -> {after}");
        drop(block);
        assert!(current_rss().unwrap() <= after);
    }

    #[test]
    fn steal_is_the_eighth_time_of_the_all_cpus_line() {
        let stat = "cpu  207342 0 14657 166029 712 0 73 288 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        assert_eq!(steal_ticks(stat), Some(288));
        // Kernels before 2.6.11 had no steal column; a per-CPU line first is not the total.
        assert_eq!(steal_ticks("cpu  1 2 3 4 5 6 7\n"), None);
        assert_eq!(steal_ticks("cpu0 1 2 3 4 5 6 7 8\n"), None);
        assert_eq!(steal_ticks(""), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn cpu_time_grows_with_work() {
        let before = cpu_seconds().expect("/proc/self/stat is readable");
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while started.elapsed().as_millis() < 200 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let after = cpu_seconds().unwrap();
        assert!(after - before >= 0.1, "{before} -> {after}");
    }
}
