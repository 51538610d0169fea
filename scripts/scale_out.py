"""The scale-out measurements and their report, results/<host>/scale-out/.

    python scripts/scale_out.py store --bin PIPELINE --server-pid PID --dir DIR [...]
    python scripts/scale_out.py render DIR [--scaling results/<host>/scaling/scaling.json]

`store` runs the same pipeline command to local disk and to the S3 server the AWS_* variables
point at, in interleaved rounds (the order alternates, so the host's drift hits both), and
writes DIR/store.json: every run's wall time, the pipeline's own report (elapsed, CPU, peak
RSS, bytes), and the server process's CPU time during the run, read from /proc. With
--big-rows it also streams one large object and writes the same rows to disk, for peak RSS.

`render` writes DIR/README.md from store.json and dask.json (scripts/cluster.py), and the
scale-out model: rows/s for N machines writing to one store, from the measured figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
# The last run's report as the pipeline printed it, for scripts/common.sh's write_metadata.
LAST_REPORT: dict[str, str] = {}


def server_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def one_run(command: list[str], server_pid: int) -> dict:
    before = server_cpu_s(server_pid)
    started = time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}): {process.stderr.strip()}")
    report = json.loads(process.stdout)
    LAST_REPORT["line"] = process.stdout.strip()
    return {
        "wall_s": wall,
        "server_cpu_s": server_cpu_s(server_pid) - before,
        "report": {key: report[key] for key in (
            "experiment", "slug", "rows", "writers", "producers", "elapsed_s", "cpu_s",
            "peak_rss_bytes", "output_bytes", "files", "sync", "allocator", "build")},
    }


def store_bench(args: argparse.Namespace) -> int:
    local_dir = Path(args.local_dir)
    common = [args.bin, "--experiment", str(args.experiment), "--rows", str(args.rows),
              "--quiet", "--json", "--overwrite"]
    if args.writers:
        common += ["--writers", str(args.writers)]
    targets = {
        "local": common + ["--output", str(local_dir / "bench")],
        "s3": common + ["--output", f"{args.url}/bench"],
    }
    rounds = []
    for round_index in range(args.warmup + args.runs):
        order = ["local", "s3"] if round_index % 2 == 0 else ["s3", "local"]
        results = {target: one_run(targets[target], args.server_pid) for target in order}
        label = "warm-up" if round_index < args.warmup else f"round {round_index - args.warmup + 1}"
        print(f"{label}: local {results['local']['wall_s']:.2f} s, s3 {results['s3']['wall_s']:.2f} s "
              f"(server CPU {results['s3']['server_cpu_s']:.2f} s)", file=sys.stderr)
        if round_index >= args.warmup:
            rounds.append({"order": order, **results})
    big = None
    if args.big_rows:
        big_common = [args.bin, "--experiment", str(args.experiment), "--rows", str(args.big_rows),
                      "--writers", "1", "--quiet", "--json", "--overwrite"]
        print(f"one object of {args.big_rows} rows to the store, then to disk", file=sys.stderr)
        big = {
            "rows": args.big_rows,
            "s3": one_run(big_common + ["--output", f"{args.url}/big"], args.server_pid),
            "local": one_run(big_common + ["--output", str(local_dir / "big")], args.server_pid),
        }
        shutil.rmtree(local_dir / "big", ignore_errors=True)
    shutil.rmtree(local_dir / "bench", ignore_errors=True)
    result = {
        "server": args.server,
        "url": args.url,
        "local_dir": str(local_dir),
        "experiment": args.experiment,
        "rows": args.rows,
        "runs": args.runs,
        "warmup": args.warmup,
        "rounds": rounds,
        "big": big,
    }
    out = Path(args.dir) / "store.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    if args.last_report:
        Path(args.last_report).write_text(LAST_REPORT["line"] + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0


def dirty_text(dirty) -> str:
    """A report's dirty flag as the README writes it: a JSON boolean (or, from older reports, text)."""
    return str(dirty).lower() if isinstance(dirty, (bool, str)) else "unknown"


def median(values) -> float:
    return statistics.median(list(values))


def mib(n: float) -> str:
    return f"{n / 2**20:.0f} MiB"


