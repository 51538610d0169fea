//! A workload read from a spec file (`pipeline --spec FILE`), and the batch source that
//! generates it. The contacts table is the other workload, in [`crate::source`].

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use shredlab_generator::spec::{parse, SpecGenerator, SpecPaths};
use xxhash_rust::xxh3::xxh3_128;

use crate::column_writing::{spec_columns, ColumnSettings};
use crate::error::PipelineError;
use crate::source::{BatchMaker, BatchSource};

/// A spec file, read and checked, with the generator of its rows for the run's seed.
#[derive(Debug, Clone)]
pub struct SpecWorkload {
    /// The file it came from.
    pub path: PathBuf,
    /// XXH3-128 of the file's bytes.
    definition: u128,
    generator: SpecGenerator,
    /// The writer settings the spec gives its columns.
    columns: ColumnSettings,
}

/// The most bytes a spec file may have: a schema and its parameters take kilobytes, and a
/// million listed values a few megabytes, while parsing holds about fifty times the file's
/// size (a 10 MB list of weights took 558 MB).
const SPEC_FILE_LIMIT: u64 = 16 << 20;

/// The text of the spec file at `path`, read no further than [`SPEC_FILE_LIMIT`]: a file
/// past it (or a device such as /dev/zero) is refused rather than read into memory.
fn read_spec_text(path: &Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(SPEC_FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    // The size first: a cut through a character would read as bad UTF-8.
    if bytes.len() as u64 > SPEC_FILE_LIMIT {
        return Err(format!(
            "the file is larger than {} MiB, more than any spec needs: list fewer values (a cardinality generates a vocabulary of up to 4,194,304 entries without listing them)",
            SPEC_FILE_LIMIT >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|_| "stream did not contain valid UTF-8".to_string())
}

impl SpecWorkload {
    /// Reads and checks `path` and builds its generator for `seed`, with the faster paths
    /// `paths` turns on (entries 37 on, `spec-*`: the same rows).
    pub fn load(path: &Path, seed: u64, paths: SpecPaths) -> Result<Self, PipelineError> {
        let failed = |message: String| PipelineError::Spec {
            path: path.to_path_buf(),
            message,
        };
        let text = read_spec_text(path).map_err(failed)?;
        let spec = parse(&text).map_err(|e| failed(e.to_string()))?;
        let generator = SpecGenerator::new(&spec, seed)
            .map_err(|e| failed(e.to_string()))?
            .with_paths(paths);
        let columns = spec_columns(&spec, &generator.schema()).map_err(failed)?;
        Ok(Self {
            path: path.to_path_buf(),
            definition: xxh3_128(text.as_bytes()),
            generator,
            columns,
        })
    }

    /// XXH3-128 of the spec file's bytes: the same for every copy of the file, wherever it is
    /// read from.
    pub fn definition(&self) -> u128 {
        self.definition
    }

    /// Fails when batches of `rows` rows could overflow a column's 32-bit offsets.
    pub fn check_batch_rows(&self, rows: usize) -> Result<(), PipelineError> {
        self.generator
            .check_batch_rows(rows)
            .map_err(|e| PipelineError::Spec {
                path: self.path.clone(),
                message: format!("{e} (this run's --batch-size is {rows})"),
            })
    }

    /// The writer settings the spec gives its columns (its fields' `"parquet"` objects).
    pub fn columns(&self) -> &ColumnSettings {
        &self.columns
    }

    /// The workload's generator.
    pub fn generator(&self) -> &SpecGenerator {
        &self.generator
    }

    /// The batch source of the workload.
    pub fn source(&self) -> SpecSource<'_> {
        SpecSource(&self.generator)
    }
}

/// Two workloads are the same when they come from the same file.
impl PartialEq for SpecWorkload {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

/// Batches of a spec workload: every producer shares the generator, which holds no mutable
/// state.
#[derive(Debug, Clone, Copy)]
pub struct SpecSource<'a>(&'a SpecGenerator);

impl<'a> SpecSource<'a> {
    /// The batches of `generator`.
    pub fn new(generator: &'a SpecGenerator) -> Self {
        Self(generator)
    }
}

impl BatchSource for SpecSource<'_> {
    fn schema(&self) -> SchemaRef {
        self.0.schema()
    }

    fn maker(&self) -> Box<dyn BatchMaker + '_> {
        Box::new(*self)
    }
}

impl BatchMaker for SpecSource<'_> {
    fn make(&mut self, rows: Range<u64>) -> RecordBatch {
        self.0
            .batch(rows)
            .expect("the batch size passed check_batch_rows when the run was resolved")
    }
}
