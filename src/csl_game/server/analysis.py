"""Finished games' analyses: every move graded against the best there.

A finished game's page asks for its analysis; the first time, the game joins
a bounded queue, and one game at a time is reviewed in the background by the
project's review (`csl_game.services.review`: each position analysed in a
worker process for `ms_per_move`), then kept in the database. So a server
analyses at most one game at once, however many pages are opened, and never
the same game twice.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any

from csl_game.engine import process_runner
from csl_game.online.protocol import result_from_doc
from csl_game.server.store import GameRow, Store
from csl_game.services.review import ReviewJob

__all__ = ["Analyses", "review_game"]

DbCall = Callable[..., Awaitable[Any]]


def review_game(row: GameRow, ms_per_move: int) -> dict[str, Any]:
    """The review of a finished game (blocking: run it off the event loop)."""
    assert row.result is not None
    result, config = result_from_doc(row.result)
    moves = [(m.move.col, m.move.piece.shape) for m in result.moves]
    if not moves:
        return {"accuracy": {"white": None, "red": None}, "graph": [], "moves": []}
    job = ReviewJob(config, moves, process_runner, ms_per_move)
    try:
        while True:
            review = job.poll()
            if job.done and review is not None:
                return review.to_json()
            time.sleep(0.02)
    finally:
        job.close()


class Analyses:
    """The analyses asked for, made one at a time."""

    def __init__(self, store: Store, db: DbCall, ms_per_move: int = 100,
                 max_queue: int = 32, cached: int = 256) -> None:
        self.store = store
        self.db = db
        self.ms_per_move = ms_per_move
        self.max_queue = max_queue
        self._queue: deque[GameRow] = deque()
        self._queued: set[str] = set()
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._cached = cached
        self._wake = asyncio.Event()

    async def of(self, row: GameRow) -> dict[str, Any] | None:
        """The analysis of finished game `row`, or None while it is made
        (it is queued, if the queue has room)."""
        if row.id in self._cache:
            self._cache.move_to_end(row.id)
            return self._cache[row.id]
        found: dict[str, Any] | None = await self.db(self.store.analysis, row.id)
        if found is not None:
            self._remember(row.id, found)
            return found
        if row.id not in self._queued and len(self._queue) < self.max_queue:
            self._queue.append(row)
            self._queued.add(row.id)
            self._wake.set()
        return None

    def queued(self, game_id: str) -> bool:
        return game_id in self._queued

    def _remember(self, game_id: str, doc: dict[str, Any]) -> None:
        self._cache[game_id] = doc
        while len(self._cache) > self._cached:
            self._cache.popitem(last=False)

    async def run(self) -> None:
        """Review the queued games, one at a time, for ever."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                row = self._queue[0]
                try:
                    doc = await asyncio.to_thread(review_game, row, self.ms_per_move)
                    await self.db(self.store.save_analysis, row.id, doc)
                    self._remember(row.id, doc)
                finally:
                    self._queue.popleft()
                    self._queued.discard(row.id)
