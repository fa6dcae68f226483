"""Opening books: a list of forced first moves each game starts from, so that
a test or a tournament measures play rather than who opened better.

A book is a text file, one opening a line in move notation (``3r 3s 4r``,
White's move first), ``#`` starting a comment; every opening is checked
legal on the board it will be played on and to leave the game open.
`make_book` writes one: distinct random openings of K plies that the
built-in negamax, searching a few plies deep, rates as roughly balanced.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from csl_game.engine import Opening
from csl_game.errors import ConfigError, CslError
from csl_game.model.board import Board, PShape, Winner
from csl_game.model.notation import format_moves, parse_moves
from csl_game.thinker.api import CancellationToken, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["read_book", "make_book", "format_book", "BALANCED", "SEARCH_DEPTH"]

BALANCED = 50
"""The largest score (negamax's units, the side to move's view; a won game
scores about a million) an opening may have to count as roughly balanced."""
SEARCH_DEPTH = 4
"""Plies negamax looks ahead to rate an opening."""
_SCORE = re.compile(r"\bscore=(-?\d+)")


def _checked(board: Board, moves: list[tuple[int, PShape]]) -> str | None:
    """Why `moves` cannot open a game on `board` (which they are played on), or None."""
    for i, (col, shape) in enumerate(moves, 1):
        if not 0 <= col < board.cols or board.is_column_full(col):
            return f"move {i} ({format_moves([(col, shape)])}): no room in column {col}"
        if not board.piece_count(board.turn, shape):
            return f"move {i}: {board.turn} has no {shape} pieces left"
        board.do_move(shape, col)
        if board.check_winner() is not Winner.NONE:
            return f"move {i} ends the game: an opening must leave it open"
    return None


def read_book(path: str | Path, config: MatchConfig) -> list[Opening]:
    """The openings of a book file, in order.

    Raises:
        ConfigError: the file cannot be read, holds no opening, or a line is
            no legal opening on this board (one line naming file and line).
    """
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read opening book {p}: "
                          f"{getattr(e, 'strerror', None) or e}") from None
    book: list[Opening] = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            moves = parse_moves(text)
        except CslError as e:
            raise ConfigError(f"{p}:{number}: {e}") from None
        problem = _checked(config.new_board(), moves)
        if problem is not None:
            raise ConfigError(f"{p}:{number}: {problem}")
        book.append(tuple(moves))
    if not book:
        raise ConfigError(f"opening book {p} holds no opening")
    return book


def rate(moves: Opening, config: MatchConfig, depth: int = SEARCH_DEPTH) -> int | None:
    """Negamax's score of the position after `moves` (the side to move's view),
    or None when it has a win at once or a single move (no balanced game)."""
    board = config.new_board()
    for col, shape in moves:
        board.do_move(shape, col)
    said: list[str] = []
    thinker = ThinkerPrototype("negamax", f"depth={depth}", config).create(said.append)
    thinker.think(board, CancellationToken())
    scores = [int(m.group(1)) for text in said if (m := _SCORE.search(text))]
    return scores[-1] if scores else None


def make_book(config: MatchConfig, plies: int, count: int, seed: int = 1,
              balanced: int = BALANCED, depth: int = SEARCH_DEPTH,
              tries: int = 200) -> list[Opening]:
    """`count` distinct openings of `plies` random moves (shapes too) that
    leave the game open and that negamax at `depth` rates within ±`balanced`;
    the same for the same arguments.

    Raises:
        ConfigError: fewer such openings were found in `tries` x `count` draws.
    """
    if plies < 1 or count < 1:
        raise ConfigError(f"--plies and --count must be 1 or more, got {plies} and {count}")
    rng = random.Random(seed)
    search = MatchConfig(config.rows, config.cols, config.win_sequence, config.round_pieces,
                         config.square_pieces, time_limit_ms=600_000)
    book: list[Opening] = []
    seen: set[Opening] = set()
    for _ in range(tries * count):
        if len(book) == count:
            return book
        opening = _random_opening(config, plies, rng)
        if opening is None or opening in seen:
            continue
        seen.add(opening)
        score = rate(opening, search, depth)
        if score is not None and abs(score) <= balanced:
            book.append(opening)
    if len(book) < count:
        raise ConfigError(f"found only {len(book)} balanced openings of {plies} plies on this "
                          f"board; ask for fewer, or fewer plies")
    return book


def _random_opening(config: MatchConfig, plies: int,
                    rng: random.Random) -> Opening | None:
    board = config.new_board()
    moves: list[tuple[int, PShape]] = []
    for _ in range(plies):
        legal = [(c, s) for c in range(board.cols) for s in PShape
                 if not board.is_column_full(c) and board.piece_count(board.turn, s)]
        if not legal:
            return None
        col, shape = rng.choice(legal)
        board.do_move(shape, col)
        if board.check_winner() is not Winner.NONE:
            return None
        moves.append((col, shape))
    return tuple(moves)


def format_book(book: list[Opening], config: MatchConfig, header: str = "") -> str:
    """A book file's text: a comment saying what it is, then one opening a line."""
    lines = [f"# {len(book)} openings for {config.rows}x{config.cols}, "
             f"{config.win_sequence} in a row, {config.round_pieces}+{config.square_pieces} "
             f"pieces" + (f"; {header}" if header else "")]
    lines += [format_moves(o) for o in book]
    return "\n".join(lines) + "\n"
