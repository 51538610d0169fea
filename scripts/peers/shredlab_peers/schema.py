"""A schema as text that every reader of the same file agrees on.

Writers and readers name a list's element differently (`item` in arrow-rs and polars, `element`
in pyarrow, `l` in DuckDB) and pick different physical Arrow types for the same logical column
(`string`, `large_string`, `string_view`, a dictionary of strings; `list` or `large_list`).
`normalized` drops the element names and nullability and maps each family to one name, so what
remains is what must match: column and struct field names, their order, and the logical types.
"""

from __future__ import annotations

import pyarrow as pa


def normalized_type(kind: pa.DataType) -> str:
    """The logical type of `kind` as text: `string`, `list<...>`, `struct<a: ..., b: ...>`."""
    if pa.types.is_dictionary(kind):
        return normalized_type(kind.value_type)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return "string"
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_binary_view(kind):
        return "binary"
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_list_view(kind):
        return f"list<{normalized_type(kind.value_type)}>"
    if pa.types.is_struct(kind):
        fields = ", ".join(f"{f.name}: {normalized_type(f.type)}" for f in kind)
        return f"struct<{fields}>"
    return str(kind)


def normalized(schema: pa.Schema) -> str:
    """`name: type, ...` over the top-level columns, each type normalised."""
    return ", ".join(f"{f.name}: {normalized_type(f.type)}" for f in schema)
