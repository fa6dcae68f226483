"""Opening books: a list of forced first moves each game starts from, so that
a test or a tournament measures play rather than who opened better.

A book is a text file, one opening a line in move notation (``3r 3s 4r``,
White's move first), ``#`` starting a comment; every opening is checked
legal on the board it will be played on and to leave the game open.

`make_book` writes one: random openings of K plies, each kept when games
played out from it are balanced. A position's search score is no measure of
that here: negamax's evaluation calls the start "even", yet with Red's extra
square piece (11 of its shape against White's 10 rounds on 6 x 7) games
from openings it scores near 0 mostly go to Red (benchmarks/book_balance.py:
White 20 % in 40 games of a book rated by a search 8 plies deep). So each
candidate is played out to the end by negamax against itself, once at each
of four search depths up to --depth (2 to 5 by default; or at growing depths
for -t MS of CPU time), and kept when White's score over those games is
within --band of TARGET: a little above one half, since shallow self-play
understates Red's edge (see TARGET for the figures).
A quick shallow search first drops the openings that are plainly lost or won
(they cost a playout for nothing), and openings that reach one position (two
orders of the same moves, a transposition) or mirror images of each other
(the same game on the other side of the board) count once.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from csl_game.engine import Opening
from csl_game.errors import ConfigError, CslError
from csl_game.model.board import Board, PColor, PShape, Winner
from csl_game.model.notation import format_moves, parse_moves
from csl_game.services.pgn import looks_like_pgn, pgn_openings
from csl_game.thinker.api import CancellationToken, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["read_book", "arrange", "make_book", "format_book", "rate", "playout", "playouts",
           "position_key", "Rated", "BALANCED", "PLAYOUT_DEPTH", "SEARCH_DEPTH", "QUICK_DEPTH"]

BALANCED = 0.125
"""How far from TARGET White's score in an opening's playouts may be (the
default --band): with 4 playouts, 2 or 3 of them won by White (draws half)."""
PLAYOUT_DEPTH = 5
"""The deepest playout's search (the default --depth): playouts at 2, 3, 4 and 5 plies."""
PLAYOUTS = 4
"""Playouts by depth: at the deepest and the plies below it, down to FIRST_DEPTH."""
TARGET = 0.625
"""White's score in the playouts that a book aims at, above one half: shallow
self-play understates Red's edge (its 11 squares against White's 10 rounds)
under stronger play. In 40-game runs of benchmarks/book_balance.py (negamax
against negamax depth=4 at 50 ms, 300 games in all), openings White won 2 of
its 4 playouts gave White 44 % of the games, 1 of 4 gave 26 % and 3 of 4 gave
83 %: a book of 2s and 3s comes out near even."""
FIRST_DEPTH = 2
"""The shallowest playout's search."""
QUICK_DEPTH = 4
"""Plies of the quick search that drops the plainly lost openings."""
QUICK_BOUND = 300
"""The quick search keeps an opening it scores within this much of 0 (negamax's
units; a won game scores about a million)."""
SEARCH_DEPTH = QUICK_DEPTH
_SCORE = re.compile(r"\bscore=(-?\d+)")


@dataclass(frozen=True)
class Rated:
    """An opening of a book and how it was rated."""

    opening: Opening
    white: float
    """White's points in the playouts (a draw half a point)."""
    playouts: int
    search: int
    """The quick search's score of it, White's view (0: even by the evaluation)."""

    @property
    def share(self) -> float:
        """White's score in the playouts, 0 to 1."""
        return self.white / self.playouts


def _checked(board: Board, moves: list[tuple[int, PShape]]) -> str | None:
    """Why `moves` cannot open a game on `board` (which they are played on), or None."""
    for i, (col, shape) in enumerate(moves, 1):
        if not 0 <= col < board.cols:
            return (f"move {i} ({format_moves([(col, shape)])}): there is no column {col} on "
                    f"a {board.cols}-column board (columns 0 to {board.cols - 1})")
        if board.is_column_full(col):
            return f"move {i} ({format_moves([(col, shape)])}): column {col} is full"
        if not board.piece_count(board.turn, shape):
            return f"move {i}: {board.turn} has no {shape} pieces left"
        board.do_move(shape, col)
        if board.check_winner() is not Winner.NONE:
            return f"move {i} ends the game: an opening must leave it open"
    return None


