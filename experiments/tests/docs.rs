//! The documents agree with the code: the catalog table and entry-by-entry section of
//! `docs/experiments.md` are exactly what `pipeline --list markdown` and `--list details` print,
//! the README's writer example is the example file cargo builds, and every relative link of the README, CONTRIBUTING.md and the `docs/` pages points
//! to a file inside the repository, and to a heading of it where it names one.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::pipeline_command;

/// The page that holds the catalog table.
const CATALOG_PAGE: &str = "docs/experiments.md";
/// The example the README's "Use the writer in your code" section shows.
const WRITER_EXAMPLE: &str = "writer/examples/write_parquet.rs";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the repository root exists")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts that the catalog page holds exactly what `pipeline --list FORMAT` prints, and returns
/// it.
fn assert_catalog_page_holds(format: &str) -> String {
    let out = pipeline_command()
        .args(["--list", format])
        .output()
        .unwrap();
    assert!(out.status.success());
    let listing = String::from_utf8(out.stdout).unwrap();
    assert!(
        read(&root().join(CATALOG_PAGE)).contains(&listing),
        "{CATALOG_PAGE} differs from `pipeline --list {format}`; paste its output:\n{listing}"
    );
    listing
}

#[test]
fn catalog_table_is_the_binary_s() {
    let table = assert_catalog_page_holds("markdown");
    assert!(
        table.lines().count() > 10,
        "the catalog table is missing rows:\n{table}"
    );
}

#[test]
fn catalog_details_are_the_binary_s() {
    assert_catalog_page_holds("details");
}

#[test]
fn readme_writer_example_is_the_example_file() {
    let example = read(&root().join(WRITER_EXAMPLE));
    let block = format!("```rust\n{example}```\n");
    assert!(
        read(&root().join("README.md")).contains(&block),
        "README.md's writer example differs from {WRITER_EXAMPLE}: paste the file into its ```rust block"
    );
}

/// The pages whose links are checked: the README, CONTRIBUTING.md and every `docs/*.md`.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The lines of Markdown `text` outside fenced code blocks.
fn prose(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The targets of the Markdown links `[text](target)` in `text`, code blocks left out.
fn link_targets(text: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    for line in prose(text) {
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let end = after.find(')').expect("a Markdown link closes on its line");
            targets.push(&after[..end]);
            rest = &after[end..];
        }
    }
    targets
}

/// The anchors GitHub gives the headings of `text`: lower case, spaces as hyphens, punctuation
/// other than hyphens and underscores dropped, `-1`, `-2` ... after repeated headings.
fn anchors(text: &str) -> HashSet<String> {
    let mut anchors = HashSet::new();
    for line in prose(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let base: String = heading
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = base.clone();
        let mut repeat = 0;
        while !anchors.insert(anchor.clone()) {
            repeat += 1;
            anchor = format!("{base}-{repeat}");
        }
    }
    anchors
}

/// Checks one relative link of `page`: the file exists inside `root`, and a fragment names one of
/// its headings.
fn check_link(root: &Path, page: &Path, target: &str) {
    let shown = format!("{} links to {target}", page.display());
    let (path, fragment) = match target.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        page.to_path_buf()
    } else {
        let joined = page.parent().unwrap().join(path);
        joined
            .canonicalize()
            .unwrap_or_else(|_| panic!("{shown}, which points to nothing"))
    };
    assert!(
        file.starts_with(root),
        "{shown}, which is outside the repository"
    );
    if let Some(fragment) = fragment {
        assert!(
            anchors(&read(&file)).contains(fragment),
            "{shown}, but {} has no heading with that anchor",
            file.display()
        );
    }
}

#[test]
fn links_point_to_files_and_headings_of_the_repository() {
    let root = root();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        for target in link_targets(&text) {
            if target.contains("://") {
                continue;
            }
            check_link(&root, &page, target);
            checked += 1;
        }
    }
    assert!(
        checked > 10,
        "only {checked} relative links found: is the parser broken?"
    );
}

#[test]
fn anchors_follow_github() {
    let text = "# The `pipeline` command\n## Exit codes and faults\n```\n# not a heading\n```\n## Exit codes and faults\n";
    let found = anchors(text);
    let expected: HashSet<String> = [
        "the-pipeline-command",
        "exit-codes-and-faults",
        "exit-codes-and-faults-1",
    ]
    .map(String::from)
    .into();
    assert_eq!(found, expected);
}
