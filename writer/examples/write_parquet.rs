//! Writes one Parquet file with a nested column through `ParallelArrowWriter`, into a file that
//! appears only once complete: `cargo run --release -p shredlab-writer --example write_parquet`.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::ArrowError;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use shredlab_writer::{ParallelArrowWriter, PendingFile};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "example.parquet".to_string());
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
        .build();
    let first = batch(0)?;
    // The bytes go to a hidden temporary file beside `path` until the commit below.
    let file = PendingFile::create(&path)?;
    let mut writer = ParallelArrowWriter::try_new(file, first.schema(), Some(properties))?;
    writer.write(&first)?;
    for start in (ROWS..1_000_000).step_by(ROWS as usize) {
        writer.write(&batch(start)?)?;
    }
    // `into_inner` writes the footer and returns the file to commit (dropped, it is deleted).
    let committed = writer.into_inner()?.commit()?;
    println!("wrote {}", committed.display());
    Ok(())
}

/// Rows per batch.
const ROWS: i64 = 100_000;

/// Rows `start..start + ROWS`: an id and a list of up to three tags.
fn batch(start: i64) -> Result<RecordBatch, ArrowError> {
    let ids = Int64Array::from_iter_values(start..start + ROWS);
    let mut tags = ListBuilder::new(StringBuilder::new());
    for id in ids.values() {
        for tag in 0..id % 4 {
            tags.values().append_value(format!("tag-{tag}"));
        }
        tags.append(true);
    }
    let columns: [(&str, ArrayRef); 2] = [("id", Arc::new(ids)), ("tags", Arc::new(tags.finish()))];
    RecordBatch::try_from_iter(columns)
}
