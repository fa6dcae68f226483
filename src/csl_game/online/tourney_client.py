"""The spectator's end of a tournament broadcast (or the discovery that it is a match).

`Watched` connects as a spectator and turns the broadcast into events: the
session's players (`TourneyBegun`), the standings (`StandingsNow`), and for
the match being played the same `MatchEvent`s a local match gives, each
move checked on a board of its own. A match played off screen at the same
time ends as an `OffScreen` result. When the first answer is a hosted
match's welcome, `HostedMatch` says so: the caller follows it with
`client.Joined` instead. `poll()` never blocks; nothing is retried: a
spectator that lost the broadcast watches again and is sent where it stands.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from csl_game.engine.judge import move_text
from csl_game.engine.match import (
    BoardUpdated,
    InvalidPlay,
    MatchEvent,
    MatchOver,
    MatchStarted,
    MovePerformed,
    NextTurn,
)
from csl_game.engine.standings import Standing
from csl_game.model.board import Board, Move, PColor, Piece, PShape, Winner
from csl_game.online.client import Failed, Link
from csl_game.online.protocol import PROTOCOL_VERSION, Hello, Played, ProtocolError, Welcome
from csl_game.online.tourney_protocol import (
    Finished,
    MatchMsg,
    StandingsMsg,
    Tournament,
    decode_watch,
)
from csl_game.online.wire import Clock
from csl_game.services.narration import game_over
from csl_game.thinker.api import MatchConfig

__all__ = ["Watched", "TourneyBegun", "StandingsNow", "OffScreen", "HostedMatch", "WatchEvent"]


@dataclass(frozen=True)
class TourneyBegun:
    """The broadcast's session: its players and how many matches it plays."""

    players: tuple[str, ...]
    matches: int
    config: MatchConfig


@dataclass(frozen=True)
class StandingsNow:
    """The standings after `played` matches (`final`: the session ended)."""

    played: int
    final: bool
    rows: tuple[Standing, ...]


@dataclass(frozen=True)
class OffScreen:
    """Match `index`, played off screen, ended."""

    index: int
    white: str
    red: str
    winner: Winner
    text: str


@dataclass(frozen=True)
class HostedMatch:
    """The address hosts one match, not a tournament (follow it with `Joined`)."""


WatchEvent = TourneyBegun | StandingsNow | OffScreen | HostedMatch | Failed


class Watched:
    """A tournament broadcast, followed read-only from where it stands."""

    def __init__(self, address: tuple[str, int], clock: Clock = time.monotonic) -> None:
        """Start connecting.

        Raises:
            NetworkError: the host name is unknown.
        """
        self.link = Link(address, Hello(PROTOCOL_VERSION, "spectator"), clock,
                         decode=decode_watch)
        self.tournament: Tournament | None = None
        self.standings: StandingsMsg | None = None
        self.index: int | None = None
        """The match on the board (the current one, or the last one)."""
        self.names: tuple[str, str] = ("White", "Red")
        self.config: MatchConfig | None = None
        self.board: Board | None = None
        self.result: Finished | None = None
        """The result of the match on the board, once it ended."""
        self.failed: str | None = None

    @property
    def finished(self) -> bool:
        """Whether nothing more will come: the final standings, or a failure."""
        return self.failed is not None or (self.standings is not None and self.standings.final)

    def poll(self) -> list[MatchEvent | WatchEvent]:
        """What happened since the last call, without blocking."""
        if self.finished:
            return []
        events: list[MatchEvent | WatchEvent] = []
        for msg in self.link.poll():
            try:
                events += self._apply(msg)
            except ProtocolError as e:
                self.failed = f"the broadcast sent a wrong message: {e}"
                self.link.close()
                return [*events, Failed(self.failed)]
            if self.finished or (events and isinstance(events[-1], HostedMatch)):
                return events
        if self.link.closed and not self.finished:
            self.failed = (f"cannot watch {self.link.shown}: {self.link.error}"
                           if self.tournament is None else
                           f"the broadcast ended before the tournament did ({self.link.error})")
            events.append(Failed(self.failed))
        return events

    def wait(self, timeout: float) -> None:
        """Block until the broadcast may have news, at most `timeout` seconds."""
        self.link.wait(timeout)

    def close(self) -> None:
        self.link.close()

    # ------------------------------------------------------------------ messages
    def _apply(self, msg: object) -> list[MatchEvent | WatchEvent]:
        if self.tournament is None:
            if isinstance(msg, Welcome):
                return [HostedMatch()]
            if not isinstance(msg, Tournament):
                raise ProtocolError("the first message must be a tournament or a welcome")
            self.tournament = msg
            return [TourneyBegun(msg.players, msg.matches, msg.config)]
        if isinstance(msg, StandingsMsg):
            self.standings = msg
            return [StandingsNow(msg.played, msg.final, msg.rows)]
        if isinstance(msg, MatchMsg):
            return self._match(msg)
        if isinstance(msg, Played):
            return self._played(msg)
        if isinstance(msg, Finished):
            return self._finished(msg)
        raise ProtocolError(f"a {type(msg).__name__} message in a tournament broadcast")

    def _match(self, msg: MatchMsg) -> list[MatchEvent | WatchEvent]:
        assert self.tournament is not None
        if msg.index >= self.tournament.matches:
            raise ProtocolError(f"match {msg.index + 1} of {self.tournament.matches}")
        self.index, self.names, self.config = msg.index, (msg.white, msg.red), msg.config
        self.board, self.result = msg.config.new_board(), None
        events: list[MatchEvent | WatchEvent] = [MatchStarted(msg.config, msg.white, msg.red)]
        for ply, (col, shape, _) in enumerate(msg.moves):
            self._put(ply, col, shape)
        events.append(BoardUpdated(self.board.copy()))
        return events + self._next_turn()

    def _put(self, ply: int, col: int, shape: PShape) -> tuple[PColor, Move]:
        if self.board is None or self.result is not None:
            raise ProtocolError("a move when no match is being played")
        if ply != self.board.move_count:
            raise ProtocolError(f"move {ply} came when move {self.board.move_count} was due")
        problem = self.board.move_problem(shape, col)
        if problem is not None:
            raise ProtocolError(f"an illegal move {move_text(col, shape)}: {problem}")
        color = self.board.turn
        row = self.board.do_move(shape, col)
        return color, Move(row, col, Piece(color, shape))

    def _played(self, msg: Played) -> list[MatchEvent | WatchEvent]:
        color, move = self._put(msg.ply, msg.col, msg.shape)
        assert self.board is not None
        return [MovePerformed(color, self.names[color], move, msg.elapsed),
                BoardUpdated(self.board.copy()), *self._next_turn()]

    def _next_turn(self) -> list[MatchEvent | WatchEvent]:
        assert self.board is not None
        if self.board.check_winner() is not Winner.NONE:
            return []
        color = self.board.turn
        return [NextTurn(color, self.names[color], False)]

    def _finished(self, msg: Finished) -> list[MatchEvent | WatchEvent]:
        result = msg.result
        if msg.index != self.index or self.result is not None:
            return [OffScreen(msg.index, result.white, result.red, result.winner,
                              game_over(result))]
        self.result = msg
        events: list[MatchEvent | WatchEvent] = []
        if result.forfeit is not None:
            loser = PColor.RED if result.winner is Winner.WHITE else PColor.WHITE
            events.append(InvalidPlay(loser, self.names[loser], result.forfeit, result.detail))
        return [*events, MatchOver(result)]

