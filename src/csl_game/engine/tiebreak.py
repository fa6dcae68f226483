"""Competition tie-breaks, applied only to a tie in first place.

From most to least important: (1) points in the matches among the tied
players; (2) tie-break tournaments among those still tied with the time limit
doubled, at most 10; (3) the same with the time limit halved, at most 10;
(4) otherwise they are officially tied.

`TieBreaker` is the procedure as a state machine: it says which tie-break
tournament to play next and takes its records, so a window can play the
rounds without blocking; `break_first_place_tie()` runs it to the end with a
blocking function that plays a round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from csl_game.engine.background import TieKey
from csl_game.engine.match import MatchResult
from csl_game.engine.scoring import MatchRecord, Points, Standing, round_robin, standings

__all__ = ["TieBreak", "TieRound", "TieBreaker", "TieBreakRounds", "break_first_place_tie",
           "apply_tie_break",
           "MAX_REPLAYS"]

MAX_REPLAYS = 10

PlayRound = Callable[[Sequence[int], int], Sequence[MatchRecord]]
"""Plays a tie-break tournament among these players at this time limit (ms)."""


@dataclass(frozen=True)
class TieBreak:
    """How a tie in first place was settled."""

    order: tuple[int, ...]
    """Players of the first-place tie, best first."""
    tied: tuple[int, ...]
    """Players still sharing first place after every step (empty if broken)."""
    steps: tuple[str, ...]
    """What each step did, for people to read."""


@dataclass(frozen=True)
class TieRound:
    """A tie-break tournament to play: every pair of `players`, both colours."""

    number: int
    """1 to MAX_REPLAYS within its stage."""
    players: tuple[int, ...]
    time_limit_ms: int
    stage: str
    """'doubled' or 'halved'."""

    def __str__(self) -> str:
        return f"tie-break {self.number} with the time limit {self.stage} ({self.time_limit_ms} ms)"


def _leaders(players: Sequence[int], records: Sequence[MatchRecord],
             points: Points) -> tuple[list[int], list[int]]:
    """(players with the most points in matches among `players`, all ranked best first)."""
    group = set(players)
    among = [r for r in records if r.white in group and r.red in group]
    names = [str(i) for i in range(max(players) + 1)]
    table = [s for s in standings(names, among, points) if s.player in group]
    top = table[0].points
    return [s.player for s in table if s.points == top], [s.player for s in table]


class TieBreaker:
    """The tie-break procedure for one final table, a round at a time.

    Call `next_round()`; while it gives a round, play it and pass its records
    (by the session's player indices) to `record()`. `result` is set once no
    round is left.
    """

    def __init__(self, table: Sequence[Standing], records: Sequence[MatchRecord],
                 points: Points, time_limit_ms: int) -> None:
        self.points = points
        self._stages = [("doubled", time_limit_ms * 2), ("halved", max(1, time_limit_ms // 2))]
        self._stage = 0
        self._played = 0
        self._pending: TieRound | None = None
        self.result: TieBreak | None = None
        self.needed = sum(s.position == 1 for s in table) > 1
        """Whether first place is shared at all (if not, there is nothing to do)."""
        if not self.needed:
            return
        tied = [s.player for s in table if s.position == 1]
        self._leaders, ranked = _leaders(tied, records, points)
        self._rest = [p for p in ranked if p not in self._leaders]
        self._steps = [f"head-to-head points among the tied: leaders {self._leaders}"]

    def next_round(self) -> TieRound | None:
        """The tie-break tournament to play next, or None when the procedure is over."""
        if not self.needed or self.result is not None:
            return None
        if self._pending is not None:
            return self._pending
        while len(self._leaders) > 1 and self._stage < len(self._stages):
            if self._played < MAX_REPLAYS:
                self._played += 1
                label, limit = self._stages[self._stage]
                self._pending = TieRound(self._played, tuple(self._leaders), limit, label)
                return self._pending
            self._stage, self._played = self._stage + 1, 0
        leaders = self._leaders
        self.result = TieBreak(tuple(leaders + self._rest),
                               tuple(leaders) if len(leaders) > 1 else (), tuple(self._steps))
        return None

    def record(self, records: Sequence[MatchRecord]) -> None:
        """The records of the round `next_round()` gave, by session player index."""
        played = self._pending
        if played is None:
            raise ValueError("no tie-break round is being played")
        self._pending = None
        new_leaders, ranked = _leaders(played.players, records, self.points)
        self._steps.append(f"{played}: leaders {new_leaders}")
        self._rest = [p for p in ranked if p not in new_leaders] + self._rest
        self._leaders = new_leaders


def break_first_place_tie(table: Sequence[Standing], records: Sequence[MatchRecord],
                          points: Points, time_limit_ms: int,
                          play_round: PlayRound) -> TieBreak | None:
    """Settle a tie in first place, playing rounds with `play_round`; None when there is none."""
    breaker = TieBreaker(table, records, points, time_limit_ms)
    if not breaker.needed:
        return None
    while (tie_round := breaker.next_round()) is not None:
        breaker.record(play_round(tie_round.players, tie_round.time_limit_ms))
    return breaker.result


def apply_tie_break(table: Sequence[Standing], tb: TieBreak | None) -> list[Standing]:
    """Standings with the first-place group reordered: broken ties get own positions."""
    if tb is None:
        return list(table)
    by_player = {s.player: s for s in table}
    head = []
    for rank, player in enumerate(tb.order):
        position = 1 if player in tb.tied else rank + 1
        head.append(replace(by_player[player], position=position))
    return head + [s for s in table if s.player not in tb.order]


class TieBreakRounds:
    """A session's tie-break tournaments, a round at a time: which matches to
    play (under typed keys) and their results as they come."""

    def __init__(self, breaker: TieBreaker) -> None:
        self.breaker = breaker
        self.round: TieRound | None = None
        self._records: list[MatchRecord] = []

    @property
    def needed(self) -> bool:
        return self.breaker.needed

    @property
    def result(self) -> TieBreak | None:
        return self.breaker.result

    def next_round(self) -> TieRound | None:
        """The next tournament to play, or None once first place is settled."""
        self.round = self.breaker.next_round()
        self._records = []
        return self.round

    def matches(self) -> list[tuple[TieKey, int, int]]:
        """(key, White, Red) of every match of the round: every pair, both colours."""
        assert self.round is not None
        players, number, stage = self.round.players, self.round.number, self.round.stage
        return [(TieKey(stage, number, i), players[w], players[r])
                for i, (w, r) in enumerate(round_robin(len(players)))]

    def record(self, key: TieKey, result: MatchResult) -> bool:
        """Take a match's result; whether the round is complete (and recorded)."""
        assert self.round is not None
        pairs = round_robin(len(self.round.players))
        w, r = pairs[key.pairing]
        self._records.append(MatchRecord(self.round.players[w], self.round.players[r], result))
        if len(self._records) < len(pairs):
            return False
        self.breaker.record(self._records)
        return True
