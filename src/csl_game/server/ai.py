"""The AI players the server runs itself: the built-in difficulty levels, bounded.

Only the project's own thinkers play here (a level names one), each in a
worker process of its own as in a local match (`csl_game.engine.process_runner`),
started when its game starts and ended with it. At most `max_games` AI games
exist at once (more are refused) and at most `max_thinking` moves are thought
at once; the others wait in line, so AI games cannot take the machine from
the people and bots playing on it.
"""

from __future__ import annotations

import asyncio

from csl_game.engine import Forfeit, ForfeitReason, ThinkerRunner, judge, process_runner
from csl_game.errors import ConfigError
from csl_game.model.board import PShape
from csl_game.server.game import Rejected, ServerGame
from csl_game.services.presets import LEVELS, Level, level
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["AiPlayers"]


class AiPlayers:
    """The server's AI seats: one runner a game, a bounded number thinking."""

    def __init__(self, max_games: int, max_thinking: int) -> None:
        self.max_games = max_games
        self._thinking = asyncio.Semaphore(max_thinking)
        self._levels: dict[str, Level] = {}
        self._runners: dict[str, ThinkerRunner] = {}
        self._elapsed: dict[str, float] = {}

    def level(self, name: str) -> Level:
        """The level called `name` ('' for the middle one).

        Raises:
            Rejected: no level has that name.
        """
        try:
            return level(name) if name else LEVELS[1]
        except ConfigError as e:
            raise Rejected(str(e)) from None

    def has_room(self) -> bool:
        return len(self._levels) < self.max_games

    def add(self, game: ServerGame, level_name: str) -> None:
        """`game` has an AI seat playing `level_name`."""
        self._levels[game.id] = self.level(level_name)

    async def think(self, game: ServerGame) -> tuple[int, PShape, float] | Forfeit:
        """The AI's move in `game` (waiting for a free thinking slot first) and
        its thinking time, or its forfeit."""
        async with self._thinking:
            runner = self._runners.get(game.id)
            if runner is None:
                lv = self._levels.get(game.id) or self.level("")
                prototype = ThinkerPrototype(lv.thinker, lv.params, game.config)
                runner = await asyncio.to_thread(process_runner, prototype, _quiet)
                self._runners[game.id] = runner
            board = game.board.copy()
            outcome = await asyncio.to_thread(lambda: runner.start(board).wait(None))
        if outcome is None:
            return Forfeit(ForfeitReason.PROTOCOL, "its worker gave no answer")
        self._elapsed[game.id] = outcome.elapsed
        judged = judge(outcome, board)
        if isinstance(judged, Forfeit):
            return judged
        return judged.column, judged.shape, outcome.elapsed

    def last_elapsed(self, game: ServerGame) -> float:
        return self._elapsed.get(game.id, 0.0)

    def remove(self, game: ServerGame) -> None:
        """`game` is over: its runner ends (in the background)."""
        self._levels.pop(game.id, None)
        self._elapsed.pop(game.id, None)
        runner = self._runners.pop(game.id, None)
        if runner is not None:
            asyncio.get_running_loop().run_in_executor(None, runner.close)

    async def close(self) -> None:
        runners = list(self._runners.values())
        self._runners.clear()
        for runner in runners:
            await asyncio.to_thread(runner.close)


def _quiet(text: str) -> None:
    """What an AI says while thinking is not shown to anyone."""
