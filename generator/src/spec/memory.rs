//! What generating a spec holds in memory, bounded before anything is generated: the
//! vocabularies, held for the whole run, and each batch while it is made. A spec whose sizes
//! pass never allocates beyond the bounds, instead of failing or being killed mid-run.

use arrow_schema::DataType;

use super::bytes::Bytes;
use super::column::Column;
use super::error::error;
use super::{FieldSpec, Spec, SpecError};

/// The most bytes the vocabularies of one spec may take together (1 GiB): they are generated
/// before the first row and held to the last.
pub const MAX_VOCABULARY_BYTES: u128 = 1 << 30;

/// The most bytes one batch may take while it is generated (1 GiB), counting every value at
/// its longest and every list at its longest; smaller batches take proportionally less.
pub const MAX_BATCH_BYTES: u128 = 1 << 30;

/// Bytes a vocabulary entry takes besides its value: its share of the table that draws it.
const ENTRY_OVERHEAD: u128 = 48;

/// Bytes a generated string or binary entry takes besides its bytes (its `Vec`).
const BYTES_ENTRY_OVERHEAD: u128 = 24;

/// Fails when the vocabularies of `spec` could take more than [`MAX_VOCABULARY_BYTES`]; the
/// error names the field whose vocabulary is largest.
pub(super) fn check_vocabularies(spec: &Spec) -> Result<(), SpecError> {
    let mut sizes = Vec::new();
    spec.fields
        .iter()
        .for_each(|f| vocabulary_sizes(f, &mut sizes));
    let total = sizes
        .iter()
        .fold(0u128, |sum, (_, size)| sum.saturating_add(*size));
    let Some((path, largest)) = sizes.into_iter().max_by_key(|(_, size)| *size) else {
        return Ok(());
    };
    if total <= MAX_VOCABULARY_BYTES {
        return Ok(());
    }
    let taken = if largest == total {
        format!("its vocabulary could take {total} bytes")
    } else {
        format!("the spec's vocabularies could take {total} bytes, {largest} of them this field's")
    };
    Err(error(
        path,
        format!("{taken}, beyond the 1 GiB a spec's vocabularies may take together: lower its cardinality or max_length"),
    ))
}

/// Adds the vocabulary size of `field` and of its descendants to `sizes`, with their paths.
fn vocabulary_sizes<'a>(field: &'a FieldSpec, sizes: &mut Vec<(&'a str, u128)>) {
    let size = vocabulary_bytes(field);
    if size > 0 {
        sizes.push((&field.path, size));
    }
    // A map's key vocabulary is made a second time, as an array whose entries are compared by
    // value (`Column::first_equal_keys`), while the generator is built; a dictionary key's is
    // its dictionary, shared.
    if matches!(field.field.data_type(), DataType::Map(..)) {
        let key = field.children.first().and_then(|e| e.children.first());
        if let Some(key) = key.filter(|k| !matches!(k.field.data_type(), DataType::Dictionary(..)))
        {
            sizes.push((&key.path, vocabulary_bytes(key)));
        }
    }
    field
        .children
        .iter()
        .for_each(|c| vocabulary_sizes(c, sizes));
}

/// The most bytes the vocabulary of `field` (and its dictionary) takes: listed values or
/// generated ones; word lists are shipped and small.
fn vocabulary_bytes(field: &FieldSpec) -> u128 {
    let params = &field.params;
    let (value_type, dictionary) = match field.field.data_type() {
        DataType::Dictionary(_, value_type) => (value_type.as_ref(), true),
        other => (other, false),
    };
    let count = match params.cardinality {
        Some(count) => u128::from(count),
        None => params.values.len() as u128,
    };
    let value = match Bytes::lengths(value_type, params) {
        Some(lengths) => {
            let listed = params.values.iter().map(String::len).max().unwrap_or(0);
            BYTES_ENTRY_OVERHEAD + u128::from(lengths.max().max(listed as u64))
        }
        // Integer-like entries are held as i128.
        None => value_type.primitive_width().map_or(1, |_| 16),
    };
    let copies = if dictionary { 2 } else { 1 };
    count.saturating_mul(ENTRY_OVERHEAD + copies * value)
}

/// Fails when a batch of `rows` rows of `columns` could take more than [`MAX_BATCH_BYTES`];
/// the error names the column that takes most of a row, and how many rows a batch may hold.
pub(super) fn check_batch(columns: &[Column], rows: u128) -> Result<(), SpecError> {
    let per_row: Vec<u128> = columns.iter().map(Column::slot_bytes).collect();
    let row = per_row
        .iter()
        .fold(0u128, |sum, bytes| sum.saturating_add(*bytes));
    let needed = rows.saturating_mul(row);
    if needed <= MAX_BATCH_BYTES {
        return Ok(());
    }
    // The first of the columns that take most: `max_by_key` keeps the last of equals.
    let largest = (0..columns.len())
        .rev()
        .max_by_key(|&i| per_row[i])
        .map_or("spec", |i| columns[i].path());
    let taken = match rows {
        1 => format!("one row could take {needed} bytes"),
        _ => format!("a batch of {rows} rows could take {needed} bytes ({row} a row)"),
    };
    let fix = match MAX_BATCH_BYTES / row {
        0 => "make its values or lists shorter".to_string(),
        fitting => format!("use batches of at most {fitting} rows"),
    };
    Err(error(
        largest,
        format!("{taken}, beyond the 1 GiB a batch may take: {fix}"),
    ))
}
