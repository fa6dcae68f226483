"""What a follower of an online game checks the host against, without I/O.

A joiner or a spectator keeps its own board and trusts nothing the host says
about the game that the board does not show: a result's moves must be the
moves played here, a win must be on the board (its line of the winner's
pieces, in a row) and a draw a full board; a welcome must answer the hello
sent, a reconnect's welcome must extend the game as it stood, and a forfeit
or a resignation must be one its loser could come to. `Contradiction` names
what disagrees; the joiner's state machine (csl_game.online.joiner) and the
tournament spectator (csl_game.online.tourney_client) raise it, and the game
ends there (docs/online.md, "What the joiner checks").
"""

from __future__ import annotations

from collections.abc import Mapping

from csl_game.engine import ForfeitReason, MatchResult, move_text
from csl_game.errors import ProtocolError
from csl_game.model.board import Board, Move, PColor, Pos, PShape, Winner
from csl_game.online.protocol import PROTOCOL_VERSION, Hello, Welcome
from csl_game.thinker.api import MatchConfig

__all__ = ["Contradiction", "check_line", "check_ending", "check_names_and_settings",
           "check_welcome", "check_same_game", "check_loser", "put_move", "replay",
           "RESULT_SETTINGS"]

RESULT_SETTINGS = ("rows", "cols", "win_sequence", "round_pieces", "square_pieces",
                   "time_limit_ms")
"""The settings a result line holds (all but the minimum move time)."""
_DIRECTIONS = {(0, 1), (1, 0), (1, 1), (1, -1)}


class Contradiction(ProtocolError):
    """A message of the host that contradicts the game as this end saw it
    played (a move never sent, a rewritten history, a win not on the board)."""


def put_move(board: Board, ply: int, col: int, shape: PShape) -> Move:
    """Play move number `ply` on `board`: it must be the move due, and legal.

    Raises:
        Contradiction: another move is due, or the move is not legal here.
    """
    if ply != board.move_count:
        raise Contradiction(f"move {ply + 1} came when move {board.move_count + 1} was due")
    problem = board.move_problem(shape, col)
    if problem is not None:
        raise Contradiction(f"an illegal move {ply + 1}, {move_text(col, shape)}: {problem}")
    row = board.do_move(shape, col)
    piece = board[row, col]
    assert piece is not None
    return Move(row, col, piece)


def replay(moves: tuple[Move, ...], config: MatchConfig) -> Board:
    """A board of `config` with `moves` played on it, each checked.

    Raises:
        Contradiction: a move is not legal, lands elsewhere or is of the wrong colour.
    """
    board = config.new_board()
    for ply, move in enumerate(moves):
        color = board.turn
        landed = put_move(board, ply, move.col, move.piece.shape)
        if landed.row != move.row or move.piece.color is not color:
            what = move_text(move.col, move.piece.shape)
            raise Contradiction(f"move {ply + 1} is {color}'s {what} landing on row "
                                f"{landed.row}, not {move.piece.color}'s on row {move.row}")
    return board


def check_names_and_settings(result: MatchResult, result_config: MatchConfig,
                             names: tuple[str, str], config: MatchConfig) -> None:
    """The result is of this game: its players and settings.

    Raises:
        Contradiction: other names or settings.
    """
    if (result.white, result.red) != names:
        raise Contradiction(f"a result of {result.white} against {result.red}, not of "
                            f"{names[0]} against {names[1]}")
    differ = [key for key in RESULT_SETTINGS
              if getattr(result_config, key) != getattr(config, key)]
    if differ:
        raise Contradiction(f"a result with other settings ({differ[0].replace('_', ' ')} "
                            f"{getattr(result_config, differ[0])}, not "
                            f"{getattr(config, differ[0])})")


