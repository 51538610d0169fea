//! The manifest: the file, written last, that lists a finished run's files, what they hold and
//! which run they belong to.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::build_info::{BuildInfo, BUILD};
use crate::error::PipelineError;
use crate::gate::Digest;
use crate::output::RunIdentity;
use crate::shard::Shard;

/// One finished output file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedFile {
    /// Where it is: a path, or an object's URL.
    pub location: String,
    /// Its name beside the manifest.
    pub name: String,
    /// Its size.
    pub bytes: u64,
}

/// What `PREFIXmanifest.json` says: the run's files, what they hold, and which run (and part of
/// it) they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// File names in the directory, in writer order, with their sizes.
    pub files: Vec<ManifestFile>,
    /// Rows in all the files together.
    pub rows: u64,
    /// Whether the data gate read the files back and found the rows produced (`--verify`).
    pub verified: bool,
    /// The gate's digest of the files: only when `verified`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<Digest>,
    /// The run the files belong to, and which part of it they are.
    pub run: RunIdentity,
    /// The binary that wrote them.
    pub build: BuildInfo,
}

impl Manifest {
    /// The manifest's file name for a run (or shard) whose files are named `prefix...`.
    pub fn file_name(prefix: &str) -> String {
        format!("{prefix}manifest.json")
    }

    /// The manifest of `files`, committed by `run` with `rows` (and the gate's `digest` when it
    /// checked them), as the bytes of its JSON.
    pub fn json_of(
        files: &[CommittedFile],
        run: &RunIdentity,
        rows: u64,
        digest: Option<Digest>,
    ) -> Vec<u8> {
        let manifest = Manifest {
            files: files
                .iter()
                .map(|f| ManifestFile {
                    name: f.name.clone(),
                    bytes: f.bytes,
                })
                .collect(),
            rows,
            verified: digest.is_some(),
            digest,
            run: run.clone(),
            build: BUILD,
        };
        serde_json::to_vec_pretty(&manifest).expect("a manifest serializes")
    }

    /// The manifest of `shard`'s last committed run in `dir`, if there is one. Readers trust the
    /// files it lists: part files without a manifest are not a finished run.
    pub fn read(dir: &Path, shard: Shard) -> Result<Option<Manifest>, PipelineError> {
        let path = dir.join(Self::file_name(&shard.file_prefix()));
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(PipelineError::OutputDirectory {
                    dir: dir.to_path_buf(),
                    source,
                })
            }
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| PipelineError::BadManifest {
                path,
                message: error.to_string(),
            })
    }

    /// The paths of the files it lists, in `dir`.
    pub fn paths(&self, dir: &Path) -> Vec<PathBuf> {
        self.files.iter().map(|f| dir.join(&f.name)).collect()
    }
}

/// One file of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFile {
    /// Its name in the output directory.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
}
