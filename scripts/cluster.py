"""Runs the `pipeline --part i --parts N` shards as Dask tasks and checks that they compose.

    python scripts/cluster.py --parts 4 --workers 2 [--scheduler tcp://host:8786] ...

Without --scheduler, a LocalCluster of --workers single-threaded worker processes is started on
this machine (and stopped at the end); with it, the shards run on that existing cluster, whose
workers must see the same `pipeline` binary path (--bin) and the output location (a shared
directory, or s3://... with the AWS_* variables set on every worker).

Every shard runs with --verify, so each reports the digest of the files it committed. Their
union (the wrapping sum of the digests) must equal the digest of one process generating the
same rows: the reference run, made here unless --reference-digest gives it. The JSON report
holds every shard's metrics, its worker and times, the aggregate rows/s (two ways: rows over
the slowest shard's pipeline time, as `make scaling` computes it, and rows over the wall time
from submission to the last result) and whether the digests agree; the exit status is 1 if
they do not or a shard failed.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DIGEST_MODULUS = 1 << 128


def run_shard(command: list[str], pin: bool = False) -> dict:
    """One shard, on a worker: the pipeline's JSON report, with where and how long it ran.
    With `pin`, the shard runs on one CPU, chosen by the worker's number (a LocalCluster names
    its workers 0, 1, ...), as `make scaling` pins its processes."""
    cpu = None
    if pin:
        from dask.distributed import get_worker

        cpu = int(get_worker().name) % os.cpu_count()
        command = ["taskset", "-c", str(cpu), *command]
    started = time.time()
    process = subprocess.run(command, capture_output=True, text=True)
    finished = time.time()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {process.returncode}: {process.stderr.strip()}")
    report = json.loads(process.stdout)
    report["host"] = socket.gethostname()
    report["worker_pid"] = os.getpid()
    report["cpu"] = cpu
    report["started_at"] = started
    report["finished_at"] = finished
    report["process_s"] = finished - started
    return report


def union(digests: list[dict]) -> dict:
    """The digest of the union of disjoint row sets: rows added, sums added mod 2^128."""
    rows = sum(d["rows"] for d in digests)
    total = sum(int(d["sum"], 16) for d in digests) % DIGEST_MODULUS
    return {"rows": rows, "sum": f"{total:032x}"}


def shard_output(output: str, run_label: str) -> str:
    """Where one run's shards write: a subfolder (or sub-prefix) per run, shared by the shards."""
    return output.rstrip("/") + "/" + run_label


def pipeline_command(args: argparse.Namespace, output: str, part: int, parts: int) -> list[str]:
    command = [
        args.bin, "--experiment", str(args.experiment), "--rows", str(args.rows),
        "--part", str(part), "--parts", str(parts), "--producers", str(args.producers),
        "--writers", "1", "--output", output, "--overwrite", "--verify", "--quiet", "--json",
    ]
    if args.spec:
        command += ["--spec", args.spec]
    return command


def reference_digest(args: argparse.Namespace) -> dict:
    """The digest of one process generating all the rows."""
    with tempfile.TemporaryDirectory(prefix="shredlab-reference-") as scratch:
        report = run_shard(pipeline_command(args, scratch, 0, 1))
    return report["digest"]


def start_client(args: argparse.Namespace, workers: int):
    """A Dask client of the given scheduler, or of a new LocalCluster of `workers` processes."""
    from dask.distributed import Client, LocalCluster

    if args.scheduler:
        return Client(args.scheduler), None
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True,
        dashboard_address=None, host="127.0.0.1", silence_logs=logging.ERROR,
    )
    return Client(cluster), cluster


