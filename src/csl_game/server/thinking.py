"""Think, judge, answer: one thinker's seat in one game on a server, for whoever runs it.

The server's AI levels (csl_game.server.ai), a bot (csl_game.server.bot) and
``match --connect URL`` (csl_game.console.server_match) each have a thinker
play a game on a server. `SeatThinker` is what they share: the thinker's
runner, made when it is first asked (in a worker process of its own, as in a
local match, or on a thread with `in_process`, to debug it), a board copy
handed to it off the event loop, and its outcome judged by the engine's
judge on that copy, as a local match judges it. `answer_doc` is that answer
as the message a client sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from csl_game.engine import (
    Forfeit,
    ForfeitReason,
    ThinkerRunner,
    ThreadRunner,
    judge,
    process_runner,
)
from csl_game.model.board import Board, PShape
from csl_game.online.protocol import MAX_DETAIL
from csl_game.server.game import public_detail
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:
    from csl_game.engine import WorkerPool

__all__ = ["SeatThinker", "Answer", "answer_doc"]

Answer = tuple[int, PShape, float] | Forfeit
"""A judged answer: column, shape and the thinker's time (seconds), or its forfeit."""


def _quiet(text: str) -> None:
    """What a thinker says while thinking is shown to nobody."""


class SeatThinker:
    """One game's thinker: asked for each of its moves, its answers judged."""

    def __init__(self, prototype: ThinkerPrototype, in_process: bool = False,
                 say: Callable[[str], None] = _quiet, pool: WorkerPool | None = None) -> None:
        self.prototype = prototype
        self.in_process = in_process
        self._say = say
        self._pool = pool
        self._runner: ThinkerRunner | None = None
        self._starting: asyncio.Future[None] | None = None
        self._closed = False

    def start(self) -> asyncio.Future[None]:
        """Start the thinker's runner, once (on the running event loop): its
        worker (one of the pool's warm ones if it has one) sets the thinker up
        meanwhile, so a first move asked for later does not wait for a process
        to start. The runner is made when the returned future is done."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._make())
        return self._starting

    async def _make(self) -> None:
        runner: ThinkerRunner
        if self.in_process:
            runner = await asyncio.to_thread(ThreadRunner, self.prototype, self._say)
        else:
            runner = await asyncio.to_thread(process_runner, self.prototype, self._say,
                                             self._pool)
        self._runner = runner
        if self._closed:  # the game ended while the worker started
            self.close_later()

    async def answer(self, board: Board) -> Answer:
        """The thinker's judged answer for the player to move on `board` (not changed)."""
        await asyncio.shield(self.start())
        if self._runner is None:
            return Forfeit(ForfeitReason.PROTOCOL, "its game ended")
        runner, copy = self._runner, board.copy()
        outcome = await asyncio.to_thread(lambda: runner.start(copy).wait(None))
        if outcome is None:
            return Forfeit(ForfeitReason.PROTOCOL, "its worker gave no answer")
        judged = judge(outcome, copy)
        if isinstance(judged, Forfeit):
            return judged
        return judged.column, judged.shape, outcome.elapsed

    def close(self) -> None:
        """End the thinker's runner (blocks while its worker ends)."""
        self._closed = True
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.close()

    def close_later(self) -> None:
        """End the thinker's runner off the event loop (which must be running)."""
        self._closed = True
        runner, self._runner = self._runner, None
        if runner is not None:
            asyncio.get_running_loop().run_in_executor(None, runner.close)


def answer_doc(game: str, ply: int, answer: Answer) -> dict[str, Any]:
    """`answer` at move `ply` of `game` as the message a client sends the server."""
    if isinstance(answer, Forfeit):
        return {"type": "forfeit", "game": game, "ply": ply,
                "reason": answer.reason.name.lower(),
                "detail": public_detail(answer.detail, MAX_DETAIL)}
    col, shape, _ = answer
    return {"type": "move", "game": game, "ply": ply, "col": col, "shape": shape.name.lower()}
