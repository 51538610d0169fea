//! Hand-made test columns as one batch, and the data pages a reader finds in a file.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema, SchemaRef};
use bytes::Bytes;
use parquet::basic::{Encoding, PageType};
use parquet::file::reader::{FileReader, SerializedFileReader};

/// One batch of `columns`, each a nullable field of its name and type.
pub fn named_batch<const N: usize>(columns: [(&str, ArrayRef); N]) -> (SchemaRef, RecordBatch) {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, column)| Field::new(*name, column.data_type().clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns.map(|(_, c)| c).to_vec()).unwrap();
    (schema, batch)
}

/// The (page type, encoding) of every data page of column `column` in the file's first row
/// group, as a reader finds them.
pub fn data_pages(file: Bytes, column: usize) -> Vec<(PageType, Encoding)> {
    let reader = SerializedFileReader::new(file).unwrap();
    let row_group = reader.get_row_group(0).unwrap();
    let pages = row_group.get_column_page_reader(column).unwrap();
    pages
        .map(|page| page.unwrap())
        .filter(|page| page.page_type() != PageType::DICTIONARY_PAGE)
        .map(|page| (page.page_type(), page.encoding()))
        .collect()
}
