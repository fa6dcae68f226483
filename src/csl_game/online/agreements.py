"""What a follower of a game checks of the endings and the undoing both players
agree to, without I/O: a draw agreed, a move (and the reply to it) taken back.

A game server (docs/server.md) ends a game in a draw when one player offers
it and the other accepts, and takes moves back when one asks and the other
accepts. A client that keeps its own board (the window's table of a server
game) trusts neither unless it took part: it said `draw` (offering or
accepting) before a draw agreed, and `takeback` before the moves went back,
and then exactly the moves the ask undoes went. `Contradiction`
(csl_game.online.verify) names what disagrees.
"""

from __future__ import annotations

from csl_game.engine import MatchResult
from csl_game.model.board import Board, Move, PColor, Winner
from csl_game.online.verify import Contradiction

__all__ = ["is_agreed_draw", "check_agreed_draw", "takeback_plies", "check_takeback"]


def is_agreed_draw(result: MatchResult, board: Board) -> bool:
    """Whether `result` reads as a draw the players agreed: a draw, neither a
    forfeit nor a resignation, on a board whose game is not over."""
    return (result.winner is Winner.DRAW and result.forfeit is None and not result.resigned
            and board.check_winner() is Winner.NONE)


def check_agreed_draw(board: Board, result: MatchResult, said_draw: bool) -> None:
    """A draw agreed on `board`: its moves the board's, no line, and this side
    took part (`said_draw`: it offered a draw or accepted one since the last move).

    Raises:
        Contradiction: it is none of those.
    """
    moves = tuple(m.move for m in result.moves)
    if moves != board.history:
        raise Contradiction(f"a draw agreed after {len(moves)} moves where "
                            f"{board.move_count} were played")
    if result.solution:
        raise Contradiction("a draw agreed with a winning line")
    if not said_draw:
        raise Contradiction("a draw agreed that this side neither offered nor accepted")


def takeback_plies(asker: PColor, turn: PColor) -> int:
    """The moves a takeback asked for by `asker` undoes when `turn` is to move:
    its own last move, and the reply to it if there is one (the server's rule)."""
    return 2 if turn is asker else 1


def check_takeback(history: tuple[Move, ...], theirs: list[tuple[int, int]],
                   asker: PColor | None, turn: PColor, said_takeback: bool) -> None:
    """The game went back from `history` to `theirs` (each move's column and
    shape) by a takeback both agreed: `asker` asked it (None: nobody did), this
    side said `takeback` (asking or accepting), and exactly the moves the ask
    undoes went.

    Raises:
        Contradiction: it is no such takeback.
    """
    if asker is None or not said_takeback:
        raise Contradiction(f"the game went back from {len(history)} moves to {len(theirs)} "
                            "with no takeback asked and agreed")
    back = takeback_plies(asker, turn)
    kept = [(m.col, int(m.piece.shape)) for m in history[:len(history) - back]]
    if len(history) < back or [(c, int(s)) for c, s in theirs] != kept:
        raise Contradiction(f"a takeback to {len(theirs)} moves, where {asker}'s ask "
                            f"undoes {back} of {len(history)}")
