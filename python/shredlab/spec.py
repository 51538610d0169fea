"""A pyarrow schema, with the generator's parameters as field metadata, as a spec file
(SPEC.md): Arrow's JSON schema form, which `pipeline --spec` and `shredlab.generate` read."""

from __future__ import annotations

import json

import pyarrow as pa

_UNITS = {"s": "SECOND", "ms": "MILLISECOND", "us": "MICROSECOND", "ns": "NANOSECOND"}


def _integer(t: pa.DataType) -> dict:
    return {"name": "int", "bitWidth": t.bit_width, "isSigned": pa.types.is_signed_integer(t)}


def _type(t: pa.DataType) -> tuple[dict, list[pa.Field]]:
    """The JSON `type` of `t`, and the child fields it nests."""
    types = pa.types
    if types.is_integer(t):
        return _integer(t), []
    if types.is_floating(t):
        return {"name": "floatingpoint", "precision": {16: "HALF", 32: "SINGLE", 64: "DOUBLE"}[t.bit_width]}, []
    if types.is_boolean(t):
        return {"name": "bool"}, []
    if types.is_null(t):
        return {"name": "null"}, []
    if types.is_decimal(t):
        return {"name": "decimal", "precision": t.precision, "scale": t.scale, "bitWidth": t.bit_width}, []
    if types.is_date32(t):
        return {"name": "date", "unit": "DAY"}, []
    if types.is_date64(t):
        return {"name": "date", "unit": "MILLISECOND"}, []
    if types.is_time(t):
        return {"name": "time", "unit": _UNITS[t.unit], "bitWidth": t.bit_width}, []
    if types.is_timestamp(t):
        kind = {"name": "timestamp", "unit": _UNITS[t.unit]}
        if t.tz:
            kind["timezone"] = t.tz
        return kind, []
    simple = [
        (types.is_string, "utf8"), (types.is_large_string, "largeutf8"), (types.is_string_view, "utf8view"),
        (types.is_binary, "binary"), (types.is_large_binary, "largebinary"), (types.is_binary_view, "binaryview"),
    ]
    for test, name in simple:
        if test(t):
            return {"name": name}, []
    if types.is_fixed_size_binary(t):
        return {"name": "fixedsizebinary", "byteWidth": t.byte_width}, []
    if types.is_map(t):
        entries = pa.field("entries", pa.struct([t.key_field, t.item_field]), nullable=False)
        return {"name": "map", "keysSorted": t.keys_sorted}, [entries]
    if types.is_fixed_size_list(t):
        return {"name": "fixedsizelist", "listSize": t.list_size}, [t.value_field]
    if types.is_list(t):
        return {"name": "list"}, [t.value_field]
    if types.is_large_list(t):
        return {"name": "largelist"}, [t.value_field]
    if types.is_struct(t):
        return {"name": "struct"}, [t.field(i) for i in range(t.num_fields)]
    raise ValueError(f"{t} has no spec form (see SPEC.md for the supported types)")


def _field(field: pa.Field, dictionaries: list[int]) -> dict:
    t = field.type
    out: dict = {"name": field.name, "nullable": field.nullable}
    if pa.types.is_dictionary(t):
        out["dictionary"] = {"id": len(dictionaries), "indexType": _integer(t.index_type)}
        dictionaries.append(len(dictionaries))
        t = t.value_type
    kind, children = _type(t)
    out["type"] = kind
    if children:
        out["children"] = [_field(child, dictionaries) for child in children]
    if field.metadata:
        out["metadata"] = {k.decode(): v.decode() for k, v in field.metadata.items()}
    return out


def to_spec(schema: pa.Schema) -> str:
    """The spec file text of `schema` (field metadata become the generator's parameters)."""
    if not isinstance(schema, pa.Schema):
        raise TypeError(f"to_spec takes a pyarrow.Schema, not {type(schema).__name__}")
    if len(schema) == 0:
        raise ValueError("the schema has no fields, and a spec needs at least one")
    dictionaries: list[int] = []
    return json.dumps({"fields": [_field(f, dictionaries) for f in schema]}, indent=2) + "\n"
