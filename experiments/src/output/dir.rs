//! [`OutputDir`]: a run's files in a local directory.

use std::io::Write;
use std::path::{Path, PathBuf};

use shredlab_writer::{FileOptions, PendingFile};

use crate::error::PipelineError;
use crate::gate::{Digest, ReadBack};
use crate::output::identity::check_neighbours;
use crate::output::replace::{Entries, SetAside};
use crate::output::{
    blocking_entry, is_own_temporary, is_part_file, nonce, part_name, CommittedFile, Manifest,
    Output, RunIdentity, SinkFactory, SyncMode,
};
use crate::shard::Shard;

/// A directory of `PREFIX-NNNNN.parquet` files, one per writer, each written under a temporary
/// name and renamed only after the whole run succeeded, then `PREFIXmanifest.json`, written last,
/// which lists them: a set of part files without its manifest is not a finished run. The prefix
/// is `part-` for a whole run and names the shard otherwise, so the shards of one run can share a
/// directory. An earlier run of the same files stays whole until the new one is committed (see
/// [`Output::commit`]).
#[derive(Debug, Clone)]
pub struct OutputDir {
    dir: PathBuf,
    shard: Shard,
    prefix: String,
    overwrite: bool,
    nonce: String,
    files: FileOptions,
    sync: SyncMode,
}

impl OutputDir {
    /// Checks `dir` and creates it if missing. A directory holding anything but other shards'
    /// files is refused unless `overwrite`, so no earlier output is replaced by accident. With
    /// `overwrite`, the temporary files killed runs of this run (or shard) left are removed at
    /// once; its earlier part files and manifest stay until the new ones are committed.
    pub fn prepare(
        dir: impl Into<PathBuf>,
        overwrite: bool,
        shard: Shard,
    ) -> Result<Self, PipelineError> {
        let dir = dir.into();
        if dir.exists() && !dir.is_dir() {
            return Err(PipelineError::OutputNotDirectory(dir));
        }
        // A link to nothing: creating the directory would fail with a bare "File exists".
        if let (false, Ok(target)) = (dir.exists(), std::fs::read_link(&dir)) {
            return Err(PipelineError::OutputDanglingLink { dir, target });
        }
        std::fs::create_dir_all(&dir).map_err(|source| PipelineError::OutputDirectory {
            dir: dir.clone(),
            source,
        })?;
        let output = Self {
            dir,
            shard,
            prefix: shard.file_prefix(),
            overwrite,
            nonce: nonce(),
            files: FileOptions::default(),
            sync: SyncMode::End,
        };
        let names = output.names()?;
        // Only regular files are a run's: a directory named like a temporary file is left
        // alone, as the user's.
        let is_file = |name: &str| {
            std::fs::symlink_metadata(output.dir.join(name)).is_ok_and(|m| m.is_file())
        };
        if overwrite {
            let temporaries = names.iter().filter(|n| is_own_temporary(n, &output.prefix));
            for name in temporaries.filter(|n| is_file(n)) {
                output.remove(name)?;
            }
        } else if let Some((example, found)) = blocking_entry(names, &output.prefix, shard, is_file)
        {
            return Err(PipelineError::OutputNotEmpty {
                example,
                dir: output.dir,
                what: found.what(),
                fix: found.fix(),
            });
        }
        Ok(output)
    }

