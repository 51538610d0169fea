//! The documents agree with the code: the README's catalog table is exactly what
//! `pipeline --list markdown` prints, and no README link leaves the repository.

use std::path::Path;
use std::process::Command;

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn readme_catalog_table_is_the_binary_s() {
    let out = Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .args(["--list", "markdown"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.lines().count() > 10,
        "the catalog table is missing rows:\n{table}"
    );
    assert!(
        readme().contains(&table),
        "README.md's catalog table differs from `pipeline --list markdown`; paste its output:\n{table}"
    );
}

#[test]
fn readme_links_stay_inside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = readme();
    let mut rest = text.as_str();
    let mut checked = 0;
    while let Some(start) = rest.find("](") {
        let after = &rest[start + 2..];
        let end = after.find(')').expect("a Markdown link closes");
        let target = &after[..end];
        rest = &after[end..];
        if target.starts_with("https://") || target.starts_with('#') {
            continue;
        }
        let path = target.split('#').next().unwrap();
        assert!(
            !path.starts_with("..") && !path.starts_with('/'),
            "README link {target} leaves the repository"
        );
        assert!(
            root.join(path).exists(),
            "README link {target} points to nothing"
        );
        checked += 1;
    }
    assert!(
        checked > 0,
        "no relative links found: is the parser broken?"
    );
}
