"""Printing boards, match events and session events as text."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from csl_game.board import Board, PColor, Pos
from csl_game.match import (BoardUpdated, InvalidPlay, MatchEvent, MatchOver, MatchStarted,
                            MovePerformed, NextTurn, ThinkingInfo)
from csl_game.session import (PostMatch, PreMatch, SessionEvent, SessionStarted,
                              SessionEnded, Standing, winner_text)

__all__ = ["render_board", "render_standings", "ConsoleListener", "PIECE_CHARS", "LEGEND"]

PIECE_CHARS = {(PColor.WHITE, 0): "w", (PColor.WHITE, 1): "W",
               (PColor.RED, 0): "r", (PColor.RED, 1): "R"}
LEGEND = ("w - White Round", "W - White Square", "r - Red   Round", "R - Red   Square")


def render_board(board: Board, highlight: Sequence[Pos] = ()) -> str:
    """The board as text, top row first, with column numbers underneath.

    Cells of `highlight` (a winning run) are shown in brackets.
    """
    width = len(str(board.cols - 1)) + 2
    marked = set(highlight)
    lines = []
    for row in range(board.rows - 1, -1, -1):
        cells = []
        for col in range(board.cols):
            piece = board[row, col]
            ch = "." if piece is None else PIECE_CHARS[piece.color, piece.shape]
            cells.append((f"[{ch}]" if (row, col) in marked else ch).center(width))
        lines.append("".join(cells).rstrip())
    lines.append("".join(str(c).center(width) for c in range(board.cols)).rstrip())
    return "\n".join(lines)


def render_standings(table: Sequence[Standing]) -> str:
    """A standings table, one player a line, equal points sharing a position."""
    name_w = max([len(s.name) for s in table] + [6])
    lines = [f"  {'#':>3}  {'Player':<{name_w}}  {'Pts':>4}  {'W':>3} {'D':>3} {'L':>3}"]
    for s in table:
        lines.append(f"  {s.position:>3}. {s.name:<{name_w}}  {s.points:>4}  "
                     f"{s.wins:>3} {s.draws:>3} {s.losses:>3}")
    return "\n".join(lines)


def format_name(color: PColor, name: str) -> str:
    """'White (Random)'."""
    return f"{color} ({name})"


class ConsoleListener:
    """Prints match and session events to a text stream."""

    def __init__(self, out: TextIO | None = None, show_boards: bool = True) -> None:
        self.out = out or sys.stdout
        self.show_boards = show_boards
        self._board: Board | None = None

    def _say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def on_match_event(self, event: MatchEvent) -> None:
        """Subscribe this to a Match."""
        match event:
            case MatchStarted(white=white, red=red):
                self._say(f"=> {white} (White) vs {red} (Red) <=")
                if self.show_boards:
                    self._say("\n".join("\t" + line for line in LEGEND) + "\n")
            case BoardUpdated(board=board):
                self._board = board
                if self.show_boards:
                    self._say(render_board(board) + "\n")
            case NextTurn(color=color, name=name, is_human=human):
                if not human:
                    self._say(f"{format_name(color, name)} is thinking, please wait...")
            case MovePerformed(color=color, name=name, move=move, elapsed=elapsed):
                self._say(f"{format_name(color, name)} placed a "
                          f"{move.piece.shape.name.lower()} piece at column {move.col} "
                          f"after {elapsed * 1000:.0f} ms")
            case InvalidPlay(color=color, name=name, reason=reason, detail=detail):
                first = detail.splitlines()[0] if detail else ""
                self._say(f"{format_name(color, name)} {reason}" + (f": {first}" if first else ""))
                if detail.count("\n"):
                    self._say("\n".join("    " + line for line in detail.splitlines()[1:]))
            case ThinkingInfo(color=color, name=name, text=text):
                self._say(f"{format_name(color, name)} says: {text}")
            case MatchOver(result=result):
                self._say(winner_text(result))
                if result.solution:
                    self._say("Solution: " + " ".join(str(p) for p in result.solution))
                    if self.show_boards and self._board is not None:
                        self._say(render_board(self._board, result.solution))
                self._say()

    def on_session_event(self, event: SessionEvent, names: Sequence[str] = (),
                         pairings: Sequence[tuple[int, int]] = ()) -> None:
        """Subscribe this (with the session's names and pairings bound) to a Session."""
        match event:
            case SessionStarted(mode=mode, total_matches=total):
                self._say(f"Session: {mode.value}, {total} match(es) to play:")
                for i, (w, r) in enumerate(pairings, 1):
                    self._say(f"\t{i:>3}. {names[w]} (White) vs {names[r]} (Red)")
                self._say()
            case PreMatch(index=i, white=white, red=red):
                self._say(f"* Match {i + 1}: {white} (White) vs {red} (Red) now playing...")
            case PostMatch(record=record):
                reason = record.result.forfeit
                extra = f" (the loser {reason})" if reason else ""
                self._say(f"  - {winner_text(record.result)}{extra}\n")
            case SessionEnded(standings=table):
                self._say("Final standings:")
                self._say(render_standings(table))
