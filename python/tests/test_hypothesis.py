"""The public API under random input (hypothesis): random specs from the Rust property test's
building blocks, random and hostile arguments, random writer settings and random interrupt
points. Every call either gives data whose digest is the CLI's (or the input's) or raises one
of the documented exceptions; no crash, no hang, no thread left, and no file committed after a
failure."""

from __future__ import annotations

import gc
import json
import math
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import shredlab

from helpers import BIN_DIR, interrupt_after, settled, thread_count
from spec_strategies import spec_text

# What the API documents raising for bad input: arguments and specs, and paths.
ARGUMENT_ERRORS = (ValueError, TypeError)
WRITE_ERRORS = (ValueError, TypeError, FileExistsError, IsADirectoryError, RuntimeError)


def cli_digest(text: str, rows: int, seed: int, batch_size: int) -> str | None:
    """`pipeline --spec`'s digest of the spec `text`, or None if the CLI refuses the spec."""
    with tempfile.TemporaryDirectory() as scratch:
        spec = Path(scratch) / "spec.json"
        spec.write_text(text)
        done = subprocess.run(
            [str(BIN_DIR / "pipeline"), "--spec", str(spec), "--rows", str(rows), "--seed", str(seed),
             "--batch-size", str(batch_size), "-o", str(Path(scratch) / "out"), "--verify", "--json", "-q"],
            capture_output=True, text=True, timeout=120,
        )
    if done.returncode == 1 and done.stderr.startswith("error:"):
        return None
    assert done.returncode == 0, f"pipeline exited {done.returncode}: {done.stderr}"
    digest = json.loads(done.stdout)["digest"]
    return f"{digest['rows']}:{digest['sum']}"


@settings(max_examples=120)
@given(
    text=spec_text(),
    rows=st.integers(0, 300),
    seed=st.integers(0, 2**64 - 1),
    batch_size=st.integers(1, 64),
    threads=st.integers(1, 3),
)
def test_a_random_spec_gives_the_cli_digest_or_is_refused_by_both(text, rows, seed, batch_size, threads):
    # The CLI refuses --rows 0; the package gives an empty stream (the schema alone).
    expected = cli_digest(text, max(rows, 1), seed, batch_size)
    if rows == 0 and expected is not None:
        expected = "0:" + "0" * 32
    try:
        reader = shredlab.generate(text, rows, seed=seed, batch_size=batch_size, threads=threads)
    except ValueError as refused:
        event("refused by both")
        assert expected is None, f"the package refused a spec the CLI took: {refused}"
        return
    assert expected is not None, "the package took a spec the CLI refused"
    event("the CLI's digest")
    assert shredlab.digest(reader) == expected


# Whole numbers past every limit, small ones, and what is not a whole number. Valid but large
# batch sizes and thread counts are left out: 1,024 threads each building a million rows is a
# load test, not this one.
NUMBERS = st.one_of(
    st.integers(-(2**70), -1),
    st.integers(2**40, 2**70),
    st.integers(0, 64),
    st.sampled_from([True, False, None, 1.5, math.nan, "10", b"1", np.int64(7), np.int32(-1),
                     np.uint64(2**64 - 1), np.int8(3), np.float64(2.0)]),
)
EXPONENTS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1, "1.0", None]))


@settings(max_examples=200)
@given(rows=NUMBERS, seed=NUMBERS, batch_size=NUMBERS, threads=NUMBERS, exponent=EXPONENTS,
       spec=st.booleans())
def test_random_arguments_are_taken_or_refused_with_a_value_or_type_error(
    rows, seed, batch_size, threads, exponent, spec
):
    before = thread_count()
    try:
        if spec:
            fields = [{"name": "id", "nullable": False, "type": {"name": "int", "isSigned": True, "bitWidth": 64}}]
            reader = shredlab.generate({"fields": fields}, rows, seed=seed, batch_size=batch_size, threads=threads)
        else:
            reader = shredlab.contacts(rows, seed=seed, zipf_exponent=exponent, batch_size=batch_size,
                                       threads=threads)
    except ARGUMENT_ERRORS as refused:
        assert str(refused), "an error without a message"
        assert thread_count() == before
        return
    with reader:
        for _, batch in zip(range(2), reader):
            assert batch.num_rows > 0
    assert settled(before) <= before


