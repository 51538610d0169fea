//! Parquet writer properties for a run.

use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use crate::catalog::{Optimization, Optimizations};
use crate::compression::CompressionSpec;

/// The Parquet path of the phone-number leaf (`phones` list, element `item`, field `number`).
pub fn phone_number_path() -> ColumnPath {
    ColumnPath::from(vec![
        "phones".to_string(),
        "list".to_string(),
        "item".to_string(),
        "number".to_string(),
    ])
}

/// The Parquet path of the `name` column.
pub fn name_path() -> ColumnPath {
    ColumnPath::from("name")
}

/// Default properties with `compression`, fitted to the data when the optimization is on:
/// the unique phone numbers gain nothing from a dictionary (it only grows until it is abandoned)
/// or from min/max statistics (every page spans the whole range); the Zipfian names have too
/// many distinct values for the 1 MiB dictionary page too (it is abandoned within the first
/// ~100K rows of every row group), and as they are unsorted and nearly every first name occurs
/// in every row group, each chunk's min/max would span the whole vocabulary and prune nothing,
/// so they get no statistics either. `phone_type`, three values, keeps its dictionary and
/// statistics.
pub fn writer_properties(
    optimizations: Optimizations,
    compression: CompressionSpec,
) -> WriterProperties {
    let builder = WriterProperties::builder().set_compression(compression.codec());
    let builder = if optimizations.has(Optimization::FittedWriterProperties) {
        builder
            .set_column_dictionary_enabled(phone_number_path(), false)
            .set_column_statistics_enabled(phone_number_path(), EnabledStatistics::None)
            .set_column_dictionary_enabled(name_path(), false)
            .set_column_statistics_enabled(name_path(), EnabledStatistics::None)
    } else {
        builder
    };
    builder.build()
}