    /// Files written to disk as `files` says. Where it asks for direct writes, a probe file,
    /// opened and written as the part files will be, tells whether the directory's file system
    /// takes them; where it does not, this says so on stderr and the files go through the page
    /// cache (see [`PendingFile::with_direct_writes`]).
    pub fn with_file_options(self, files: FileOptions) -> Result<Self, PipelineError> {
        let Some(bytes) = files.direct_write_buffer else {
            return Ok(Self { files, ..self });
        };
        // Named as the run's own temporary file, so that one a killed run left is removed by
        // `--overwrite` and never taken for a foreign file or another shard's.
        let probe = PendingFile::create(self.dir.join(format!("{}direct-writes", self.prefix)))?;
        let mut probe = probe.with_direct_writes(bytes);
        // The open can succeed where aligned writes then fail: write one block's worth.
        let direct =
            probe.writes_direct() && probe.write_all(&[0]).and_then(|()| probe.flush()).is_ok();
        if !direct {
            eprintln!(
                "note: {} takes no direct writes (O_DIRECT): the files go through the page cache",
                self.dir.display()
            );
        }
        let files = FileOptions {
            direct_write_buffer: files.direct_write_buffer.filter(|_| direct),
            ..files
        };
        Ok(Self { files, ..self })
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

    /// Renames every file to its final name, then writes the manifest. If a step fails, every
    /// file this run put under a final name is removed again: the earlier run's files were set
    /// aside, so nothing else can be there.
    fn install(
        &self,
        sized: Vec<(PendingFile, u64)>,
        run: &RunIdentity,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
        let mut installed = Vec::with_capacity(sized.len() + 1);
        let result = self.rename_then_list(sized, run, rows, digest, &mut installed);
        if result.is_err() {
            for path in &installed {
                // Best effort: the error that failed the commit is what the user must see.
                let _ = std::fs::remove_file(path);
            }
        }
        result
    }

    /// The steps of [`OutputDir::install`], recording in `installed` every final path they may
    /// have filled before it fails (a rename whose directory sync failed left its file there).
    fn rename_then_list(
        &self,
        sized: Vec<(PendingFile, u64)>,
        run: &RunIdentity,
        rows: u64,
        digest: Option<Digest>,
        installed: &mut Vec<PathBuf>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
        let mut committed = Vec::with_capacity(sized.len());
        for (sink, bytes) in sized {
            installed.push(sink.path().to_path_buf());
            let path = sink.commit()?;
            committed.push(CommittedFile {
                location: path.display().to_string(),
                name: file_name(&path),
                bytes,
            });
        }
        installed.push(self.dir.join(self.manifest_name()));
        self.write_manifest(&committed, run, rows, digest)?;
        Ok(committed)
    }

    fn write_manifest(
        &self,
        files: &[CommittedFile],
        run: &RunIdentity,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<(), PipelineError> {
        let mut file = self.pending(self.dir.join(self.manifest_name()))?;
        file.write_all(&Manifest::json_of(files, run, rows, digest))
            .map_err(|e| self.io_error(e))?;
        file.commit()?;
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

impl Entries for OutputDir {
    fn names(&self) -> Result<Vec<String>, PipelineError> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(|e| self.io_error(e))? {
            let entry = entry.map_err(|e| self.io_error(e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, PipelineError> {
        let path = self.dir.join(name);
        // Opening a named pipe waits for a writer: a run that checks its neighbours' manifests
        // would hang, deaf to signals, in `open`.
        let metadata = std::fs::metadata(&path).map_err(|e| self.io_error(e))?;
        if !metadata.is_file() {
            return Err(self.io_error(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a regular file: move it out of the directory",
                    path.display()
                ),
            )));
        }
        std::fs::read(&path).map_err(|e| self.io_error(e))
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), PipelineError> {
        let (from, to) = (self.dir.join(from), self.dir.join(to));
        std::fs::rename(&from, &to).map_err(|source| PipelineError::Rename { from, to, source })
    }

    fn remove(&self, name: &str) -> Result<(), PipelineError> {
        let path = self.dir.join(name);
        std::fs::remove_file(&path).map_err(|source| PipelineError::RemoveStale { path, source })
    }

    /// Syncs the directory, so the earlier run is out of the way before new names appear.
    fn settle(&self) -> Result<(), PipelineError> {
        match self.sync {
            SyncMode::End => std::fs::File::open(&self.dir)
                .and_then(|dir| dir.sync_all())
                .map_err(|e| self.io_error(e)),
            SyncMode::None => Ok(()),
        }
    }

    fn location(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}

impl SinkFactory for OutputDir {
    type Sink = PendingFile;

    fn create(&self, index: usize) -> Result<PendingFile, PipelineError> {
        Ok(self
            .pending(self.part_path(index))?
            .with_options(&self.files))
    }
}

impl Output for OutputDir {
    fn read_back(&self, sinks: &mut [PendingFile]) -> Result<ReadBack, PipelineError> {
        // Bytes still in a writer's buffer would be missing from what the gate reads.
        for sink in sinks.iter_mut() {
            sink.flush().map_err(|e| self.io_error(e))?;
        }
        let paths: Vec<_> = sinks.iter().map(PendingFile::temp_path).collect();
        Ok(ReadBack::of_parquet_files(&paths)?)
    }

    fn check_neighbours(&self, run: &RunIdentity) -> Result<(), PipelineError> {
        check_neighbours(self, &self.prefix, run, self.overwrite)
    }

    /// Every file synced, the earlier run set aside, every file renamed, the manifest written,
    /// the earlier run removed (see [`Output::commit`]).
    fn commit(
        &self,
        sinks: Vec<PendingFile>,
        run: &RunIdentity,
        rows: u64,
        digest: Option<Digest>,
    ) -> Result<Vec<CommittedFile>, PipelineError> {
        let mut sized = Vec::with_capacity(sinks.len());
        for mut sink in sinks {
            sink.sync()?;
            let bytes = sink.file().metadata().map_err(|e| self.io_error(e))?.len();
            sized.push((sink, bytes));
        }
        let names: Vec<String> = sized
            .iter()
            .map(|(sink, _)| file_name(sink.path()))
            .collect();
        let earlier = SetAside::begin(self, &self.prefix, &self.nonce, &names)?;
        match self.install(sized, run, rows, digest) {
            Ok(committed) => {
                earlier.discard();
                Ok(committed)
            }
            Err(error) => {
                earlier.restore();
                Err(error)
            }
        }
    }
}

/// The last component of `path`, as text.
fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}
