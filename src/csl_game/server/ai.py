"""The AI players the server runs itself: the built-in difficulty levels, bounded.

Only the project's own thinkers play here (a level names one), each in a
worker process of its own as in a local match (csl_game.server.thinking, as
bots and the console run theirs), started at its first move and ended with
its game. At most `max_games` AI games exist at once (more are refused) and
at most `max_thinking` moves are thought at once; the others wait in line,
so AI games cannot take the machine from the people and bots playing on it.
"""

from __future__ import annotations

import asyncio

from csl_game.engine import Forfeit, ForfeitReason
from csl_game.errors import ConfigError
from csl_game.server.game import Rejected, ServerGame
from csl_game.server.thinking import Answer, SeatThinker
from csl_game.services.presets import LEVELS, Level, level
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["AiPlayers"]


class AiPlayers:
    """The server's AI seats: one thinker a game, a bounded number thinking."""

    def __init__(self, max_games: int, max_thinking: int) -> None:
        self.max_games = max_games
        self._thinking = asyncio.Semaphore(max_thinking)
        self._levels: dict[str, Level] = {}
        self._thinkers: dict[str, SeatThinker] = {}

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
        """`game` has an AI seat playing `level_name`: its thinker is made when first asked."""
        lv = self._levels[game.id] = self.level(level_name)
        self._thinkers[game.id] = SeatThinker(ThinkerPrototype(lv.thinker, lv.params,
                                                               game.config))

    async def think(self, game: ServerGame) -> Answer:
        """The AI's judged answer in `game` (waiting for a free thinking slot first)."""
        async with self._thinking:
            thinker = self._thinkers.get(game.id)
            if thinker is None:  # the game ended while the AI waited its turn: dropped
                return Forfeit(ForfeitReason.PROTOCOL, "the game ended first")
            return await thinker.answer(game.board)

    def remove(self, game: ServerGame) -> None:
        """`game` is over: its thinker ends (in the background)."""
        self._levels.pop(game.id, None)
        thinker = self._thinkers.pop(game.id, None)
        if thinker is not None:
            thinker.close_later()

    async def close(self) -> None:
        thinkers = list(self._thinkers.values())
        self._thinkers.clear()
        for thinker in thinkers:
            await asyncio.to_thread(thinker.close)
