//! The code's layout stays livable: no module of `experiments` imports a module that imports it,
//! directly or through others, and no source file of the workspace outside its tests is over
//! 600 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file may grow (CONTRIBUTING.md).
const MAX_LINES: usize = 600;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file below `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

/// The module path of a file below `src/`: `output/store/mod.rs` is `output::store`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|part| part != "mod")
        .collect();
    parts.join("::")
}

/// The modules `text` (one file, its tests cut off) names through `crate::` or `super::`.
fn imports(module: &str, text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let mut named = BTreeSet::new();
    for (prefix, base) in [("crate::", String::new()), ("super::", parent.to_string())] {
        for (at, _) in code.match_indices(prefix) {
            let path: String = code[at + prefix.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut target = [base.as_str(), path.trim_end_matches(':')]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("::");
            // The longest prefix that is a module: `output::dir::OutputDir` is `output::dir`.
            while !target.is_empty() && !modules.contains(&target) {
                target = target
                    .rsplit_once("::")
                    .map_or(String::new(), |(p, _)| p.into());
            }
            if !target.is_empty() && target != module {
                named.insert(target);
            }
        }
    }
    named
}

#[test]
fn no_module_of_experiments_imports_one_that_imports_it() {
    let src = root().join("experiments/src");
    let files = sources(&src);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let graph: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .map(|file| {
            let module = module_of(&src, file);
            let text = std::fs::read_to_string(file).unwrap();
            let named = imports(&module, &text, &modules);
            (module, named)
        })
        .collect();
    assert!(
        graph["output::dir"].contains("output"),
        "the import parser is broken: {graph:?}"
    );
    for start in graph.keys() {
        // Depth-first from `start`: reaching it again is a cycle.
        let mut stack = vec![vec![start.clone()]];
        let mut seen = BTreeSet::new();
        while let Some(path) = stack.pop() {
            for next in &graph[path.last().unwrap()] {
                assert!(
                    next != start,
                    "import cycle: {} -> {start}",
                    path.join(" -> ")
                );
                if seen.insert(next.clone()) {
                    stack.push([path.clone(), vec![next.clone()]].concat());
                }
            }
        }
    }
}

#[test]
fn no_source_file_outside_tests_is_over_600_lines() {
    let mut long = Vec::new();
    for krate in ["generator", "writer", "experiments", "bench"] {
        for dir in ["src", "examples", "benches"] {
            let dir = root().join(krate).join(dir);
            if !dir.exists() {
                continue;
            }
            for file in sources(&dir) {
                let lines = std::fs::read_to_string(&file).unwrap().lines().count();
                if lines > MAX_LINES {
                    long.push(format!("{} ({lines} lines)", file.display()));
                }
            }
        }
    }
    assert!(long.is_empty(), "split these by concern: {long:?}");
}
