"""`make python-bench`: the Python package's targets, measured in interleaved rounds.

1. Generation: `shredlab.contacts(ROWS)` in a fresh Python process, against `pipeline --sink
   null` for the same rows, each round in a rotated order. CPU is user + system time
   (getrusage). Python is measured two ways: read fully into a pyarrow.Table (the target), and
   streamed (each batch dropped once read, as `--sink null` does). For each, the whole process
   and the call alone (inside the child, without interpreter start and `import pyarrow`).
   A table keeps every batch, so the kernel must hand the process that much fresh, zeroed
   memory, which `--sink null` never asks for: the table child also times the kernel doing
   exactly that for a mapping of the table's size (first touch of each page), reported as the
   table's extra floor.
2. Writing: one table of ROWS contacts, in this process, written by `shredlab.write_parquet`
   and by `pyarrow.parquet.write_table` (same row groups, same codec), each file synced to disk
   before the clock stops (shredlab's writer syncs before it renames; pyarrow's file gets an
   fsync), alternating which goes first each round; the ratio is taken round by round.

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

# make python-bench puts scripts/peers on PYTHONPATH: the sync is the peers' own.
from shredlab_peers.writers import synced

ROW_GROUP_ROWS = 1_048_576
CHILD = """
import ctypes, json, mmap, resource, sys, time
import pyarrow, shredlab

def usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_stime, r.ru_minflt

def spent(before, after):
    return {{"cpu_s": after[0] - before[0], "sys_s": after[1] - before[1], "minor_faults": after[2] - before[2]}}

before, start = usage(), time.perf_counter()
reader = shredlab.contacts({rows})
if "{mode}" == "table":
    table = reader.read_all()
    rows = table.num_rows
else:
    rows = sum(batch.num_rows for batch in reader)
record = {{"call_wall_s": time.perf_counter() - start, **{{f"call_{{k}}": v for k, v in spent(before, usage()).items()}}}}
assert rows == {rows}, rows
if "{mode}" == "table":
    arrow_bytes = record["arrow_bytes_held"] = table.nbytes
    # The kernel's price of the table's memory alone: first touch of a fresh mapping its size.
    fresh = mmap.mmap(-1, arrow_bytes)
    view = (ctypes.c_char * arrow_bytes).from_buffer(fresh)
    before = usage()
    ctypes.memset(ctypes.addressof(view), 1, arrow_bytes)
    record.update({{f"first_touch_{{k}}": v for k, v in spent(before, usage()).items()}})
print(json.dumps(record))
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
    commands = [
        ("pipeline", [str(bin_dir / "pipeline"), "-n", str(rows), "--sink", "null", "-q"]),
        ("table", [sys.executable, "-c", CHILD.format(rows=rows, mode="table")]),
        ("stream", [sys.executable, "-c", CHILD.format(rows=rows, mode="stream")]),
    ]
    rounds = []
    for round_ in range(runs):
        shift = round_ % len(commands)
        record = {}
        for name, command in commands[shift:] + commands[:shift]:
            wall, cpu, out = child(command)
            record[f"{name}_wall_s"], record[f"{name}_cpu_s"] = wall, cpu
            if name != "pipeline":
                record.update({f"{name}_{key}": value for key, value in json.loads(out).items()})
        pipeline = record["pipeline_cpu_s"]
        for name in ("table", "stream"):
            record[f"{name}_cpu_ratio"] = record[f"{name}_cpu_s"] / pipeline
            record[f"{name}_call_cpu_ratio"] = record[f"{name}_call_cpu_s"] / pipeline
        record["table_floor_cpu_s"] = pipeline + record["table_first_touch_cpu_s"]
        record["table_call_cpu_over_floor"] = record["table_call_cpu_s"] / record["table_floor_cpu_s"]
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
            synced(path)

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
    readme = "\n".join(report_lines(report)) + "\n"
    (out_dir / "README.md").write_text(readme)
    print(readme, end="")
    return 0


def verdict(met: bool) -> str:
    return "met" if met else "**missed**"


def report_lines(report: dict) -> list[str]:
    """The results README: the targets' tables, then how the table's CPU divides."""
    rows, runs, g = report["rows"], report["runs"], report["generation"]
    lines = [
        f"# The Python package against its targets ({rows:,} contacts, {runs} interleaved rounds, medians)",
        "",
        f"Built from {report['build']['commit']} (dirty: {report['build']['dirty']}); pyarrow {report['versions']['pyarrow']}, {report['cpus']} CPUs.",
        "",
        "| generation | wall s | CPU s | of which system s | minor faults | CPU / pipeline (per round) | target |",
        "|---|---:|---:|---:|---:|---:|---|",
        f"| `pipeline --sink null` | {g['median_pipeline_wall_s']:.3f} | {g['median_pipeline_cpu_s']:.3f} | | | 1.00 | |",
    ]
    for name, call in (("table", "`shredlab.contacts(...).read_all()`"), ("stream", "`for batch in shredlab.contacts(...)`")):
        target = f"at most 1.2: {verdict(g[f'median_{name}_call_cpu_ratio'] <= 1.2)}" if name == "table" else ""
        lines += [
            f"| {call}, whole process | {g[f'median_{name}_wall_s']:.3f} | {g[f'median_{name}_cpu_s']:.3f} | | | {g[f'median_{name}_cpu_ratio']:.2f} | |",
            f"| the call alone | {g[f'median_{name}_call_wall_s']:.3f} | {g[f'median_{name}_call_cpu_s']:.3f} | {g[f'median_{name}_call_sys_s']:.3f} | {g[f'median_{name}_call_minor_faults']:,.0f} | {g[f'median_{name}_call_cpu_ratio']:.2f} | {target} |",
        ]
    held = g["median_table_arrow_bytes_held"] / 2**20
    lines += [
        "",
        f"The table holds {held:,.0f} MiB of Arrow data. Handing a process that much fresh memory costs the kernel "
        f"{g['median_table_first_touch_cpu_s']:.3f} CPU s here ({g['median_table_first_touch_minor_faults']:,.0f} first-touch faults "
        f"of a mapping that size, timed in the same child), a cost `--sink null` never pays because it frees each batch. "
        f"The pipeline plus that cost is the table's floor, {g['median_table_floor_cpu_s']:.3f} CPU s; "
        f"the call takes {g['median_table_call_cpu_over_floor']:.2f}x of it.",
        "",
        "| write, same table, synced | pyarrow.write_table s | shredlab.write_parquet s | speedup (per round) | target |",
        "|---|---:|---:|---:|---|",
    ]
    for codec, w in report["write"].items():
        lines.append(
            f"| {codec} | {w['median_pyarrow_wall_s']:.3f} | {w['median_shredlab_wall_s']:.3f} | {w['median_speedup']:.2f}x | at least 1.9x: {verdict(w['median_speedup'] >= 1.9)} |"
        )
    lines += ["", f"Command: `make python-bench ROWS={rows} RUNS={runs}`; raw rounds in package-bench.json."]
    return lines


if __name__ == "__main__":
    sys.exit(main())
