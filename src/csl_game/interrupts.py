"""Ctrl+C held while the command loads, and taken once it can answer it.

A Ctrl+C in the first tenths of a second used to land in an import: a
traceback, and no summary. `hold` (the installed command's first step) keeps
it instead; `take_interrupts` (the command line, or a verb once it can print
its summary) makes it a KeyboardInterrupt there, and every later one at once.
"""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["hold", "take_interrupts"]

_held: list[int] = []
"""Ctrl+C that came while the command was loading."""


def _remember(signum: int, frame: FrameType | None) -> None:
    _held.append(signum)


def hold() -> None:
    """Keep Ctrl+C for `take_interrupts` (from the main thread)."""
    signal.signal(signal.SIGINT, _remember)


def take_interrupts() -> None:
    """From now on Ctrl+C raises KeyboardInterrupt at once; and now, if one
    came while it was held.

    Raises:
        KeyboardInterrupt: Ctrl+C came while it was held.
    """
    try:
        if signal.getsignal(signal.SIGINT) is _remember:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: the caller handles its signals
        pass
    if _held:
        _held.clear()
        raise KeyboardInterrupt
