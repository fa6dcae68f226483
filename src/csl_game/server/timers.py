"""One timer for each live game, on the event loop (its `call_later`): a room
is woken when its step asked, and no pass looks at every game."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Timers"]

_T = TypeVar("_T")


class Timers(Generic[_T]):
    """At most one timer for each key: `ring(item)` at the earliest time asked
    for the key, by `clock` (a later time asked while one is held changes nothing)."""

    def __init__(self, ring: Callable[[_T], None], clock: Callable[[], float]) -> None:
        self._ring, self._clock = ring, clock
        self._held: dict[str, tuple[float, asyncio.TimerHandle]] = {}

    def __len__(self) -> int:
        return len(self._held)

    def at(self, key: str, when: float, item: _T) -> None:
        """`ring(item)` at `when`, unless the key's timer rings at `when` or before."""
        held = self._held.get(key)
        if held is not None:
            if held[0] <= when:
                return
            held[1].cancel()
        delay = max(0.0, when - self._clock()) + 0.001  # (not a hair before it is due)
        handle = asyncio.get_running_loop().call_later(delay, self._rung, key, item)
        self._held[key] = (when, handle)

    def cancel(self, key: str) -> None:
        held = self._held.pop(key, None)
        if held is not None:
            held[1].cancel()

    def close(self) -> None:
        for _, handle in self._held.values():
            handle.cancel()
        self._held.clear()

    def _rung(self, key: str, item: _T) -> None:
        del self._held[key]
        self._ring(item)
