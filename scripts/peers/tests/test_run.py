"""`make peers` end to end on a small run: every writer's file read back by every reader, a
missing peer reported and skipped, a wrong digest failing the run."""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path

from shredlab_peers import run
from shredlab_peers.writers import WRITERS, codec_and_level

from .helpers import BIN_DIR


def small_plan(root: Path) -> run.Plan:
    return run.Plan(
        rows=3_000, compressions=["zstd(1)"], runs=1, warmup=1, scan_runs=1, row_group_rows=1_000,
        threads=2, experiments=[14], seed=3, out=root / "results", work=root / "work", bin_dir=BIN_DIR,
    )


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


class RunTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.root = Path(self.scratch.name)

    def tearDown(self):
        self.scratch.cleanup()

    def test_every_file_is_read_back_by_three_readers(self):
        plan = small_plan(self.root)
        outcome = run.run(plan)
        self.assertEqual((outcome.missing, outcome.failures, outcome.mismatches), ({}, [], []))
        writes = lines(plan.out / "writes.jsonl")
        aligned = sum(w.aligned_differs for w in WRITERS)
        self.assertEqual(len(writes), len(WRITERS) + aligned)
        readback = lines(plan.out / "readback.jsonl")
        # Every writer's file plus experiment 14's, each by three readers.
        self.assertEqual(len(readback), 3 * (len(writes) + 1))
        self.assertTrue(all(r["digest_matches"] and r["schema_matches"] for r in readback))
        self.assertEqual({r["digest"] for r in readback}, {json.loads((plan.out / "metadata.json").read_text())["digest"]})
        layouts = lines(plan.out / "layout.jsonl")
        self.assertTrue(all(entry["layout"]["rows"] == plan.rows for entry in layouts))
        # Row groups of 1,000 rows where the writer honours the setting exactly.
        arrow = next(e for e in layouts if e["writer"] == "ArrowWriter")
        self.assertEqual(arrow["layout"]["row_groups"], 3)
        scans = lines(plan.out / "scans.jsonl")
        self.assertEqual(len(scans), 2 * (len(writes) + 1))
        self.assertTrue(all(s["name_rows"] == 1 for s in scans), "the rare name occurs once")
        self.assertEqual(len({s["phone_type_rows"] for s in scans}), 1)
        self.assertFalse(list(plan.work.rglob("*.partial-*")), "no temporary file left")

    def test_a_spec_workload_is_written_and_read_back_by_every_peer(self):
        plan = small_plan(self.root)
        plan.warmup = 0
        plan.spec = str(Path(__file__).resolve().parents[3] / "specs" / "otel-logs.json")
        outcome = run.run(plan)
        self.assertEqual((outcome.missing, outcome.failures, outcome.mismatches), ({}, [], []))
        readback = lines(plan.out / "readback.jsonl")
        self.assertTrue(readback and all(r["digest_matches"] and r["schema_matches"] for r in readback))
        metadata = json.loads((plan.out / "metadata.json").read_text())
        self.assertEqual(metadata["workload"], "specs/otel-logs.json")
        self.assertIn("attributes: list<struct<key: string, value: string>>", metadata["schema"])
        self.assertFalse((plan.out / "scans.jsonl").exists(), "the scans' filters are the contacts'")

    def test_a_missing_peer_is_reported_and_the_others_run(self):
        plan = small_plan(self.root)
        plan.experiments = []
        saved = sys.modules.get("polars")
        sys.modules["polars"] = None  # makes `import polars` raise ImportError
        try:
            outcome = run.run(plan)
        finally:
            if saved is None:
                del sys.modules["polars"]
            else:
                sys.modules["polars"] = saved
        self.assertIn("polars", outcome.missing)
        self.assertEqual((outcome.failures, outcome.mismatches), ([], []))
        writers = {w["writer"] for w in lines(plan.out / "writes.jsonl")}
        self.assertNotIn("polars", writers)
        self.assertIn("duckdb-2t-any-order", writers)
        self.assertEqual({r["reader"] for r in lines(plan.out / "readback.jsonl")}, {"duckdb", "pyarrow"})
        metadata = json.loads((plan.out / "metadata.json").read_text())
        self.assertIn("polars", metadata["missing"])

    def test_a_digest_that_differs_fails_the_run(self):
        plan = small_plan(self.root)
        plan.out.mkdir(parents=True)
        good = self.root / "good.parquet"
        hand_over = self.root / "contacts.arrow"
        run._child([str(BIN_DIR / "peers"), "export", "--rows", "100", str(hand_over)])
        run._child([str(BIN_DIR / "peers"), "write", "--writer", "arrow", str(hand_over), str(good)])
        outcome = run.Outcome()
        files = [{"writer": "ArrowWriter", "settings": "default", "compression": "none", "file": str(good)}]
        run.read_back(plan, files, "100:" + "0" * 32, "name: string, phones: list<struct<number: string, phone_type: string>>", outcome)
        self.assertEqual(len(outcome.mismatches), 3, outcome.mismatches)
        self.assertIn("expected 100:000", outcome.mismatches[0])

    def test_unknown_compressions_are_refused_by_name(self):
        with self.assertRaisesRegex(ValueError, "compression 'gzip'"):
            codec_and_level("gzip")
        self.assertEqual(codec_and_level("zstd(3)"), ("zstd", 3))


if __name__ == "__main__":
    unittest.main()
