//! How a commit replaces an earlier run of the same files without ever losing it.
//!
//! The new run's part files have the earlier run's names, so they cannot both be in place, and
//! only one manifest can be. [`SetAside`] takes the earlier run out of the way at the commit,
//! and only then: its manifest first (withdrawn: from then on no manifest vouches for files
//! that are about to change), then the part files the new run replaces, each renamed to a
//! hidden temporary name. The new files take their final names and the new manifest is written;
//! if any of that fails, the new files are removed and [`SetAside::restore`] puts the earlier run
//! back whole. Once the new manifest is in place, [`SetAside::discard`] removes the earlier
//! run's files. So a manifest always lists a complete run: the earlier one until the commit,
//! the new one after; in between there is none, and only a crash inside that window (SIGKILL,
//! power loss) leaves the earlier run's files under their set-aside names.

use serde::Deserialize;

use super::manifest::ManifestFile;
use super::{is_part_file, set_aside_name, Manifest};
use crate::error::PipelineError;

/// A destination's entries by name (a directory's files, a prefix's objects): what the commit
/// and the check of neighbouring manifests need of a directory and of an object store alike.
pub(crate) trait Entries {
    /// The names of the entries.
    fn names(&self) -> Result<Vec<String>, PipelineError>;
    /// The bytes of entry `name`.
    fn read(&self, name: &str) -> Result<Vec<u8>, PipelineError>;
    /// Renames entry `from` to `to`.
    fn rename(&self, from: &str, to: &str) -> Result<(), PipelineError>;
    /// Removes entry `name`.
    fn remove(&self, name: &str) -> Result<(), PipelineError>;
    /// Makes the changes so far durable and ordered before the next ones, which give names that
    /// were just renamed or removed new contents.
    fn settle(&self) -> Result<(), PipelineError>;
    /// Where entry `name` is, for messages: a path or an object's URL.
    fn location(&self, name: &str) -> String;
}

/// The earlier run of a commit's files, taken out of the way of the new run.
pub(crate) struct SetAside<'a, E: Entries + ?Sized> {
    entries: &'a E,
    /// Every entry renamed, as (its name, its set-aside name): the manifest first.
    moved: Vec<(String, String)>,
    /// The earlier run's part files the new run does not replace: left in place, removed only
    /// once the new run is committed.
    stale: Vec<String>,
}

impl<'a, E: Entries + ?Sized> SetAside<'a, E> {
    /// Sets aside the earlier run of the files named `prefix...` before a commit whose part
    /// files are `new_parts`: its manifest, then its part files among `new_parts`. `nonce` tells
    /// the set-aside names from those of other runs. On a failure, what was moved is put back.
    pub(crate) fn begin(
        entries: &'a E,
        prefix: &str,
        nonce: &str,
        new_parts: &[String],
    ) -> Result<Self, PipelineError> {
        let names = entries.names()?;
        let manifest = Manifest::file_name(prefix);
        let listed = match names.contains(&manifest) {
            true => listed_parts(entries, &manifest, prefix)?,
            false => Vec::new(),
        };
        let replaced: Vec<String> = names
            .iter()
            .filter(|name| is_part_file(name, prefix) && new_parts.contains(name))
            .cloned()
            .collect();
        // Only what the earlier run's manifest lists: a file that merely looks like a part
        // (pyarrow's part-0.parquet, a named pipe) was never the earlier run's.
        let stale: Vec<String> = names
            .iter()
            .filter(|name| listed.contains(name) && !new_parts.contains(name))
            .cloned()
            .collect();
        let mut aside = Self {
            entries,
            moved: Vec::new(),
            stale,
        };
        let withdrawn = names.into_iter().filter(|name| *name == manifest);
        for name in withdrawn.chain(replaced) {
            let hidden = set_aside_name(&name, nonce);
            if let Err(error) = entries.rename(&name, &hidden) {
                aside.restore();
                return Err(error);
            }
            aside.moved.push((name, hidden));
        }
        if !aside.moved.is_empty() {
            if let Err(error) = entries.settle() {
                aside.restore();
                return Err(error);
            }
        }
        Ok(aside)
    }

