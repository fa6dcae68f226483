"""Games as PGN, and PGN read back as an opening book.

Besides the Seven Tag Roster (`report`'s), a game's PGN says what no chess
reader could guess: ``[Variant "colorshapelinks"]`` (so that no reader takes
the moves for chess), the board as one tag per board flag (Rows, Cols,
WinSequence, RoundPieces, SquarePieces: ``-r -c -w -o -s``), and the
TimeControl: ``10+0.1`` for a game clock (``--tc``, seconds), ``0.2/move``
for a limit per move. The date is the day the game ended (its results line's
``ended``, UTC).

The movetext is PGN's: a number before each White move, one token a move in
this game's notation (``1. 3r 3s 2. 4r``), each move of the opening book
followed by a ``{book}`` comment, as cutechess-cli and fastchess mark theirs,
then the result; lines of at most 79 characters (PGN's export format).

Read as a book (``--openings games.pgn``), a PGN file gives each game's book
moves (the moves marked ``{book}`` from its first), each opening once, in
the order of the games: a session's or an SPRT's games give back the book
they were played from.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["VARIANT", "UNKNOWN_DATE", "board_tags", "pgn_date", "movetext", "looks_like_pgn",
           "pgn_openings"]

VARIANT = "colorshapelinks"
"""The Variant tag's value."""
UNKNOWN_DATE = "????.??.??"
BOOK = "book"
"""The comment after each book move."""
_BOARD_TAGS = (("Rows", "rows"), ("Cols", "cols"), ("WinSequence", "win_sequence"),
               ("RoundPieces", "round_pieces"), ("SquarePieces", "square_pieces"))
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T")
_TAG = re.compile(r'^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_TOKEN = re.compile(r"\{[^}]*\}?|;.*|\$\d+|\d+\.+|1-0|0-1|1/2-1/2|\*|[^\s{};$]+")


def board_tags(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Variant, the board and TimeControl of a results line's settings (the
    tags of settings it does not hold are left out)."""
    tags = [("Variant", VARIANT)]
    tags += [(tag, str(settings[key])) for tag, key in _BOARD_TAGS if key in settings]
    if settings.get("tc"):
        tags.append(("TimeControl", str(settings["tc"])))
    elif isinstance(settings.get("time_limit_ms"), int):
        tags.append(("TimeControl", f"{settings['time_limit_ms'] / 1000:g}/move"))
    return tags


def pgn_date(ended: object) -> str:
    """PGN's ``YYYY.MM.DD`` of a results line's ``ended``; unknown without one."""
    found = _DATE.match(ended) if isinstance(ended, str) else None
    return ".".join(found.groups()) if found else UNKNOWN_DATE


def movetext(moves: Sequence[str], book: int, result: str) -> str:
    """PGN movetext: numbered moves, the first `book` marked, then `result`."""
    tokens: list[str] = []
    for ply, move in enumerate(moves):
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + 1}.")
        elif ply <= book:  # Red's move after a comment: PGN numbers it again
            tokens.append(f"{ply // 2 + 1}...")
        tokens.append(move)
        if ply < book:
            tokens.append(f"{{{BOOK}}}")
    tokens.append(result)
    return "\n".join(textwrap.wrap(" ".join(tokens), 79, break_long_words=False,
                                   break_on_hyphens=False))


def looks_like_pgn(lines: Sequence[str]) -> bool:
    """Whether a book file is PGN: its first line that says something is a tag."""
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            return _TAG.match(text) is not None
    return False


def pgn_openings(lines: Sequence[str], rows: int, cols: int) -> list[tuple[int, str]]:
    """Each game's book moves (as ``3r 3s``) with the number of the line its
    moves begin on; each opening once, in the order of the games; games with
    no book move give none.

    Raises:
        ValueError: a game was played on another board ('LINE: ...').
    """
    found: dict[str, int] = {}
    for number, tags, tokens in _games(lines):
        board = (tags.get("Rows"), tags.get("Cols"))
        if None not in board and board != (str(rows), str(cols)):
            raise ValueError(f"{number}: a game on a {board[0]}x{board[1]} board "
                             f"(this one is {rows}x{cols})")
        opening = _book_moves(tokens)
        if opening:
            found.setdefault(" ".join(opening), number)
    return [(number, text) for text, number in found.items()]


def _games(lines: Sequence[str]) -> list[tuple[int, dict[str, str], list[str]]]:
    """(first movetext line, tags, movetext tokens) of each game."""
    games: list[tuple[int, dict[str, str], list[str]]] = []
    tags: dict[str, str] = {}
    tokens: list[str] = []
    start = 0
    for number, line in enumerate(lines, 1):
        tag = _TAG.match(line)
        if tag is not None:
            if tokens:
                games.append((start, tags, tokens))
                tags, tokens = {}, []
            tags[tag.group(1)] = tag.group(2)
        elif line.strip() and not line.startswith("%"):
            start = start if tokens else number
            tokens += _TOKEN.findall(line)
    if tokens:
        games.append((start, tags, tokens))
    return games


def _book_moves(tokens: Sequence[str]) -> list[str]:
    """The moves each followed by a {book} comment, from the first move on."""
    moves: list[tuple[str, bool]] = []
    for token in tokens:
        if token.startswith("{"):
            if moves and not moves[-1][1] and token.strip("{}").strip() == BOOK:
                moves[-1] = (moves[-1][0], True)
        elif _is_move(token):
            if moves and not moves[-1][1]:
                break  # a move of the players': the book ended before it
            moves.append((token, False))
    return [move for move, marked in moves if marked]


def _is_move(token: str) -> bool:
    return not (token[0] in "{;$*" or token in ("1-0", "0-1", "1/2-1/2")
                or re.fullmatch(r"\d+\.+", token))
