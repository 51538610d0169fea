//! Each cell in a process of its own: a cell measured after others inherits their heap (an
//! allocator's cached spans and arenas, pages already faulted in), which favoured whichever
//! writer the earlier cells had warmed. At 3e42a93 one cell measured 0.94x in the full matrix
//! and 1.28x alone on the same build; a fresh process gives every cell the same start.

use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::cells::CellResult;

/// The option that makes a `writer-bench` process measure the one cell at an index of its plan
/// and print its [`CellResult`] as JSON on stdout.
pub const CELL_OPTION: &str = "--cell";

/// Runs the current command line again with [`CELL_OPTION`] `index`, in a new process, and
/// returns the cell it measured. The child's stderr (its progress line) goes to ours.
///
/// # Errors
///
/// The child could not start, failed, or printed no cell.
pub fn in_fresh_process(index: usize) -> Result<CellResult> {
    let program = std::env::current_exe().context("cannot find the writer-bench binary")?;
    let output = Command::new(&program)
        .args(std::env::args_os().skip(1))
        .args([CELL_OPTION, &index.to_string()])
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start {}", program.display()))?;
    if !output.status.success() {
        bail!("cell {index} failed in its own process ({})", output.status);
    }
    serde_json::from_slice(&output.stdout)
        .with_context(|| format!("cell {index}: its process printed no cell result"))
}
