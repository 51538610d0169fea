"""`make python-bench`: the Python package's targets, measured in interleaved rounds.

1. Generation: `shredlab.contacts(ROWS)` read fully into a pyarrow.Table, in a fresh Python
   process, against `pipeline --sink null` for the same rows. CPU is the child's user + system
   time (getrusage); the Python side is reported twice: the whole process, and the call alone
   (measured inside the child, without interpreter start and `import pyarrow`).
2. Writing: one table of ROWS contacts, in this process, written by `shredlab.write_parquet`
   and by `pyarrow.parquet.write_table` (same row groups, same codec), alternating which goes
   first each round; the ratio is taken round by round.

Usage: python package_bench.py BIN_DIR OUT_DIR ROWS RUNS CODEC[,CODEC...]
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import shredlab

ROW_GROUP_ROWS = 1_048_576
CHILD = """
import json, resource, sys, time
import pyarrow, shredlab
before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
table = shredlab.contacts({rows}).read_all()
after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - start
assert table.num_rows == {rows}
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(json.dumps({{"call_wall_s": wall, "call_cpu_s": cpu}}))
"""


def child(command: list[str]) -> tuple[float, float, str]:
    """Runs `command`; its wall seconds, CPU seconds and standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def generation(bin_dir: Path, rows: int, runs: int) -> dict:
    pipeline = [str(bin_dir / "pipeline"), "-n", str(rows), "--sink", "null", "-q"]
    python = [sys.executable, "-c", CHILD.format(rows=rows)]
    rounds = []
    for round_ in range(runs):
        order = [("pipeline", pipeline), ("python", python)]
        if round_ % 2:
            order.reverse()
        record = {}
        for name, command in order:
            wall, cpu, out = child(command)
            record[f"{name}_wall_s"], record[f"{name}_cpu_s"] = wall, cpu
            if name == "python":
                record.update(json.loads(out))
        record["cpu_ratio"] = record["python_cpu_s"] / record["pipeline_cpu_s"]
        record["call_cpu_ratio"] = record["call_cpu_s"] / record["pipeline_cpu_s"]
        rounds.append(record)
        print(f"generation round {round_}: {json.dumps(record)}", file=sys.stderr)
    return {"rounds": rounds, **medians(rounds)}


def writing(rows: int, runs: int, codecs: list[str], scratch: Path) -> dict:
    table = shredlab.contacts(rows).read_all()
    results = {}
    for codec in codecs:
        name, level = (codec, None) if "(" not in codec else (codec[: codec.index("(")], int(codec[codec.index("(") + 1 : -1]))

        def pyarrow_write(path: Path) -> None:
            pq.write_table(table, path, compression=name, compression_level=level, row_group_size=ROW_GROUP_ROWS)

        def shredlab_write(path: Path) -> None:
            shredlab.write_parquet(table, path, compression=codec, row_group_rows=ROW_GROUP_ROWS)

        rounds = []
        for round_ in range(runs):
            order = [("pyarrow", pyarrow_write), ("shredlab", shredlab_write)]
            if round_ % 2:
                order.reverse()
            record = {}
            for writer, write in order:
                path = scratch / f"{writer}.parquet"
                start = time.perf_counter()
                write(path)
                record[f"{writer}_wall_s"] = time.perf_counter() - start
                record[f"{writer}_bytes"] = path.stat().st_size
                path.unlink()
            record["speedup"] = record["pyarrow_wall_s"] / record["shredlab_wall_s"]
            rounds.append(record)
            print(f"write {codec} round {round_}: {json.dumps(record)}", file=sys.stderr)
        results[codec] = {"rounds": rounds, **medians(rounds)}
    return results


def medians(rounds: list[dict]) -> dict:
    return {f"median_{key}": statistics.median(r[key] for r in rounds) for key in rounds[0]}


def build_stamp(bin_dir: Path) -> dict:
    report = json.loads(child([str(bin_dir / "pipeline"), "-n", "1", "--sink", "null", "--json", "-q"])[2])
    return {"commit": report["build"].get("commit"), "dirty": report["build"].get("dirty")}


def main() -> int:
    bin_dir, out_dir, rows, runs, codecs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(",")
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(os.environ.get("TMPDIR", "/tmp"))
    report = {
        "rows": rows,
        "runs": runs,
        "build": build_stamp(bin_dir),
        "versions": {"shredlab": "this checkout", "pyarrow": pa.__version__, "python": sys.version.split()[0]},
        "cpus": os.cpu_count(),
        "generation": generation(bin_dir, rows, runs),
        "write": writing(rows, runs, codecs, scratch),
    }
    (out_dir / "package-bench.json").write_text(json.dumps(report, indent=2) + "\n")
    g = report["generation"]
    lines = [
        f"# The Python package against its targets ({rows:,} contacts, {runs} interleaved rounds, medians)",
        "",
        f"Built from {report['build']['commit']} (dirty: {report['build']['dirty']}); pyarrow {pa.__version__}, {os.cpu_count()} CPUs.",
        "",
        "| generation | wall s | CPU s | CPU / pipeline (per round) | target |",
        "|---|---:|---:|---:|---|",
        f"| `pipeline --sink null` | {g['median_pipeline_wall_s']:.3f} | {g['median_pipeline_cpu_s']:.3f} | 1.00 | |",
        f"| `shredlab.contacts(...).read_all()`, whole process | {g['median_python_wall_s']:.3f} | {g['median_python_cpu_s']:.3f} | {g['median_cpu_ratio']:.2f} | |",
        f"| the call alone | {g['median_call_wall_s']:.3f} | {g['median_call_cpu_s']:.3f} | {g['median_call_cpu_ratio']:.2f} | at most 1.2 |",
        "",
        "| write, same table | pyarrow.write_table s | shredlab.write_parquet s | speedup (per round) | target |",
        "|---|---:|---:|---:|---|",
    ]
    for codec, w in report["write"].items():
        lines.append(f"| {codec} | {w['median_pyarrow_wall_s']:.3f} | {w['median_shredlab_wall_s']:.3f} | {w['median_speedup']:.2f}x | at least 1.9x |")
    lines += ["", f"Command: `make python-bench ROWS={rows} RUNS={runs}`; raw rounds in package-bench.json."]
    (out_dir / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
