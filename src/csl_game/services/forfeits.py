"""Forfeits counted by reason, and the warning when too many games are lost on time.

A session, a league and an SPRT end with how their games were forfeited
("forfeits: 12 timeout, 1 exception; 12 of 42 matches lost on time"); when
time losses pass `TIME_LOSS_WARNING` of the games, the limit is likely too
tight for the machine (or the thinker), and one line on standard error says
what to change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from csl_game.engine import ForfeitReason, MatchResult

__all__ = ["TIME_REASONS", "TIME_LOSS_WARNING", "Forfeits"]

TIME_REASONS = frozenset({ForfeitReason.TIMEOUT, ForfeitReason.IGNORED_CANCELLATION})
"""The forfeits that are losses on time: over the limit, or still thinking when
told to stop."""
TIME_LOSS_WARNING = 0.03
"""The share of games lost on time above which the summary warns."""


@dataclass
class Forfeits:
    """How many of a run's games were forfeited, by reason."""

    games: int = 0
    by_reason: Counter[ForfeitReason] = field(default_factory=Counter)

    @classmethod
    def of(cls, results: Iterable[MatchResult]) -> Forfeits:
        """The forfeits of these games (every game counts in `games`)."""
        forfeits = cls()
        for result in results:
            forfeits.add(result)
        return forfeits

    def add(self, result: MatchResult) -> None:
        """Count one more game."""
        self.games += 1
        if result.forfeit is not None:
            self.by_reason[result.forfeit] += 1

    @property
    def on_time(self) -> int:
        """Games lost on time."""
        return sum(n for reason, n in self.by_reason.items() if reason in TIME_REASONS)

    def to_json(self) -> dict[str, int]:
        """Count by reason, as results files name reasons (``{"timeout": 3}``),
        most first; empty when no game was forfeited."""
        return {reason.name.lower(): n for reason, n in self._ranked()}

    def _ranked(self) -> list[tuple[ForfeitReason, int]]:
        order = list(ForfeitReason)
        return sorted(self.by_reason.items(), key=lambda item: (-item[1], order.index(item[0])))

    def summary(self, noun: str = "matches") -> str | None:
        """'Forfeits: 12 timeout, 1 exception; 12 of 42 matches lost on time',
        or None when no game was forfeited."""
        if not self.by_reason:
            return None
        reasons = ", ".join(f"{n} {reason.name.lower().replace('_', ' ')}"
                            for reason, n in self._ranked())
        lost = f"; {self.on_time} of {self.games} {noun} lost on time" if self.on_time else ""
        return f"Forfeits: {reasons}{lost}"

    def warning(self, noun: str = "matches") -> str | None:
        """One line when more than TIME_LOSS_WARNING of the games were lost on
        time, saying what to change; None otherwise."""
        if not self.games or self.on_time <= TIME_LOSS_WARNING * self.games:
            return None
        share = 100 * self.on_time / self.games
        return (f"{self.on_time} of {self.games} {noun} ({share:.0f} %) were lost on time: "
                "give a --time-margin, a higher -t, or fewer --workers")
