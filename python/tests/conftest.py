"""Fixtures of the package's tests."""

from __future__ import annotations

import pytest

from helpers import thread_count


@pytest.fixture
def threads_before():
    """The thread count before the test; the test checks it returns to it."""
    return thread_count()
