//! `pipeline --timeline FILE`: every thread's phase intervals as CSV, one row per interval
//! (`thread,role,phase,start_ns,end_ns,rows`, times from the run's start), written under a
//! temporary name beside `FILE` and renamed over it once complete, so a failed write never
//! leaves a partial timeline or damages an earlier one.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::Lane;

/// The CSV header.
pub const HEADER: &str = "thread,role,phase,start_ns,end_ns,rows";

/// Writes `lanes` to `path` as CSV, threads in name order.
///
/// # Errors
///
/// The directory of `path` refuses a new file, or writing or renaming it failed.
pub fn write(path: &Path, lanes: &[Lane]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let file = tempfile::Builder::new()
        .prefix(".timeline-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    let mut out = BufWriter::new(file);
    write_csv(&mut out, lanes)?;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `lanes` as CSV into `out`.
fn write_csv(out: &mut impl Write, lanes: &[Lane]) -> io::Result<()> {
    writeln!(out, "{HEADER}")?;
    let mut sorted: Vec<&Lane> = lanes.iter().collect();
    sorted.sort_by(|a, b| a.thread.cmp(&b.thread));
    for lane in sorted {
        for interval in &lane.intervals {
            writeln!(
                out,
                "{},{},{},{},{},{}",
                lane.thread,
                lane.role.name(),
                interval.phase.name(),
                interval.start_ns,
                interval.end_ns,
                interval.rows
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::{Interval, Phase, Role};

    fn lane(thread: &str, phases: &[(Phase, u64, u64)]) -> Lane {
        Lane {
            thread: thread.to_string(),
            role: Role::Fused,
            intervals: phases
                .iter()
                .map(|&(phase, start_ns, end_ns)| Interval {
                    phase,
                    start_ns,
                    end_ns,
                    rows: 7,
                })
                .collect(),
        }
    }

    #[test]
    fn lanes_are_written_in_thread_order_and_replace_an_earlier_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeline.csv");
        std::fs::write(&path, "an earlier timeline").unwrap();
        let lanes = [
            lane("fused-1", &[(Phase::Generate, 5, 9)]),
            lane("fused-0", &[(Phase::Start, 0, 2), (Phase::Encode, 2, 4)]),
        ];
        write(&path, &lanes).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "thread,role,phase,start_ns,end_ns,rows\n\
             fused-0,fused,start,0,2,7\n\
             fused-0,fused,encode,2,4,7\n\
             fused-1,fused,generate,5,9,7\n"
        );
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left");
    }

    #[test]
    fn a_directory_that_refuses_the_file_is_an_error_and_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-dir").join("timeline.csv");
        assert!(write(&missing, &[]).is_err());
        assert!(!missing.exists());
    }
}
