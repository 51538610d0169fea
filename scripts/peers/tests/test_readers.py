"""What each independent reader returns for every type the gate knows, written by pyarrow: the
same digest and normalised schema, except for the limits of the readers listed below."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from shredlab_peers import digest, readers, schema

from .test_digest import every_other_type, every_type

# (column, reader): why that reader cannot give the written values back (pinned versions).
KNOWN_LIMITS = {
    ("dec256", "duckdb"): "DuckDB decimals hold at most 38 digits: it reads decimal256(50, 1) as a double",
    ("dec256", "polars"): "polars decimals hold at most 38 digits: it refuses decimal256(50, 1)",
    ("day64", "polars"): "polars has no date64: it reads one as a millisecond timestamp",
}


class ReadersTest(unittest.TestCase):
    def test_every_reader_returns_every_type_it_can_hold(self):
        with tempfile.TemporaryDirectory() as scratch:
            outcomes = {}
            for table in (every_type(), every_other_type()):
                for name in table.column_names:
                    column = table.select([name])
                    path = Path(scratch) / f"{name}.parquet"
                    pq.write_table(column, path)
                    expected = (str(digest.of_batches(column.to_batches())), schema.normalized(column.schema))
                    for reader in readers.READERS:
                        try:
                            found = readers.readback(reader, str(path))
                            outcomes[(name, reader)] = (found["digest"], found["schema"]) == expected
                        except Exception:  # a reader refusing a type is one of its limits
                            outcomes[(name, reader)] = False
            failing = {key for key, matched in outcomes.items() if not matched}
            self.assertEqual(failing, set(KNOWN_LIMITS), "readers' limits changed: update KNOWN_LIMITS")
            self.assertGreater(len(outcomes), 90)

    def test_a_nested_dictionary_column_is_read_across_row_groups(self):
        # Each row group has its own dictionary; pyarrow's iter_batches refuses a batch that
        # spans two of them inside a list, so the readers go row group by row group.
        values = pa.array([["a", "b"], ["c"], None, ["a"]] * 50, pa.list_(pa.dictionary(pa.int32(), pa.string())))
        table = pa.table({"tags": values})
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "nested.parquet"
            pq.write_table(table, path, row_group_size=30)
            with self.assertRaises(pa.ArrowNotImplementedError):
                list(pq.ParquetFile(path).iter_batches())
            found = readers.readback("pyarrow", str(path))
        self.assertEqual(found["digest"], str(digest.of_batches(table.to_batches())))

    def test_pyarrow_still_cannot_read_a_fixed_size_list_below_a_null_struct(self):
        # experiments/tests/random_runs/spec.rs (pyarrow_reads) skips pyarrow's read-back of
        # such specs, and SPEC.md warns of it; when this fails, pyarrow reads them: drop both.
        items = pa.list_(pa.field("item", pa.uint8(), nullable=False), 1)
        kind = pa.struct([pa.field("f", items, nullable=False)])
        table = pa.table({"a": pa.array([{"f": [1]}, None, {"f": [2]}], kind)})
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "fixed.parquet"
            pq.write_table(table, path)
            with self.assertRaisesRegex(pa.ArrowInvalid, "Expected all lists to be of size=1"):
                pq.read_table(path)


if __name__ == "__main__":
    unittest.main()
