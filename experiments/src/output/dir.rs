//! [`OutputDir`]: a run's files in a local directory.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use shredlab_writer::PendingFile;

use crate::error::PipelineError;
use crate::gate::{Digest, ReadBack};
use crate::output::{
    blocks_new_run, cleared_by_overwrite, is_part_file, part_name, CommittedFile, Manifest, Output,
    SinkFactory, SyncMode,
};
use crate::shard::Shard;

/// A directory of `PREFIX-NNNNN.parquet` files, one per writer, each written under a temporary
/// name and renamed only after the whole run succeeded, then `PREFIXmanifest.json`, written last,
/// which lists them: a set of part files without its manifest is not a finished run. The prefix
/// is `part-` for a whole run and names the shard otherwise, so the shards of one run can share a
/// directory.
#[derive(Debug, Clone)]
pub struct OutputDir {
    dir: PathBuf,
    shard: Shard,
    prefix: String,
    writeback_step: Option<u64>,
    sync: SyncMode,
}

impl OutputDir {
    /// Checks `dir` and creates it if missing. A directory holding anything but other shards'
    /// files is refused unless `overwrite`, so no earlier output is replaced by accident. With
    /// `overwrite`, this run's (or shard's) manifest and temporary files left by killed runs are
    /// removed at once; its old part files go when the new ones are committed.
    pub fn prepare(
        dir: impl Into<PathBuf>,
        overwrite: bool,
        shard: Shard,
    ) -> Result<Self, PipelineError> {
        let dir = dir.into();
        if dir.exists() && !dir.is_dir() {
            return Err(PipelineError::OutputNotDirectory(dir));
        }
        std::fs::create_dir_all(&dir).map_err(|source| PipelineError::OutputDirectory {
            dir: dir.clone(),
            source,
        })?;
        let output = Self {
            dir,
            shard,
            prefix: shard.file_prefix(),
            writeback_step: None,
            sync: SyncMode::End,
        };
        if overwrite {
            // From here until this run's commit, the old part files are not vouched for.
            output.remove_where(|name| cleared_by_overwrite(name, &output.prefix))?;
        } else if let Some(example) = output
            .names()?
            .into_iter()
            .find(|name| blocks_new_run(name, &output.prefix, shard))
        {
            return Err(PipelineError::OutputNotEmpty {
                example,
                dir: output.dir,
            });
        }
        Ok(output)
    }

    /// Files that start their writeback to disk every `step` bytes (`None`: at the final sync).
    pub fn with_early_writeback(self, step: Option<u64>) -> Self {
        Self {
            writeback_step: step,
            ..self
        }
    }

    /// Files committed with `sync` (the default is [`SyncMode::End`]).
    pub fn with_sync(self, sync: SyncMode) -> Self {
        Self { sync, ..self }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The final path of writer `index`'s file.
    pub fn part_path(&self, index: usize) -> PathBuf {
        self.dir.join(part_name(&self.prefix, index))
    }

    /// The manifest's file name: `part-manifest.json`, or the shard's prefix and `manifest.json`.
    pub fn manifest_name(&self) -> String {
        Manifest::file_name(&self.prefix)
    }

    /// The manifest of the last committed run (or shard), if there is one.
    pub fn manifest(&self) -> Result<Option<Manifest>, PipelineError> {
        Manifest::read(&self.dir, self.shard)
    }

    /// Every committed part file of this run (or shard) in the directory, sorted.
    pub fn part_files(&self) -> Result<Vec<PathBuf>, PipelineError> {
        let mut parts: Vec<PathBuf> = self
            .names()?
            .into_iter()
            .filter(|name| is_part_file(name, &self.prefix))
            .map(|name| self.dir.join(name))
            .collect();
        parts.sort();
        Ok(parts)
    }

    fn write_manifest(
        &self,
        files: &[CommittedFile],
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<(), PipelineError> {
        let mut file = self.pending(self.dir.join(self.manifest_name()))?;
        file.write_all(&Manifest::json_of(files, rows, digest))
            .map_err(|e| self.io_error(e))?;
        file.commit()?;
        Ok(())
    }

    /// The names of the directory's entries.
    fn names(&self) -> Result<Vec<String>, PipelineError> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(|e| self.io_error(e))? {
            let entry = entry.map_err(|e| self.io_error(e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    /// Removes the entries whose names match `doomed`.
    fn remove_where(&self, doomed: impl Fn(&str) -> bool) -> Result<(), PipelineError> {
        for name in self.names()?.into_iter().filter(|n| doomed(n)) {
            let path = self.dir.join(name);
            std::fs::remove_file(&path)
                .map_err(|source| PipelineError::RemoveStale { path, source })?;
        }
        Ok(())
    }

    /// A pending file at `path` that honours the sync mode.
    fn pending(&self, path: PathBuf) -> Result<PendingFile, PipelineError> {
        let file = PendingFile::create(path)?;
        Ok(match self.sync {
            SyncMode::End => file,
            SyncMode::None => file.without_sync(),
        })
    }

    fn io_error(&self, source: std::io::Error) -> PipelineError {
        PipelineError::OutputDirectory {
            dir: self.dir.clone(),
            source,
        }
    }
}

impl SinkFactory for OutputDir {
    type Sink = PendingFile;

    fn create(&self, index: usize) -> Result<PendingFile, PipelineError> {
        let file = self.pending(self.part_path(index))?;
        Ok(match self.writeback_step {
            Some(step) => file.with_early_writeback(step),
            None => file,
        })
    }
}

impl Output for OutputDir {
    fn read_back(&self, sinks: &mut [PendingFile]) -> Result<ReadBack, PipelineError> {
        let paths: Vec<_> = sinks.iter().map(PendingFile::temp_path).collect();
        Ok(ReadBack::of_parquet_files(&paths)?)
    }

    /// Every file synced, then renamed, then the manifest written (see [`Output::commit`]).
    fn commit(
        &self,
        sinks: Vec<PendingFile>,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
        let mut sized = Vec::with_capacity(sinks.len());
        for mut sink in sinks {
            sink.sync()?;
            let bytes = sink.file().metadata().map_err(|e| self.io_error(e))?.len();
            sized.push((sink, bytes));
        }
        let mut renamed: Vec<PathBuf> = Vec::with_capacity(sized.len());
        let mut committed = Vec::with_capacity(sized.len());
        for (sink, bytes) in sized {
            match sink.commit() {
                Ok(path) => {
                    committed.push(CommittedFile {
                        location: path.display().to_string(),
                        name: file_name(&path),
                        bytes,
                    });
                    renamed.push(path);
                }
                Err(error) => {
                    for path in &renamed {
                        // Best effort: the rename error below is what the user must see.
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(error.into());
                }
            }
        }
        let keep: HashSet<&str> = committed.iter().map(|f| f.name.as_str()).collect();
        self.remove_where(|name| is_part_file(name, &self.prefix) && !keep.contains(name))?;
        self.write_manifest(&committed, rows, digest)?;
        Ok(committed)
    }
}

/// The last component of `path`, as text.
fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}
