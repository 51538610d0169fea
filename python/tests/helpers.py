"""Shared by the package's tests: the `pipeline` binary the package must agree with, the spec
presets, this process's thread count and its generating threads, and Ctrl-C on a timer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN_DIR = Path(os.environ.get("SHREDLAB_BIN_DIR", ROOT / "target" / "release"))
PRESETS = sorted((ROOT / "specs").glob("*.json"))


def pipeline_digest(tmp_path: Path, *arguments: str) -> str:
    """The digest `pipeline --verify` reports for a run with `arguments`."""
    binary = BIN_DIR / "pipeline"
    if not binary.exists():
        raise RuntimeError(f"{binary} not found: run `make build` first (or set SHREDLAB_BIN_DIR)")
    done = subprocess.run(
        [str(binary), *arguments, "-o", str(tmp_path / "cli"), "--overwrite", "--verify", "--json", "-q"],
        capture_output=True,
        text=True,
        check=True,
    )
    digest = json.loads(done.stdout)["digest"]
    return f"{digest['rows']}:{digest['sum']}"


def thread_count() -> int:
    """This process's threads, as the kernel counts them (Rust threads included)."""
    return len(os.listdir("/proc/self/task"))


def generating_threads() -> int:
    """This process's threads that generate batches (`shredlab-generate-N`, cut to the kernel's
    15 characters): counted by name, so that a thread an earlier test left, ending meanwhile,
    does not change the count."""
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm", encoding="utf-8") as comm:
                names.append(comm.read().strip())
        except FileNotFoundError:  # the thread ended while the tasks were listed
            continue
    return sum(name.startswith("shredlab-gen") for name in names)


def generating(expected: int, within: float = 5.0) -> int:
    """The count of generating threads once it is `expected` (or after `within` seconds). Not
    read at once: a thread takes its name when it first runs, so on a busy machine the first
    batch can arrive before the last thread is named."""
    deadline = time.monotonic() + within
    while generating_threads() != expected and time.monotonic() < deadline:
        time.sleep(0.01)
    return generating_threads()


def settled(expected: int, within: float = 5.0) -> int:
    """The thread count once it is back to `expected` or below (or after `within` seconds).
    Below, because a thread an earlier test left (a runtime's idle pool thread, a timer) may
    end meanwhile: the tests check that they leave no thread of their own behind."""
    deadline = time.monotonic() + within
    while thread_count() > expected and time.monotonic() < deadline:
        time.sleep(0.01)
    return thread_count()


def interrupt_after(seconds: float) -> threading.Timer:
    """Sends this process SIGINT, as Ctrl-C does, after `seconds`."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer
