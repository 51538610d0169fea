//! A STREAM-style probe of the memory bandwidth a machine actually sustains: copy, scale, add
//! and triad over arrays several times larger than the last-level cache, split across threads,
//! best of several repetitions (McCalpin's rules).

use std::time::Instant;

use serde::Serialize;

/// The scalar of `scale` and `triad`.
pub const SCALAR: f64 = 3.0;

/// One kernel's result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KernelResult {
    /// Fastest repetition, seconds.
    pub best_s: f64,
    /// Bytes moved per repetition (reads plus writes).
    pub bytes: u64,
    /// `bytes / best_s`.
    pub bytes_per_s: f64,
}

/// The probe's results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamResult {
    /// Elements per array.
    pub elements: usize,
    /// Threads the arrays were split across.
    pub threads: usize,
    /// Repetitions per kernel.
    pub reps: usize,
    /// `c = a`.
    pub copy: KernelResult,
    /// `b = q c`.
    pub scale: KernelResult,
    /// `c = a + b`.
    pub add: KernelResult,
    /// `a = b + q c`.
    pub triad: KernelResult,
}

impl StreamResult {
    /// The best bandwidth of the four kernels: the machine's practical ceiling.
    pub fn best_bytes_per_s(&self) -> f64 {
        [self.copy, self.scale, self.add, self.triad]
            .iter()
            .map(|k| k.bytes_per_s)
            .fold(0.0, f64::max)
    }
}

/// Bytes a kernel moves over `elements` f64s: arrays read plus arrays written, 8 bytes each.
pub fn kernel_bytes(arrays_touched: u64, elements: usize) -> u64 {
    arrays_touched * 8 * elements as u64
}

/// A STREAM kernel over matching chunks of the arrays a, b, c.
type Kernel = fn(&mut [f64], &mut [f64], &mut [f64]);

/// Runs `kernel` on matching chunks of the arrays on `threads` threads.
fn parallel<F>(threads: usize, a: &mut [f64], b: &mut [f64], c: &mut [f64], kernel: F)
where
    F: Fn(&mut [f64], &mut [f64], &mut [f64]) + Sync,
{
    let chunk = a.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        for ((a, b), c) in a
            .chunks_mut(chunk)
            .zip(b.chunks_mut(chunk))
            .zip(c.chunks_mut(chunk))
        {
            let kernel = &kernel;
            scope.spawn(move || kernel(a, b, c));
        }
    });
}

fn copy(a: &mut [f64], _: &mut [f64], c: &mut [f64]) {
    c.copy_from_slice(a);
}

fn scale(_: &mut [f64], b: &mut [f64], c: &mut [f64]) {
    b.iter_mut()
        .zip(c.iter())
        .for_each(|(b, c)| *b = SCALAR * c);
}

fn add(a: &mut [f64], b: &mut [f64], c: &mut [f64]) {
    c.iter_mut()
        .zip(a.iter().zip(b.iter()))
        .for_each(|(c, (a, b))| *c = a + b);
}

fn triad(a: &mut [f64], b: &mut [f64], c: &mut [f64]) {
    a.iter_mut()
        .zip(b.iter().zip(c.iter()))
        .for_each(|(a, (b, c))| *a = b + SCALAR * c);
}

/// The arrays after `iterations` rounds of copy, scale, add, triad from a = 1, b = 2, c = 0,
/// computed on scalars (STREAM's validation).
pub fn expected_values(iterations: usize) -> (f64, f64, f64) {
    let (mut a, mut b, mut c) = (1.0, 2.0, 0.0);
    for _ in 0..iterations {
        c = a;
        b = SCALAR * c;
        c = a + b;
        a = b + SCALAR * c;
    }
    (a, b, c)
}

/// Runs the four kernels `reps` times over arrays of `elements` f64s on `threads` threads.
/// Returns `None` if the arrays do not hold the values STREAM's arithmetic predicts.
pub fn measure(elements: usize, threads: usize, reps: usize) -> Option<StreamResult> {
    let (mut a, mut b, mut c) = (
        vec![1.0; elements],
        vec![2.0; elements],
        vec![0.0; elements],
    );
    let mut best = [f64::MAX; 4];
    let kernels: [Kernel; 4] = [copy, scale, add, triad];
    for _ in 0..reps {
        for (kernel, best) in kernels.iter().zip(best.iter_mut()) {
            let started = Instant::now();
            parallel(threads, &mut a, &mut b, &mut c, kernel);
            *best = best.min(started.elapsed().as_secs_f64());
        }
    }
    let expected = expected_values(reps);
    let close = |x: f64, y: f64| ((x - y) / y).abs() < 1e-12;
    let valid = a.iter().all(|&v| close(v, expected.0))
        && b.iter().all(|&v| close(v, expected.1))
        && c.iter().all(|&v| close(v, expected.2));
    let result = |best_s: f64, arrays: u64| {
        let bytes = kernel_bytes(arrays, elements);
        KernelResult {
            best_s,
            bytes,
            bytes_per_s: bytes as f64 / best_s,
        }
    };
    valid.then(|| StreamResult {
        elements,
        threads,
        reps,
        copy: result(best[0], 2),
        scale: result(best[1], 2),
        add: result(best[2], 3),
        triad: result(best[3], 3),
    })
}

/// Elements per array so that each array is four times `last_level_cache` bytes.
pub fn elements_for_cache(last_level_cache: u64) -> usize {
    (4 * last_level_cache / 8) as usize
}

/// The last-level cache size from sysfs (e.g. "32768K"), if the platform reports it.
pub fn last_level_cache_bytes() -> Option<u64> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut largest = None;
    for entry in std::fs::read_dir(dir).ok()? {
        let text = std::fs::read_to_string(entry.ok()?.path().join("size")).ok()?;
        let text = text.trim();
        let (digits, unit) = text.split_at(
            text.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(text.len()),
        );
        let bytes = digits.parse::<u64>().ok()?
            * match unit {
                "K" => 1 << 10,
                "M" => 1 << 20,
                _ => 1,
            };
        largest = largest.max(Some(bytes));
    }
    largest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_compute_streams_arithmetic() {
        // One round from a=1, b=2, c=0: c=1, b=3, c=4, a=3+12=15.
        assert_eq!(expected_values(1), (15.0, 3.0, 4.0));
        let result = measure(10_000, 3, 4).expect("arrays match the closed form");
        assert_eq!(result.copy.bytes, 16 * 10_000);
        assert_eq!(result.triad.bytes, 24 * 10_000);
        assert!(result.best_bytes_per_s() > 0.0);
        assert_eq!(elements_for_cache(32 << 20), 16 << 20);
    }
}
