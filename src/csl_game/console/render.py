"""Printing boards, match events and session events as text.

Names and what thinkers say are printed through `narration.terminal_safe`: a
control character in them is shown escaped, never acted on by the terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from csl_game.engine import (
    BoardUpdated,
    InvalidPlay,
    MatchEvent,
    MatchOver,
    MatchStarted,
    MovePerformed,
    NextTurn,
    Standing,
    ThinkingInfo,
)
from csl_game.model.board import Board, PColor, Pos
from csl_game.services import narration as msg
from csl_game.services.tables import Grid

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


def render_standings(table: Sequence[Standing], elo: Mapping[int, str] | None = None) -> str:
    """A standings table, one player a line, equal points sharing a position;
    with `elo` (by player index: 'Elo ± error'), a column of ratings."""
    header = ["#", "Player", "Pts", "W", "D", "L"]
    if elo:
        header.append("Elo (\u00b195%)")  # maximum likelihood, average 0, half its interval
    rows = [[f"{s.position}.", msg.terminal_safe(s.name), s.points, s.wins, s.draws, s.losses,
             *([elo.get(s.player, "-")] if elo else [])] for s in table]
    return "\n".join("    " + line for line in Grid.of(header, rows).text().splitlines())


class ConsoleListener:
    """Prints match events to a text stream."""

    def __init__(self, out: TextIO | None = None, show_boards: bool = True) -> None:
        self.out = out or sys.stdout
        self.show_boards = show_boards
        self._board: Board | None = None

    def _say(self, text: str = "") -> None:
        print(msg.terminal_safe(text), file=self.out, flush=True)

    def on_match_event(self, event: MatchEvent) -> None:
        """Subscribe this to a Match."""
        match event:
            case MatchStarted(white=white, red=red):
                self._say(msg.match_started(white, red))
                if self.show_boards:
                    self._say("\n".join("\t" + line for line in LEGEND) + "\n")
            case BoardUpdated(board=board):
                self._board = board
                if self.show_boards:
                    self._say(render_board(board) + "\n")
            case NextTurn(color=color, name=name, is_human=human):
                if not human:
                    self._say(msg.thinking(color, name))
            case MovePerformed(color=color, name=name, move=move, elapsed=elapsed):
                self._say(msg.placed(color, name, move.piece.shape, move.col, elapsed))
            case InvalidPlay(color=color, name=name, reason=reason, detail=detail):
                self._say(msg.forfeit(color, name, reason, detail))
                if detail.count("\n"):
                    self._say("\n".join("    " + line for line in detail.splitlines()[1:]))
            case ThinkingInfo(color=color, name=name, text=text):
                self._say(msg.thinking_info(color, name, text))
            case MatchOver(result=result):
                self._say(msg.game_over(result))
                if result.solution:
                    self._say("Solution: " + " ".join(str(p) for p in result.solution))
                    if self.show_boards and self._board is not None:
                        self._say(render_board(self._board, result.solution))
                self._say()
