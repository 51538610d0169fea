//! [`refuse_unions`]: the one Arrow type parquet's writer panics on instead of refusing, turned
//! into an error before any writer is made.

use arrow_schema::{DataType, Field, Schema};
use parquet::errors::{ParquetError, Result};

/// Refuses a schema with a union anywhere in it (at the top, or inside a list, struct, map,
/// dictionary or run-end encoded array): Parquet has no union type, and `ArrowWriter` panics on
/// one (`unimplemented!`, ARROW-8817) where it refuses other types with an error. This
/// crate's writers call it; call it before making parquet's `ArrowWriter` yourself.
///
/// # Errors
///
/// [`ParquetError::ArrowError`], naming the union's path and the fix.
pub fn refuse_unions(schema: &Schema) -> Result<()> {
    match schema.fields().iter().find_map(|field| union_in(field, "")) {
        Some(path) => Err(ParquetError::ArrowError(format!(
            "column {path} is a union, which Parquet has no type for: write each of its \
             variants as a nullable column of its own, or cast it to one type"
        ))),
        None => Ok(()),
    }
}

/// The path of the first union in `field` (itself or a descendant), under `parent`'s path.
fn union_in(field: &Field, parent: &str) -> Option<String> {
    let path = match parent {
        "" => field.name().clone(),
        _ => format!("{parent}.{}", field.name()),
    };
    let child = |child: &Field| union_in(child, &path);
    match field.data_type() {
        DataType::Union(..) => Some(path),
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::ListView(item)
        | DataType::LargeListView(item)
        | DataType::FixedSizeList(item, _)
        | DataType::Map(item, _) => child(item),
        DataType::Struct(fields) => fields.iter().find_map(|field| child(field)),
        DataType::RunEndEncoded(_, values) => child(values),
        DataType::Dictionary(_, values) => union_in(
            &Field::new(field.name(), values.as_ref().clone(), true),
            parent,
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use arrow_schema::{UnionFields, UnionMode};

    use super::*;

    fn union() -> DataType {
        let fields = UnionFields::from_fields(vec![Field::new("i", DataType::Int32, true)]);
        DataType::Union(fields, UnionMode::Sparse)
    }

    /// A union at the top or deep inside is refused by its path; a schema without one passes.
    #[test]
    fn a_union_anywhere_is_refused_by_its_path() {
        let deep =
            DataType::Struct(vec![Field::new("b", DataType::new_list(union(), true), true)].into());
        let dictionary = DataType::Dictionary(Box::new(DataType::Int8), Box::new(union()));
        for (field, path) in [
            (Field::new("u", union(), true), "column u is a union"),
            (Field::new("a", deep, true), "column a.b.item is a union"),
            (Field::new("d", dictionary, true), "column d is a union"),
        ] {
            let schema = Schema::new(vec![Field::new("x", DataType::Int64, true), field]);
            let err = refuse_unions(&schema).unwrap_err().to_string();
            assert!(err.contains(path), "{err}");
        }
        let plain = Schema::new(vec![Field::new(
            "m",
            DataType::new_list(DataType::Utf8, true),
            true,
        )]);
        assert!(refuse_unions(&plain).is_ok());
    }
}
