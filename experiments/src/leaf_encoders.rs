//! Which column encoder wrote each leaf of a run's files, for the report: shredlab's own pages,
//! shredlab's levels with parquet's typed writer, or parquet's `ArrowColumnWriter`.

use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::errors::ParquetError;
use serde::Serialize;
use shredlab_writer::encode::ColumnEncoder;
use shredlab_writer::OrderedRowGroupWriter;

use crate::catalog::Optimization;
use crate::config::PipelineConfig;

/// Leaf paths (`emails.list.item`) by the encoder that writes them, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LeafEncoders {
    /// Pages written by shredlab's encoder: levels, values, statistics.
    pub native_pages: Vec<String>,
    /// Levels computed by shredlab's encoder, pages by parquet's typed column writer.
    pub native_levels: Vec<String>,
    /// Written by parquet's `ArrowColumnWriter`.
    pub arrow_rs: Vec<String>,
}

/// The column encoder of `config`'s files: shredlab's with catalog entry 36 (which needs the
/// fused row groups' writers), parquet's in every other design.
pub(crate) fn column_encoder(config: &PipelineConfig) -> ColumnEncoder {
    match config.optimizations.has(Optimization::NativeEncoder) {
        true => ColumnEncoder::Native,
        false => ColumnEncoder::ArrowRs,
    }
}

impl LeafEncoders {
    /// The leaves of `schema` by encoder, as `config`'s files are written.
    ///
    /// # Errors
    ///
    /// What opening a writer of `schema` under the run's properties fails on.
    pub fn of_run(config: &PipelineConfig, schema: SchemaRef) -> Result<Self, ParquetError> {
        let properties = config.writer_properties();
        let options = ArrowWriterOptions::new().with_properties(properties);
        // Nothing is written: the plan is made when the writer opens.
        let encoder = column_encoder(config);
        let writer = OrderedRowGroupWriter::try_new_with_encoder(
            std::io::sink(),
            schema,
            options,
            1,
            encoder,
        )?;
        let leaves = writer.leaf_encoders();
        Ok(Self {
            native_pages: leaves.native_pages,
            native_levels: leaves.native_levels,
            arrow_rs: leaves.arrow_rs,
        })
    }

    /// One line per encoder that writes any leaf.
    pub fn human(&self) -> String {
        [
            ("shredlab pages", &self.native_pages),
            ("shredlab levels, parquet pages", &self.native_levels),
            ("arrow-rs", &self.arrow_rs),
        ]
        .into_iter()
        .filter(|(_, leaves)| !leaves.is_empty())
        .map(|(encoder, leaves)| format!("encoder {encoder}: {}\n", listed(leaves)))
        .collect()
    }
}

/// How many leaves, and the first few by name (a wide schema has hundreds).
fn listed(leaves: &[String]) -> String {
    const SHOWN: usize = 8;
    let names = leaves[..leaves.len().min(SHOWN)].join(", ");
    match leaves.len().checked_sub(SHOWN) {
        Some(rest) if rest > 0 => format!("{} leaves ({names}, and {rest} more)", leaves.len()),
        _ => format!("{} leaves ({names})", leaves.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunRequest;
    use crate::source::{BatchSource, ContactSource};

    fn contacts(experiment: u32) -> LeafEncoders {
        let request = RunRequest {
            experiment,
            ..RunRequest::default()
        };
        let config = PipelineConfig::resolve(&request, 2).unwrap();
        let source =
            ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations).unwrap();
        LeafEncoders::of_run(&config, source.schema()).unwrap()
    }

    #[test]
    fn entry_36_writes_every_leaf_s_pages_and_35_none() {
        let native = contacts(36);
        assert_eq!(
            native.native_pages,
            [
                "name",
                "phones.list.item.number",
                "phones.list.item.phone_type"
            ]
        );
        assert!(native.arrow_rs.is_empty(), "{native:?}");
        let arrow = contacts(35);
        assert!(arrow.native_pages.is_empty() && arrow.native_levels.is_empty());
        assert_eq!(arrow.arrow_rs.len(), 3);
        assert!(arrow
            .human()
            .starts_with("encoder arrow-rs: 3 leaves (name, "));
    }

    #[test]
    fn long_lists_name_only_the_first_leaves() {
        let leaves: Vec<String> = (0..10).map(|i| format!("c{i}")).collect();
        assert_eq!(
            listed(&leaves),
            "10 leaves (c0, c1, c2, c3, c4, c5, c6, c7, and 2 more)"
        );
        assert_eq!(listed(&leaves[..2]), "2 leaves (c0, c1)");
    }
}
