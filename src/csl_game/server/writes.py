"""The server's database calls and writes, off the event loop.

`Database` runs every call to the store on one thread of its own, in order,
and gathers the writes into batches, each made in one transaction (a read
waits for the writes made before it). A batch goes to the thread at most
`every_s` after its first write, or as soon as the batch before it is
committed if that takes longer (group commit: the busier the server, the
bigger the batches, never more than one being made). `after` runs a
callback once every write given so far is committed: the hub announces a
move only then, so a player is never told of a move a crash could lose. A
batch the database refuses is written again one write at a time, so one
bad write costs only itself; the callbacks hear which games' writes were
refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from csl_game.server.store import NewGame, Store, Write

__all__ = ["Database", "Committed", "game_of"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")
Committed = Callable[[set[str]], None]
"""Called once writes are committed, with the games whose writes were refused."""


class Database:
    """A store's calls on one thread, its writes batched."""

    def __init__(self, store: Store, every_s: float) -> None:
        self.store = store
        self.every_s = every_s
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="csl-db")
        self._writes: list[Write] = []
        self._waiting: list[Committed] = []
        """Callbacks behind `_writes` (not yet sent to the thread)."""
        self._making: list[Committed] | None = None
        """Callbacks behind the batch being made (None: none is)."""
        self._flush: asyncio.TimerHandle | None = None
        self.check: Callable[[Any, Sequence[Write]], None] | None = None
        """Called in each batch's transaction, before its writes: raising refuses them."""

    async def call(self, call: Callable[..., _T], *args: Any) -> _T:
        """`call(*args)` on the database's thread, after the writes made so far."""
        self.flush(now=True)
        return await asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    def write(self, writes: list[Write]) -> None:
        """`writes`, made with the others of the next `every_s`."""
        self._writes += writes
        if self._flush is None and self._making is None:
            self._flush = asyncio.get_running_loop().call_later(self.every_s, self.flush)

    def after(self, then: Committed) -> None:
        """`then(refused)` once every write given so far is committed (at once
        if all are); callbacks run in the order they were given."""
        if self._writes:
            self._waiting.append(then)
        elif self._making is not None:
            self._making.append(then)
        else:
            then(set())

    def flush(self, now: bool = False) -> None:
        """The writes gathered so far go to the database's thread (if a batch
        is being made, once it is, unless `now`)."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if not self._writes or (self._making is not None and not now):
            return
        batch, self._writes = self._writes, []
        waiting, self._waiting = self._waiting, []
        self._making = waiting  # (a read's turn may send a batch behind the one being made)
        made = asyncio.get_running_loop().run_in_executor(self._thread, self._apply, batch)
        made.add_done_callback(lambda done: self._made(done, batch, waiting))

    def _made(self, done: asyncio.Future[set[str]], batch: list[Write],
              waiting: list[Committed]) -> None:
        if self._making is waiting:
            self._making = None
        refused = done.result() if not done.cancelled() and done.exception() is None \
            else {game_of(w) for w in batch}
        for then in waiting:
            then(refused)
        if self._writes and self._making is None and self._flush is None:
            self.flush()  # gathered while the batch was made: the next at once

    def _apply(self, batch: list[Write]) -> set[str]:
        """On the database's thread: `batch` in one transaction; if it is
        refused, each write alone, so one bad write costs only itself. The
        games of the writes refused."""
        try:
            self.store.apply(batch, self.check)
            return set()
        except Exception:  # the games go on; what is refused is logged
            log.warning("the database refused a batch of %d writes; writing them one by one",
                        len(batch), exc_info=True)
        refused = set()
        for write in batch:
            try:
                self.store.apply([write], self.check)
            except Exception:
                log.exception("the database refused %r", write)
                refused.add(game_of(write))
        return refused

    async def close(self) -> None:
        """Make the writes left, and end the thread once they are made."""
        self.flush(now=True)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.shutdown)


def game_of(write: Write) -> str:
    return write.row.id if isinstance(write, NewGame) else write.game
