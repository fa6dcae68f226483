"""The ladder without I/O: who plays whom next, and the ratings.

`Ladder` counts the games of every pair of bots and each side's games with
White. `pairings()` pairs the bots free to play: the one with the fewest
games first, against the free bot it has met least (then the one with the
fewest games), White to whichever of the two has had White less often in
that pair, so every pair plays both colours in turn. Ratings are the
project's Bradley-Terry fit (`csl_game.engine.rate_records`), with their 95 %
intervals, fitted again when asked for after games have ended.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from csl_game.engine import MatchRecord, MatchResult, Rating, rate_records

__all__ = ["Ladder"]


@dataclass
class Ladder:
    """Games between bots, their counts and the ratings they give."""

    records: list[tuple[str, str, MatchResult]] = field(default_factory=list)
    playing: dict[str, int] = field(default_factory=dict)
    """Ladder games each bot is in now."""
    _pair_games: dict[frozenset[str], int] = field(default_factory=dict)
    _whites: dict[tuple[str, str], int] = field(default_factory=dict)
    _games: dict[str, int] = field(default_factory=dict)
    _ratings: list[Rating] = field(default_factory=list)
    _stale: bool = False
    """Games ended since the ratings were fitted (they are fitted when next asked for)."""

    def started(self, white: str, red: str) -> None:
        """A game between two bots began (counted for the pairing from now)."""
        self._pair_games[frozenset((white, red))] = self.pair_games(white, red) + 1
        self._whites[white, red] = self._whites.get((white, red), 0) + 1
        for name in (white, red):
            self._games[name] = self._games.get(name, 0) + 1
            self.playing[name] = self.playing.get(name, 0) + 1

    def ended(self, white: str, red: str, result: MatchResult) -> None:
        """A game that `started` ended: its result counts for the ratings."""
        for name in (white, red):
            self.playing[name] = max(0, self.playing.get(name, 0) - 1)
        self.add(white, red, result)

    def abandoned(self, white: str, red: str) -> None:
        """A game that `started` ended with no result (both bots left): it frees
        them and counts for nothing."""
        for name in (white, red):
            self.playing[name] = max(0, self.playing.get(name, 0) - 1)

    def person_game(self, seats: Sequence[str], delta: int) -> None:
        """A game of a bot against a person began (+1) or ended (-1): it counts
        for the bot's games at once (its --games), not for its rating."""
        for seat in seats:
            if seat.startswith("bot:"):
                self.playing[seat[4:]] = max(0, self.playing.get(seat[4:], 0) + delta)

    def add(self, white: str, red: str, result: MatchResult, count: bool = False) -> None:
        """A finished game (with `count`, one read back from the database)."""
        if count:
            self.started(white, red)
            for name in (white, red):
                self.playing[name] -= 1
        self.records.append((white, red, result))
        self._stale = True

    def pair_games(self, a: str, b: str) -> int:
        return self._pair_games.get(frozenset((a, b)), 0)

    def games(self, name: str) -> int:
        return self._games.get(name, 0)

    def pairings(self, free: Mapping[str, int]) -> list[tuple[str, str]]:
        """(White, Red) games to start now among bots with `free[name]` more
        games they may play at once."""
        room = {n: k for n, k in free.items() if k > 0}
        pairs = []
        while len(room) >= 2:
            first = min(room, key=lambda n: (self.games(n), n))
            others = [n for n in room if n != first]
            second = min(others, key=lambda n: (self.pair_games(first, n), self.games(n), n))
            if self._whites.get((first, second), 0) <= self._whites.get((second, first), 0):
                pair = (first, second)
            else:
                pair = (second, first)
            pairs.append(pair)
            self.started(*pair)
            for name in (first, second):
                room[name] -= 1
                if room[name] <= 0:
                    del room[name]
        return pairs

    def _rate(self) -> None:
        self._stale = False
        names: list[str] = sorted({n for w, r, _ in self.records for n in (w, r)})
        index = {n: i for i, n in enumerate(names)}
        self._ratings = rate_records(names, [MatchRecord(index[w], index[r], res)
                                             for w, r, res in self.records])

    def table(self, bots: Sequence[str] = ()) -> list[dict[str, Any]]:
        """The ladder, best first: every rated bot, then `bots` not rated yet."""
        if self._stale:
            self._rate()
        rows: list[dict[str, Any]] = [
            {"name": r.name, "rating": round(r.elo, 1),
             "ci95": [round(r.ci95[0], 1), round(r.ci95[1], 1)], "games": r.games,
             "score": round(r.score, 3)}
            for r in sorted(self._ratings, key=lambda r: (-r.elo, r.name))]
        rated = {r["name"] for r in rows}
        rows += [{"name": n, "rating": None, "ci95": None, "games": 0, "score": None}
                 for n in sorted(bots) if n not in rated]
        return rows
