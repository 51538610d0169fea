//! The reference pages name everything the code offers: every option `pipeline --help` lists
//! has a row in docs/pipeline.md's options table, and every role the counters report has a
//! row in docs/experiments.md's table of roles.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::pipeline_command;
use shredlab_experiments::counters::Role;

fn page(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `--long` options in `text`.
fn long_options(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|word| word.starts_with("--") && word.len() > 2)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_option_of_the_help_has_a_row_in_the_options_table() {
    let help = pipeline_command().arg("--help").output().unwrap();
    assert!(help.status.success());
    let offered = long_options(&String::from_utf8(help.stdout).unwrap());
    let documented: BTreeSet<String> = page("docs/pipeline.md")
        .lines()
        .filter(|line| line.starts_with("| `-"))
        .filter_map(|line| line.split('|').nth(1))
        .flat_map(long_options)
        .collect();
    let missing: Vec<_> = offered
        .iter()
        .filter(|option| *option != "--help" && !documented.contains(*option))
        .collect();
    assert!(
        missing.is_empty(),
        "add rows for {missing:?} to docs/pipeline.md's options table"
    );
}

#[test]
fn every_counters_role_is_described() {
    let text = page("docs/experiments.md");
    let section = text
        .split("### Counters per role")
        .nth(1)
        .expect("docs/experiments.md has a counters section");
    for role in Role::ALL {
        assert!(
            section.contains(&format!("| **{}** |", role.name())),
            "docs/experiments.md's counters section does not describe the `{}` role",
            role.name()
        );
    }
}
