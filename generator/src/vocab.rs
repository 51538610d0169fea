//! Ranked name vocabularies embedded in the binary (most common first).

use std::sync::OnceLock;

const FIRST_NAMES_TEXT: &str = include_str!("../data/first_names.txt");
const LAST_NAMES_TEXT: &str = include_str!("../data/last_names.txt");

/// First names ranked by frequency, rank 1 at index 0.
pub fn first_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| parse(FIRST_NAMES_TEXT))
}

/// Last names ranked by frequency, rank 1 at index 0.
pub fn last_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| parse(LAST_NAMES_TEXT))
}

fn parse(text: &'static str) -> Vec<&'static str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn vocabularies_are_large_distinct_and_clean() {
        for names in [first_names(), last_names()] {
            assert!(names.len() >= 1000, "only {} names", names.len());
            let distinct: HashSet<_> = names.iter().collect();
            assert_eq!(distinct.len(), names.len(), "duplicate names");
            assert!(names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_alphabetic())));
        }
        assert_eq!(first_names()[0], "James");
        assert_eq!(last_names()[0], "Smith");
    }
}
