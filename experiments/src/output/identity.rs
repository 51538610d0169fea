//! [`RunIdentity`]: which run a manifest's files belong to, recorded in every manifest, and the
//! check that keeps the shards of different runs from mixing in one output unnoticed.

use serde::{Deserialize, Serialize};
use shredlab_generator::SkewConfig;
use xxhash_rust::xxh3::xxh3_128;

use super::replace::Entries;
use super::{is_manifest_file, Manifest};
use crate::config::PipelineConfig;
use crate::error::PipelineError;

/// Which run a manifest's files belong to: the shards of one run agree on everything here but
/// their `part`, and together hold exactly the rows of one run with the same identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// What was generated: `contacts`, or the spec file's path as given.
    pub workload: String,
    /// XXH3-128 (hex) of what defines the workload: the spec file's bytes, or the contacts'
    /// settings (the name Zipf exponent and the other weights). Equal definitions generate equal
    /// rows, wherever the spec file was read from.
    pub definition: String,
    /// The seed.
    pub seed: u64,
    /// Rows of the whole run, every part together.
    pub rows: u64,
    /// This part's index, 0-based.
    pub part: u64,
    /// How many parts the run is split into (1: not sharded).
    pub parts: u64,
}

impl RunIdentity {
    /// The identity of `config`'s run and part.
    pub fn of(config: &PipelineConfig) -> Self {
        let (workload, definition) = match &config.spec {
            Some(spec) => (spec.path.display().to_string(), spec.definition()),
            None => ("contacts".to_string(), contacts_definition(&config.skew)),
        };
        Self {
            workload,
            definition: format!("{definition:032x}"),
            seed: config.seed,
            rows: config.rows,
            part: config.shard.index(),
            parts: config.shard.count(),
        }
    }

    /// How the run of `other` differs from this one, its part aside: empty when both are parts
    /// of one run.
    pub fn differences(&self, other: &RunIdentity) -> Vec<String> {
        let mut differences = Vec::new();
        if other.definition != self.definition {
            differences.push(format!(
                "it generated {} defined as {}, this run {} defined as {}: another spec file, or other contacts settings such as --zipf-exponent",
                other.workload, other.definition, self.workload, self.definition
            ));
        }
        for (what, theirs, ours) in [
            ("--seed", other.seed, self.seed),
            ("--rows", other.rows, self.rows),
            ("--parts", other.parts, self.parts),
        ] {
            if theirs != ours {
                differences.push(format!("{what} {theirs}, this run {ours}"));
            }
        }
        differences
    }
}

/// A digest of everything that shapes the contacts' rows besides the seed.
fn contacts_definition(skew: &SkewConfig) -> u128 {
    let text = format!(
        "contacts: {}% null names, name Zipf exponent {}, phone counts {:?} up to {}, phone shapes {:?}, phone types {:?}",
        skew.null_name_percent,
        skew.name_zipf_exponent,
        skew.phone_count_weights,
        skew.max_phones,
        skew.phone_shape_weights,
        skew.phone_type_weights,
    );
    xxh3_128(text.as_bytes())
}

/// The part of a manifest this check reads. An older pipeline's manifest has no `run`.
#[derive(Deserialize)]
struct Recorded {
    #[serde(default)]
    run: Option<RunIdentity>,
}

/// Checks every manifest among `entries` but the one of the files named `prefix...` against
/// `run` (see [`crate::output::Output::check_neighbours`]): one of another run is an error, or
/// with `overwrite` a warning.
pub(crate) fn check_neighbours<E: Entries + ?Sized>(
    entries: &E,
    prefix: &str,
    run: &RunIdentity,
    overwrite: bool,
) -> Result<(), PipelineError> {
    let own = Manifest::file_name(prefix);
    let neighbours = entries
        .names()?
        .into_iter()
        .filter(|name| is_manifest_file(name) && *name != own);
    for name in neighbours {
        let recorded = serde_json::from_slice::<Recorded>(&entries.read(&name)?);
        let differences = match recorded.ok().and_then(|r| r.run) {
            Some(theirs) => run.differences(&theirs),
            None => vec!["it does not say which run it belongs to: an older pipeline, or another program, wrote it".to_string()],
        };
        if differences.is_empty() {
            continue;
        }
        let manifest = entries.location(&name);
        let differences = differences.join("; ");
        if !overwrite {
            return Err(PipelineError::OtherRun {
                manifest,
                differences,
            });
        }
        eprintln!(
            "warning: {manifest} belongs to another run ({differences}): until that run's files are replaced or removed, the output mixes two runs"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(part: u64) -> RunIdentity {
        RunIdentity {
            workload: "contacts".into(),
            definition: format!("{:032x}", contacts_definition(&SkewConfig::default())),
            seed: 42,
            rows: 1000,
            part,
            parts: 3,
        }
    }

    #[test]
    fn parts_of_one_run_agree_and_others_are_named() {
        assert!(identity(0).differences(&identity(2)).is_empty());
        let other = RunIdentity {
            seed: 7,
            parts: 4,
            ..identity(1)
        };
        assert_eq!(
            identity(0).differences(&other),
            ["--seed 7, this run 42", "--parts 4, this run 3"]
        );
        let skew = SkewConfig {
            name_zipf_exponent: 0.5,
            ..SkewConfig::default()
        };
        let skewed = RunIdentity {
            definition: format!("{:032x}", contacts_definition(&skew)),
            ..identity(1)
        };
        let said = identity(0).differences(&skewed).join("; ");
        assert!(said.contains("--zipf-exponent"), "{said}");
    }
}
