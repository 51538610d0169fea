//! What a Parquet file offers its readers: row groups, pages per column, and whether the
//! statistics, page index and bloom filters that let a reader skip data are there.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde::{Deserialize, Serialize};

/// One leaf column across every row group of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnLayout {
    /// Dotted Parquet path, e.g. `phones.list.element.number` (the list's element name as the
    /// writer chose it).
    pub path: String,
    /// Data pages, over all row groups.
    pub data_pages: u64,
    /// Dictionary pages, over all row groups.
    pub dictionary_pages: u64,
    /// Encodings any chunk uses, e.g. `RLE_DICTIONARY`.
    pub encodings: Vec<String>,
    /// Every chunk carries min/max statistics.
    pub statistics: bool,
    /// Every chunk has a column index (page-level min/max).
    pub column_index: bool,
    /// Every chunk has an offset index (page locations).
    pub offset_index: bool,
    /// Every chunk has a bloom filter.
    pub bloom_filter: bool,
    /// Compressed bytes over all chunks.
    pub compressed_bytes: i64,
    /// Uncompressed bytes over all chunks.
    pub uncompressed_bytes: i64,
}

/// A whole file's layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLayout {
    /// File size.
    pub bytes: u64,
    /// Rows, from the footer.
    pub rows: i64,
    /// Row groups.
    pub row_groups: usize,
    /// The writer's `created_by` string.
    pub created_by: Option<String>,
    /// Every leaf column, in schema order.
    pub columns: Vec<ColumnLayout>,
}

/// Reads the footer of `path` and walks every page header (without decompressing pages).
pub fn inspect(path: &Path) -> Result<FileLayout> {
    let open = || File::open(path).with_context(|| format!("cannot open {}", path.display()));
    let bytes = open()?.metadata()?.len();
    let reader = SerializedFileReader::new(open()?)
        .with_context(|| format!("{} is not a readable Parquet file", path.display()))?;
    let metadata = reader.metadata();
    let schema = metadata.file_metadata().schema_descr();
    let mut columns: Vec<ColumnLayout> = (0..schema.num_columns())
        .map(|i| ColumnLayout {
            path: schema.column(i).path().string(),
            data_pages: 0,
            dictionary_pages: 0,
            encodings: Vec::new(),
            statistics: true,
            column_index: true,
            offset_index: true,
            bloom_filter: true,
            compressed_bytes: 0,
            uncompressed_bytes: 0,
        })
        .collect();
    for group in 0..metadata.num_row_groups() {
        let row_group = reader.get_row_group(group)?;
        for (i, column) in columns.iter_mut().enumerate() {
            let chunk = metadata.row_group(group).column(i);
            column.statistics &= chunk
                .statistics()
                .is_some_and(|s| s.min_bytes_opt().is_some());
            column.column_index &= chunk.column_index_offset().is_some();
            column.offset_index &= chunk.offset_index_offset().is_some();
            column.bloom_filter &= chunk.bloom_filter_offset().is_some();
            column.compressed_bytes += chunk.compressed_size();
            column.uncompressed_bytes += chunk.uncompressed_size();
            for encoding in chunk.encodings() {
                let name = encoding.to_string();
                if !column.encodings.contains(&name) {
                    column.encodings.push(name);
                }
            }
            let mut pages = row_group.get_column_page_reader(i)?;
            while let Some(page) = pages.peek_next_page()? {
                if page.is_dict {
                    column.dictionary_pages += 1;
                } else {
                    column.data_pages += 1;
                }
                pages.skip_next_page()?;
            }
        }
    }
    Ok(FileLayout {
        bytes,
        rows: metadata.file_metadata().num_rows(),
        row_groups: metadata.num_row_groups(),
        created_by: metadata.file_metadata().created_by().map(str::to_string),
        columns,
    })
}
