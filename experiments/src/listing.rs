//! The catalog printed for people (`pipeline --list`): aligned text, a Markdown table, or entry
//! by entry in Markdown with what each changes and why.

use crate::catalog::{Workloads, CATALOG};

/// The catalog as aligned text: number, slug, the study's figure, summary.
pub fn text_table() -> String {
    let mut text = format!("{:>3}  {:<26} {:>9}  {}\n", "N", "slug", "study", "summary");
    for e in CATALOG {
        let study = e
            .study
            .map_or_else(|| "-".to_string(), |s| format!("{:.2} s", s.median_s));
        text.push_str(&format!(
            "{:>3}  {:<26} {:>9}  {}\n",
            format!("{:02}", e.number),
            e.slug,
            study,
            e.summary
        ));
    }
    text
}

/// The catalog as a Markdown table: number, slug, summary (`docs/experiments.md` holds it, and a
/// test keeps the two equal).
pub fn markdown_table() -> String {
    let mut text = String::from("| N | slug | what changes |\n|---|---|---|\n");
    for e in CATALOG {
        text.push_str(&format!(
            "| {:02} | {} | {} |\n",
            e.number,
            e.slug,
            e.summary.replace('|', "\\|")
        ));
    }
    text
}

/// The catalog entry by entry, as Markdown: how each works in the code and why, the workloads
/// it acts on, what it needs, and the study's figure where it is one of the study's steps.
pub fn markdown_details() -> String {
    let mut text = String::new();
    for e in CATALOG {
        let mut mechanism = e.mechanism.chars();
        let first = mechanism.next().map(|c| c.to_ascii_uppercase());
        text.push_str(&format!(
            "### {:02} {}\n\n{}{}.\n",
            e.number,
            e.slug,
            first.unwrap_or_default(),
            mechanism.as_str()
        ));
        let mut facts = Vec::new();
        if let Some(o) = e.adds {
            facts.push(match o.workloads() {
                Workloads::Contacts => {
                    "Acts on the contacts only: off for `--spec` runs.".to_string()
                }
                Workloads::Any => "Acts on every workload, spec files included.".to_string(),
            });
            let needs: Vec<String> = o.needs().iter().map(|n| format!("`{n}`")).collect();
            if !needs.is_empty() {
                facts.push(format!("Needs {}.", needs.join(", ")));
            }
            let rivals: Vec<String> = o.yields_to().iter().map(|n| format!("`{n}`")).collect();
            if !rivals.is_empty() {
                facts.push(format!(
                    "Changes nothing while {} is on.",
                    rivals.join(", ")
                ));
            }
        }
        if let Some(o) = e.reverts {
            facts.push(format!("Reverts `{o}`."));
        }
        if let Some(s) = e.study {
            facts.push(format!("The study: {:.2} s, IPC {:.2}.", s.median_s, s.ipc));
        }
        if !facts.is_empty() {
            text.push_str(&format!("\n{}\n", facts.join(" ")));
        }
        text.push('\n');
    }
    text
}

/// The whole catalog page, `docs/catalog.md`: the table, then every entry in detail
/// (`pipeline --list page`, written by `make docs`; a test keeps the two equal).
pub fn catalog_page() -> String {
    format!(
        "# The experiment catalog\n\n\
         Generated from `experiments/src/catalog/entries.rs` by `make docs` (`pipeline --list page`): do \
         not edit by hand. Experiment N runs the baseline plus the optimizations of entries \
         1..=N; [experiments.md](experiments.md) says how they are measured, \
         [study.md](study.md) what each measured when it was added.\n\n\
         {}\n## Entry by entry\n\n{}",
        markdown_table(),
        markdown_details()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Optimization;

    #[test]
    fn details_give_every_entry_its_mechanism_and_workloads() {
        let details = markdown_details();
        for e in CATALOG {
            let heading = format!("### {:02} {}\n\n", e.number, e.slug);
            assert!(details.contains(&heading), "{heading}");
            assert!(details.contains(&e.mechanism[1..]), "{heading}");
        }
        let on_contacts = details.matches("Acts on the contacts only").count();
        let on_any = details.matches("Acts on every workload").count();
        let contacts_only = Optimization::ALL.iter().filter(|o| o.contacts_only());
        assert_eq!(on_contacts, contacts_only.count());
        assert_eq!(on_contacts + on_any, Optimization::ALL.len());
    }
}
