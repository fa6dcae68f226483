"""The spectator's end of a tournament broadcast (or the discovery that it is a match).

`WatchState` is the spectator as a state machine without I/O: fed the
broadcast's decoded messages (`receive(msg, now)`), the end of the
connection and the clock (`tick(now)`), it returns the messages to send
(pongs) and the events: the session's players (`TourneyBegun`), the
standings (`StandingsNow`), and for the match being played the same
`MatchEvent`s a local match gives, each move checked on a board of its own
(its start a `WatchedMatch`: a `MatchStarted` that says which match it is,
since a frontend may read several messages' events at once).
A match played off screen at the same time ends as an `OffScreen` result.
Nothing the broadcast says is taken unchecked: a result must agree with its
moves (a winning line of the winner's pieces on the board), the standings
must be possible after the matches played (one row a player, points and
games within what they allow). When the first answer is a hosted match's
welcome, `HostedMatch` says so: the caller follows it with `client.Joined`
instead. `Watched` drives it with a `driver.Link`; `poll()` never blocks.
Nothing is retried: a spectator that lost the broadcast watches again and
is sent where it stands.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from csl_game.engine import (
    BoardUpdated,
    InvalidPlay,
    MatchEvent,
    MatchOver,
    MatchStarted,
    MovePerformed,
    NextTurn,
    Standing,
)
from csl_game.model.board import Board, PColor, Winner
from csl_game.online.driver import FromState, Link, LinkDriver
from csl_game.online.joiner import CONNECT_TIMEOUT, IDLE_TIMEOUT, Failed, Step
from csl_game.online.protocol import (
    PROTOCOL_VERSION,
    ErrorMsg,
    Hello,
    Ping,
    Played,
    Pong,
    ProtocolError,
    Welcome,
)
from csl_game.online.tourney_protocol import (
    Finished,
    MatchMsg,
    StandingsMsg,
    Tournament,
    WatchMessage,
    decode_watch,
)
from csl_game.online.verify import (
    RESULT_SETTINGS,
    Contradiction,
    check_ending,
    check_names_and_settings,
    put_move,
    replay,
)
from csl_game.online.wire import Clock
from csl_game.services.limits import SETTING
from csl_game.services.narration import game_over
from csl_game.thinker.api import MatchConfig

__all__ = ["Watched", "WatchState", "TourneyBegun", "StandingsNow", "OffScreen", "HostedMatch",
           "WatchedMatch", "WatchEvent", "MAX_POINTS_A_MATCH"]

MAX_POINTS_A_MATCH = max(abs(int(getattr(SETTING[key], bound))) for key in
                         ("points_per_win", "points_per_draw", "points_per_loss")
                         for bound in ("low", "high"))
"""The most points (either way) a session may give for one match's result."""


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
class WatchedMatch(MatchStarted):
    """Match `index` (from 0) of the tournament started: the watcher's state
    may be several matches further by the time a frontend reads this."""

    index: int


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
Event = MatchEvent | WatchEvent


