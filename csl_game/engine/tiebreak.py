"""Competition tie-breaks, applied only to a tie in first place.

From most to least important: (1) points in the matches among the tied
players; (2) tie-break tournaments among those still tied with the time limit
doubled, at most 10; (3) the same with the time limit halved, at most 10;
(4) otherwise they are officially tied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from csl_game.engine.standings import MatchRecord, Points, Standing, standings

__all__ = ["TieBreak", "break_first_place_tie", "apply_tie_break", "MAX_REPLAYS"]

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


def _leaders(players: Sequence[int], records: Sequence[MatchRecord],
             points: Points) -> tuple[list[int], list[int]]:
    """(players with the most points in matches among `players`, all ranked best first)."""
    group = set(players)
    among = [r for r in records if r.white in group and r.red in group]
    names = [str(i) for i in range(max(players) + 1)]
    table = [s for s in standings(names, among, points) if s.player in group]
    top = table[0].points
    return [s.player for s in table if s.points == top], [s.player for s in table]


def break_first_place_tie(table: Sequence[Standing], records: Sequence[MatchRecord],
                          points: Points, time_limit_ms: int,
                          play_round: PlayRound) -> TieBreak | None:
    """Settle a tie in first place; None when there is none."""
    tied = [s.player for s in table if s.position == 1]
    if len(tied) < 2:
        return None
    order: list[int] = []
    steps: list[str] = []
    leaders, ranked = _leaders(tied, records, points)
    steps.append(f"head-to-head points among the tied: leaders {leaders}")
    rest = [p for p in ranked if p not in leaders]
    stages = [("doubled", time_limit_ms * 2), ("halved", max(1, time_limit_ms // 2))]
    for label, limit in stages:
        for n in range(1, MAX_REPLAYS + 1):
            if len(leaders) < 2:
                break
            played = play_round(leaders, limit)
            new_leaders, ranked = _leaders(leaders, played, points)
            steps.append(f"tie-break {n} with the time limit {label} ({limit} ms): "
                         f"leaders {new_leaders}")
            rest = [p for p in ranked if p not in new_leaders] + rest
            leaders = new_leaders
    order = leaders + rest
    return TieBreak(tuple(order), tuple(leaders) if len(leaders) > 1 else (), tuple(steps))


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
