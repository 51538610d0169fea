"""The writers compared by `make peers`, each configured as close to the others as it allows.

Every writer gets the same rows (the hand-over IPC file, read into memory before the clock
starts), the same compression and row groups of the same size where it can be set. Two settings:

- `default`: dictionary encoding and statistics as each writer does them by default.
- `aligned`: what every writer here can produce: dictionary encoding on, min/max statistics per
  column chunk, no page-level statistics (column index). Writers whose defaults already are that
  (or that offer no such options) run once, and both tables show that one measurement.

The Rust writers run through the `peers` binary; the Python peers through `timed_write` below.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pyarrow as pa

SETTINGS = ("default", "aligned")


@dataclass(frozen=True)
class Options:
    """What every writer of one cell is asked to do."""

    compression: str
    row_group_rows: int
    settings: str
    threads: int


def codec_and_level(spec: str) -> tuple[str, int | None]:
    """`none`, `snappy` or `zstd(LEVEL)` as (codec, level); anything else is an error."""
    text = spec.strip().lower()
    if text in ("none", "uncompressed"):
        return "none", None
    if text == "snappy":
        return "snappy", None
    if text.startswith("zstd(") and text.endswith(")") and text[5:-1].isdigit():
        level = int(text[5:-1])
        if 1 <= level <= 22:
            return "zstd", level
    raise ValueError(f"compression '{spec}': the peers compare none, snappy or zstd(LEVEL), LEVEL 1-22")


@dataclass(frozen=True)
class Writer:
    """One contender: how to run it and what to say about it."""

    name: str
    description: str
    # The Python module it needs (None: a Rust writer of the `peers` binary).
    module: str | None
    # Whether `aligned` configures it differently from `default`.
    aligned_differs: bool
    # Rust writers: the arguments of `peers write` that pick the writer.
    rust: tuple[str, ...] | None = None
    # Python writers: (table, options) -> a function that writes the table to a path.
    prepare: Callable[[pa.Table, Options], Callable[[str], None]] | None = None


def _pyarrow(table: pa.Table, options: Options) -> Callable[[str], None]:
    import pyarrow.parquet as pq

    codec, level = codec_and_level(options.compression)

    # pyarrow's defaults already are the aligned settings; they are spelled out for the reader.
    def write(path: str) -> None:
        pq.write_table(
            table,
            path,
            compression=codec,
            compression_level=level,
            row_group_size=options.row_group_rows,
            use_dictionary=True,
            write_statistics=True,
            write_page_index=False,
        )

    return write


def _duckdb(threads: int, preserve_order: bool):
    def prepare(table: pa.Table, options: Options) -> Callable[[str], None]:
        import duckdb

        codec, level = codec_and_level(options.compression)
        connection = duckdb.connect(
            config={"threads": threads, "preserve_insertion_order": preserve_order}
        )
        connection.register("contacts", table)
        clauses = ["FORMAT parquet", f"COMPRESSION {'uncompressed' if codec == 'none' else codec}"]
        if level is not None:
            clauses.append(f"COMPRESSION_LEVEL {level}")
        clauses.append(f"ROW_GROUP_SIZE {options.row_group_rows}")

        def write(path: str) -> None:
            quoted = path.replace("'", "''")
            connection.execute(f"COPY contacts TO '{quoted}' ({', '.join(clauses)})")

        return write

    return prepare


def _polars(table: pa.Table, options: Options) -> Callable[[str], None]:
    import polars as pl

    codec, level = codec_and_level(options.compression)
    frame = pl.from_arrow(table)

    def write(path: str) -> None:
        frame.write_parquet(
            path,
            compression="uncompressed" if codec == "none" else codec,
            compression_level=level,
            row_group_size=options.row_group_rows,
            statistics=True,
        )

    return write


def _datafusion(row_group_writers: int | None, buffered_batches: int | None):
    def prepare(table: pa.Table, options: Options) -> Callable[[str], None]:
        import datafusion

        codec, level = codec_and_level(options.compression)
        tuned = {}
        if row_group_writers is not None:
            tuned["maximum_parallel_row_group_writers"] = row_group_writers or options.threads
        if buffered_batches is not None:
            tuned["maximum_buffered_record_batches_per_stream"] = buffered_batches
        writer_options = datafusion.ParquetWriterOptions(
            compression="uncompressed" if codec == "none" else f"{codec}({level})" if level else codec,
            max_row_group_size=options.row_group_rows,
            dictionary_enabled=True,
            statistics_enabled="chunk" if options.settings == "aligned" else "page",
            allow_single_file_parallelism=True,
            **tuned,
        )
        frame = datafusion.SessionContext().from_arrow(table)

        def write(path: str) -> None:
            frame.write_parquet(path, compression=writer_options)

        return write

    return prepare


def _shredlab(table: pa.Table, options: Options) -> Callable[[str], None]:
    import shredlab

    # `aligned`: min/max per column chunk, no column index (dictionaries are on by default).
    properties = {"statistics": "chunk"} if options.settings == "aligned" else None

    def write(path: str) -> None:
        shredlab.write_parquet(
            table,
            path,
            compression=options.compression,
            row_group_rows=options.row_group_rows,
            threads=options.threads,
            properties=properties,
            overwrite=True,
        )

    return write


WRITERS: list[Writer] = [
    Writer(
        "ParallelArrowWriter",
        "shredlab's writer on every core, into shredlab's PendingFile with the file handling of "
        "the catalog's newest experiment (early writeback every 8 MiB, blocks reserved ahead)",
        None,
        True,
        rust=("--writer", "parallel", "--file-options", "newest"),
    ),
    Writer(
        "ParallelArrowWriter-plain-file",
        "the same writer into a plain file synced at the end, like every other writer here",
        None,
        True,
        rust=("--writer", "parallel"),
    ),
    Writer("ArrowWriter", "arrow-rs's writer, one thread, plain file", None, True, rust=("--writer", "arrow")),
    Writer(
        "shredlab-python",
        "shredlab.write_parquet from Python: the parallel writer through the Arrow C stream, "
        "GIL released, into a PendingFile with early writeback every 8 MiB",
        "shredlab",
        True,
        prepare=_shredlab,
    ),
    Writer("pyarrow", "pyarrow.parquet.write_table: single-threaded by design", "pyarrow", False, prepare=_pyarrow),
    Writer("duckdb-1t-ordered", "DuckDB COPY TO, 1 thread, insertion order kept", "duckdb", False, prepare=_duckdb(1, True)),
    Writer("duckdb-1t-any-order", "DuckDB COPY TO, 1 thread, insertion order not kept", "duckdb", False, prepare=_duckdb(1, False)),
    Writer("duckdb-2t-ordered", "DuckDB COPY TO, 2 threads, insertion order kept", "duckdb", False, prepare=_duckdb(2, True)),
    Writer("duckdb-2t-any-order", "DuckDB COPY TO, 2 threads, insertion order not kept", "duckdb", False, prepare=_duckdb(2, False)),
    Writer("polars", "polars DataFrame.write_parquet (frame converted before the clock)", "polars", False, prepare=_polars),
    Writer("datafusion", "DataFusion's parallel sink, default options", "datafusion", True, prepare=_datafusion(None, None)),
    Writer(
        "datafusion-tuned",
        "DataFusion's parallel sink, one row-group writer per core, 64 buffered batches",
        "datafusion",
        True,
        prepare=_datafusion(0, 64),
    ),
]


def by_name(name: str) -> Writer:
    """The writer called `name`."""
    for writer in WRITERS:
        if writer.name == name:
            return writer
    raise ValueError(f"unknown writer '{name}': one of {', '.join(w.name for w in WRITERS)}")


def load_ipc(path: str) -> pa.Table:
    """Every batch of an Arrow IPC file, read into memory (not mapped)."""
    with pa.OSFile(path) as source:
        return pa.ipc.open_file(source).read_all()


def _status_bytes(key: str) -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def synced(path: str | os.PathLike) -> None:
    """Flushes `path` to disk, as shredlab's writer does before it renames its file."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def timed_write(writer: Writer, ipc_path: str, output: str, options: Options) -> dict:
    """Loads the hand-over file, prepares `writer`, then times writing, closing and syncing the
    file: the record has the fields of the Rust `peers write` (see bench/src/peers/timed_write.rs).
    The file is written under a temporary name and renamed when complete. A file an earlier run
    left at `output` is removed before the clock starts, as the Rust writers' is: replacing it
    would charge the write with freeing the old file."""
    table = load_ipc(ipc_path)
    write = writer.prepare(table, options)
    target = Path(output)
    target.unlink(missing_ok=True)
    partial = target.with_name(f".{target.stem}.partial-{os.getpid()}.parquet")
    peak_known = _reset_peak()
    loaded = _status_bytes("VmRSS:")
    cpu_before = time.process_time()
    started = time.perf_counter()
    try:
        write(str(partial))
        synced(str(partial))
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_before
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_rss_bytes": _status_bytes("VmHWM:") if peak_known else None,
        "loaded_rss_bytes": loaded,
        "file_bytes": target.stat().st_size,
    }


def main_write(args) -> None:
    """`write`: one timed write by a Python peer, its record printed as JSON."""
    options = Options(args.compression, args.row_group_rows, args.settings, args.threads)
    writer = by_name(args.writer)
    if writer.prepare is None:
        raise SystemExit(f"{writer.name} is a Rust writer: run it with the `peers write` binary")
    print(json.dumps(timed_write(writer, args.input, args.output, options)))

