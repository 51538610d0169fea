//! Records the commit the binaries are built from and whether the work tree differed from it
//! (`SHREDLAB_COMMIT`, `SHREDLAB_DIRTY`), so every measurement names the code it actually ran.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs git in `root`; `None` when git is missing or the tree is not a repository.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn main() {
    let root =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("..");
    let commit = git(&root, &["rev-parse", "--short=12", "HEAD"]);
    // Dirty means uncommitted source changes; measurement output under results/ does not count.
    let dirty = git(&root, &["status", "--porcelain", "--", ".", ":!results"])
        .map(|status| !status.is_empty());
    println!(
        "cargo:rustc-env=SHREDLAB_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!(
        "cargo:rustc-env=SHREDLAB_DIRTY={}",
        dirty.map_or("unknown", |d| if d { "true" } else { "false" })
    );
    // Rebuild the stamp whenever a source or the checked-out commit changes.
    for source in [
        "generator",
        "writer",
        "experiments",
        "bench",
        "scripts",
        "Makefile",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(source).display());
    }
    if let Some(git_dir) = git(&root, &["rev-parse", "--absolute-git-dir"]) {
        let git_dir = PathBuf::from(git_dir);
        let head_ref = git(&root, &["symbolic-ref", "-q", "HEAD"]);
        let watched = ["HEAD", "index", "packed-refs"]
            .into_iter()
            .map(|name| git_dir.join(name))
            .chain(head_ref.map(|r| git_dir.join(r)));
        for path in watched.filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
