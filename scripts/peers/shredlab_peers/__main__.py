"""`python -m shredlab_peers COMMAND`: the commands of `make peers` (see `--help`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import digest, readers, run, writers


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m shredlab_peers", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    bench = commands.add_parser("run", help="the whole peers benchmark (what `make peers` runs)")
    bench.add_argument("--rows", type=_positive, default=10_000_000)
    bench.add_argument("--compressions", default="none,zstd(1)", help="comma-separated: none, snappy, zstd(LEVEL)")
    bench.add_argument("--runs", type=_positive, default=5, help="timed writes per writer and cell")
    bench.add_argument("--warmup", type=int, default=1, help="rounds of writes run first and not kept")
    bench.add_argument("--scan-runs", type=_positive, default=3, help="timed scans per file and reader")
    bench.add_argument("--row-group-rows", type=_positive, default=1_048_576)
    bench.add_argument("--threads", type=_positive, default=os.cpu_count() or 1)
    bench.add_argument("--experiments", default="14 21", help="catalog experiments whose files are also scanned")
    bench.add_argument("--seed", type=int, default=42)
    bench.add_argument("--spec", default="", help="a spec file (SPEC.md) to write instead of the contacts; no scans")
    bench.add_argument("--bin-dir", type=Path, required=True, help="the Rust release binaries (pipeline, peers)")
    bench.add_argument("--work", type=Path, required=True, help="scratch folder for the hand-over and Parquet files")
    bench.add_argument("--command-line", default="", help="the command to record in the metadata")
    bench.add_argument("out", type=Path, help="results folder, e.g. results/vm/peers")

    write = commands.add_parser("write", help="one timed write by a Python peer")
    write.add_argument("--writer", required=True, choices=[w.name for w in writers.WRITERS if w.prepare])
    write.add_argument("--compression", default="none")
    write.add_argument("--row-group-rows", type=_positive, default=1_048_576)
    write.add_argument("--settings", choices=writers.SETTINGS, default="default")
    write.add_argument("--threads", type=_positive, default=os.cpu_count() or 1)
    write.add_argument("input", help="the hand-over Arrow IPC file")
    write.add_argument("output", help="the Parquet file to write")

    back = commands.add_parser("readback", help="one reader's digest and schema of a file")
    back.add_argument("--reader", required=True, choices=readers.READERS)
    back.add_argument("file")

    scan = commands.add_parser("scan", help="one reader's timed full and filtered scans of a file")
    scan.add_argument("--reader", required=True, choices=readers.SCAN_READERS)
    scan.add_argument("--name", required=True)
    scan.add_argument("--phone-type", required=True)
    scan.add_argument("file")

    gate = commands.add_parser("digest", help="the data gate's digest of Parquet or Arrow IPC files, by pyarrow")
    gate.add_argument("files", nargs="+")
    return parser


def _digest(files: list[str]) -> None:
    import pyarrow.parquet as pq

    total = digest.Digest()
    for path in files:
        with open(path, "rb") as head:
            is_ipc = head.read(6) == b"ARROW1"
        batches = writers.load_ipc(path).to_batches() if is_ipc else readers.parquet_batches(pq.ParquetFile(path))
        total = total + digest.of_batches(batches)
    print(total)


def main() -> int:
    args = _parser().parse_args()
    try:
        if args.command == "write":
            writers.main_write(args)
        elif args.command == "readback":
            readers.main_readback(args)
        elif args.command == "scan":
            readers.main_scan(args)
        elif args.command == "digest":
            _digest(args.files)
        else:
            plan = run.Plan(
                rows=args.rows,
                compressions=[c.strip() for c in args.compressions.split(",") if c.strip()],
                runs=args.runs,
                warmup=max(0, args.warmup),
                scan_runs=args.scan_runs,
                row_group_rows=args.row_group_rows,
                threads=args.threads,
                experiments=[int(n) for n in args.experiments.split()],
                seed=args.seed,
                out=args.out,
                work=args.work,
                bin_dir=args.bin_dir,
                command=args.command_line,
                spec=args.spec,
            )
            for compression in plan.compressions:
                writers.codec_and_level(compression)
            outcome = run.run(plan)
            for module, reason in outcome.missing.items():
                print(f"missing peer (skipped): {module}: {reason}", file=sys.stderr)
            for problem in outcome.failures + outcome.mismatches:
                print(f"error: {problem}", file=sys.stderr)
            return 1 if outcome.failures or outcome.mismatches else 0
    except (ValueError, OSError, TypeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