    /// Puts the earlier run back, its manifest last, once the new run's files are gone from
    /// the final names. Best effort: the error that failed the commit is what the user must
    /// see, so whatever cannot be put back is named in a warning.
    pub(crate) fn restore(self) {
        if let Err(error) = self.entries.settle() {
            eprintln!("warning: {error}");
        }
        for (name, hidden) in self.moved.iter().rev() {
            if let Err(error) = self.entries.rename(hidden, name) {
                eprintln!(
                    "warning: the earlier run's {} could not be put back ({error}): rename {} to {name} by hand",
                    self.entries.location(name),
                    self.entries.location(hidden),
                );
            }
        }
    }

    /// Removes the earlier run's files once the new run is committed. Best effort: the run has
    /// succeeded, so whatever cannot be removed is named in a warning.
    pub(crate) fn discard(self) {
        let hidden = self.moved.iter().map(|(_, hidden)| hidden);
        for name in hidden.chain(&self.stale) {
            if let Err(error) = self.entries.remove(name) {
                eprintln!(
                    "warning: the run is committed, but the earlier run's {} could not be removed ({error}): remove it by hand",
                    self.entries.location(name)
                );
            }
        }
    }
}

/// The part files the manifest `name` lists. One that cannot be read fails the commit before
/// anything moved (its parts would otherwise stay behind the new run); one that is not a
/// manifest lists none, with a warning that names what stays.
fn listed_parts<E: Entries + ?Sized>(
    entries: &E,
    name: &str,
    prefix: &str,
) -> Result<Vec<String>, PipelineError> {
    /// A manifest's list of files, whatever else its version holds.
    #[derive(Deserialize)]
    struct Listed {
        files: Vec<ManifestFile>,
    }
    let bytes = entries.read(name)?;
    match serde_json::from_slice::<Listed>(&bytes) {
        Ok(listed) => {
            let names = listed.files.into_iter().map(|file| file.name);
            Ok(names.filter(|file| is_part_file(file, prefix)).collect())
        }
        Err(error) => {
            eprintln!(
                "warning: {} is not a manifest ({error}): the part files the new run does not write over are left as they are",
                entries.location(name)
            );
            Ok(Vec::new())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    use super::*;

    /// Entries in memory; renames to a name in `refused` fail, and so does reading
    /// `unreadable`.
    #[derive(Default)]
    struct Memory {
        files: RefCell<BTreeMap<String, Vec<u8>>>,
        refused: Vec<String>,
        unreadable: Option<String>,
    }

    /// The earlier run's manifest: it lists both its parts.
    const LISTING: &str = r#"{"files": [{"name": "part-00000.parquet", "bytes": 1}, {"name": "part-00001.parquet", "bytes": 1}], "rows": 2}"#;

    impl Memory {
        fn with(names: &[&str]) -> Self {
            let content = |name: &str| match name {
                "part-manifest.json" => LISTING.as_bytes().to_vec(),
                other => other.as_bytes().to_vec(),
            };
            let files = names.iter().map(|n| (n.to_string(), content(n))).collect();
            Self {
                files: RefCell::new(files),
                refused: Vec::new(),
                unreadable: None,
            }
        }

        fn listing(&self) -> Vec<String> {
            self.files.borrow().keys().cloned().collect()
        }
    }

    impl Entries for Memory {
        fn names(&self) -> Result<Vec<String>, PipelineError> {
            Ok(self.listing())
        }

        fn read(&self, name: &str) -> Result<Vec<u8>, PipelineError> {
            if self.unreadable.as_deref() == Some(name) {
                return Err(PipelineError::Zero("unreadable"));
            }
            Ok(self.files.borrow()[name].clone())
        }

        fn rename(&self, from: &str, to: &str) -> Result<(), PipelineError> {
            if self.refused.iter().any(|r| r == to) {
                return Err(PipelineError::Zero("refused"));
            }
            let bytes = self.files.borrow_mut().remove(from).unwrap();
            self.files.borrow_mut().insert(to.to_string(), bytes);
            Ok(())
        }

        fn remove(&self, name: &str) -> Result<(), PipelineError> {
            self.files.borrow_mut().remove(name);
            Ok(())
        }

        fn settle(&self) -> Result<(), PipelineError> {
            Ok(())
        }

        fn location(&self, name: &str) -> String {
            name.to_string()
        }
    }

    const EARLIER: [&str; 4] = [
        "notes.txt",
        "part-00000.parquet",
        "part-00001.parquet",
        "part-manifest.json",
    ];

    fn new_parts(count: usize) -> Vec<String> {
        (0..count)
            .map(|i| super::super::part_name("part-", i))
            .collect()
    }

    #[test]
    fn the_earlier_run_comes_back_whole_after_a_failed_commit() {
        let entries = Memory::with(&EARLIER);
        let aside = SetAside::begin(&entries, "part-", "n", &new_parts(1)).unwrap();
        assert_eq!(
            entries.listing(),
            [
                ".part-00000.parquet.n.old.tmp",
                ".part-manifest.json.n.old.tmp",
                "notes.txt",
                "part-00001.parquet"
            ],
            "the manifest is withdrawn and the replaced part set aside; the stale part stays"
        );
        aside.restore();
        assert_eq!(entries.listing(), EARLIER);
        assert_eq!(
            entries.read("part-manifest.json").unwrap(),
            LISTING.as_bytes()
        );
    }

    #[test]
    fn a_committed_run_removes_the_earlier_one() {
        let entries = Memory::with(&EARLIER);
        let aside = SetAside::begin(&entries, "part-", "n", &new_parts(1)).unwrap();
        entries
            .files
            .borrow_mut()
            .insert("part-00000.parquet".into(), b"new".to_vec());
        entries
            .files
            .borrow_mut()
            .insert("part-manifest.json".into(), b"new".to_vec());
        aside.discard();
        assert_eq!(
            entries.listing(),
            ["notes.txt", "part-00000.parquet", "part-manifest.json"]
        );
        assert_eq!(entries.read("part-00000.parquet").unwrap(), b"new");
    }

    /// Files named like parts that no manifest lists (pyarrow's, another tool's) stay, with a
    /// manifest and without one; only what the new run writes over is set aside.
    #[test]
    fn files_the_earlier_manifest_does_not_list_stay() {
        let unlisted = ["part-0.parquet", "part-00007.parquet"];
        for manifest in [true, false] {
            let mut names = vec!["part-00000.parquet"];
            names.extend(unlisted);
            names.extend(manifest.then_some("part-manifest.json"));
            let entries = Memory::with(&names);
            let aside = SetAside::begin(&entries, "part-", "n", &new_parts(1)).unwrap();
            entries
                .files
                .borrow_mut()
                .insert("part-00000.parquet".into(), b"new".to_vec());
            aside.discard();
            let mut expected = vec!["part-0.parquet", "part-00000.parquet", "part-00007.parquet"];
            expected.retain(|n| entries.files.borrow().contains_key(*n));
            assert_eq!(expected.len(), 3, "{manifest}: {:?}", entries.listing());
        }
    }

    /// An earlier manifest that cannot be read fails the commit before anything moved; one
    /// that is not a manifest lists nothing, so only what the new run writes over is set aside.
    #[test]
    fn an_unreadable_manifest_fails_and_a_foreign_one_lists_nothing() {
        let mut entries = Memory::with(&EARLIER);
        entries.unreadable = Some("part-manifest.json".into());
        assert!(SetAside::begin(&entries, "part-", "n", &new_parts(1)).is_err());
        assert_eq!(entries.listing(), EARLIER);
        let entries = Memory::with(&EARLIER);
        entries
            .files
            .borrow_mut()
            .insert("part-manifest.json".into(), b"not json".to_vec());
        let aside = SetAside::begin(&entries, "part-", "n", &new_parts(1)).unwrap();
        aside.discard();
        assert!(entries
            .listing()
            .contains(&"part-00001.parquet".to_string()));
    }

    #[test]
    fn a_failure_while_setting_aside_puts_back_what_moved() {
        let mut entries = Memory::with(&EARLIER);
        entries.refused = vec![".part-00001.parquet.n.old.tmp".into()];
        assert!(SetAside::begin(&entries, "part-", "n", &new_parts(2)).is_err());
        assert_eq!(entries.listing(), EARLIER);
    }
}
