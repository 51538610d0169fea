//! Direct writes (31): the files are the ones written through the page cache (30), byte for
//! byte.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{contents, run_ok};

/// Enough rows (about 11.7 MB a file) that each of two files fills both its 4 MiB buffers, the
/// first again while the disk thread may still hold the second, and ends on a partial block.
const ROWS: [&str; 6] = ["-n", "800000", "--writers", "2", "--verify", "--quiet"];

/// The Parquet files and the stderr of `pipeline -e EXPERIMENT` run into a new folder in `base`.
fn run_into(base: &Path, experiment: &str) -> (BTreeMap<String, Vec<u8>>, String) {
    let dir = tempfile::tempdir_in(base).unwrap();
    let out = dir.path().join("out");
    let output = run_ok(&[&ROWS[..], &["-e", experiment]].concat(), &out);
    let mut files = contents(&out);
    files.retain(|name, _| name.ends_with(".parquet"));
    assert_eq!(files.len(), 2, "{experiment}: {:?}", files.keys());
    (files, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn direct_writes_write_the_page_cache_s_files() {
    // Under the target directory, on the project's disk: /tmp may be a tmpfs.
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (expected, _) = run_into(base, "30");
    let (direct, stderr) = run_into(base, "31");
    assert!(!stderr.contains("direct writes"), "{stderr}");
    assert!(direct == expected, "31's files differ from 30's");
}