def read_book(path: str | Path, config: MatchConfig) -> list[Opening]:
    """The openings of a book file, in order: one a line, or a PGN file's
    games' book moves (csl_game.services.pgn: what `report --format pgn` writes).

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
    entries: Sequence[tuple[int, str]] = list(enumerate(lines, 1))
    if looks_like_pgn(lines):
        try:
            entries = pgn_openings(lines, config.rows, config.cols)
        except ValueError as e:
            raise ConfigError(f"{p}:{e}") from None
    book: list[Opening] = []
    for number, line in entries:
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
        raise ConfigError(f"opening book {p} holds no opening" + (
            " (from a PGN file, each game's moves marked {book})" if looks_like_pgn(lines)
            else ""))
    return book


def arrange(book: Sequence[Opening], order: str = "sequential", start: int | None = None,
            plies: int | None = None, seed: int = 1) -> list[Opening]:
    """A book as a run plays it: each line cut to its first `plies` (the lines
    that become one opening so count once, where it first was), in the file's
    order (`order` sequential) or shuffled by `seed` (random), beginning with
    opening `start` (from 1) and going on round to the start, as fastchess's
    ``-openings plies=N order=sequential|random start=N``.

    Raises:
        ConfigError: `plies` below 1, or `start` outside the book (one line).
    """
    openings = list(book)
    if plies is not None:
        if plies < 1:
            raise ConfigError(f"--openings-plies must be at least 1 with a book, got {plies}")
        openings = list(dict.fromkeys(o[:plies] for o in openings))
    if order == "random":
        random.Random(seed).shuffle(openings)
    if start is not None:
        if not 1 <= start <= len(openings):
            raise ConfigError(f"--openings-start must be from 1 to {len(openings)} (the "
                              f"openings of the book), got {start}")
        openings = openings[start - 1:] + openings[:start - 1]
    return openings


def rate(moves: Opening, config: MatchConfig, depth: int | None = SEARCH_DEPTH,
         time_ms: int | None = None) -> int | None:
    """Negamax's score of the position after `moves`, White's view (positive:
    White is better), searched `depth` plies deep or, given `time_ms`, for that
    many milliseconds of this process's CPU time; None when the side to move
    has a win at once or a single move (no balanced game).

    A search to a depth gives the same score every time; one for a time goes
    as deep as the time allows on this machine.
    """
    board = config.new_board()
    for col, shape in moves:
        board.do_move(shape, col)
    said: list[str] = []
    if time_ms is not None:
        search = replace(config, time_limit_ms=time_ms, min_move_time_ms=0, clock="cpu")
        thinker = ThinkerPrototype("negamax", "", search).create(said.append)
        token = CancellationToken(time_ms / 1000, time.process_time)
    else:
        search = replace(config, time_limit_ms=600_000, min_move_time_ms=0)
        thinker = ThinkerPrototype("negamax", f"depth={depth or SEARCH_DEPTH}",
                                   search).create(said.append)
        token = CancellationToken()
    thinker.think(board, token)
    scores = [int(m.group(1)) for text in said if (m := _SCORE.search(text))]
    if not scores:
        return None
    return scores[-1] if board.turn is PColor.WHITE else -scores[-1]


def position_key(config: MatchConfig, moves: Opening) -> tuple[tuple[int, ...], ...]:
    """What the position after `moves` is, whatever the order of the moves and
    whichever side of the board they were played on: the lesser of the
    position's and its mirror image's cells (colour and shape bitboards)."""
    keys = []
    for mirrored in (False, True):
        board = config.new_board()
        for col, shape in moves:
            board.do_move(shape, board.cols - 1 - col if mirrored else col)
        fast = board.fast_board()
        keys.append((tuple(fast.colors), tuple(fast.shapes)))
    return min(keys)


def _board(config: MatchConfig, moves: Opening) -> Board:
    board = config.new_board()
    for col, shape in moves:
        board.do_move(shape, col)
    return board


def playout(moves: Opening, config: MatchConfig, depth: int,
            red_depth: int | None = None) -> float:
    """White's points (1, 1/2 or 0) in the game negamax plays from the position
    after `moves`, searching `depth` plies a move as White and `red_depth`
    (default: the same) as Red."""
    board = _board(config, moves)
    search = replace(config, time_limit_ms=600_000, min_move_time_ms=0)
    players = [ThinkerPrototype("negamax", f"depth={d}", search).create(lambda _: None)
               for d in (depth, depth if red_depth is None else red_depth)]
    while (winner := board.check_winner()) is Winner.NONE:
        move = players[board.turn].think(board, CancellationToken())
        if board.move_problem(move.shape, move.column) is not None:
            winner = board.turn.other.winner  # cannot happen with negamax: a forfeit
            break
        board.do_move(move.shape, move.column)
    return 0.5 if winner is Winner.DRAW else 1.0 if winner is Winner.WHITE else 0.0


def playouts(moves: Opening, config: MatchConfig, depth: int | None = PLAYOUT_DEPTH,
             time_ms: int | None = None) -> tuple[float, int]:
    """(White's points, games) of `playout`s from the position, negamax against
    itself: one at each of the PLAYOUTS depths up to `depth` (not below
    FIRST_DEPTH), the same every time; or, given `time_ms`, at growing depths
    from FIRST_DEPTH until that many ms of this process's CPU time are spent
    (two at least), as many as this machine affords."""
    if time_ms is None:
        last = max(depth or PLAYOUT_DEPTH, FIRST_DEPTH)
        depths = range(max(FIRST_DEPTH, last - PLAYOUTS + 1), last + 1)
        points = [playout(moves, config, d) for d in depths]
        return sum(points), len(points)
    start, points = time.process_time(), []
    depth = FIRST_DEPTH
    while len(points) < 2 or (time.process_time() - start) * 1000 < time_ms:
        points.append(playout(moves, config, depth))
        depth += 1
    return sum(points), len(points)


def make_book(config: MatchConfig, plies: int, count: int, seed: int = 1,
              balanced: float = BALANCED, depth: int | None = None,
              time_ms: int | None = None, tries: int = 200,
              target: float = TARGET,
              progress: Callable[[int, int], None] | None = None) -> list[Rated]:
    """`count` openings of `plies` random moves (shapes too) that leave the
    game open, each a position of its own (no transposition, no mirror image
    of another), whose `playouts` (to `depth`, default PLAYOUT_DEPTH, or for
    `time_ms` each) give White a score within `balanced` of `target`. In the
    order drawn; the same for the same arguments when played out by depth.
    `progress(kept, drawn)` is called as each opening drawn is kept or dropped.

    Raises:
        ConfigError: fewer such openings were found in `tries` x `count` draws.
    """
    if plies < 1 or count < 1:
        raise ConfigError(f"--plies and --count must be 1 or more, got {plies} and {count}")
    if not 0 <= balanced <= 1:
        raise ConfigError(f"--band must be from 0 to 1, got {balanced}")
    rng = random.Random(seed)
    book: list[Rated] = []
    seen: set[tuple[tuple[int, ...], ...]] = set()
    for drawn in range(1, tries * count + 1):
        if len(book) == count:
            return book
        rated = _balanced(_random_opening(config, plies, rng), config, seen, depth, time_ms,
                          balanced, target)
        if rated is not None:
            book.append(rated)
        if progress is not None:
            progress(len(book), drawn)
    if len(book) < count:
        raise ConfigError(f"found only {len(book)} balanced openings of {plies} plies on this "
                          f"board; ask for fewer, fewer plies, or a wider --band")
    return book


def _balanced(opening: Opening | None, config: MatchConfig,
              seen: set[tuple[tuple[int, ...], ...]], depth: int | None, time_ms: int | None,
              balanced: float, target: float) -> Rated | None:
    """`opening` rated, if it is a new position (then `seen`), not plainly lost
    or won, and balanced in its playouts; else None."""
    if opening is None:
        return None
    key = position_key(config, opening)
    if key in seen:
        return None
    seen.add(key)
    quick = rate(opening, config, QUICK_DEPTH)
    if quick is None or abs(quick) > QUICK_BOUND:
        return None
    white, games = playouts(opening, config, depth, time_ms)
    return Rated(opening, white, games, quick) if abs(white / games - target) <= balanced + 1e-9 \
        else None


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


def format_book(book: list[Rated], config: MatchConfig, header: str = "") -> str:
    """A book file's text: a comment saying what it is, then one opening a
    line, how it was rated as a comment."""
    lines = [f"# {len(book)} openings for {config.rows}x{config.cols}, "
             f"{config.win_sequence} in a row, {config.round_pieces}+{config.square_pieces} "
             f"pieces" + (f"; {header}" if header else ""),
             "# after each opening: White's points in the games negamax played out from it "
             "against itself, and a 4-ply search's score (White's view)"]
    width = max((len(format_moves(r.opening)) for r in book), default=0)
    lines += [f"{format_moves(r.opening).ljust(width)}  # White {r.white:g}/{r.playouts}, "
              f"search {r.search:+d}" for r in book]
    return "\n".join(lines) + "\n"
