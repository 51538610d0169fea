"""The package's threads end with what started them: a reader dropped early, Ctrl-C while
reading or writing, and a failing stream leave no thread behind."""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import shredlab

from helpers import thread_count

BIG = 2_000_000_000  # the most contacts, far more than a test can read: only an interruption ends it


def settled(expected: int, within: float = 5.0) -> int:
    """The thread count once it is back to `expected` (or after `within` seconds)."""
    deadline = time.monotonic() + within
    while thread_count() != expected and time.monotonic() < deadline:
        time.sleep(0.01)
    return thread_count()


def interrupt_after(seconds: float) -> threading.Timer:
    """Sends this process SIGINT, as Ctrl-C does, after `seconds`."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_a_reader_dropped_early_stops_its_threads(threads_before: int):
    reader = shredlab.contacts(BIG, threads=3)
    next(iter(reader))
    assert thread_count() >= threads_before + 3
    del reader
    gc.collect()
    assert settled(threads_before) == threads_before


def test_a_reader_read_to_the_end_has_no_threads_left(threads_before: int):
    reader = shredlab.contacts(100_000, threads=3)
    assert reader.read_all().num_rows == 100_000
    assert settled(threads_before) == threads_before


@pytest.mark.parametrize("read", ["iterate", "read_all"])
def test_ctrl_c_interrupts_a_long_generation(threads_before: int, read: str):
    reader = shredlab.contacts(BIG, batch_size=1024)
    timer = interrupt_after(0.3)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        if read == "iterate":
            for _ in reader:
                pass
        else:
            reader.read_all()
    timer.join()
    assert time.monotonic() - started < 5
    del reader
    gc.collect()
    assert settled(threads_before) == threads_before


def test_ctrl_c_interrupts_a_write_and_leaves_no_file(threads_before: int, tmp_path: Path):
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        shredlab.write_parquet(shredlab.contacts(BIG), tmp_path / "c.parquet")
    timer.join()
    gc.collect()
    assert list(tmp_path.iterdir()) == []
    assert settled(threads_before) == threads_before


def test_ctrl_c_interrupts_a_digest(threads_before: int):
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        shredlab.digest(shredlab.contacts(BIG))
    timer.join()
    gc.collect()
    assert settled(threads_before) == threads_before
