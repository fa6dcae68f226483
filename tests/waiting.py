"""Waiting in a test for something to happen: asked again and again until it
has, up to a deadline, instead of a fixed sleep (too short on a busy machine,
too long on an idle one). A sleep is left only where a test shows that
something does NOT happen within a time, and it says so."""

from __future__ import annotations

import time
from collections.abc import Callable


def until(condition: Callable[[], object], timeout: float,
          what: str | Callable[[], object] = "", every: float = 0.02) -> None:
    """Return once `condition()` is true; fail (AssertionError, saying `what`,
    called if it is a function) if it is still false after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"not within {timeout:g} s: {said or condition}")
        time.sleep(every)
