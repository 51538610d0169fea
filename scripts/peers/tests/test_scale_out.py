"""Scale-out: the shards run as Dask tasks compose to one process's data, and an independent
reader (pyarrow's S3 client) reads the pipeline's objects back from a real local S3 server."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from shredlab_peers import digest, s3

from .helpers import BIN_DIR

SCRIPTS = Path(__file__).resolve().parents[2]


def load_cluster():
    spec = importlib.util.spec_from_file_location("cluster", SCRIPTS / "cluster.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ClusterTest(unittest.TestCase):
    def test_the_union_of_digests_is_their_sum(self):
        cluster = load_cluster()
        a, b = digest.Digest(3, (1 << 128) - 5), digest.Digest(4, 9)
        expected = a + b
        as_json = lambda d: {"rows": d.rows, "sum": f"{d.sum:032x}"}
        self.assertEqual(cluster.union([as_json(a), as_json(b)]), as_json(expected))

    def test_dask_shards_compose_to_one_process(self):
        cluster = load_cluster()
        with tempfile.TemporaryDirectory() as scratch:
            report_path = Path(scratch) / "dask.json"
            status = cluster.main([
                "--bin", str(BIN_DIR / "pipeline"), "--workers", "2", "--parts", "3",
                "--rows-per-part", "20000", "--experiment", "20",
                "--output", str(Path(scratch) / "shards"), "--json-out", str(report_path),
            ])
            report = json.loads(report_path.read_text())
            files = sorted(p.name for p in (Path(scratch) / "shards" / "w2-p3").iterdir())
        self.assertEqual(status, 0)
        (run,) = report["runs"]
        self.assertTrue(run["digest_matches"])
        self.assertEqual(run["digest"], run["reference_digest"])
        self.assertEqual(run["digest"]["rows"], 60000)
        self.assertEqual([s["part"] for s in run["shards"]], [0, 1, 2])
        self.assertEqual(len([f for f in files if f.endswith("manifest.json")]), 3)

    def test_a_failing_shard_fails_the_run_with_its_error(self):
        cluster = load_cluster()
        with tempfile.TemporaryDirectory() as scratch:
            not_a_directory = Path(scratch) / "file"
            not_a_directory.write_text("")
            with self.assertRaises(SystemExit) as caught:
                cluster.main([
                    "--bin", str(BIN_DIR / "pipeline"), "--workers", "1", "--rows-per-part", "1000",
                    "--output", str(not_a_directory), "--json-out", str(Path(scratch) / "d.json"),
                ])
        self.assertIn("a shard of the 1-worker run failed", str(caught.exception))
        self.assertIn("cannot use output directory", str(caught.exception))


class S3ReadBackTest(unittest.TestCase):
    def test_pyarrow_reads_the_objects_the_pipeline_wrote(self):
        with tempfile.TemporaryDirectory() as server:
            script = SCRIPTS / "s3-server.sh"
            env_file = subprocess.run([str(script), "start", server, "shredlab"], check=True,
                                      capture_output=True, text=True).stdout.strip()
            try:
                settings = dict(
                    line.removeprefix("export ").split("=", 1)
                    for line in Path(env_file).read_text().splitlines() if line.startswith("export ")
                )
                env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | settings
                out = subprocess.run(
                    [str(BIN_DIR / "pipeline"), "--rows", "50000", "--writers", "2", "--verify", "--quiet",
                     "--json", "--output", "s3://shredlab/readback"],
                    env=env, capture_output=True, text=True, check=True,
                )
                report = json.loads(out.stdout)
                with mock.patch.dict(os.environ, settings):
                    read = s3.read_back("s3://shredlab/readback")
            finally:
                subprocess.run([str(script), "stop", server], check=True)
        self.assertEqual(read["digest"], f"{report['digest']['rows']}:{report['digest']['sum']}")
        self.assertEqual([f["path"] for f in read["files"]], report["files"])
        self.assertEqual(read["manifest_digest"], report["digest"])


if __name__ == "__main__":
    unittest.main()
