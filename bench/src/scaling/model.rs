//! A bandwidth-ceiling (roofline) model that carries measured per-core throughput to machines we
//! do not have.
//!
//! Assumptions, stated so they can be checked:
//! 1. Each process runs at the per-core rate measured here until memory bandwidth runs out
//!    (same core speed; no shared-cache contention other than bandwidth).
//! 2. Every row moves a fixed number of bytes to and from DRAM (`bytes_per_row`).
//! 3. The attainable bandwidth is the STREAM figure (measured), or a stated fraction of the
//!    theoretical peak where only that is known.
//!
//! Throughput with `p` processes is then `min(p * rate, bandwidth / bytes_per_row)`, and memory
//! bandwidth saturates at `p* = bandwidth / (bytes_per_row * rate)` processes.

use serde::Serialize;

/// A machine to predict for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Machine {
    /// A short name.
    pub name: String,
    /// Cores (one process per core).
    pub cores: u32,
    /// Attainable memory bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Where the bandwidth figure comes from.
    pub source: String,
}

/// The measured inputs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Inputs {
    /// Rows per second of one single-core process.
    pub rate_per_process: f64,
    /// Bytes each row moves to or from memory.
    pub bytes_per_row: f64,
}

/// The prediction for one process count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    /// Processes.
    pub procs: u32,
    /// Predicted aggregate rows/s.
    pub rows_per_s: f64,
    /// Predicted memory bandwidth in use, bytes/s.
    pub bandwidth: f64,
    /// Whether bandwidth, not the cores, limits this point.
    pub bandwidth_bound: bool,
}

impl Inputs {
    /// Predicted throughput with `procs` processes on `machine`.
    pub fn predict(&self, machine: &Machine, procs: u32) -> Point {
        let compute = f64::from(procs) * self.rate_per_process;
        let ceiling = machine.bandwidth / self.bytes_per_row;
        let rows_per_s = compute.min(ceiling);
        Point {
            procs,
            rows_per_s,
            bandwidth: rows_per_s * self.bytes_per_row,
            bandwidth_bound: ceiling < compute,
        }
    }

    /// Processes at which memory bandwidth saturates (may exceed the machine's cores).
    pub fn saturation(&self, machine: &Machine) -> f64 {
        machine.bandwidth / (self.bytes_per_row * self.rate_per_process)
    }

    /// Predictions for 1..=cores processes.
    pub fn curve(&self, machine: &Machine) -> Vec<Point> {
        (1..=machine.cores)
            .map(|p| self.predict(machine, p))
            .collect()
    }
}

impl Machine {
    /// A machine with `channels` DDR memory channels at `mega_transfers` MT/s, at its theoretical
    /// peak: each channel moves 8 bytes (64 bits) per transfer. Real code attains less (STREAM
    /// typically reaches well under the peak), so predictions for it are upper bounds.
    pub fn theoretical(name: &str, cores: u32, channels: u32, mega_transfers: u32) -> Self {
        let bandwidth = f64::from(channels) * f64::from(mega_transfers) * 1e6 * 8.0;
        Self {
            name: name.to_string(),
            cores,
            bandwidth,
            source: format!(
                "theoretical peak, an upper bound: {channels} channels x {mega_transfers} MT/s x 8 bytes = {:.1} GB/s",
                bandwidth / 1e9
            ),
        }
    }
}

/// The reference machines of the scaling README, besides the one measured here. Their bandwidth
/// is the theoretical peak of their memory configuration (no measurement of ours exists for
/// them), so their predicted ceilings are upper bounds.
pub fn reference_machines() -> Vec<Machine> {
    vec![
        Machine::theoretical("16-core desktop, 2 x DDR5-5600", 16, 2, 5600),
        Machine::theoretical("64-core workstation, 4 x DDR5-5200", 64, 4, 5200),
        Machine::theoretical("128-core server, 12 x DDR5-4800", 128, 12, 4800),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(cores: u32, bandwidth: f64) -> Machine {
        Machine {
            name: "m".into(),
            cores,
            bandwidth,
            source: "test".into(),
        }
    }

    #[test]
    fn compute_bound_until_the_ceiling() {
        // 5 M rows/s per process, 100 bytes/row: each process needs 0.5 GB/s.
        let inputs = Inputs {
            rate_per_process: 5e6,
            bytes_per_row: 100.0,
        };
        let m = machine(64, 10e9);
        // Saturation at 10 GB/s / 0.5 GB/s = 20 processes.
        assert!((inputs.saturation(&m) - 20.0).abs() < 1e-9);
        let p10 = inputs.predict(&m, 10);
        assert_eq!((p10.rows_per_s, p10.bandwidth_bound), (50e6, false));
        assert!((p10.bandwidth - 5e9).abs() < 1.0);
        let p40 = inputs.predict(&m, 40);
        assert_eq!((p40.rows_per_s, p40.bandwidth_bound), (100e6, true));
        assert_eq!(inputs.curve(&m).len(), 64);
    }

    #[test]
    fn theoretical_bandwidth_is_channels_times_rate_times_eight_bytes() {
        // DDR5-4800 moves 4.8e9 transfers of 8 bytes per second per channel: 38.4 GB/s.
        let one = Machine::theoretical("one channel", 1, 1, 4800);
        assert!((one.bandwidth - 38.4e9).abs() < 1.0);
        let twelve = Machine::theoretical("server", 128, 12, 4800);
        assert!((twelve.bandwidth - 12.0 * one.bandwidth).abs() < 1.0);
        assert!(twelve
            .source
            .contains("12 channels x 4800 MT/s x 8 bytes = 460.8 GB/s"));
    }
}