class WatchState:
    """A tournament broadcast, followed read-only from where it stands, as a
    state machine without I/O."""

    def __init__(self, now: float, *, connect_timeout: float = CONNECT_TIMEOUT,
                 idle_timeout: float = IDLE_TIMEOUT, where: str = "the broadcast") -> None:
        self.where = where
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self._opened = now
        self._heard = now
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
        self.hosted = False
        """Whether the address hosts a match instead (HostedMatch was given)."""

    @property
    def finished(self) -> bool:
        """Whether nothing more will come: the final standings, a failure, or a
        hosted match to follow instead."""
        return self.failed is not None or self.hosted or (
            self.standings is not None and self.standings.final)

    # ------------------------------------------------------------------ inputs
    def receive(self, msg: WatchMessage, now: float) -> Step[Event]:
        if self.finished:
            return Step()
        self._heard = now
        try:
            return self._receive(msg)
        except Contradiction as e:
            return self._fail(f"the broadcast contradicted the tournament: {e}")
        except ProtocolError as e:
            return self._fail(f"the broadcast sent a wrong message: {e}")

    def lost(self, why: str, now: float) -> Step[Event]:
        if self.finished:
            return Step()
        return self._fail(f"cannot watch {self.where}: {why}" if self.tournament is None
                          else f"the broadcast ended before the tournament did ({why})")

    def malformed(self, problem: str, now: float) -> Step[Event]:
        if self.finished:
            return Step()
        return self._fail(f"the broadcast sent a wrong message: {problem}")

    def tick(self, now: float) -> Step[Event]:
        if self.finished:
            return Step()
        if self.tournament is None and now - self._opened >= self.connect_timeout:
            return self.lost(f"no answer within {self.connect_timeout:g} s", now)
        if now - self._heard > self.idle_timeout:
            return self.lost(f"no word from it for {self.idle_timeout:g} s", now)
        return Step()

    def next_deadline(self) -> float | None:
        if self.finished:
            return None
        if self.tournament is None:
            return min(self._opened + self.connect_timeout, self._heard + self.idle_timeout)
        return self._heard + self.idle_timeout

    # ------------------------------------------------------------------ messages
    def _receive(self, msg: WatchMessage) -> Step[Event]:
        if isinstance(msg, Ping):
            return Step(send=[Pong()])
        if isinstance(msg, ErrorMsg):
            return self._fail(f"cannot watch {self.where}: {msg.message}"
                              if self.tournament is None else
                              f"the broadcast ended before the tournament did ({msg.message})")
        if self.tournament is None:
            if isinstance(msg, Welcome):
                self.hosted = True
                return Step(events=[HostedMatch()], hangup=True)
            if not isinstance(msg, Tournament):
                raise ProtocolError("the first message must be a tournament or a welcome")
            self.tournament = msg
            return Step(events=[TourneyBegun(msg.players, msg.matches, msg.config)])
        if isinstance(msg, StandingsMsg):
            self._check_standings(msg)
            self.standings = msg
            return Step(events=[StandingsNow(msg.played, msg.final, msg.rows)])
        if isinstance(msg, MatchMsg):
            return Step(events=self._match(msg))
        if isinstance(msg, Played):
            return Step(events=self._played(msg))
        if isinstance(msg, Finished):
            return Step(events=self._finished(msg))
        raise ProtocolError(f"a {type(msg).__name__} message in a tournament broadcast")

    def _match(self, msg: MatchMsg) -> list[Event]:
        assert self.tournament is not None
        if msg.index >= self.tournament.matches:
            raise ProtocolError(f"match {msg.index + 1} of {self.tournament.matches}")
        self.index, self.names, self.config = msg.index, (msg.white, msg.red), msg.config
        self.board, self.result = msg.config.new_board(), None
        events: list[Event] = [WatchedMatch(msg.config, msg.white, msg.red, msg.index)]
        for ply, (col, shape, _) in enumerate(msg.moves):
            put_move(self.board, ply, col, shape)
        events.append(BoardUpdated(self.board.copy()))
        return events + self._next_turn()

    def _played(self, msg: Played) -> list[Event]:
        if self.board is None or self.result is not None:
            raise ProtocolError("a move when no match is being played")
        color = self.board.turn
        move = put_move(self.board, msg.ply, msg.col, msg.shape)
        return [MovePerformed(color, self.names[color], move, msg.elapsed),
                BoardUpdated(self.board.copy()), *self._next_turn()]

    def _next_turn(self) -> list[Event]:
        assert self.board is not None
        if self.board.check_winner() is not Winner.NONE:
            return []
        color = self.board.turn
        return [NextTurn(color, self.names[color], False)]

    def _finished(self, msg: Finished) -> list[Event]:
        assert self.tournament is not None
        result = msg.result
        if msg.index >= self.tournament.matches:
            raise ProtocolError(f"match {msg.index + 1} of {self.tournament.matches} finished")
        if msg.index != self.index or self.result is not None or self.board is None:
            differ = [k for k in RESULT_SETTINGS
                      if getattr(msg.config, k) != getattr(self.tournament.config, k)]
            if differ:
                raise Contradiction(f"match {msg.index + 1} played with another "
                                    f"{differ[0].replace('_', ' ')}")
            check_ending(replay(tuple(m.move for m in result.moves), msg.config), result)
            return [OffScreen(msg.index, result.white, result.red, result.winner,
                              game_over(result))]
        assert self.config is not None
        check_names_and_settings(result, msg.config, self.names, self.config)
        check_ending(self.board, result)
        self.result = msg
        events: list[Event] = []
        if result.forfeit is not None:
            loser = PColor.RED if result.winner is Winner.WHITE else PColor.WHITE
            events.append(InvalidPlay(loser, self.names[loser], result.forfeit, result.detail))
        return [*events, MatchOver(result)]

    def _check_standings(self, msg: StandingsMsg) -> None:
        """Standings that can be after `msg.played` matches: one row a player,
        no player playing more matches than were played, points within what
        a session may give for them, every win someone's loss."""
        assert self.tournament is not None
        players = len(self.tournament.players)
        before = self.standings
        if before is not None and (before.final or msg.played < before.played):
            raise Contradiction(f"standings after {msg.played} matches once "
                                f"{before.played} were played"
                                + (" and the tournament was over" if before.final else ""))
        if msg.played > self.tournament.matches:
            raise Contradiction(f"standings after {msg.played} of "
                                f"{self.tournament.matches} matches")
        rows = msg.rows
        for values, said in (([r.name for r in rows], "{} twice"),
                             ([f"{r.player + 1}" for r in rows], "player {} twice")):
            twice = [v for v, n in Counter(values).items() if n > 1]
            if twice:
                raise Contradiction("standings naming " + said.format(twice[0]))
        for row in rows:
            games = row.wins + row.draws + row.losses
            if row.player >= players:
                raise Contradiction(f"standings of player {row.player + 1} of {players}")
            if games > msg.played:
                raise Contradiction(f"standings where {row.name} played {games} of "
                                    f"{msg.played} matches")
            if abs(row.points) > MAX_POINTS_A_MATCH * games:
                raise Contradiction(f"standings giving {row.name} {row.points} points for "
                                    f"{games} matches")
        wins, losses = sum(r.wins for r in rows), sum(r.losses for r in rows)
        games = sum(r.wins + r.draws + r.losses for r in rows)
        if wins != losses or games > 2 * msg.played or \
                (len(rows) == players and games != 2 * msg.played):
            raise Contradiction(f"standings of {wins} wins, {losses} losses and "
                                f"{games} games played after {msg.played} matches")

    def _fail(self, message: str) -> Step[Event]:
        self.failed = message
        return Step(events=[Failed(message)], hangup=True)


class Watched(LinkDriver[Event]):
    """A tournament broadcast, followed read-only from where it stands: the
    sockets and the clock of a `WatchState` (csl_game.online.driver.LinkDriver)."""

    state: WatchState

    def __init__(self, address: tuple[str, int], clock: Clock = time.monotonic, *,
                 connect_timeout: float = CONNECT_TIMEOUT,
                 idle_timeout: float = IDLE_TIMEOUT) -> None:
        """Start connecting.

        Raises:
            NetworkError: the host name is unknown.
        """
        link = Link(address, Hello(PROTOCOL_VERSION, "spectator"), clock, decode=decode_watch)
        super().__init__(WatchState(clock(), connect_timeout=connect_timeout,
                                    idle_timeout=idle_timeout, where=link.shown), link, clock)

    # the state's, as the frontends read them
    tournament: FromState[Tournament | None] = FromState()
    standings: FromState[StandingsMsg | None] = FromState()
    index: FromState[int | None] = FromState()
    names: FromState[tuple[str, str]] = FromState()
    config: FromState[MatchConfig | None] = FromState()
    board: FromState[Board | None] = FromState()
    result: FromState[Finished | None] = FromState()
    failed: FromState[str | None] = FromState()
