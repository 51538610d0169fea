//! Timing one writer over in-memory batches, alternating the contenders so drift hits both.

use std::io::{self, Write};
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::{ParallelArrowWriter, ParallelOptions};

use crate::stats::median;
use shredlab_experiments::process;

/// Discards bytes and counts them: isolates encoding from storage.
#[derive(Debug, Default)]
struct CountingSink(u64);

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A writer compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contender {
    /// parquet's `ArrowWriter`.
    ArrowWriter,
    /// `shredlab_writer::ParallelArrowWriter` with this many workers and column encoder.
    Parallel(usize, ColumnEncoder),
}

impl Contender {
    /// The writer's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::ArrowWriter => "ArrowWriter",
            Self::Parallel(_, ColumnEncoder::Native) => "ParallelArrowWriter",
            Self::Parallel(_, ColumnEncoder::ArrowRs) => "ParallelArrowWriter (arrow-rs encoder)",
        }
    }
}

/// One timed write of all batches.
#[derive(Debug, Clone, Copy)]
struct Repetition {
    seconds: f64,
    cpu_seconds: Option<f64>,
    peak_extra: Option<u64>,
    peak_held: usize,
    output_bytes: u64,
}

/// Writes every batch with `contender` into `sink` and closes the file. Returns the sink and
/// the largest `memory_size()` the writer reported after any `write`.
pub fn write_all<W: Write + Send>(
    contender: Contender,
    sink: W,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
) -> Result<(W, usize)> {
    let mut peak_held = 0;
    let sink = match contender {
        Contender::ArrowWriter => {
            let mut writer = ArrowWriter::try_new(sink, schema.clone(), Some(props.clone()))?;
            for batch in batches {
                writer.write(batch)?;
                peak_held = peak_held.max(writer.memory_size());
            }
            writer.into_inner()?
        }
        Contender::Parallel(threads, encoder) => {
            let options = ArrowWriterOptions::new().with_properties(props.clone());
            let parallel = ParallelOptions::new()
                .with_threads(threads)
                .with_encoder(encoder);
            let mut writer = ParallelArrowWriter::try_new_with_parallel_options(
                sink,
                schema.clone(),
                options,
                parallel,
            )?;
            for batch in batches {
                writer.write(batch)?;
                peak_held = peak_held.max(writer.memory_size());
            }
            writer.into_inner()?
        }
    };
    Ok((sink, peak_held))
}

fn write_once(
    contender: Contender,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
) -> Result<Repetition> {
    let peak_known = process::reset_peak();
    let base = process::current_rss();
    let cpu_before = process::cpu_seconds();
    let started = Instant::now();
    let (sink, peak_held) = write_all(contender, CountingSink::default(), schema, batches, props)?;
    let seconds = started.elapsed().as_secs_f64();
    let cpu_seconds = cpu_before
        .zip(process::cpu_seconds())
        .map(|(before, after)| after - before);
    let peak_extra = match (peak_known, base, process::peak_rss()) {
        (true, Some(base), Some(peak)) => Some(peak.saturating_sub(base)),
        _ => None,
    };
    Ok(Repetition {
        seconds,
        cpu_seconds,
        peak_extra,
        peak_held,
        output_bytes: sink.0,
    })
}

/// Timings of one contender over the repetitions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WriterStats {
    /// Every repetition's wall time, in order.
    pub seconds: Vec<f64>,
    /// Median of `seconds`.
    pub median_s: f64,
    /// Median CPU time (user + system, all threads) of a repetition, when `/proc` reports it:
    /// against `median_s` it shows how many cores a writer kept busy, and against the other
    /// writer's what parallelism cost in extra work.
    pub median_cpu_s: Option<f64>,
    /// Largest peak resident growth over the repetitions, when `/proc` reports it. Memory the
    /// allocator kept from earlier repetitions is not counted again, so this understates.
    pub peak_extra_bytes: Option<u64>,
    /// Largest `memory_size()` the writer reported after any `write` (its own buffers, and for
    /// the parallel writer the Arrow data queued for workers too): comparable across writers.
    pub peak_writer_bytes: usize,
    /// Parquet bytes written.
    pub output_bytes: u64,
}

fn stats(repetitions: &[Repetition]) -> WriterStats {
    let seconds: Vec<f64> = repetitions.iter().map(|r| r.seconds).collect();
    let cpu: Option<Vec<f64>> = repetitions.iter().map(|r| r.cpu_seconds).collect();
    WriterStats {
        median_s: median(&seconds),
        median_cpu_s: cpu.map(|cpu| median(&cpu)),
        peak_extra_bytes: repetitions.iter().filter_map(|r| r.peak_extra).max(),
        peak_writer_bytes: repetitions.iter().map(|r| r.peak_held).max().unwrap_or(0),
        output_bytes: repetitions.last().map_or(0, |r| r.output_bytes),
        seconds,
    }
}

/// Each writer runs at least this long in total per cell: a cell of a millisecond gets enough
/// repetitions for its median to rise above scheduler and page-fault noise.
const MIN_TOTAL_SECONDS: f64 = 0.25;

/// Most repetitions per writer and cell.
const MAX_REPS: usize = 500;

/// Repetitions per writer: at least `reps`, more for short ones (one took `seconds`).
fn repetitions(reps: usize, seconds: f64) -> usize {
    let needed = (MIN_TOTAL_SECONDS / seconds.max(1e-6)).ceil() as usize;
    needed.clamp(reps, MAX_REPS.max(reps))
}

/// Two writers (`[baseline, candidate]`) on the same batches, alternating which goes first:
/// `reps` times each, or more when a run is short (see [`MIN_TOTAL_SECONDS`]). Returns their
/// figures in the same order.
pub fn compare(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    contenders: [Contender; 2],
    reps: usize,
) -> Result<(WriterStats, WriterStats)> {
    let mut runs: [Vec<Repetition>; 2] = [Vec::new(), Vec::new()];
    let mut planned = reps.max(1);
    let mut rep = 0;
    while rep < planned {
        let order = if rep % 2 == 0 { [0, 1] } else { [1, 0] };
        for side in order {
            runs[side].push(write_once(contenders[side], schema, batches, props)?);
        }
        if rep == 0 {
            let slower = runs[0][0].seconds.max(runs[1][0].seconds);
            planned = repetitions(planned, slower);
        }
        rep += 1;
    }
    Ok((stats(&runs[0]), stats(&runs[1])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_cells_get_more_repetitions() {
        assert_eq!(repetitions(5, 2.0), 5);
        assert_eq!(repetitions(5, 0.1), 5);
        assert_eq!(repetitions(5, 0.001), 250);
        assert_eq!(repetitions(5, 0.0), MAX_REPS);
        assert_eq!(repetitions(600, 0.0), 600);
    }
}
