"""`make peers`: every writer on the same rows, interleaved; every file read back three times;
the read side of each write choice. Raw results go to the output folder as JSON lines, which
`results peers DIR` turns into the README and charts.

Every measurement runs in a fresh process (the Rust `peers` binary or `python -m shredlab_peers`),
so no writer inherits another's heap, threads or page cache state beyond the hand-over file.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from . import digest, readers, schema
from .writers import SETTINGS, WRITERS, Writer, codec_and_level, load_ipc


@dataclass
class Plan:
    """What one `make peers` run measures, and where."""

    rows: int
    compressions: list[str]
    runs: int
    warmup: int
    scan_runs: int
    row_group_rows: int
    threads: int
    experiments: list[int]
    seed: int
    out: Path
    work: Path
    bin_dir: Path
    command: str = ""
    spec: str = ""


@dataclass
class Outcome:
    """What went wrong, collected so that one failing peer does not stop the others."""

    missing: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def missing_modules(writers: list[Writer]) -> dict[str, str]:
    """The Python modules of `writers` (and of the readers) that do not import, with why."""
    missing = {}
    modules = {w.module for w in writers if w.module} | set(readers.READERS)
    for module in sorted(modules):
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing[module] = f"{type(error).__name__}: {error}"
    return missing


def _python(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "shredlab_peers", *arguments]


def _child(command: list[str]) -> dict:
    """Runs one measurement process and returns the JSON it prints; raises with its stderr."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"`{' '.join(command)}` exited with {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def slug(compression: str) -> str:
    codec, level = codec_and_level(compression)
    return codec if level is None else f"{codec}{level}"


def write_command(plan: Plan, writer: Writer, settings: str, compression: str, hand_over: Path, output: Path) -> list[str]:
    if writer.rust:
        statistics = "chunk" if settings == "aligned" else "page"
        return [
            str(plan.bin_dir / "peers"), "write", *writer.rust,
            "--compression", compression, "--row-group-rows", str(plan.row_group_rows),
            "--threads", str(plan.threads), "--statistics", statistics, str(hand_over), str(output),
        ]
    return _python(
        "write", "--writer", writer.name, "--compression", compression,
        "--row-group-rows", str(plan.row_group_rows), "--settings", settings,
        "--threads", str(plan.threads), str(hand_over), str(output),
    )


def rare_values(table: pa.Table) -> tuple[str, int, str]:
    """A name that occurs once (the middle one in sort order, so min/max statistics cannot rule
    it out), and the least common phone type with its count."""
    counts = pc.value_counts(table.column("name").combine_chunks())
    once = counts.filter(pc.equal(counts.field("counts"), 1)).field("values")
    names = pc.sort_indices(once)
    name = once[names[len(names) // 2].as_py()].as_py()
    phones = table.column("phones").combine_chunks().flatten().field("phone_type").cast(pa.string())
    types = pc.value_counts(phones.drop_null())
    rarest = pc.sort_indices(types.field("counts"))[0].as_py()
    return name, types.field("counts")[rarest].as_py(), types.field("values")[rarest].as_py()


def append(path: Path, record: dict) -> None:
    with path.open("a") as lines:
        lines.write(json.dumps(record) + "\n")


def build_stamp(plan: Plan) -> dict:
    """The commit and dirty flag the Rust binaries were built from."""
    report = _child([str(plan.bin_dir / "pipeline"), "--rows", "1", "--sink", "null", "--json", "--quiet"])
    build = report.get("build", {})
    dirty = build.get("dirty")
    return {"commit": build.get("commit"), "dirty": dirty if isinstance(dirty, bool) else None}


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in ("pyarrow", "duckdb", "polars", "datafusion", "numpy", "xxhash"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = "missing"
    return found


def measure_writes(plan: Plan, writers: list[Writer], hand_over: Path, outcome: Outcome) -> list[dict]:
    """Every cell RUNS times, the order rotated each round so drift hits every writer alike,
    after `plan.warmup` rounds whose runs are not kept (the first write of a fresh process
    tree pays for cold caches and page-cache state the others do not)."""
    cells = [
        (writer, settings, compression)
        for compression in plan.compressions
        for settings in SETTINGS
        for writer in writers
        if settings == "default" or writer.aligned_differs
    ]
    files = {}
    broken = set()
    for round_index in range(-plan.warmup, plan.runs):
        shift = round_index % len(cells)
        for writer, settings, compression in cells[shift:] + cells[:shift]:
            key = (writer.name, settings, compression)
            if key in broken:
                continue
            output = plan.work / slug(compression) / settings / f"{writer.name}.parquet"
            output.parent.mkdir(parents=True, exist_ok=True)
            try:
                record = _child(write_command(plan, writer, settings, compression, hand_over, output))
            except RuntimeError as error:
                broken.add(key)
                outcome.failures.append(f"{writer.name} ({settings}, {compression}): {error}")
                log(f"FAILED {writer.name} {settings} {compression}: {error}")
                continue
            files[key] = output
            if round_index < 0:
                log(f"warm-up {writer.name:<20} {settings:<8} {compression:<8} {record['wall_s']:7.3f} s")
                continue
            record.update(round=round_index, writer=writer.name, settings=settings, compression=compression)
            append(plan.out / "writes.jsonl", record)
            log(f"round {round_index + 1}/{plan.runs} {writer.name:<20} {settings:<8} {compression:<8} "
                f"{record['wall_s']:7.3f} s  {record['file_bytes'] / 1e6:8.1f} MB")
    return [
        {"writer": w, "settings": s, "compression": c, "file": str(path)}
        for (w, s, c), path in files.items()
        if (w, s, c) not in broken
    ]


def experiment_files(plan: Plan) -> list[dict]:
    """The file of each catalog experiment in `plan.experiments`, written by the pipeline with one
    writer (one file, the experiment's writer properties)."""
    found = []
    for number in plan.experiments:
        for compression in plan.compressions:
            folder = plan.work / "experiments" / f"{number:02d}-{slug(compression)}"
            command = [
                str(plan.bin_dir / "pipeline"), "--experiment", str(number), "--rows", str(plan.rows),
                "--seed", str(plan.seed), "--compression", compression, "--writers", "1", "--output-dir", str(folder),
                "--overwrite", "--quiet", "--json",
            ] + (["--spec", plan.spec] if plan.spec else [])
            _child(command)
            for path in sorted(folder.glob("*.parquet")):
                found.append({"writer": f"experiment {number:02d}", "settings": "catalog",
                              "compression": compression, "file": str(path)})
    return found


def read_back(plan: Plan, files: list[dict], expected: str, reference: str, outcome: Outcome) -> None:
    """Every file through every reader, two at a time (untimed): digests and schemas must match."""
    available = [r for r in readers.READERS if r not in outcome.missing]
    jobs = [(entry, reader) for entry in files for reader in available]

    def one(job):
        entry, reader = job
        try:
            return entry, reader, _child(_python("readback", "--reader", reader, entry["file"]))
        except RuntimeError as error:
            return entry, reader, {"reader": reader, "error": str(error)}

    with ThreadPoolExecutor(max_workers=max(1, plan.threads)) as pool:
        for entry, reader, result in pool.map(one, jobs):
            result.update(writer=entry["writer"], settings=entry["settings"], compression=entry["compression"])
            result["digest_matches"] = result.get("digest") == expected
            result["schema_matches"] = result.get("schema") == reference
            append(plan.out / "readback.jsonl", result)
            label = f"{entry['writer']} ({entry['settings']}, {entry['compression']}) read by {reader}"
            if not (result["digest_matches"] and result["schema_matches"]):
                outcome.mismatches.append(
                    f"{label}: digest {result.get('digest')} (expected {expected}), "
                    f"schema {result.get('schema')}{'' if result['schema_matches'] else ' (expected ' + reference + ')'}"
                    + (f", error {result['error']}" if "error" in result else "")
                )
                log(f"MISMATCH {label}")
            else:
                log(f"read back {label}: {result['digest']}")


def scans(plan: Plan, files: list[dict], name: str, phone_type: str, outcome: Outcome) -> None:
    available = [r for r in readers.SCAN_READERS if r not in outcome.missing]
    for round_index in range(plan.scan_runs):
        for entry in files:
            for reader in available:
                try:
                    result = _child(_python("scan", "--reader", reader, "--name", name,
                                            "--phone-type", phone_type, entry["file"]))
                except RuntimeError as error:
                    outcome.failures.append(f"scan of {entry['file']} by {reader}: {error}")
                    continue
                result.update(round=round_index, writer=entry["writer"], settings=entry["settings"],
                              compression=entry["compression"])
                append(plan.out / "scans.jsonl", result)
        log(f"scan round {round_index + 1}/{plan.scan_runs} done")


def layouts(plan: Plan, files: list[dict]) -> None:
    done = subprocess.run([str(plan.bin_dir / "peers"), "inspect", *[e["file"] for e in files]],
                          capture_output=True, text=True, check=True)
    by_file = {e["file"]: e for e in files}
    for line in done.stdout.splitlines():
        record = json.loads(line)
        entry = by_file[record["file"]]
        record.update(writer=entry["writer"], settings=entry["settings"], compression=entry["compression"])
        append(plan.out / "layout.jsonl", record)


def run(plan: Plan) -> Outcome:
    """The whole benchmark; raises nothing for a missing or failing peer, which `Outcome` lists."""
    plan.out.mkdir(parents=True, exist_ok=True)
    plan.work.mkdir(parents=True, exist_ok=True)
    for raw in ("writes.jsonl", "readback.jsonl", "layout.jsonl", "scans.jsonl"):
        (plan.out / raw).unlink(missing_ok=True)
    outcome = Outcome(missing=missing_modules(WRITERS))
    for module, reason in outcome.missing.items():
        log(f"peer missing, skipped: {module} ({reason}); run `make venv` to install it")
    hand_over = plan.work / "hand-over.arrow"
    exported = _child([str(plan.bin_dir / "peers"), "export", "--rows", str(plan.rows),
                       "--seed", str(plan.seed), *(["--spec", plan.spec] if plan.spec else []),
                       str(hand_over)])
    expected = exported["digest"]
    table = load_ipc(str(hand_over))
    python_digest = str(digest.of_batches(table.to_batches()))
    if python_digest != expected:
        outcome.mismatches.append(f"the Python digest of the hand-over file is {python_digest}, Rust's {expected}")
    reference = schema.normalized(table.schema)
    # The filters are the contacts' columns; a spec workload gets the writes and read-backs.
    name, phone_type_rows, phone_type = rare_values(table) if not plan.spec else ("", 0, "")
    del table
    log(f"hand-over: {plan.rows} rows, digest {expected} (Python: {python_digest})")
    writers = [w for w in WRITERS if w.module not in outcome.missing]
    files = measure_writes(plan, writers, hand_over, outcome)
    files += experiment_files(plan)
    read_back(plan, files, expected, reference, outcome)
    layouts(plan, files)
    if not plan.spec:
        scans(plan, files, name, phone_type, outcome)
    metadata = {
        "command": plan.command,
        "host": os.environ.get("HOST") or platform.node().split(".")[0],
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **build_stamp(plan),
        "versions": versions(),
        "plan": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(plan).items()
                 if k not in ("out", "work", "bin_dir", "command")},
        "workload": os.path.relpath(plan.spec, Path(__file__).resolve().parents[3]) if plan.spec else "contacts",
        "digest": expected,
        "python_digest": python_digest,
        "schema": reference,
        "name_filter": name,
        "phone_type_filter": phone_type,
        "phone_type_items": phone_type_rows,
        "writers": {w.name: w.description for w in WRITERS},
        "missing": outcome.missing,
        "failures": outcome.failures,
        "mismatches": outcome.mismatches,
    }
    (plan.out / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")
    return outcome


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
