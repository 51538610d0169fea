"""A pyarrow schema with field metadata, written as a spec: the pipeline generates it, and the
files read back with the types and distributions the metadata asked for."""

from __future__ import annotations

import collections
import json
import subprocess
import tempfile
import unittest
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from shredlab_peers import digest
from shredlab import to_spec

from .helpers import BIN_DIR

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False, metadata={"distribution": "sequential", "min": "1"}),
    pa.field("city", pa.dictionary(pa.int16(), pa.string()),
             metadata={"distribution": "zipf", "zipf_s": "1.0", "cardinality": "200"}),
    pa.field("price", pa.decimal128(10, 2), metadata={"min": "1", "max": "500"}),
    pa.field("at", pa.timestamp("ms", tz="UTC"), metadata={"null_probability": "0.25"}),
    pa.field("tags", pa.list_(pa.field("item", pa.string())), metadata={"max_length": "3"}),
    pa.field("attrs", pa.map_(pa.string(), pa.float32()), metadata={"max_length": "4"}),
    pa.field("point", pa.struct([pa.field("x", pa.float64()), pa.field("ok", pa.bool_())])),
    pa.field("blob", pa.binary(8), metadata={"null_probability": "0.5"}),
])


class SpecFromPyarrowTest(unittest.TestCase):
    def test_the_pipeline_writes_what_the_schema_and_metadata_ask_for(self):
        # Map keys need a vocabulary: give it in the key field's metadata.
        schema = SCHEMA.set(5, pa.field("attrs", pa.map_(
            pa.field("key", pa.string(), nullable=False,
                     metadata={"distribution": "zipf", "zipf_s": "1", "cardinality": "10"}),
            pa.float32()), metadata={"max_length": "4"}))
        with tempfile.TemporaryDirectory() as scratch:
            spec = Path(scratch) / "spec.json"
            spec.write_text(to_spec(schema))
            out = Path(scratch) / "out"
            done = subprocess.run(
                [str(BIN_DIR / "pipeline"), "-e", "21", "--spec", str(spec), "--rows", "20000",
                 "--batch-size", "3000", "-o", str(out), "--verify", "--json", "-q"],
                capture_output=True, text=True, check=True)
            report = json.loads(done.stdout)
            table = pq.read_table(next(out.glob("*.parquet")))
        self.assertEqual(table.schema.names, schema.names)
        for field in schema:
            self.assertEqual(table.schema.field(field.name).type, field.type, field.name)
        self.assertEqual(str(digest.of_batches(table.to_batches())), f"{report['digest']['rows']}:{report['digest']['sum']}")
        ids = table.column("id").to_pylist()
        self.assertEqual(sorted(ids), list(range(1, 20_001)))
        cities = collections.Counter(table.column("city").cast(pa.string()).to_pylist())
        (top, first), (_, second) = cities.most_common(2)
        self.assertAlmostEqual(first / second, 2.0, delta=0.3)
        self.assertAlmostEqual(table.column("at").null_count / 20_000, 0.25, delta=0.02)
        prices = [p for p in table.column("price").to_pylist()]
        self.assertTrue(all(1 <= p <= 500 for p in prices))
        for attrs in table.column("attrs").to_pylist():
            keys = [k for k, _ in attrs]
            self.assertEqual(len(keys), len(set(keys)), "map keys distinct within a map")

    def test_types_without_a_spec_form_are_named(self):
        with self.assertRaisesRegex(ValueError, "duration"):
            to_spec(pa.schema([pa.field("d", pa.duration("s"))]))


if __name__ == "__main__":
    unittest.main()
