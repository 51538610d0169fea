//! The code's layout stays livable: no module of `experiments` imports a module that imports it,
//! directly or through others, no source file of the workspace outside its tests is over 450
//! lines, and no function of `experiments/src` or `bench/src` is over 80 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file may grow (CONTRIBUTING.md).
const MAX_LINES: usize = 450;

/// The longest a function of `experiments/src` or `bench/src` may grow, from its `fn` line to
/// its closing brace (CONTRIBUTING.md).
const MAX_FUNCTION_LINES: usize = 80;

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
fn no_source_file_outside_tests_is_over_the_limit() {
    let mut long = Vec::new();
    for krate in ["generator", "writer", "experiments", "bench"] {
        for dir in ["src", "examples", "benches"] {
            let dir = root().join(krate).join(dir);
            if !dir.exists() {
                continue;
            }
            for file in sources(&dir) {
                // A unit-test module in a file of its own (`tests.rs`, `fixtures.rs`) is a test.
                if file.ends_with("tests.rs") || file.ends_with("fixtures.rs") {
                    continue;
                }
                let lines = std::fs::read_to_string(&file).unwrap().lines().count();
                if lines > MAX_LINES {
                    long.push(format!("{} ({lines} lines)", file.display()));
                }
            }
        }
    }
    assert!(long.is_empty(), "split these by concern: {long:?}");
}

/// The line of code without its comment and the contents of its string and char literals, so
/// that braces inside them are not counted.
fn code_of(line: &str) -> String {
    let mut code = String::new();
    let mut chars = line.chars().peekable();
    let mut quote = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(_) if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '/' && chars.peek() == Some(&'/') => break,
            None if c == '"' => quote = Some('"'),
            // A char literal ('{'), not a lifetime ('a): its closing quote follows within 3.
            None if c == '\'' && line_has_char_literal(chars.clone()) => quote = Some('\''),
            None => code.push(c),
        }
    }
    code
}

fn line_has_char_literal(rest: std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    let ahead: Vec<char> = rest.take(3).collect();
    matches!(ahead.as_slice(), [_, '\'', ..] | ['\\', _, '\''])
}

/// The functions of `text` longer than `max` lines, as (name, first line, lines).
fn long_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<String> = text.lines().map(code_of).collect();
    let mut long = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(at) = line.find("fn ") else { continue };
        let before = &line[..at];
        if !before.split_whitespace().all(|w| {
            [
                "pub",
                "pub(crate)",
                "pub(super)",
                "const",
                "async",
                "unsafe",
            ]
            .contains(&w)
        }) {
            continue;
        }
        let name: String = line[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut depth = 0i32;
        let mut opened = false;
        for (end, body) in lines.iter().enumerate().skip(start) {
            for c in body.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if !opened && body.trim_end().ends_with(';') {
                break;
            }
            if opened && depth <= 0 {
                if end - start + 1 > max {
                    long.push((name.clone(), start + 1, end - start + 1));
                }
                break;
            }
        }
    }
    long
}

#[test]
fn no_function_of_experiments_or_bench_is_over_the_limit() {
    let mut long = Vec::new();
    for krate in ["experiments", "bench"] {
        for file in sources(&root().join(krate).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (name, line, lines) in long_functions(&text, MAX_FUNCTION_LINES) {
                long.push(format!("{}:{line} {name} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "split these into named steps: {long:?}");
}

#[test]
fn the_function_length_check_sees_a_long_function() {
    let body = "    let x = 1;\n".repeat(MAX_FUNCTION_LINES);
    let text =
        format!("/// Doc.\npub fn long() {{\n{body}}}\n\nfn short() {{\n    let s = \"}}\";\n}}\n");
    let found = long_functions(&text, MAX_FUNCTION_LINES);
    assert_eq!(found, [("long".to_string(), 2, MAX_FUNCTION_LINES + 2)]);
}
