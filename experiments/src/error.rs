//! Everything that can stop a pipeline run, with messages that say what to do.

use std::path::PathBuf;

use shredlab_generator::{ConfigError, PHONE_ID_DIGITS};
use shredlab_writer::PendingFileError;
use thiserror::Error;

use crate::alloc::UnknownAllocator;
use crate::catalog::CatalogError;
use crate::gate::{Digest, GateError};

/// A pipeline run that could not start or did not finish.
#[derive(Debug, Error)]
pub enum PipelineError {
    /// A count option is zero.
    #[error("--{0} must be at least 1")]
    Zero(&'static str),
    /// A size or count option is beyond what a run can use.
    #[error("--{flag} {value} is too large: at most {max}")]
    TooLarge {
        /// The option, without its dashes.
        flag: &'static str,
        /// The value given.
        value: u64,
        /// The largest value accepted.
        max: u64,
    },
    /// A setting that fused row groups have no use for.
    #[error("{0}")]
    NotWithFusedRowGroups(&'static str),
    /// A setting of the parallel writer was given for a run without it.
    #[error("--{0} sets the parallel writer, which this run does not use: choose experiment 17 or later, or add --enable parallel-writer")]
    ParallelWriterOnly(&'static str),
    /// The shard holds no rows: more parts than rows.
    #[error("--part {part} of --parts {parts} holds none of the {rows} rows: use at most {rows} parts, or more rows")]
    EmptyShard {
        /// The shard index.
        part: u64,
        /// The shard count.
        parts: u64,
        /// The rows of the whole run.
        rows: u64,
    },
    /// `--verify` reads the files back, and `--sink null` or `count` writes none.
    #[error("--verify reads the files back, but --sink null and --sink count write none: drop one of the two")]
    VerifyWithoutFiles,
    /// The shard index is not below the shard count.
    #[error("--part {part} is out of range for --parts {parts}: parts are numbered 0 to {}", parts - 1)]
    ShardOutOfRange {
        /// The index given.
        part: u64,
        /// The count given.
        parts: u64,
    },
    /// The spec file cannot be read or used.
    #[error("spec file {path}: {message}")]
    Spec {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the field's path.
        message: String,
    },
    /// Optimizations of the contacts generator were asked for a spec workload.
    #[error("--enable {}: these optimizations act on the contacts generator and mean nothing for a --spec workload; drop them", .0.join(","))]
    ContactsOnly(Vec<&'static str>),
    /// A contacts setting was given with a spec workload.
    #[error("--zipf-exponent shapes the contacts table; a --spec workload sets its distributions in the spec file")]
    SkewWithSpec,
    /// The skew configuration or row count is invalid.
    #[error("{}", skew_message(.0))]
    Skew(#[from] ConfigError),
    /// Unknown experiment or optimization.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// One optimization was both enabled and disabled.
    #[error("--enable and --disable both name {0}: keep it in one of the two")]
    EnabledAndDisabled(&'static str),
    /// Two allocators were enabled, and a process runs on one.
    #[error("--enable {}: a process runs on one allocator; enable one of them (an allocator enabled replaces the experiment's)", .0.join(","))]
    TwoAllocators(Vec<&'static str>),
    /// `SHREDLAB_ALLOCATOR` names no allocator.
    #[error(transparent)]
    AllocatorVariable(#[from] UnknownAllocator),
    /// The output path exists but is not a directory.
    #[error("output path {0} exists and is not a directory: choose a directory for --output")]
    OutputNotDirectory(PathBuf),
    /// The output path is a symbolic link to nothing.
    #[error("output path {dir} is a symbolic link to {target}, which does not exist: create {target}, or choose another directory for --output")]
    OutputDanglingLink {
        /// The path given.
        dir: PathBuf,
        /// Where the link points.
        target: PathBuf,
    },
    /// The output directory could not be created or read.
    #[error("cannot use output directory {dir}: {source}{}", full_disk_hint(&source.to_string()))]
    OutputDirectory {
        /// The directory.
        dir: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The output directory holds files and `--overwrite` was not given.
    #[error("output directory {dir} is not empty (it holds {example}{what}): {fix}, or choose an empty directory")]
    OutputNotEmpty {
        /// The directory.
        dir: PathBuf,
        /// One entry found there.
        example: String,
        /// What that entry is, said after its name (`Leftover::what`).
        what: &'static str,
        /// What to do about it (`Leftover::fix`).
        fix: &'static str,
    },
    /// `--output` is a URL of a kind this program does not write to.
    #[error("--output {url}: {problem}: {fix}")]
    OutputUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        problem: String,
        /// What to write instead.
        fix: String,
    },
    /// `--output s3://...` is not a usable object-store URL.
    #[error("--output {url} is not a usable S3 URL ({message}): write s3://BUCKET/PREFIX")]
    StoreUrl {
        /// The URL given.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// A request to the object store failed.
    #[error("{action} {url}: {message}{hint}")]
    Store {
        /// What was being done (`"cannot list"`, ...).
        action: &'static str,
        /// The object or prefix.
        url: String,
        /// The store client's error.
        message: String,
        /// What to check.
        hint: &'static str,
    },
    /// The output prefix holds objects and `--overwrite` was not given.
    #[error(
        "output {url} is not empty (it holds {example}{what}): {fix}, or choose an empty prefix"
    )]
    StoreNotEmpty {
        /// The prefix's URL.
        url: String,
        /// One object found there.
        example: String,
        /// What that object is, said after its name (`Leftover::what`).
        what: &'static str,
        /// What to do about it (`Leftover::fix`).
        fix: &'static str,
    },
    /// Another run's or shard's manifest beside this shard's output disagrees with this run.
    #[error("{manifest} belongs to another run ({differences}): write this run to another --output, or remove that run's files; to replace the shards one by one, pass --overwrite")]
    OtherRun {
        /// Where the other manifest is.
        manifest: String,
        /// How that run differs from this one.
        differences: String,
    },
    /// A manifest file is not what this program writes.
    #[error("{path} is not a shredlab manifest ({message}): remove it, or rerun with --overwrite")]
    BadManifest {
        /// The manifest file.
        path: PathBuf,
        /// What the JSON parser said.
        message: String,
    },
    /// An output file could not be created or committed.
    #[error(transparent)]
    OutputFile(#[from] PendingFileError),
    /// A file an earlier run left (a part file it had and this one does not replace, or a
    /// temporary file of a killed run) could not be removed.
    #[error("cannot remove {path}, left by an earlier run: {source}")]
    RemoveStale {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file of an earlier run could not be set aside during the commit, or put back.
    #[error("cannot rename {from} to {to}: {source}")]
    Rename {
        /// The file's name before.
        from: PathBuf,
        /// The name it was to get.
        to: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing a file failed: its sink refused bytes (disk full, I/O error) or encoding failed.
    #[error("file {file} failed: {source}{}", full_disk_hint(&source.to_string()))]
    FileFailed {
        /// The file's index (`part-NNNNN`).
        file: usize,
        /// The parquet crate's error.
        source: parquet::errors::ParquetError,
    },
    /// A generating thread (a producer, or a fused worker) panicked.
    #[error("{thread} panicked: {message}")]
    GeneratorPanicked {
        /// The thread's name: `producer-N` or `fused-N`.
        thread: String,
        /// The panic message.
        message: String,
    },
    /// A writer thread panicked.
    #[error("writer {writer} panicked: {message}")]
    WriterPanicked {
        /// The writer's index.
        writer: usize,
        /// The panic message.
        message: String,
    },
    /// A writer stopped taking batches without reporting why.
    #[error("writer {0} stopped before all batches were written")]
    WriterGone(usize),
    /// A producer or writer thread could not be started.
    #[error("cannot start a thread, {source}: use fewer --producers or --writers, or raise the process's thread limit (ulimit -u)")]
    Spawn {
        /// The operating system's error, naming the thread.
        source: std::io::Error,
    },
    /// `--counters` was asked for, but not even the software perf events open here.
    #[error("--counters: {0}; run without --counters")]
    Counters(String),
    /// `--timeline FILE` names a place no file can be written.
    #[error("--timeline {path}: {problem}: name another file, in an existing directory the run can write")]
    TimelinePath {
        /// The path given.
        path: PathBuf,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The run succeeded, but its timeline could not be written.
    #[error(
        "the run's files are committed, but its timeline {path} could not be written: {source}"
    )]
    Timeline {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The handlers that let SIGINT, SIGTERM and SIGHUP stop a run cleanly could not be
    /// installed.
    #[error("cannot install the SIGINT/SIGTERM/SIGHUP handlers: {source}")]
    SignalHandlers {
        /// The operating system's error.
        source: std::io::Error,
    },
    /// SIGINT, SIGTERM or SIGHUP arrived: the run stopped and committed nothing.
    #[error(
        "stopped by signal {signal}: nothing was committed and the temporary files and uploads were removed"
    )]
    Interrupted {
        /// The signal's number.
        signal: i32,
    },
    /// The run wrote fewer rows or batches than it was asked for.
    #[error("wrote {rows} rows in {batches} batches but {expected_rows} rows in {expected_batches} batches were asked for: nothing was committed (this is a bug; please report it with the command line)")]
    CountMismatch {
        /// Rows written.
        rows: u64,
        /// Batches written.
        batches: u64,
        /// Rows asked for.
        expected_rows: u64,
        /// Batches asked for.
        expected_batches: u64,
    },
    /// The process could not restart itself on the allocator the experiment needs.
    #[error("cannot restart on the {allocator} allocator: {source}")]
    Restart {
        /// The allocator wanted.
        allocator: &'static str,
        /// The exec error.
        source: std::io::Error,
    },
    /// The gate could not compute a digest.
    #[error(transparent)]
    Gate(#[from] GateError),
    /// The data read back differs from the data produced.
    #[error("data gate FAILED: produced {produced}, read back {read_back}; nothing was committed and the temporary files and uploads were removed")]
    GateMismatch {
        /// Digest of the batches the producers made.
        produced: Digest,
        /// Digest of the files read back.
        read_back: Digest,
    },
}

impl PipelineError {
    /// The process exit code for this error: 128 + the signal's number after SIGINT, SIGTERM
    /// or SIGHUP (130, 143, 129), as shells report a signal, and 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Interrupted { signal } => u8::try_from(128 + signal).unwrap_or(1),
            _ => 1,
        }
    }
}

/// The message of a skew error, naming the flag that set the value where there is one (the
/// generator's own messages name its configuration's fields).
fn skew_message(error: &ConfigError) -> String {
    match error {
        ConfigError::ZipfExponent(value) => format!(
            "--zipf-exponent {} is not usable: give a finite number >= 0 (1.0 is classic Zipf, 0 is uniform)",
            readable_number(*value)
        ),
        ConfigError::RowsBeyondIdSpace {
            rows,
            max_phones,
            max_rows,
        } => format!(
            "--rows {rows} is too many for the contacts: their phone numbers must stay unique in {PHONE_ID_DIGITS} digits, with up to {max_phones} per row; use at most {max_rows} rows"
        ),
        other => other.to_string(),
    }
}

/// `value` as a person reads it: plain for ordinary magnitudes, else in exponent form (1e300
/// written out plainly has 301 digits).
fn readable_number(value: f64) -> String {
    let plain = value == 0.0 || !value.is_finite() || (1e-6..1e15).contains(&value.abs());
    if plain {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

/// The fix for a full disk, when the error `text` says the disk is full.
fn full_disk_hint(text: &str) -> &'static str {
    if text.contains("No space left") || text.contains("os error 28") {
        " (the disk is full: free space or choose another --output)"
    } else {
        ""
    }
}

/// The message of a thread's panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string())
}
