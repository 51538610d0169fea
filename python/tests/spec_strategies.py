"""Hypothesis strategies for random spec files, from the building blocks of the Rust property
test (experiments/tests/random_runs/spec.rs): nested schemas over every type SPEC.md lists,
each leaf with one of the parameter sets its type takes, and, in some cases, one hostile edit
(a parameter out of range, a misspelt key, a size beyond Arrow's limits, a truncated file)."""

from __future__ import annotations

import json

from hypothesis import strategies as st


def integer_edges(bits: int, signed: bool) -> list[int]:
    """Edge values of an integer type: its bounds, their neighbours, and small numbers."""
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return [v for v in (low, low + 1, -1, 0, 1, 7, 1000, high - 1, high) if low <= v <= high]


def zipf() -> st.SearchStrategy[dict]:
    return st.builds(
        lambda s, cardinality: {"distribution": "zipf", "zipf_s": s, "cardinality": cardinality},
        st.sampled_from([0.5, 1.0, 1.3]),
        st.integers(1, 399),
    )


@st.composite
def int_leaf(draw) -> tuple[dict, dict]:
    bits = draw(st.sampled_from([8, 16, 32, 64]))
    signed = draw(st.booleans())
    edges = integer_edges(bits, signed)
    picks = st.lists(st.sampled_from(edges), min_size=1, max_size=4, unique=True)
    low, high = sorted(draw(st.tuples(st.sampled_from(edges), st.sampled_from(edges))))
    metadata = draw(
        st.one_of(
            st.just({}),
            st.just({"min": low, "max": high}),
            zipf(),
            st.builds(
                lambda start, step: {"distribution": "sequential", "min": start, "step": step},
                st.sampled_from(edges),
                st.sampled_from([1, -3, 0.25]),
            ),
            picks.map(lambda values: {"values": values}),
            picks.map(
                lambda values: {
                    "distribution": "categorical",
                    "values": values,
                    "weights": list(range(1, len(values) + 1)),
                }
            ),
            st.just({"distribution": "normal", "mean": 100, "stddev": 30}),
        )
    )
    return {"name": "int", "bitWidth": bits, "isSigned": signed}, metadata


def float_leaf() -> st.SearchStrategy[tuple[dict, dict]]:
    return st.tuples(
        st.sampled_from(["HALF", "SINGLE", "DOUBLE"]).map(
            lambda p: {"name": "floatingpoint", "precision": p}
        ),
        st.one_of(
            st.just({}),
            st.just({"min": -10.5, "max": 1000}),
            st.just({"distribution": "normal", "mean": 0, "stddev": 1}),
            zipf(),
        ),
    )


@st.composite
def decimal_leaf(draw) -> tuple[dict, dict]:
    bits = draw(st.sampled_from([128, 256]))
    precision = draw(st.integers(1, 38))
    scale = draw(st.integers(0, precision))
    metadata = draw(
        st.sampled_from(
            [{}, {"min": "-1.5", "max": "2.25"}, {"min": 0.001, "max": 0.009}, {"values": ["0", "1.5"]}]
        )
    )
    return {"name": "decimal", "precision": precision, "scale": scale, "bitWidth": bits}, metadata


UNITS = [("SECOND", 32), ("MILLISECOND", 32), ("MICROSECOND", 64), ("NANOSECOND", 64)]


@st.composite
def time_leaf(draw) -> tuple[dict, dict]:
    kind = draw(st.sampled_from(["date", "time", "timestamp"]))
    if kind == "date":
        unit = draw(st.sampled_from(["DAY", "MILLISECOND"]))
        metadata = draw(st.sampled_from([{}, {"distribution": "sequential", "min": 20000}]))
        return {"name": "date", "unit": unit}, metadata
    unit, bits = draw(st.sampled_from(UNITS))
    if kind == "time":
        return {"name": "time", "unit": unit, "bitWidth": bits}, {}
    ty = {"name": "timestamp", "unit": unit}
    zone = draw(st.sampled_from([None, "UTC", "+02:00", "Europe/Paris"]))
    if zone is not None:
        ty["timezone"] = zone
    sequential = {"distribution": "sequential", "min": 1_767_225_600_000, "step": 1000}
    return ty, draw(st.sampled_from([{}, sequential]))


@st.composite
def bytes_field(draw) -> dict:
    """Strings and binaries, some dictionary-encoded (over a vocabulary)."""
    name = draw(st.sampled_from(["utf8", "largeutf8", "utf8view", "binary", "largebinary", "binaryview"]))
    metadata, dictionary = draw(
        st.one_of(
            st.just(({}, False)),
            st.builds(
                lambda low, high: ({"min_length": low, "max_length": high}, False),
                st.integers(0, 3),
                st.integers(4, 39),
            ),
            st.tuples(zipf(), st.booleans()),
            st.just(({"distribution": "sequential", "prefix": "id-", "digits": 6}, False)),
            st.just(({"unique": True}, False)),
            st.just(({"values": ["alpha", "beta", "gamma"]}, True)),
        )
    )
    if "utf8" in name and not metadata:
        metadata = {"vocabulary": "first_names"}  # word lists apply to text only
    field = {"type": {"name": name}, "metadata": metadata}
    if dictionary:
        bits = draw(st.sampled_from([8, 16, 32]))
        field["dictionary"] = {
            "id": 0,
            "indexType": {"name": "int", "bitWidth": bits, "isSigned": draw(st.booleans())},
        }
    return field


def leaf() -> st.SearchStrategy[dict]:
    """A leaf field without its name: type, metadata and perhaps a dictionary."""
    simple = st.one_of(
        int_leaf(),
        float_leaf(),
        decimal_leaf(),
        time_leaf(),
        st.sampled_from([{}, {"true_probability": 0.2}]).map(lambda m: ({"name": "bool"}, m)),
        st.builds(
            # Unique values are 16 hex digits: a narrower width is refused.
            lambda width, unique: (
                {"name": "fixedsizebinary", "byteWidth": max(width, 16) if unique else width},
                {"unique": True} if unique else {},
            ),
            st.integers(1, 23),
            st.booleans(),
        ),
    ).map(lambda pair: {"type": pair[0], "metadata": pair[1]})
    null = st.just({"type": {"name": "null"}, "nullable": True, "metadata": {}})
    return st.one_of(simple, simple, bytes_field(), null)


@st.composite
def with_nulls(draw, fields: st.SearchStrategy[dict]) -> dict:
    """A field made nullable or not (a Null field stays nullable), nullable ones with a chance
    of NULLs."""
    field = dict(draw(fields))
    nullable = "nullable" in field or draw(st.booleans())
    field["nullable"] = nullable
    nulls = draw(st.integers(0, 2))
    if nullable and nulls and field["type"]["name"] != "null":
        field["metadata"] = {**field["metadata"], "null_probability": nulls * 0.2}
    return field


def named(field: dict, name: str) -> dict:
    return {**field, "name": name}


def numbered(fields: list[dict]) -> list[dict]:
    return [named(field, f"f{i}") for i, field in enumerate(fields)]


MAP_KEYS = [
    {"type": {"name": "utf8"}, "metadata": {"distribution": "zipf", "zipf_s": 1.0, "cardinality": 30}},
    {"type": {"name": "int", "bitWidth": 32, "isSigned": True}, "metadata": {"distribution": "sequential"}},
    {"type": {"name": "utf8"}, "metadata": {"unique": True}},
]


def nested(inner: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
    """Lists, fixed-size lists, structs and maps of `inner`."""
    lengths = st.builds(
        lambda low, extra: {"min_length": low, "max_length": low + extra},
        st.integers(0, 1),
        st.integers(0, 3),
    )
    lists = st.builds(
        lambda name, item, metadata: {
            "type": {"name": name}, "metadata": metadata, "children": [named(item, "item")]
        },
        st.sampled_from(["list", "largelist"]),
        inner,
        lengths,
    )
    fixed = st.builds(
        lambda size, item: {
            "type": {"name": "fixedsizelist", "listSize": size}, "metadata": {},
            "children": [named(item, "item")],
        },
        st.integers(1, 3),
        inner,
    )
    structs = st.lists(inner, min_size=1, max_size=3).map(
        lambda children: {"type": {"name": "struct"}, "metadata": {}, "children": numbered(children)}
    )
    maps = st.builds(
        lambda key, value, metadata: {
            "type": {"name": "map", "keysSorted": False},
            "metadata": metadata,
            "children": [{
                "name": "entries", "nullable": False, "type": {"name": "struct"},
                "children": [{**key, "name": "key", "nullable": False}, named(value, "value")],
            }],
        },
        st.sampled_from(MAP_KEYS),
        inner,
        lengths,
    )
    return with_nulls(st.one_of(lists, fixed, structs, maps))


def field() -> st.SearchStrategy[dict]:
    """A field without its name, nested (lists, fixed-size lists, structs, maps) to at most six
    leaves."""
    return st.recursive(with_nulls(leaf()), nested, max_leaves=6)


HOSTILE_KEYS = [
    ("metadata", "cardinality", 0),
    ("metadata", "cardinality", -1),
    ("metadata", "cardinality", 100_000_000),
    ("metadata", "min_length", 4_294_967_297),
    ("metadata", "max_length", 3_000_000_000),
    ("metadata", "zipf_s", "abc"),
    ("metadata", "null_probability", 1.5),
    ("metadata", "null_probability", 1),
    ("metadata", "min", "18446744073709551616"),
    ("metadata", "max", -1e300),
    ("metadata", "step", 0),
    ("metadata", "values", []),
    ("metadata", "values", [None]),
    ("metadata", "nulable", True),
    ("metadata", "weights", [1, -2]),
    ("metadata", "distribution", "poisson"),
    ("field", "nullable", "yes"),
    ("field", "name", ""),
    ("field", "nulable", False),
    ("field", "children", []),
    ("field", "dictionary", {"indexType": {"name": "int", "bitWidth": 7}}),
    ("type", "name", "interval"),
    ("type", "bitWidth", 128),
    ("type", "byteWidth", 2_147_483_647),
    ("type", "listSize", 100_000_000),
    ("type", "precision", 77),
    ("type", "scale", -2),
    ("type", "unit", "FORTNIGHT"),
    ("type", "timezone", "Mars/Olympus"),
]


def every_field(fields: list[dict]) -> list[dict]:
    """The fields and their descendants, depth first."""
    found = []
    for child in fields:
        found.append(child)
        found.extend(every_field(child.get("children", [])))
    return found


@st.composite
def spec_text(draw) -> str:
    """A spec of one to four top-level fields; two cases in five carry a hostile edit (a key,
    or the file cut short)."""
    spec = {"fields": numbered(draw(st.lists(field(), min_size=1, max_size=4)))}
    spec = json.loads(json.dumps(spec))  # a deep copy the edit may change
    edit = draw(st.sampled_from(["none", "none", "none", "key", "truncate"]))
    if edit == "key":
        place, key, value = draw(st.sampled_from(HOSTILE_KEYS))
        target = draw(st.sampled_from(every_field(spec["fields"])))
        if place == "field":
            target[key] = value
        else:
            target.setdefault(place, {})[key] = value
    text = json.dumps(spec)
    if edit == "truncate":
        text = text[: draw(st.integers(1, len(text) - 1))]
    return text