def store_section(store: dict) -> tuple[list[str], dict]:
    rounds = store["rounds"]
    local = [r["local"] for r in rounds]
    s3 = [r["s3"] for r in rounds]
    ratio = median(r["s3"]["wall_s"] / r["local"]["wall_s"] for r in rounds)
    bytes_out = median(r["report"]["output_bytes"] for r in s3)
    rows = store["rows"]
    server_cpu = median(r["server_cpu_s"] for r in s3)
    figures = {
        "rows": rows,
        "bytes_per_row": bytes_out / rows,
        "s3_wall_s": median(r["wall_s"] for r in s3),
        "local_wall_s": median(r["wall_s"] for r in local),
        "ratio": ratio,
        "server_cpu_s": server_cpu,
        "server_bytes_per_cpu_s": bytes_out / server_cpu if server_cpu else None,
    }
    build = s3[0]["report"]["build"]
    lines = [
        "## Object store against local disk",
        "",
        f"`make store-bench`: experiment {store['experiment']}, {rows:,} rows, {store['runs']} interleaved rounds "
        f"(after {store['warmup']} warm-up), the same command with `--output {store['local_dir']}/bench` "
        f"and `--output {store['url']}/bench`; server: {store['server']}. Build {build['commit']}, dirty: {dirty_text(build['dirty'])}. Medians:",
        "",
        "| output | wall s | pipeline CPU s | server CPU s | peak RSS | MB/s written |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, runs in (("local disk (sync at end)", local), ("S3 (multipart, 8 MiB parts)", s3)):
        wall = median(r["wall_s"] for r in runs)
        lines.append(
            f"| {name} | {wall:.2f} | {median(r['report']['cpu_s'] for r in runs):.2f} | "
            f"{median(r['server_cpu_s'] for r in runs) if runs is s3 else 0:.2f} | "
            f"{mib(median(r['report']['peak_rss_bytes'] for r in runs))} | {bytes_out / wall / 1e6:.0f} |"
        )
    verdict = "met" if ratio <= 1.3 else "missed"
    lines += [
        "",
        f"- **S3 over local disk, wall time: {ratio:.2f}x** (median of the per-round ratios; target at most 1.3x: {verdict}).",
        f"- The local server is not free: Garage spent {server_cpu:.2f} CPU s per run "
        f"({bytes_out / server_cpu / 1e6:.0f} MB per CPU second) on the same {os.cpu_count()} cores the pipeline uses. "
        "With a store on other machines (AWS S3, a Garage or MinIO cluster) that CPU is not taken from the writer.",
    ]
    big = store.get("big")
    if big:
        s3_rss, local_rss = big["s3"]["report"]["peak_rss_bytes"], big["local"]["report"]["peak_rss_bytes"]
        lines += [
            f"- **Streaming one {big['s3']['report']['output_bytes'] / 1e9:.1f} GB object** "
            f"({big['rows']:,} rows, one writer): peak RSS {mib(s3_rss)} against {mib(local_rss)} for the same file on local disk "
            f"({s3_rss / local_rss:.2f}x); wall {big['s3']['wall_s']:.1f} s against {big['local']['wall_s']:.1f} s.",
        ]
    return lines, figures


def dask_section(dask: dict, scaling: dict | None) -> tuple[list[str], dict]:
    lines = [
        "## Shards as Dask tasks",
        "",
        f"`make cluster`: {dask['scheduler']}{', each shard pinned to one CPU as in `make scaling`' if dask.get('pinned') else ''}, "
        f"experiment {dask['experiment']}, {dask['rows_per_part']:,} rows per shard, "
        f"{dask['producers_per_shard']} producer per shard, output `{dask['output']}`. "
        f"Build {dask['build']['commit']}, dirty: {dirty_text(dask['build']['dirty'])}. Each run's rows/s is rows over the "
        "slowest shard's pipeline time (as `make scaling` computes it); end to end adds Dask's scheduling and process starts. "
        "Every shard runs with `--verify` (its producer digests each batch as it is made), so a shard is slower than "
        "`make scaling`'s unverified processes; the efficiencies compare like with like.",
        "",
        "| workers | shards | rows | slowest shard s | M rows/s | efficiency | end-to-end M rows/s | union digest = one process's |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for run in dask["runs"]:
        efficiency = f"{run['efficiency'] * 100:.0f} %" if run.get("efficiency") is not None else "n/a"
        lines.append(
            f"| {run['workers']} | {run['parts']} | {run['rows']:,} | {run['slowest_shard_s']:.2f} | "
            f"{run['rows_per_s'] / 1e6:.2f} | {efficiency} | {run['end_to_end_rows_per_s'] / 1e6:.2f} | "
            f"{'yes' if run['digest_matches'] else 'NO'} ({run['digest']['rows']}:{run['digest']['sum'][:8]}...) |"
        )
    two = next((r for r in dask["runs"] if r["workers"] == 2 and r.get("efficiency") is not None), None)
    figures = {"dask_efficiency_2": two["efficiency"] if two else None}
    if two and scaling:
        step = next((s for s in scaling.get("steps", []) if s.get("procs") == 2), None)
        if step:
            gap = (two["efficiency"] - step["efficiency"]) * 100
            verdict = "met" if abs(gap) <= 5 else "missed"
            lines += ["", f"- Efficiency at 2 workers: {two['efficiency'] * 100:.0f} % against `make scaling`'s "
                      f"{step['efficiency'] * 100:.0f} % at 2 processes ({gap:+.0f} points; target within 5: {verdict})."]
    return lines, figures


def model_section(store: dict | None, dask: dict | None, store_figures: dict) -> list[str]:
    if not (store and dask):
        return []
    single = next((r for r in dask["runs"] if r["workers"] == 1), None)
    best = max(dask["runs"], key=lambda r: r["rows_per_s"])
    if not single:
        return []
    machine_rate = best["rows_per_s"]
    ratio = store_figures["ratio"]
    bytes_per_row = store_figures["bytes_per_row"]
    server_rate = store_figures["server_bytes_per_cpu_s"]
    lines = [
        "## Scale-out model",
        "",
        "Rows/s for N machines writing to one store: `min(N x R / s, C x B / b)`, where",
        f"- R = {machine_rate / 1e6:.2f} M rows/s, one machine's rate here (the best Dask run, {best['workers']} workers on {os.cpu_count()} cores);",
        f"- s = {ratio:.2f}, the slowdown of writing to the store instead of local disk, measured with the server on the same machine (an upper bound: a remote store takes none of the writer's CPU);",
        f"- b = {bytes_per_row:.1f} bytes per row written;",
        f"- B = {server_rate / 1e6:.0f} MB/s per server core, what the local Garage ingested per CPU second; C = the store's cores.",
        "",
        "It assumes identical machines, shards that do not share anything but the store, a network that is not the limit, "
        "and a store whose ingest grows with its cores; a real S3 bucket's limits are per prefix (request rates), so spread shards over prefixes.",
        "",
        "| machines | store with 2 cores: M rows/s | store with 16 cores: M rows/s |",
        "|---:|---:|---:|",
    ]
    for machines in (1, 2, 4, 8, 16, 32, 64):
        cells = []
        for cores in (2, 16):
            rate = min(machines * machine_rate / ratio, cores * server_rate / bytes_per_row)
            cells.append(f"{rate / 1e6:.1f}")
        lines.append(f"| {machines} | {' | '.join(cells)} |")
    return lines


def render(args: argparse.Namespace) -> int:
    directory = Path(args.dir)
    store = json.loads((directory / "store.json").read_text()) if (directory / "store.json").exists() else None
    dask = json.loads((directory / "dask.json").read_text()) if (directory / "dask.json").exists() else None
    scaling = json.loads(Path(args.scaling).read_text()) if args.scaling and Path(args.scaling).exists() else None
    lines = ["# Scale-out: object storage and Dask", ""]
    store_figures = {}
    if store:
        section, store_figures = store_section(store)
        lines += section + [""]
    if dask:
        section, _ = dask_section(dask, scaling)
        lines += section + [""]
    lines += model_section(store, dask, store_figures)
    (directory / "README.md").write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {directory / 'README.md'}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    store = commands.add_parser("store")
    store.add_argument("--bin", required=True)
    store.add_argument("--server-pid", type=int, required=True)
    store.add_argument("--server", required=True, help="what the server is, for the report")
    store.add_argument("--url", required=True, help="s3://bucket/prefix to write under")
    store.add_argument("--local-dir", required=True)
    store.add_argument("--dir", required=True)
    store.add_argument("--experiment", type=int, required=True)
    store.add_argument("--rows", type=int, default=10_000_000)
    store.add_argument("--writers", type=int, default=0)
    store.add_argument("--runs", type=int, default=5)
    store.add_argument("--warmup", type=int, default=1)
    store.add_argument("--big-rows", type=int, default=0)
    store.add_argument("--last-report", default="", help="write the last run's JSON report here")
    store.set_defaults(run=store_bench)
    report = commands.add_parser("render")
    report.add_argument("dir")
    report.add_argument("--scaling", default="")
    report.set_defaults(run=render)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
