"""The texts of the message log, shared by the GUI and the console.

Wording follows the reference framework's match view, so logs of both
frontends read the same where they overlap.
"""

from __future__ import annotations

from collections.abc import Sequence

from csl_game.model.board import PColor, PShape, Winner
from csl_game.engine.match import MatchResult
from csl_game.engine.runners.base import ForfeitReason
from csl_game.engine.standings import Standing
from csl_game.engine.tiebreak import TieBreak, TieRound

__all__ = ["who", "match_started", "pre_match", "background_result", "thinking", "placed",
           "forfeit", "thinking_info", "game_over", "standing_line", "session_over",
           "first_line", "tie_break_round", "tie_break_summary"]


def who(color: PColor, name: str) -> str:
    """'White (Random)'."""
    return f"{color} ({name})"


def match_started(white: str, red: str) -> str:
    """'=> Random (White) vs MinimaxD3 (Red) <='."""
    return f"=> {white} (White) vs {red} (Red) <="


def pre_match(index: int, white: str, red: str) -> str:
    """'* Match 2: Random (White) vs MinimaxD3 (Red) now playing...' (index from 0)."""
    return f"* Match {index + 1}: {white} (White) vs {red} (Red) now playing..."


def background_result(index: int, white: str, red: str, result: MatchResult) -> str:
    """'* Match 3 (off screen): Random (White) vs MinimaxD3 (Red): Game Over, Red
    (MinimaxD3) won' (index from 0)."""
    return f"* Match {index + 1} (off screen): {white} (White) vs {red} (Red): {game_over(result)}"


def thinking(color: PColor, name: str) -> str:
    """'Red (MinimaxD3) is thinking, please wait...'."""
    return f"{who(color, name)} is thinking, please wait..."


def placed(color: PColor, name: str, shape: PShape, col: int, elapsed: float) -> str:
    """'White (Random) placed a square piece at column 4 after thinking for 0.1234s'."""
    return (f"{who(color, name)} placed a {PShape(shape)} piece at column {col} "
            f"after thinking for {elapsed:.4f}s")


def first_line(text: str) -> str:
    """The first line of a possibly multi-line detail (a traceback, say)."""
    return text.splitlines()[0] if text else ""


def forfeit(color: PColor, name: str, reason: ForfeitReason, detail: str = "") -> str:
    """'Red (Sleepy) exceeded the time limit: time limit 500 ms' (first detail line only)."""
    first = first_line(detail)
    return f"{who(color, name)} {reason}" + (f": {first}" if first else "")


def thinking_info(color: PColor, name: str, text: str) -> str:
    """'White (MinimaxD3) says: depth 3 done'."""
    return f"{who(color, name)} says: {text}"


def game_over(result: MatchResult) -> str:
    """'Game Over, White (MinimaxD3) won' or "Game Over, it's a draw"."""
    color = result.winner.color
    if result.winner is Winner.DRAW or color is None:
        return "Game Over, it's a draw"
    return f"Game Over, {who(color, result.winner_name or '')} won"


def standing_line(s: Standing) -> str:
    """'1. MinimaxD3: 9 pts (3 W, 0 D, 1 L)'."""
    return f"{s.position}. {s.name}: {s.points} pts ({s.wins} W, {s.draws} D, {s.losses} L)"


def session_over(table: list[Standing] | tuple[Standing, ...]) -> list[str]:
    """The final standings as log lines, a title first."""
    return ["Final standings:", *(standing_line(s) for s in table)]


def tie_break_round(tie_round: TieRound, players: Sequence[str]) -> str:
    """'* Tie-break 1 for first place, the time limit doubled (1000 ms): A, B'."""
    return (f"* Tie-break {tie_round.number} for first place, the time limit "
            f"{tie_round.stage} ({tie_round.time_limit_ms} ms): {', '.join(players)}")


def tie_break_summary(tb: TieBreak, names: Sequence[str]) -> str:
    """How a tie in first place ended, in one line."""
    played = len(tb.steps) - 1
    tournaments = f"{played} tie-break tournament{'s' if played != 1 else ''}"
    if tb.tied:
        return (f"Officially tied for first place after {tournaments}: "
                + ", ".join(names[p] for p in tb.tied))
    how = "head-to-head points" if played == 0 else tournaments
    return f"The tie for first place was broken by {how}"
