"""Sessions: the mode picked by the number of AI players, and tournaments.

A `Session` is a state machine (BEGIN, PRE_MATCH, IN_MATCH, POST_MATCH, END)
over a list of matches. Frontends render its states and call its methods;
the console's blocking `run()` drives the same methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from csl_game.board import PColor, Winner
from csl_game.errors import ConfigError
from csl_game.match import Human, Match, MatchResult, Player
from csl_game.runner import RunnerFactory, ThreadRunner
from csl_game.thinker import MatchConfig

__all__ = ["Mode", "mode_for", "round_robin", "Points", "SessionState", "Session",
           "MatchRecord", "Standing", "standings", "SessionEvent", "SessionStarted",
           "PreMatch", "PostMatch", "SessionEnded", "winner_text", "unique_names"]


class Mode(Enum):
    """What kind of session the active AI players make."""

    HUMAN_VS_HUMAN = "human vs human"
    HUMAN_VS_AI = "human vs AI"
    AI_VS_AI = "AI vs AI"
    TOURNAMENT = "tournament"

    @property
    def asks_who_plays_first(self) -> bool:
        return self in (Mode.HUMAN_VS_AI, Mode.AI_VS_AI)


def mode_for(active_ai_players: int) -> Mode:
    """0 -> two humans, 1 -> human vs AI, 2 -> AI vs AI, 3 or more -> tournament."""
    if active_ai_players < 0:
        raise ConfigError(f"the number of AI players cannot be {active_ai_players}")
    return (Mode.HUMAN_VS_HUMAN, Mode.HUMAN_VS_AI, Mode.AI_VS_AI,
            Mode.TOURNAMENT)[min(active_ai_players, 3)]


def round_robin(n: int, complete: bool = True) -> list[tuple[int, int]]:
    """Pairings (white, red) by the circle method; a dummy sits out odd counts.

    With `complete`, a second leg follows with the colours swapped, so each
    ordered pair plays once: n(n-1) matches.
    """
    ids: list[int | None] = list(range(n))
    if n % 2:
        ids.append(None)
    size = len(ids)
    first_leg: list[tuple[int, int]] = []
    for rnd in range(size - 1):
        for i in range(size // 2):
            a, b = ids[i], ids[size - 1 - i]
            if a is None or b is None:
                continue
            # alternate who is White so nobody is White every round
            first_leg.append((a, b) if (rnd + i) % 2 == 0 else (b, a))
        ids = [ids[0], ids[-1], *ids[1:-1]]
    if not complete:
        return first_leg
    return first_leg + [(r, w) for w, r in first_leg]


@dataclass(frozen=True)
class Points:
    """Points per win, draw and loss."""

    win: int = 3
    draw: int = 1
    loss: int = 0


@dataclass(frozen=True)
class MatchRecord:
    """A finished match of a session, by player index."""

    white: int
    red: int
    result: MatchResult


@dataclass(frozen=True)
class Standing:
    """A row of the standings table."""

    position: int
    """1-based; players with equal points share a position."""
    player: int
    name: str
    points: int
    wins: int
    draws: int
    losses: int

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses


def standings(names: Sequence[str], records: Sequence[MatchRecord],
              points: Points = Points()) -> list[Standing]:
    """Standings sorted by points (descending); equal points share a position."""
    tally = [[0, 0, 0] for _ in names]  # wins, draws, losses
    for rec in records:
        color = rec.result.winner.color
        if color is None:
            tally[rec.white][1] += 1
            tally[rec.red][1] += 1
        else:
            winner, loser = ((rec.white, rec.red) if color is PColor.WHITE
                             else (rec.red, rec.white))
            tally[winner][0] += 1
            tally[loser][2] += 1
    scored = [(w * points.win + d * points.draw + lo * points.loss, i)
              for i, (w, d, lo) in enumerate(tally)]
    scored.sort(key=lambda s: (-s[0], s[1]))
    table: list[Standing] = []
    for rank, (pts, i) in enumerate(scored):
        position = table[-1].position if table and table[-1].points == pts else rank + 1
        table.append(Standing(position, i, names[i], pts, *tally[i]))
    return table


class SessionState(Enum):
    BEGIN = "begin"
    PRE_MATCH = "pre-match"
    IN_MATCH = "in match"
    POST_MATCH = "post-match"
    END = "end"


@dataclass(frozen=True)
class SessionEvent:
    """Base of all session events."""


@dataclass(frozen=True)
class SessionStarted(SessionEvent):
    mode: Mode
    players: tuple[str, ...]
    total_matches: int


@dataclass(frozen=True)
class PreMatch(SessionEvent):
    index: int
    white: str
    red: str


@dataclass(frozen=True)
class PostMatch(SessionEvent):
    index: int
    record: MatchRecord


@dataclass(frozen=True)
class SessionEnded(SessionEvent):
    standings: tuple[Standing, ...]


def unique_names(players: Sequence[Player]) -> tuple[str, ...]:
    """Display names, numbered where several players share one."""
    names = [p.display_name for p in players]
    out = []
    for i, name in enumerate(names):
        same = [j for j, n in enumerate(names) if n == name]
        out.append(name if len(same) == 1 else f"{name} #{same.index(i) + 1}")
    return tuple(out)


class Session:
    """A session of one or more matches between players.

    Two players (any mix of humans and AIs) play one match, White first in
    the order given; call `swap()` before starting to change colours. Three
    or more play a round-robin tournament, each pair once with each colour.
    """

    def __init__(self, players: Sequence[Player], config: MatchConfig,
                 points: Points = Points(), runner_factory: RunnerFactory = ThreadRunner,
                 complete: bool = True) -> None:
        if len(players) < 2:
            raise ConfigError(f"a session needs at least 2 players, got {len(players)}")
        self.players = list(players)
        self.config = config
        self.points = points
        self.runner_factory = runner_factory
        self.mode = mode_for(sum(not isinstance(p, Human) for p in players))
        self.names = unique_names(self.players)
        self.pairings = (round_robin(len(players), complete) if len(players) > 2
                         else [(0, 1)])
        self.state = SessionState.BEGIN
        self.records: list[MatchRecord] = []
        self.match: Match | None = None
        self._subscribers: list[Callable[[SessionEvent], None]] = []

    def subscribe(self, callback: Callable[[SessionEvent], None]) -> None:
        self._subscribers.append(callback)

    def _emit(self, event: SessionEvent) -> None:
        for callback in self._subscribers:
            callback(event)

    @property
    def total_matches(self) -> int:
        return len(self.pairings)

    @property
    def current_index(self) -> int:
        """Index of the match about to be played, being played or just played."""
        done = len(self.records)
        return done if self.state in (SessionState.BEGIN, SessionState.PRE_MATCH,
                                      SessionState.IN_MATCH) else done - 1

    @property
    def next_pairing(self) -> tuple[str, str]:
        """(White, Red) names of the next (or current) match."""
        white, red = self.pairings[min(self.current_index, self.total_matches - 1)]
        return self.names[white], self.names[red]

    def swap(self) -> None:
        """Swap colours of a two-player session; only before it starts."""
        if self.state is not SessionState.BEGIN or len(self.players) != 2:
            raise ConfigError("colours can only be swapped before a single match starts")
        self.players.reverse()
        self.names = tuple(reversed(self.names))

    def standings(self) -> list[Standing]:
        return standings(self.names, self.records, self.points)

    # ------------------------------------------------------------ transitions
    def start(self) -> None:
        """BEGIN -> PRE_MATCH."""
        self._expect(SessionState.BEGIN)
        self._emit(SessionStarted(self.mode, self.names, self.total_matches))
        self._to_pre_match()

    def begin_match(self) -> Match:
        """PRE_MATCH -> IN_MATCH: make the next match (the caller advances it)."""
        self._expect(SessionState.PRE_MATCH)
        white, red = self.pairings[len(self.records)]
        self.match = Match(self.config, self.players[white], self.players[red],
                           self.runner_factory)
        self.match.names = (self.names[white], self.names[red])
        self.state = SessionState.IN_MATCH
        return self.match

    def update(self) -> None:
        """Advance the current match; IN_MATCH -> POST_MATCH when it ends."""
        if self.state is not SessionState.IN_MATCH:
            return
        assert self.match is not None
        self.match.update()
        if self.match.is_over:
            assert self.match.result is not None
            self.end_match(self.match.result)

    def end_match(self, result: MatchResult) -> None:
        """Record the current match's result: IN_MATCH -> POST_MATCH."""
        self._expect(SessionState.IN_MATCH)
        white, red = self.pairings[len(self.records)]
        record = MatchRecord(white, red, result)
        self.records.append(record)
        self.state = SessionState.POST_MATCH
        self._emit(PostMatch(len(self.records) - 1, record))

    def next(self) -> None:
        """POST_MATCH -> PRE_MATCH, or END after the last match."""
        self._expect(SessionState.POST_MATCH)
        self.match = None
        if len(self.records) < self.total_matches:
            self._to_pre_match()
        else:
            self.state = SessionState.END
            self._emit(SessionEnded(tuple(self.standings())))

    def abort(self) -> None:
        """Stop the current match, if any, and release its players."""
        if self.match is not None:
            self.match.close()

    def run(self, on_match: Callable[[Match], MatchResult] | None = None) -> list[Standing]:
        """Play every match, blocking; `on_match` plays one (default: Match.run)."""
        if self.state is SessionState.BEGIN:
            self.start()
        while self.state is not SessionState.END:
            match = self.begin_match()
            result = on_match(match) if on_match else match.run()
            self.end_match(result)
            self.next()
        return self.standings()

    def _to_pre_match(self) -> None:
        self.state = SessionState.PRE_MATCH
        white, red = self.pairings[len(self.records)]
        self._emit(PreMatch(len(self.records), self.names[white], self.names[red]))

    def _expect(self, state: SessionState) -> None:
        if self.state is not state:
            raise ConfigError(f"session is {self.state.value}, expected {state.value}")


def winner_text(result: MatchResult) -> str:
    """'Winner is Red (MinimaxD3)' or "It's a draw"."""
    color = result.winner.color
    if result.winner is Winner.DRAW or color is None:
        return "It's a draw"
    return f"Winner is {color} ({result.winner_name})"
