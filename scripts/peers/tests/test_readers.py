"""What each independent reader returns for every type the gate knows, written by pyarrow: the
same digest and normalised schema, except for the limits of the readers listed below."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

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


if __name__ == "__main__":
    unittest.main()