def one_run(args: argparse.Namespace, workers: int, parts: int, expected: dict) -> dict:
    client, cluster = start_client(args, workers)
    # On this machine's LocalCluster each shard gets its own CPU, as in make scaling; an
    # existing cluster places its workers itself.
    pin = args.pin and cluster is not None
    try:
        available = len(client.scheduler_info()["workers"])
        label = f"w{workers}-p{parts}"
        output = shard_output(args.output, label)
        submitted = time.time()
        futures = [
            client.submit(run_shard, pipeline_command(args, output, part, parts), pin, pure=False, key=f"shard-{label}-{part}")
            for part in range(parts)
        ]
        try:
            shards = client.gather(futures)
        except Exception as error:  # a shard's failure, raised on its worker
            raise SystemExit(f"error: a shard of the {workers}-worker run failed: {error}") from error
        wall = time.time() - submitted
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    rows = sum(s["rows"] for s in shards)
    slowest = max(s["elapsed_s"] for s in shards)
    combined = union([s["digest"] for s in shards])
    return {
        "workers": workers,
        "workers_seen": available,
        "parts": parts,
        "rows": rows,
        "output": output,
        "wall_s": wall,
        "slowest_shard_s": slowest,
        "rows_per_s": rows / slowest,
        "end_to_end_rows_per_s": rows / wall,
        "digest": combined,
        "digest_matches": combined == expected,
        "shards": [
            {key: s.get(key) for key in (
                "part", "rows", "elapsed_s", "cpu_s", "peak_rss_bytes", "output_bytes", "files",
                "digest", "host", "worker_pid", "cpu", "process_s", "started_at", "finished_at", "build")}
            for s in sorted(shards, key=lambda s: s["part"])
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the pipeline binary (the same path on every worker)")
    parser.add_argument("--workers", default="2", help="worker counts, space- or comma-separated: one run each")
    parser.add_argument("--parts", type=int, default=0, help="shards per run [default: one per worker]")
    parser.add_argument("--rows-per-part", type=int, default=2_000_000, help="rows of each shard (the total grows with the shards, as in make scaling)")
    parser.add_argument("--experiment", type=int, default=20)
    parser.add_argument("--producers", type=int, default=1, help="producer threads per shard")
    parser.add_argument("--spec", default="", help="a spec file instead of the contacts")
    parser.add_argument("--output", required=True, help="a directory every worker sees, or s3://bucket/prefix")
    parser.add_argument("--scheduler", default="", help="tcp://host:8786 of an existing Dask cluster [default: a LocalCluster]")
    parser.add_argument("--no-pin", dest="pin", action="store_false",
                        help="on a LocalCluster, let the OS place the shards instead of one CPU per worker")
    parser.add_argument("--json-out", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    worker_counts = [int(w) for w in args.workers.replace(",", " ").split()]
    if not worker_counts or min(worker_counts) < 1:
        parser.error("--workers needs one or more counts of at least 1")
    if args.parts < 0 or args.rows_per_part < 1:
        parser.error("--parts must be 0 (one per worker) or more, and --rows-per-part at least 1")

    runs = []
    references: dict[int, dict] = {}
    for workers in worker_counts:
        parts = args.parts or workers
        args.rows = parts * args.rows_per_part
        if args.rows not in references:
            print(f"reference: one process, {args.rows} rows", file=sys.stderr)
            references[args.rows] = reference_digest(args)
        print(f"dask: {workers} worker(s), {parts} shard(s) of {args.rows_per_part} rows", file=sys.stderr)
        run = one_run(args, workers, parts, references[args.rows])
        run["reference_digest"] = references[args.rows]
        runs.append(run)
        verdict = "matches" if run["digest_matches"] else "DIFFERS FROM"
        print(
            f"  {run['rows_per_s'] / 1e6:.2f} M rows/s (slowest shard {run['slowest_shard_s']:.2f} s, "
            f"wall {run['wall_s']:.2f} s); union digest {verdict} one process's",
            file=sys.stderr,
        )
    single = next((r for r in runs if r["workers"] == 1 and r["parts"] == 1), None)
    for run in runs:
        run["efficiency"] = run["rows_per_s"] / (run["workers"] * single["rows_per_s"]) if single else None
    report = {
        "scheduler": args.scheduler or "LocalCluster",
        "experiment": args.experiment,
        "spec": args.spec or None,
        "rows_per_part": args.rows_per_part,
        "producers_per_shard": args.producers,
        "pinned": bool(args.pin and not args.scheduler),
        "output": args.output,
        "runs": runs,
        "build": runs[0]["shards"][0]["build"],
    }
    text = json.dumps(report, indent=2)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(text + "\n")
    else:
        print(text)
    return 0 if all(r["digest_matches"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