TABLE = pa.Table.from_batches(shredlab.contacts(2_000, batch_size=500).read_all().to_batches())
LEAVES = ["name", "phones.list.item.number", "phones.list.item.phone_type"]
SIZES = st.integers(1, 70_000)
COLUMN_SETTINGS = st.fixed_dictionaries({}, optional={
    "dictionary": st.booleans(),
    "compression": st.sampled_from(["snappy", "zstd(3)", "lz4", "none"]),
    "statistics": st.sampled_from(["none", "chunk", "page"]),
    "data_page_size": SIZES,
    "bloom_filter": st.booleans(),
    # The contacts' leaves are all byte arrays: these encodings are theirs.
    "encoding": st.sampled_from(["plain", "delta_length_byte_array", "delta_byte_array"]),
    "bloom_filter_fpp": st.floats(0.001, 0.5),
# A false-positive rate turns the bloom filter on: with "bloom_filter": False it is refused.
}).filter(lambda s: not (s.get("bloom_filter") is False and "bloom_filter_fpp" in s))
PROPERTIES = st.fixed_dictionaries({}, optional={
    "dictionary": st.booleans(),
    "dictionary_page_size": SIZES,
    "data_page_size": SIZES,
    "data_page_row_count_limit": SIZES,
    "statistics": st.sampled_from(["none", "chunk", "page"]),
    "bloom_filter": st.booleans(),
    "write_batch_size": SIZES,
    "writer_version": st.sampled_from(["1.0", "2.0"]),
    "created_by": st.just("shredlab-test"),
    "columns": st.dictionaries(st.sampled_from(LEAVES), COLUMN_SETTINGS, max_size=2),
})
# One bad value in some cases: (argument, key in `properties` or None, value).
HOSTILE_SETTINGS = [
    ("compression", None, "gzip"), ("compression", None, ""), ("compression", None, "zstd(99)"),
    ("row_group_rows", None, 0), ("row_group_rows", None, -1), ("threads", None, -1),
    ("threads", None, 0), ("writer", None, "fastest"), ("properties", "dictionnary", True),
    ("properties", "data_page_size", 0), ("properties", "write_batch_size", -1),
    ("properties", "statistics", "all"), ("properties", "writer_version", "3.0"),
    ("properties", "created_by", 5), ("properties", "dictionary", 1),
    ("properties", "columns", {"phones.number": {"dictionary": False}}),
    ("properties", "columns", {"nmae": {"compression": "lz4"}}),
    ("properties", "columns", {"name": {"compression": "brotli"}}),
    ("properties", "columns", {"name": {"dictionary": "yes"}}),
    ("properties", "columns", {"name": {"encoding": "byte_stream_split"}}),
    ("properties", "columns", {"name": {"bloom_filter": False, "bloom_filter_fpp": 0.1}}),
]


def leftovers(directory: Path, keep: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != keep)


