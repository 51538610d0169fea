"""The package's threads end with what started them: a reader dropped early or closed, a
`with` block left, Ctrl-C while reading or writing, and a failing stream leave no thread
behind."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pyarrow as pa
import pytest

import shredlab

from helpers import ROOT, generating, interrupt_after, settled

BIG = 2_000_000_000  # the most contacts, far more than a test can read: only an interruption ends it


def test_a_reader_dropped_early_stops_its_threads(threads_before: int):
    reader = shredlab.contacts(BIG, threads=3)
    next(iter(reader))
    assert generating(3) == 3
    del reader
    gc.collect()
    assert settled(threads_before) <= threads_before


def test_a_reader_read_to_the_end_has_no_threads_left(threads_before: int):
    reader = shredlab.contacts(100_000, threads=3)
    assert reader.read_all().num_rows == 100_000
    assert settled(threads_before) <= threads_before


def test_close_stops_the_threads_and_later_reads_raise(threads_before: int):
    reader = shredlab.contacts(BIG, threads=3)
    reader.read_next_batch()
    reader.close()
    assert settled(threads_before) <= threads_before
    with pytest.raises(pa.ArrowInvalid, match="closed"):
        reader.read_all()
    with pytest.raises(pa.ArrowInvalid, match="closed"):
        reader.read_next_batch()


def test_leaving_a_with_block_stops_the_threads(threads_before: int):
    with shredlab.generate(ROOT / "specs" / "otel-logs.json", BIG // 1000, threads=2) as reader:
        assert reader.read_next_batch().num_rows > 0
        assert generating(2) == 2
    assert settled(threads_before) <= threads_before


def test_ctrl_c_interrupts_a_loop_over_the_batches(threads_before: int):
    reader = shredlab.contacts(BIG, batch_size=1024)
    timer = interrupt_after(0.3)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        for _ in reader:
            pass
    timer.join()
    assert time.monotonic() - started < 5
    reader.close()
    assert settled(threads_before) <= threads_before


def test_ctrl_c_interrupts_read_all(threads_before: int):
    """pyarrow's read_all loops in C++, so the stream itself sees Ctrl-C and stops: pyarrow
    raises OSError naming the interrupt, and KeyboardInterrupt follows at Python's next step."""
    reader = shredlab.contacts(BIG, batch_size=1024)
    timer = interrupt_after(0.3)
    started = time.monotonic()
    stopped = None
    with pytest.raises(KeyboardInterrupt):
        try:
            reader.read_all()
        except OSError as error:
            stopped = error  # no call here: the pending KeyboardInterrupt fires after the next one
            for _ in range(500):  # a re-armed interrupt does not cut one long sleep short
                time.sleep(0.01)
    timer.join()
    if stopped is not None:
        assert "Ctrl-C" in str(stopped)
    assert time.monotonic() - started < 5
    # The threads stopped with the interrupt, before the reader is closed.
    assert settled(threads_before) <= threads_before
    with pytest.raises(OSError, match="Ctrl-C"):
        reader.read_next_batch()


def test_ctrl_c_interrupts_a_write_and_leaves_no_file(threads_before: int, tmp_path: Path):
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        shredlab.write_parquet(shredlab.contacts(BIG), tmp_path / "c.parquet")
    timer.join()
    gc.collect()
    assert list(tmp_path.iterdir()) == []
    assert settled(threads_before) <= threads_before


def test_ctrl_c_interrupts_a_digest(threads_before: int):
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        shredlab.digest(shredlab.contacts(BIG))
    timer.join()
    gc.collect()
    assert settled(threads_before) <= threads_before


def test_ctrl_c_interrupts_the_digest_of_one_big_batch():
    """Polars exports a DataFrame as one batch: the digest sees Ctrl-C inside it."""
    table = shredlab.contacts(4_000_000).read_all().combine_chunks()
    assert len(table.to_batches()) == 1
    started = time.monotonic()
    shredlab.digest(table)
    whole = time.monotonic() - started
    timer = interrupt_after(whole / 10)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        shredlab.digest(table)
    timer.join()
    assert time.monotonic() - started < whole / 2
