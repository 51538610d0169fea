//! How a run's files are encoded: Parquet writer properties, and the parallel writer's memory
//! settings.

use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesBuilder};
use parquet::schema::types::ColumnPath;
use shredlab_writer::ParallelOptions;

use crate::catalog::Optimization;
use crate::column_writing::{apply_columns, ColumnSettings};
use crate::compression::CompressionSpec;
use crate::optimizations::Optimizations;

/// The Parquet path of the phone-number leaf (`phones` list, element `item`, field `number`).
pub fn phone_number_path() -> ColumnPath {
    ColumnPath::from(vec![
        "phones".to_string(),
        "list".to_string(),
        "item".to_string(),
        "number".to_string(),
    ])
}

/// The Parquet path of the phone-type leaf.
pub fn phone_type_path() -> ColumnPath {
    ColumnPath::from(vec![
        "phones".to_string(),
        "list".to_string(),
        "item".to_string(),
        "phone_type".to_string(),
    ])
}

/// The Parquet path of the `name` column.
pub fn name_path() -> ColumnPath {
    ColumnPath::from("name")
}

/// The dictionary page limit of `name` under [`Optimization::NameDictionary`]: room for the
/// distinct names of a row group of up to 1,048,576 rows (each costs its bytes plus a 4-byte
/// length in the page), where arrow-rs's 1 MiB default overflows within the first ~100K rows.
pub const NAME_DICTIONARY_PAGE_BYTES: usize = 8 << 20;

/// Default properties with `compression`, fitted to the data when the optimization is on:
/// the unique phone numbers gain nothing from a dictionary (it only grows until it is abandoned)
/// or from min/max statistics (every page spans the whole range); the Zipfian names have too
/// many distinct values for the 1 MiB dictionary page too (it is abandoned within the first
/// ~100K rows of every row group), and as they are unsorted and nearly every first name occurs
/// in every row group, each chunk's min/max would span the whole vocabulary and prune nothing,
/// so they get no statistics either. `phone_type`, three values, keeps its dictionary, and its
/// statistics unless [`Optimization::NoTypeStatistics`] drops them.
pub fn writer_properties(
    optimizations: Optimizations,
    compression: CompressionSpec,
    memory: &WriterMemory,
) -> WriterProperties {
    properties_builder(optimizations, compression, memory).build()
}

/// [`writer_properties`] with `columns`' settings (a spec's) over them: what a run's
/// `PipelineConfig::writer_properties` gives its files.
pub fn writer_properties_with(
    optimizations: Optimizations,
    compression: CompressionSpec,
    memory: &WriterMemory,
    columns: &ColumnSettings,
) -> WriterProperties {
    apply_columns(
        columns,
        properties_builder(optimizations, compression, memory),
    )
    .build()
}

/// [`writer_properties`], not yet built.
fn properties_builder(
    optimizations: Optimizations,
    compression: CompressionSpec,
    memory: &WriterMemory,
) -> WriterPropertiesBuilder {
    let builder = WriterProperties::builder()
        .set_compression(compression.codec())
        .set_max_row_group_row_count(Some(memory.row_group_rows));
    let builder = if optimizations.has(Optimization::FittedWriterProperties) {
        builder
            .set_column_dictionary_enabled(phone_number_path(), false)
            .set_column_statistics_enabled(phone_number_path(), EnabledStatistics::None)
            .set_column_dictionary_enabled(name_path(), false)
            .set_column_statistics_enabled(name_path(), EnabledStatistics::None)
    } else {
        builder
    };
    let builder = if optimizations.has(Optimization::NameDictionary) {
        builder
            .set_column_dictionary_enabled(name_path(), true)
            .set_column_dictionary_page_size_limit(name_path(), NAME_DICTIONARY_PAGE_BYTES)
    } else {
        builder
    };
    if optimizations.has(Optimization::NoTypeStatistics) {
        builder.set_column_statistics_enabled(phone_type_path(), EnabledStatistics::None)
    } else {
        builder
    }
}

/// The settings that bound a writer's memory: the row-group size (every writer buffers a whole
/// row group's encoded pages until it closes) and, for the parallel writer, how many closed row
/// groups may still be encoding and how much Arrow data may wait for its encoders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterMemory {
    /// Rows per row group.
    pub row_group_rows: usize,
    /// Closed row groups still encoding while the next one fills (parallel writer).
    pub row_groups_in_flight: usize,
    /// Bytes of Arrow data that may wait for the encoders (parallel writer).
    pub budget_bytes: usize,
}

impl WriterMemory {
    /// The defaults of parquet's `ArrowWriter` and of `ParallelOptions`.
    pub fn upstream_defaults() -> Self {
        let parallel = ParallelOptions::default();
        Self {
            row_group_rows: parquet::file::properties::DEFAULT_MAX_ROW_GROUP_ROW_COUNT,
            row_groups_in_flight: parallel.row_groups_in_flight(),
            budget_bytes: parallel.memory_budget(),
        }
    }

    /// Experiment 21's bounded settings: 262,144-row row groups, 1 in flight, an 8 MiB queue.
    pub fn bounded() -> Self {
        Self {
            row_group_rows: 256 * 1024,
            row_groups_in_flight: 1,
            budget_bytes: 8 << 20,
        }
    }

    /// The parallel writer's options with `threads` encoders.
    pub fn parallel_options(&self, threads: usize) -> ParallelOptions {
        ParallelOptions::new()
            .with_threads(threads)
            .with_row_groups_in_flight(self.row_groups_in_flight)
            .with_memory_budget(self.budget_bytes)
    }
}
