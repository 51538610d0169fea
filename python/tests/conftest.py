"""Fixtures of the package's tests."""

from __future__ import annotations

import signal

import pytest
from hypothesis import HealthCheck, settings

from helpers import thread_count

# The tests send SIGINT as Ctrl-C does and expect Python's KeyboardInterrupt. A shell that starts
# a command in the background without job control (`make test &`) starts it with SIGINT ignored,
# and Python then installs no handler: every such test would wait on a stream that never stops.
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def threads_before():
    """The thread count before the test; the test checks it returns to it or below."""
    return thread_count()


# The hypothesis suite (test_hypothesis.py): no example database in the tree, no per-example
# deadline (a spec's CLI run takes tens of milliseconds), and a failure prints the seed that
# reproduces it (`pytest --hypothesis-seed=N`). The examples change from run to run.
settings.register_profile(
    "shredlab",
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("shredlab")
