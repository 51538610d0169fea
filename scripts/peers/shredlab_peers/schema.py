"""A schema as text that every reader of the same file agrees on.

Writers and readers name a list's element differently (`item` in arrow-rs and polars, `element`
in pyarrow, `l` in DuckDB) and pick different physical Arrow types for the same logical column
(`string`, `large_string`, `string_view`, a dictionary of strings; `list` or `large_list`).
`normalized` drops the element names and nullability and maps each family to one name (a map
is its list of key/value structs, as polars returns it; dates, times and timestamps lose their
unit, floats their width, decimals their precision), so what remains is what must match: column
and struct field names, their order, and the logical types.
"""

from __future__ import annotations

import pyarrow as pa


def normalized_type(kind: pa.DataType) -> str:
    """The logical type of `kind` as text: `string`, `list<...>`, `struct<a: ..., b: ...>`."""
    if pa.types.is_dictionary(kind):
        return normalized_type(kind.value_type)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return "string"
    if (
        pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_binary_view(kind)
        or pa.types.is_fixed_size_binary(kind)
    ):
        return "binary"
    if pa.types.is_map(kind):
        return f"list<struct<key: {normalized_type(kind.key_type)}, value: {normalized_type(kind.item_type)}>>"
    if (
        pa.types.is_list(kind)
        or pa.types.is_large_list(kind)
        or pa.types.is_list_view(kind)
        or pa.types.is_fixed_size_list(kind)
    ):
        return f"list<{normalized_type(kind.value_type)}>"
    # Readers pick their own units and widths for the same values; the digest compares those.
    if pa.types.is_timestamp(kind):
        return "timestamp with time zone" if kind.tz else "timestamp"
    if pa.types.is_date(kind):
        return "date"
    if pa.types.is_time(kind):
        return "time"
    if pa.types.is_floating(kind):
        return "float"  # widening is exact, and the digest compares the values
    if pa.types.is_decimal(kind):
        return f"decimal(scale {kind.scale})"
    if pa.types.is_struct(kind):
        fields = ", ".join(f"{f.name}: {normalized_type(f.type)}" for f in kind)
        return f"struct<{fields}>"
    return str(kind)


def normalized(schema: pa.Schema) -> str:
    """`name: type, ...` over the top-level columns, each type normalised."""
    return ", ".join(f"{f.name}: {normalized_type(f.type)}" for f in schema)