def check_line(board: Board, winner: Winner, solution: tuple[Pos, ...]) -> None:
    """`solution` is a winning line of `winner` on `board`: win_sequence cells in
    a row (a row, a column or a diagonal), each holding a piece that counts for
    `winner` (all of its shape, or all of its colour and not all of the
    other's shape: shape beats colour).

    Raises:
        Contradiction: it is not.
    """
    color = winner.color
    assert color is not None
    n = board.win_sequence
    cells = sorted(set(solution))
    if len(solution) != n or len(cells) != n:
        raise Contradiction(f"a winning line of {len(solution)} cells on a board of "
                            f"{n} in a row")
    for pos in cells:
        if not (0 <= pos.row < board.rows and 0 <= pos.col < board.cols):
            raise Contradiction(f"a winning line through {_cell(pos)}, off the board")
    steps = {(b.row - a.row, b.col - a.col) for a, b in zip(cells, cells[1:])}
    if len(steps) > 1 or not steps <= _DIRECTIONS:
        raise Contradiction("a winning line whose cells are not in a row")
    pieces = [board[pos.row, pos.col] for pos in cells]
    empty = [pos for pos, piece in zip(cells, pieces) if piece is None]
    if empty:
        raise Contradiction(f"a winning line through an empty cell ({_cell(empty[0])})")
    shape = color.shape
    by_shape = all(p is not None and p.shape is shape for p in pieces)
    by_color = all(p is not None and p.color is color for p in pieces) and \
        not all(p is not None and p.shape is shape.other for p in pieces)
    if not (by_shape or by_color):
        raise Contradiction(f"a winning line of {color} through pieces that are not "
                            f"{color}'s ({', '.join(_cell(p) for p in cells)})")


def check_ending(board: Board, result: MatchResult) -> PColor | None:
    """The result's moves are the board's history and the way it ended agrees
    with the board: a win the board shows (its line checked), a draw on a
    finished board, or a forfeit (or a resignation) of a game not over on the
    board. Returns the colour that lost other than on the board (forfeit or
    resignation), else None; the caller judges whether that side could.

    Raises:
        Contradiction: it does not agree.
    """
    history = board.history
    moves = tuple(m.move for m in result.moves)
    if moves != history:
        first = next((i for i, (a, b) in enumerate(zip(moves, history)) if a != b),
                     min(len(moves), len(history)))
        raise Contradiction(f"a result of {len(moves)} moves where {len(history)} were played "
                            f"(they differ from move {first + 1})")
    state = board.check_winner()
    if result.forfeit is None and not result.resigned:
        if result.winner is Winner.NONE or result.winner is not state:
            shown = "no winner yet" if state is Winner.NONE else str(state).lower()
            raise Contradiction(f"a result of '{str(result.winner).lower()}' on a board "
                                f"that shows {shown}")
        if state is Winner.DRAW:
            if result.solution:
                raise Contradiction("a draw with a winning line")
        else:
            check_line(board, result.winner, result.solution)
        return None
    if result.forfeit is not None and result.resigned:
        raise Contradiction("a result that is both a forfeit and a resignation")
    if state is not Winner.NONE:
        raise Contradiction("a forfeit after the game was over on the board")
    winner = result.winner.color
    if winner is None:
        raise Contradiction("a forfeit without a winner")
    if result.solution:
        raise Contradiction("a forfeit with a winning line")
    return winner.other


def check_welcome(hello: Hello, msg: Welcome) -> None:
    """The welcome answers `hello`, the hello that was sent: its protocol
    version and role, and for a player the colour, the settings and the kind
    of player it asked for.

    Raises:
        ProtocolError: another protocol version.
        Contradiction: a welcome to anything else.
    """
    if msg.version != PROTOCOL_VERSION:
        raise ProtocolError(f"a welcome of protocol version {msg.version}, not "
                            f"{PROTOCOL_VERSION}")
    if hello.role == "spectator":
        if msg.role != "spectator" or msg.color is not None:
            raise Contradiction(f"a welcome as a player ({msg.color}) to a spectator")
        return
    # (the colour says it is a player's welcome: csl-game's host names the
    # role of a player seated as White 'spectator', as colour 0 is false)
    if msg.color is None:
        raise Contradiction("a welcome to play no colour")
    if hello.color is not None and msg.color is not hello.color:
        raise Contradiction(f"a welcome to play {msg.color}, not {hello.color} as asked")
    for key, value in (hello.settings or {}).items():
        if getattr(msg.config, key) != value:
            raise Contradiction(f"a game of {key.replace('_', ' ')} "
                                f"{getattr(msg.config, key)}, not {value} as asked")
    if msg.humans[msg.color] != (hello.kind == "human"):
        said = "a human" if msg.humans[msg.color] else "an AI"
        raise Contradiction(f"a welcome that says your player ({hello.kind}) is {said}")


