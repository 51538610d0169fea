"""Shared by the peers' tests: the Rust binaries and a scratch folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

BIN_DIR = Path(os.environ.get("SHREDLAB_BIN_DIR", Path(__file__).resolve().parents[3] / "target" / "release"))


def rust(*arguments: str) -> str:
    """Runs the Rust `peers` binary and returns its standard output."""
    binary = BIN_DIR / "peers"
    if not binary.exists():
        raise RuntimeError(f"{binary} not found: run `make build` first (or set SHREDLAB_BIN_DIR)")
    return subprocess.run([str(binary), *arguments], capture_output=True, text=True, check=True).stdout.strip()
