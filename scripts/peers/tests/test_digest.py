"""The Python digest is the Rust data gate's, on the contacts and on every type the gate knows."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from shredlab_peers import digest, schema
from shredlab_peers.writers import load_ipc

from .helpers import rust


def every_other_type() -> pa.Table:
    """Each remaining type the gate knows, nulls included: the widths of integers, floats and
    decimals, binaries, dates, times and timestamps in every unit, fixed-size lists and maps."""
    from datetime import date, datetime, time, timezone
    from decimal import Decimal

    n = 5
    return pa.table(
        {
            "i8": pa.array([-128, 127, None, 0, -1], pa.int8()),
            "i16": pa.array([-(2**15), 2**15 - 1, 3, None, 0], pa.int16()),
            "u8": pa.array([255, 0, None, 1, 2], pa.uint8()),
            "u16": pa.array([65535, 0, 1, None, 2], pa.uint16()),
            "u32": pa.array([2**32 - 1, 0, 1, 2, None], pa.uint32()),
            "f16": pa.array(np.array([1.5, -0.0, np.nan, 65504.0, 0.1], dtype=np.float16), pa.float16()),
            "f32": pa.array([0.1, None, -3.5, float("inf"), 1e-38], pa.float32()),
            "dec": pa.array([Decimal("123.45"), Decimal("-0.01"), None, Decimal("99999999.99"), Decimal("0")], pa.decimal128(10, 2)),
            "dec256": pa.array([Decimal("-1" + "0" * 40), None, Decimal("1.5"), Decimal("0"), Decimal("7")], pa.decimal256(50, 1)),
            "blob": pa.array([b"\x00\xff", b"", None, b"abc", b"x"], pa.binary()),
            "big_blob": pa.array([b"1", None, b"", b"22", b"333"], pa.large_binary()),
            "fixed": pa.array([b"ab", b"cd", None, b"\x00\x00", b"zz"], pa.binary(2)),
            "day": pa.array([date(1970, 1, 1), date(1969, 12, 31), None, date(2262, 4, 12), date(1, 1, 1)], pa.date32()),
            "day64": pa.array([date(2020, 2, 29), None, date(1900, 1, 1), date(1970, 1, 2), date(3000, 1, 1)], pa.date64()),
            "clock_ms": pa.array([time(0, 0), time(23, 59, 59, 999000), None, time(12), time(1, 2, 3)], pa.time32("ms")),
            "clock_us": pa.array([time(0, 0, 0, 1), None, time(23, 59, 59, 999999), time(6), time(7)], pa.time64("us")),
            "instant_s": pa.array([0, -1, None, 2**40, -(2**40)], pa.timestamp("s", tz="UTC")),
            "local_ms": pa.array([0, -1_500, 1_700_000_000_123, None, 5], pa.timestamp("ms")),
            "instant_us": pa.array([datetime(2000, 1, 1, tzinfo=timezone.utc), None, datetime(1960, 6, 1, 12, tzinfo=timezone.utc),
                                    datetime(1970, 1, 1, tzinfo=timezone.utc), datetime(2100, 1, 1, tzinfo=timezone.utc)], pa.timestamp("us", tz="Europe/Paris")),
            "local_ns": pa.array([-1, 0, 1, None, 1_000_000_001], pa.timestamp("ns")),
            "pair": pa.array([[1, 2], None, [3, None], [0, 0], [5, 6]], pa.list_(pa.int64(), 2)),
            "attrs": pa.array([[("a", 1)], [], None, [("b", None), ("c", 3)], [("d", 4)]], pa.map_(pa.string(), pa.int32())),
            "nothing": pa.nulls(n),
        }
    )


def every_type() -> pa.Table:
    """Nulls at every depth, empty and null lists, negative and huge integers, -0.0 and NaN,
    empty and non-ASCII strings, a dictionary, large types and a sliced column."""
    item = pa.struct([("number", pa.string()), ("kind", pa.dictionary(pa.int8(), pa.string()))])
    phones = pa.array(
        [[{"number": "1", "kind": "a"}], [], None, [{"number": None, "kind": None}, None], [{"number": "", "kind": "b"}], None],
        type=pa.list_(item),
    )
    return pa.table(
        {
            "text": pa.array(["x", None, "", "é漢", "tail", "z"], pa.large_string()),
            "small": pa.array([1, -1, None, 2**31 - 1, -(2**31), 0], pa.int32()),
            "big": pa.array([-(2**63), 2**63 - 1, 0, None, -5, 7], pa.int64()),
            "unsigned": pa.array([2**64 - 1, 0, None, 1, 2**63, 3], pa.uint64()),
            "flag": pa.array([True, False, None, True, False, True]),
            "real": pa.array([0.0, -0.0, float("nan"), None, 1e300, -2.5]),
            "phones": phones,
            "nested": pa.array([[["a"], []], None, [[None]], [], [["b", "c"]], [["d"]]], pa.large_list(pa.list_(pa.string()))),
        }
    )


class DigestTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.dir = Path(self.scratch.name)

    def tearDown(self):
        self.scratch.cleanup()

    def test_matches_the_rust_gate_on_contacts(self):
        hand_over = self.dir / "contacts.arrow"
        exported = json.loads(rust("export", "--rows", "20000", "--seed", "7", str(hand_over)))
        table = load_ipc(str(hand_over))
        self.assertEqual(str(digest.of_batches(table.to_batches())), exported["digest"])
        self.assertEqual(exported["digest"].split(":")[0], "20000")

    def test_matches_the_rust_gate_on_every_type(self):
        table = every_type()
        path = self.dir / "types.parquet"
        pq.write_table(table, path, row_group_size=4)
        self.assertEqual(str(digest.of_batches(table.to_batches())), rust("digest", str(path)))

    def test_matches_the_rust_gate_on_every_other_type(self):
        table = every_other_type()
        path = self.dir / "more.parquet"
        pq.write_table(table, path, row_group_size=2)
        self.assertEqual(str(digest.of_batches(table.to_batches())), rust("digest", str(path)))
        # Each column on its own too, so a mismatch names the type.
        for name in table.column_names:
            column = table.select([name])
            single = self.dir / f"{name}.parquet"
            pq.write_table(column, single)
            with self.subTest(column=name):
                self.assertEqual(str(digest.of_batches(column.to_batches())), rust("digest", str(single)))

    def test_physical_variants_of_a_value_digest_alike(self):
        pairs = [
            (pa.array([1, None], pa.int8()), pa.array([1, None], pa.uint64())),
            (pa.array([0.5, None], pa.float32()), pa.array([0.5, None], pa.float64())),
            (pa.array([86_400_000], pa.date64()), pa.array([1], pa.date32())),
            (pa.array([1], pa.timestamp("s")), pa.array([1_000_000_000], pa.timestamp("ns"))),
            (pa.array([1_000], pa.time32("ms")), pa.array([1_000_000], pa.time64("us"))),
            (pa.array([b"ab"], pa.binary(2)), pa.array([b"ab"], pa.large_binary())),
            (pa.array([[1, 2]], pa.list_(pa.int32(), 2)), pa.array([[1, 2]], pa.large_list(pa.int32()))),
        ]
        for a, b in pairs:
            with self.subTest(a=str(a.type), b=str(b.type)):
                self.assertEqual(digest.of_batch(pa.record_batch([a], ["x"])), digest.of_batch(pa.record_batch([b], ["x"])))
        # A zone makes a timestamp an instant: not the same value as the local one.
        local = pa.record_batch([pa.array([1], pa.timestamp("s"))], ["x"])
        zoned = pa.record_batch([pa.array([1], pa.timestamp("s", tz="UTC"))], ["x"])
        self.assertNotEqual(digest.of_batch(local), digest.of_batch(zoned))
        # Strings and binaries with the same bytes are different values.
        text = pa.record_batch([pa.array(["ab"])], ["x"])
        blob = pa.record_batch([pa.array([b"ab"])], ["x"])
        self.assertNotEqual(digest.of_batch(text), digest.of_batch(blob))

    def test_sliced_batches_digest_like_whole_ones(self):
        table = every_type()
        whole = digest.of_batches(table.to_batches())
        parts = digest.of_batches([table.slice(0, 2).to_batches()[0], table.slice(2).to_batches()[0]])
        self.assertEqual(whole, parts)

    def test_order_does_not_matter_but_every_value_does(self):
        table = every_type()
        base = digest.of_batches(table.to_batches())
        reversed_rows = table.take(list(reversed(range(table.num_rows))))
        self.assertEqual(digest.of_batches(reversed_rows.to_batches()), base)
        changed = table.set_column(0, "text", pa.array(["x", None, "", "é漢", "tail", "y"], pa.large_string()))
        self.assertNotEqual(digest.of_batches(changed.to_batches()), base)
        fewer = table.slice(0, 5)
        self.assertNotEqual(digest.of_batches(fewer.to_batches()), base)
        # A null and an empty list are different values.
        nulls = table.set_column(6, "phones", pa.array([None] * 6, table.schema.field("phones").type))
        self.assertNotEqual(digest.of_batches(nulls.to_batches()), base)

    def test_unsupported_types_are_named(self):
        with self.assertRaisesRegex(TypeError, "duration"):
            digest.of_batches(pa.table({"span": pa.array([1], pa.duration("s"))}).to_batches())

    def test_schema_normalisation_ignores_element_names_and_physical_types(self):
        a = pa.schema([("phones", pa.list_(pa.field("element", pa.struct([("n", pa.string())]))))])
        b = pa.schema([("phones", pa.large_list(pa.field("l", pa.struct([("n", pa.string_view())]))))])
        c = pa.schema([("phones", pa.list_(pa.struct([("m", pa.string())])))])
        self.assertEqual(schema.normalized(a), schema.normalized(b))
        self.assertNotEqual(schema.normalized(a), schema.normalized(c))


if __name__ == "__main__":
    unittest.main()
