"""The window's Watch, whichever the address serves: a hosted match or a
tournament broadcast (``--listen`` on a session).

`WatchTable` starts as a spectator of a broadcast (`online.tourney_client.
Watched`); when the first answer is a hosted match's welcome, it follows that
match through a `JoinedTable` instead, and shows it as before. In a
tournament it is the `Table` of the match being played, and knows the
standings to show between matches (`between`, `standings`).
"""

from __future__ import annotations

from collections import deque

from csl_game.engine import BoardUpdated, MatchEvent, MatchOver, MatchResult, Standing
from csl_game.gui.online_table import Action, Happening, JoinedTable, Notice, Table, settings_text
from csl_game.model.board import Board, PColor, PShape
from csl_game.online.client import Failed
from csl_game.online.protocol import PROTOCOL_VERSION, Hello
from csl_game.online.tourney_client import (
    HostedMatch,
    OffScreen,
    StandingsNow,
    TourneyBegun,
    Watched,
    WatchedMatch,
)
from csl_game.thinker.api import MatchConfig

__all__ = ["WatchTable", "RESULT_S", "STANDINGS_S"]

RESULT_S = 2.5
"""Seconds a finished match's result stays on the board before the standings."""
STANDINGS_S = 4.0
"""Seconds the standings stay before the next match is shown (what came
meanwhile is held, and shown after: a spectator lags, by less than a match)."""


class WatchTable(Table):
    """A spectator's end: a tournament broadcast, or (delegated) a hosted match."""

    def __init__(self, address: tuple[str, int]) -> None:
        """Start connecting (the host's name is looked up here).

        Raises:
            NetworkError: the host's name is unknown.
        """
        self.address = address
        self.local = None
        self.watched = Watched(address)
        self.match_table: JoinedTable | None = None
        """The hosted match followed instead, when the address hosts one."""
        self.standings: StandingsNow | None = None
        self.total = 0
        self.players: tuple[str, ...] = ()
        self._spent = 0.0
        self._turn = -1
        self._empty: Board | None = None
        self._clock = 0.0
        self._queue: deque[Happening | StandingsNow] = deque()
        """What the broadcast said, not yet shown: held while a result and the
        standings after it are on screen."""
        self._board: Board | None = None
        self._result: MatchResult | None = None
        self._over_at: float | None = None
        self._board_config: MatchConfig | None = None
        self.index: int | None = None
        """The match shown (0 first), once one was."""

    # ------------------------------------------------------------------ reading
    @property
    def is_tournament(self) -> bool:
        return self.match_table is None and self.watched.tournament is not None

    @property
    def between(self) -> bool:
        """A tournament with no match on the board (none yet, or the last one's
        result was shown RESULT_S): its standings are the screen."""
        if not self.is_tournament or self.watched.failed is not None:
            return False
        return self._board is None or (self._over_at is not None
                                       and self._clock - self._over_at >= RESULT_S)

    def _holding(self) -> bool:
        if self._over_at is None:
            return False
        waiting = sum(isinstance(item, MatchOver) for item in self._queue)
        return waiting < 2 and self._clock - self._over_at < RESULT_S + STANDINGS_S

    @property
    def rows(self) -> tuple[Standing, ...]:
        return self.standings.rows if self.standings is not None else ()

    @property
    def config(self) -> MatchConfig:
        if self.match_table is not None:
            return self.match_table.config
        config = (self._board_config or (self.watched.tournament.config
                                         if self.watched.tournament else None))
        assert config is not None, "the broadcast has answered"
        return config

    @property
    def board(self) -> Board:
        if self.match_table is not None:
            return self.match_table.board
        if self._board is not None:
            return self._board
        if self._empty is None:
            self._empty = self.config.new_board()
        return self._empty

    @property
    def ready(self) -> bool:
        return self.match_table.ready if self.match_table is not None else self.is_tournament

    def name(self, color: PColor) -> str:
        if self.match_table is not None:
            return self.match_table.name(color)
        return self.watched.names[color]

    def is_human(self, color: PColor) -> bool:
        return self.match_table.is_human(color) if self.match_table is not None else False

    @property
    def awaiting_human(self) -> bool:
        return False

    def submit_move(self, col: int, shape: PShape) -> None:
        from csl_game.errors import InvalidMoveError

        raise InvalidMoveError("spectators cannot move")

    @property
    def notice(self) -> Notice | None:
        if self.match_table is not None:
            return self.match_table.notice
        if self.watched.failed is not None:
            return Notice("The broadcast ended", self.watched.failed, (Action.HOME,))
        return None

    def act(self, action: Action) -> None:
        if self.match_table is not None:
            self.match_table.act(action)

    @property
    def result(self) -> MatchResult | None:
        if self.match_table is not None:
            return self.match_table.result
        return self._result

    @property
    def failed(self) -> str | None:
        return self.match_table.failed if self.match_table is not None else self.watched.failed

    # ------------------------------------------------------------------ driving
    def poll(self) -> list[Happening]:
        if self.match_table is not None:
            return self.match_table.poll()
        happened: list[Happening] = []
        for event in self.watched.poll():
            if isinstance(event, HostedMatch):
                self.watched.close()
                self.match_table = JoinedTable(self.address,
                                               Hello(PROTOCOL_VERSION, "spectator"))
                return happened
            if isinstance(event, MatchEvent | StandingsNow):
                self._queue.append(event)
            elif isinstance(event, TourneyBegun):
                self.total, self.players = event.matches, event.players
                happened.append(f"Watching a tournament of {len(event.players)} players, "
                                f"{event.matches} matches: {settings_text(event.config)}")
            elif isinstance(event, OffScreen):
                self._queue.append(f"Match {event.index + 1} (off screen): {event.text}")
            elif isinstance(event, Failed):
                happened.append(event.message)
        while self._queue and not self._holding():
            item = self._queue.popleft()
            happened += self._release(item)
            if isinstance(item, BoardUpdated):
                break  # one position a frame: the board scene reads `board` as it stands
        return happened

    def _release(self, item: Happening | StandingsNow) -> list[Happening]:
        """Show `item` now: the board, result and standings follow it."""
        if isinstance(item, StandingsNow):
            self.standings = item
            return ["The tournament is over: final standings"] if item.final else []
        if isinstance(item, WatchedMatch):
            self.index = item.index
            self._board_config, self._result, self._over_at = item.config, None, None
            self._board = item.config.new_board()
            return [f"Match {self.index + 1} of {self.total}", item]
        if isinstance(item, BoardUpdated):
            self._board = item.board
        elif isinstance(item, MatchOver):
            self._result, self._over_at = item.result, self._clock
        return [item]

    def tick(self, dt: float) -> None:
        if self.match_table is not None:
            self.match_table.tick(dt)
            return
        self._clock += dt
        turn = self.board.move_count if self._board is not None else -1
        if turn != self._turn:
            self._turn, self._spent = turn, 0.0
        elif self.result is None:
            self._spent += dt

    def thinking_time(self) -> float:
        if self.match_table is not None:
            return self.match_table.thinking_time()
        return self._spent

    def close(self) -> None:
        self.watched.close()
        if self.match_table is not None:
            self.match_table.close()
