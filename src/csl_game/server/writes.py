"""The server's database calls and writes, off the event loop.

`Database` runs every call to the store on one thread of its own, in order,
and gathers the writes: they are made every `every_s` in one transaction (a
read waits for the writes made before it). A batch the database refuses is
written again one write at a time, so one bad write costs only itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from csl_game.server.store import Store, Write

__all__ = ["Database"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")


class Database:
    """A store's calls on one thread, its writes batched."""

    def __init__(self, store: Store, every_s: float) -> None:
        self.store = store
        self.every_s = every_s
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="csl-db")
        self._writes: list[Write] = []
        self._flush: asyncio.TimerHandle | None = None

    async def call(self, call: Callable[..., _T], *args: Any) -> _T:
        """`call(*args)` on the database's thread, after the writes made so far."""
        self.flush()
        return await asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    def write(self, writes: list[Write]) -> None:
        """`writes`, made with the others of the next `every_s`."""
        self._writes += writes
        if self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(self.every_s, self.flush)

    def flush(self) -> None:
        """The writes gathered so far go to the database's thread now."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if self._writes:
            batch, self._writes = self._writes, []
            self._thread.submit(self._apply, batch)

    def _apply(self, batch: list[Write]) -> None:
        """On the database's thread: `batch` in one transaction; if it is
        refused, each write alone, so one bad write costs only itself."""
        try:
            self.store.apply(batch)
            return
        except Exception:  # the games go on; what is refused is logged
            log.warning("the database refused a batch of %d writes; writing them one by one",
                        len(batch), exc_info=True)
        for write in batch:
            try:
                self.store.apply([write])
            except Exception:
                log.exception("the database refused %r", write)

    async def close(self) -> None:
        """Make the writes left, and end the thread once they are made."""
        self.flush()
        await asyncio.get_running_loop().run_in_executor(None, self._thread.shutdown)
