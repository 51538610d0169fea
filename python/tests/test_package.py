"""The installed package itself: an extension module without debug sections."""

from __future__ import annotations

from pathlib import Path

import shredlab

# The size `pip install ./python` must stay under: the workspace's line tables (kept for perf)
# made it 112 MB before the wheel was stripped.
MAX_EXTENSION_BYTES = 30 * 1024 * 1024


def test_the_installed_extension_is_stripped():
    extension = Path(shredlab._shredlab.__file__)
    assert extension.stat().st_size < MAX_EXTENSION_BYTES, f"{extension}: {extension.stat().st_size} bytes"