@settings(max_examples=80)
@given(
    properties=PROPERTIES,
    compression=st.sampled_from(["none", "snappy", "lz4", "zstd(1)"]),
    row_group_rows=st.one_of(st.none(), st.integers(1, 3000)),
    threads=st.one_of(st.none(), st.integers(1, 4)),
    writer=st.sampled_from(["parallel", "parallel", "arrow"]),
    hostile=st.one_of(st.none(), st.none(), st.none(), st.sampled_from(HOSTILE_SETTINGS)),
    overwrite=st.booleans(),
    existing=st.booleans(),
)
def test_random_writer_settings_write_arrow_writers_bytes_or_commit_nothing(
    properties, compression, row_group_rows, threads, writer, hostile, overwrite, existing
):
    arguments = dict(compression=compression, row_group_rows=row_group_rows, properties=properties,
                     overwrite=overwrite)
    if writer == "parallel":
        arguments["threads"] = threads
    if hostile is not None:
        argument, key, value = hostile
        if key is None:
            arguments[argument] = value
        else:
            arguments["properties"] = {**properties, key: value}
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        path = directory / "data.parquet"
        earlier = b"an earlier run's file"
        if existing:
            path.write_bytes(earlier)
        try:
            shredlab.write_parquet(TABLE, path, **{"writer": writer, **arguments})
        except WRITE_ERRORS as refused:
            event(f"refused: {type(refused).__name__}")
            assert str(refused) and "panicked" not in str(refused), refused
            assert hostile is not None or (existing and not overwrite), f"valid settings refused: {refused}"
            assert leftovers(directory, "data.parquet") == []
            assert path.read_bytes() == earlier if existing else not path.exists()
            return
        event(f"written by {arguments.get('writer', writer)}")
        assert hostile is None, f"the hostile setting {hostile} was taken"
        assert overwrite or not existing, "a file was replaced without overwrite=True"
        assert leftovers(directory, "data.parquet") == []
        # polars reads every layout back; pyarrow 26 cannot read a dictionary-typed column
        # written as DELTA_BYTE_ARRAY (writer_version 2.0 without a dictionary).
        assert shredlab.digest(pl.read_parquet(path)) == shredlab.digest(TABLE)
        if arguments.get("writer", writer) == "parallel":
            reference = directory / "reference.parquet"
            arguments.pop("threads", None)
            shredlab.write_parquet(TABLE, reference, writer="arrow", **arguments)
            assert path.read_bytes() == reference.read_bytes()


EARLIER = pa.table({"x": [1, 2, 3]})


def run_until_interrupted(call, delay: float) -> str:
    """Runs `call` with Ctrl-C sent after `delay` s: "done" if it returned first, else
    "interrupted". A late signal is waited for, so it never lands outside."""
    outcome, timer, stopped = None, None, None
    try:
        try:
            timer = interrupt_after(delay)
            call()
            outcome = "done"
        except OSError as error:  # read_all: pyarrow's error for the stopped stream comes first
            stopped = error
        finally:
            if timer is not None:
                timer.join()
            # A signal sent just now is handled here; after the stopped stream's error, the
            # KeyboardInterrupt must follow.
            for _ in range(100 if stopped is not None else 2):
                time.sleep(0.01)
    except KeyboardInterrupt:
        pass
    else:
        assert stopped is None, "no KeyboardInterrupt followed the stopped stream's error"
    if stopped is not None:
        assert "Ctrl-C" in str(stopped)
    return outcome or "interrupted"


@settings(max_examples=30)
@given(delay=st.floats(0, 0.4), call=st.sampled_from(["write", "digest", "read_all", "iterate"]))
def test_ctrl_c_at_a_random_point_leaves_no_thread_and_the_earlier_file_whole(delay, call):
    before = thread_count()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "data.parquet"
        pq.write_table(EARLIER, path)
        earlier = path.read_bytes()
        reader = shredlab.contacts(400_000, batch_size=4096)
        calls = {
            "write": lambda: shredlab.write_parquet(reader, path, overwrite=True, row_group_rows=50_000),
            "digest": lambda: shredlab.digest(reader),
            "read_all": reader.read_all,
            "iterate": lambda: [batch for batch in reader],
        }
        outcome = run_until_interrupted(calls[call], delay)
        event(f"{call}: {outcome}")
        reader.close()
        if call == "write":
            assert sorted(p.name for p in Path(scratch).iterdir()) == ["data.parquet"]
            # Interrupted before the commit: the earlier file; during it (the sync and the
            # rename, which are not stopped): the new one, whole.
            if outcome == "done" or path.read_bytes() != earlier:
                assert pq.read_metadata(path).num_rows == 400_000
    del reader
    gc.collect()
    assert settled(before) <= before
