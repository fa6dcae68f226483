"""Score-based adjudication, as fastchess's and cutechess-cli's ``-draw`` and
``-resign``: a game ends once the thinkers' own scores agree it is decided.

A thinker reports a score through its thinking info (``score=N``, its own
view: positive when it stands better; csl_game.engine.figures keeps the last
of each move). Negamax does so in its evaluation's units (a won game about a
million); a move without a score (a book move, a thinker that reports none,
a forced move) breaks every streak.

- ``--resign movecount=N score=S``: a side whose last N moves all scored -S
  or below resigns (it loses);
- ``--draw movenumber=M movecount=N score=S``: from move M on (White's and
  Red's moves counted together as one, as PGN numbers them), a game whose
  last N moves of each side all scored within ±S is a draw.

With ``--adjudicate`` as well, the exact prover (csl_game.services.analysis)
looks first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from csl_game.errors import UsageError
from csl_game.model.board import Board, PColor, Winner

__all__ = ["ScoreRules", "parse_rule", "DRAW_KEYS", "RESIGN_KEYS"]

DRAW_KEYS = ("movenumber", "movecount", "score")
RESIGN_KEYS = ("movecount", "score")


def parse_rule(flag: str, words: Sequence[str], keys: Sequence[str]) -> dict[str, int]:
    """``key=N`` words (one or several arguments, spaces or commas between) as
    a dict; movenumber may be left out (0: from the start).

    Raises:
        UsageError: an unknown or missing key, or a value that is no whole
            number 0 or more (1 or more for movecount).
    """
    values: dict[str, int] = {}
    for word in " ".join(words).replace(",", " ").split():
        key, sep, text = word.partition("=")
        if not sep or key not in keys:
            raise UsageError(f"{flag} takes {' '.join(f'{k}=N' for k in keys)}, got {word!r}")
        try:
            values[key] = int(text)
        except ValueError:
            raise UsageError(f"{flag}: {key} must be a whole number, got {text!r}") from None
        if values[key] < (1 if key == "movecount" else 0):
            raise UsageError(f"{flag}: {key} must be at least "
                             f"{1 if key == 'movecount' else 0}, got {values[key]}")
    if "movenumber" in keys:
        values.setdefault("movenumber", 0)
    missing = [k for k in keys if k not in values]
    if missing:
        raise UsageError(f"{flag} needs {' '.join(f'{k}=N' for k in missing)}")
    return values


def _text(values: dict[str, int] | None) -> str | None:
    return None if values is None else " ".join(f"{k}={v}" for k, v in values.items())


@dataclass(frozen=True)
class ScoreRules:
    """An `Adjudicator` (csl_game.engine.match) of the scores' rules, after
    the exact prover when `exact`."""

    draw: dict[str, int] | None = None
    resign: dict[str, int] | None = None
    exact: bool = False

    @property
    def rules(self) -> dict[str, Any]:
        """The rules as a results line records them (``"movecount=3 score=600"``)."""
        return {"draw": _text(self.draw), "resign": _text(self.resign)}

    def __call__(self, board: Board, moves: Sequence[Any] = ()) -> tuple[Winner, str] | None:
        if self.exact:
            from csl_game.services.analysis import adjudicate

            verdict = adjudicate(board)
            if verdict is not None:
                return verdict
        scores = [dict(getattr(m, "figures", ())).get("score") for m in moves]
        if self.resign is not None and scores:
            count, score = self.resign["movecount"], self.resign["score"]
            mover = PColor.WHITE if (len(moves) - 1) % 2 == 0 else PColor.RED
            own = scores[len(scores) - 1::-2][:count]
            if len(own) == count and all(s is not None and s <= -score for s in own):
                return (mover.other.winner, f"adjudicated: {mover.name.title()} resigns (its "
                        f"score {-score} or below for {count} moves)")
        if self.draw is not None:
            count, score = self.draw["movecount"], self.draw["score"]
            last = scores[-2 * count:]
            if (len(moves) >= 2 * self.draw["movenumber"] and len(last) == 2 * count
                    and all(s is not None and abs(s) <= score for s in last)):
                return (Winner.DRAW, f"adjudicated: a draw by the scores (within \u00b1{score} "
                        f"for {count} moves of each side)")
        return None
