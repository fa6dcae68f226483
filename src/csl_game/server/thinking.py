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
from typing import Any

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

__all__ = ["SeatThinker", "Answer", "answer_doc"]

Answer = tuple[int, PShape, float] | Forfeit
"""A judged answer: column, shape and the thinker's time (seconds), or its forfeit."""


def _quiet(text: str) -> None:
    """What a thinker says while thinking is shown to nobody."""


class SeatThinker:
    """One game's thinker: asked for each of its moves, its answers judged."""

    def __init__(self, prototype: ThinkerPrototype, in_process: bool = False,
                 say: Callable[[str], None] = _quiet) -> None:
        self.prototype = prototype
        self.in_process = in_process
        self._say = say
        self._runner: ThinkerRunner | None = None

    async def answer(self, board: Board) -> Answer:
        """The thinker's judged answer for the player to move on `board` (not changed)."""
        if self._runner is None:
            make = ThreadRunner if self.in_process else process_runner
            self._runner = await asyncio.to_thread(make, self.prototype, self._say)
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
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.close()

    def close_later(self) -> None:
        """End the thinker's runner off the event loop (which must be running)."""
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
