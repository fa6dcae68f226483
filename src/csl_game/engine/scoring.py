"""Round-robin pairings, points, match records and standings.

Shared by the session state machine, the parallel tournament engine, tie-breaks
and reports: everything here is plain data and pure functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from csl_game.engine.match import MatchResult
from csl_game.model.board import PColor, Winner

__all__ = ["round_robin", "Points", "MatchRecord", "Standing", "standings", "winner_text",
           "unique_names", "tie_order", "in_table_order"]


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


def tie_order(name: str) -> tuple[str, str]:
    """How players sharing a place are listed: by name, case aside (then case first).

    Every table of standings (the console's, the reports', the site's, the
    window's) lists ties this way, so the same results read the same everywhere.
    """
    return name.casefold(), name


def in_table_order(table: Iterable[Standing]) -> list[Standing]:
    """`table` as every table lists it: by position, players sharing a
    position by name (`tie_order`), then by player index (equal names)."""
    return sorted(table, key=lambda s: (s.position, *tie_order(s.name), s.player))


def standings(names: Sequence[str], records: Sequence[MatchRecord],
              points: Points = Points()) -> list[Standing]:
    """Standings sorted by points (descending); equal points share a position
    (the first of theirs: 1, 2, 2, 4) and are listed by name (`tie_order`)."""
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
    scored = [w * points.win + d * points.draw + lo * points.loss for w, d, lo in tally]
    position: dict[int, int] = {}
    for rank, pts in enumerate(sorted(scored, reverse=True), 1):
        position.setdefault(pts, rank)
    return in_table_order(Standing(position[pts], i, names[i], pts, *tally[i])
                          for i, pts in enumerate(scored))


def winner_text(result: MatchResult) -> str:
    """'Winner is Red (MinimaxD3)' or "It's a draw"."""
    color = result.winner.color
    if result.winner is Winner.DRAW or color is None:
        return "It's a draw"
    return f"Winner is {color} ({result.winner_name})"


def unique_names(names: Sequence[str]) -> tuple[str, ...]:
    """The names, numbered ('Random #1', 'Random #2') where several are the same."""
    out = []
    for i, name in enumerate(names):
        same = [j for j, n in enumerate(names) if n == name]
        out.append(name if len(same) == 1 else f"{name} #{same.index(i) + 1}")
    return tuple(out)
