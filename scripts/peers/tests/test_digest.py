"""The Python digest is the Rust data gate's, on the contacts and on every type the gate knows."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from shredlab_peers import digest, schema
from shredlab_peers.writers import load_ipc

from .helpers import rust


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
        with self.assertRaisesRegex(TypeError, "date32"):
            digest.of_batches(pa.table({"day": pa.array([1], pa.date32())}).to_batches())

    def test_schema_normalisation_ignores_element_names_and_physical_types(self):
        a = pa.schema([("phones", pa.list_(pa.field("element", pa.struct([("n", pa.string())]))))])
        b = pa.schema([("phones", pa.large_list(pa.field("l", pa.struct([("n", pa.string_view())]))))])
        c = pa.schema([("phones", pa.list_(pa.struct([("m", pa.string())])))])
        self.assertEqual(schema.normalized(a), schema.normalized(b))
        self.assertNotEqual(schema.normalized(a), schema.normalized(c))


if __name__ == "__main__":
    unittest.main()