def check_same_game(msg: Welcome, board: Board, config: MatchConfig | None,
                    names: tuple[str, str], humans: tuple[bool, bool],
                    color: PColor | None) -> None:
    """A reconnect's welcome: the game as it stood here (`board`, its settings,
    its players, which of them are humans, this side's colour), maybe a few
    moves on.

    Raises:
        Contradiction: another game, or this one with its moves rewritten.
    """
    if msg.config != config:
        raise Contradiction("a reconnect's welcome to a game of other settings")
    if msg.names != names or msg.humans != humans:
        raise Contradiction(f"a reconnect's welcome to a game of {msg.names[0]} against "
                            f"{msg.names[1]}, not {names[0]} against {names[1]}"
                            if msg.names != names else
                            "a reconnect's welcome that says other players are humans")
    if msg.color is not color:
        raise Contradiction(f"a reconnect's welcome to play {msg.color}, not {color}")
    history = board.history
    if len(msg.moves) < len(history):
        raise Contradiction(f"a reconnect's welcome of {len(msg.moves)} moves where "
                            f"{len(history)} were played")
    for ply, (move, (col, shape, _)) in enumerate(zip(history, msg.moves)):
        if (move.col, move.piece.shape) != (col, shape):
            raise Contradiction(f"a reconnect's welcome whose move {ply + 1} is "
                                f"{move_text(col, shape)}, not "
                                f"{move_text(move.col, move.piece.shape)} as played")


def check_loser(board: Board, loser: PColor, reason: ForfeitReason | None, resigned: bool,
                mine: PColor | None, humans: tuple[bool, bool],
                reported: Mapping[int, ForfeitReason]) -> None:
    """A forfeit or a resignation `loser` could have come to: only the host's
    human resigns; this side (`mine`, None for a spectator) forfeits by time,
    by leaving, or as it said (`reported`: its forfeits by ply); a thinker
    fails on its own turn; a human is never timed.

    Raises:
        Contradiction: a loss `loser` could not have come to.
    """
    if resigned:
        if not humans[loser] or loser is mine:
            raise Contradiction(f"a resignation of {loser}, "
                                + ("your side, which did not resign" if loser is mine
                                   else "who is not a human"))
        return
    assert reason is not None
    said = reason.name.lower()
    if reason is ForfeitReason.DISCONNECTED:
        if mine is not None and loser is not mine:
            raise Contradiction(f"a forfeit of {loser}, the host's side, for leaving "
                                "the game")
        return
    if board.turn is not loser:
        raise Contradiction(f"a forfeit of {loser} ({said}) when {board.turn} was to move")
    if reason is ForfeitReason.TIMEOUT and humans[loser]:
        raise Contradiction(f"a time-out of {loser}, a human, who is never timed")
    if loser is mine:
        if reason is not ForfeitReason.TIMEOUT and \
                reported.get(board.move_count) is not reason:
            raise Contradiction(f"a forfeit of your side ({said}: {reason}) that "
                                "your side never reported")
    elif mine is not None and humans[loser]:
        raise Contradiction(f"a forfeit of {loser}, the host's human ({said}), who "
                            "can only resign")


def _cell(pos: Pos) -> str:
    return f"row {pos.row}, column {pos.col}"
