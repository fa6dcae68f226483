"""Generated opening books: one position per opening (no transposition, no
mirror image), each kept when the games played out from it are balanced."""

from __future__ import annotations

from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.model.board import PShape
from csl_game.model.notation import parse_moves
from csl_game.services.openings import (
    TARGET,
    make_book,
    playout,
    playouts,
    position_key,
    rate,
    read_book,
)
from csl_game.thinker.api import MatchConfig

CONFIG = MatchConfig()


def _moves(text: str) -> tuple[tuple[int, PShape], ...]:
    return tuple(parse_moves(text))


def test_transpositions_and_mirror_images_are_one_position() -> None:
    key = position_key(CONFIG, _moves("1r 2s 3r 4s"))
    assert position_key(CONFIG, _moves("3r 2s 1r 4s")) == key  # White's two moves swapped
    assert position_key(CONFIG, _moves("3r 4s 1r 2s")) == key  # both sides' swapped
    assert position_key(CONFIG, _moves("5r 4s 3r 2s")) == key  # the mirror image (7 columns)
    assert position_key(CONFIG, _moves("1r 2s 3r 4r")) != key  # another shape
    assert position_key(CONFIG, _moves("1r 2s 4s 3r")) != key  # another colour in a cell


def test_rate_is_whites_view_whoever_is_to_move() -> None:
    # White's three rounds on the bottom row, open at both ends, Red to move:
    # Red blocks one end, White wins at the other.
    red_to_move = _moves("1r 1s 2r 2s 3r")
    assert rate(red_to_move, CONFIG, depth=4) > 900_000
    # the same threat with Red's moves and White's swapped: now Red's squares
    white_to_move = _moves("6r 1s 1r 2s 2r 3s")
    assert rate(white_to_move, CONFIG, depth=4) < -900_000


def test_a_playout_is_whites_points_in_negamaxs_game_against_itself() -> None:
    assert playout(_moves("1r 1s 2r 2s 3r"), CONFIG, 2) == 1.0  # White's open three
    assert playout(_moves("6r 1s 1r 2s 2r 3s"), CONFIG, 2) == 0.0  # Red's
    white, games = playouts(_moves("3r 3s"), CONFIG, 4)
    assert games == 3 and 0 <= white <= 3  # at depths 2, 3 and 4
    assert white == sum(playout(_moves("3r 3s"), CONFIG, d) for d in (2, 3, 4))
    assert playouts(_moves("3r 3s"), CONFIG, 4) == (white, games)  # by depth: the same
    white, games = playouts(_moves("3r 3s"), CONFIG, None, time_ms=1)
    assert games == 2  # by time: two at least


def test_a_book_holds_distinct_positions_each_balanced_in_its_playouts() -> None:
    book = make_book(CONFIG, 4, 4, seed=8, balanced=0.25, depth=3)
    assert len(book) == 4 and all(len(r.opening) == 4 for r in book)
    assert len({position_key(CONFIG, r.opening) for r in book}) == 4
    for rated in book:
        assert rated.playouts == 2 and abs(rated.share - TARGET) <= 0.25
        assert playouts(rated.opening, CONFIG, 3) == (rated.white, rated.playouts)
        assert rate(rated.opening, CONFIG, 4) == rated.search
    assert book == make_book(CONFIG, 4, 4, seed=8, balanced=0.25, depth=3)


def test_the_verb_writes_how_each_opening_was_rated_and_reads_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "book.txt"
    assert main(["openings", "--plies", "2", "--count", "3", "--depth", "3", "--band", "0.5",
                 "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(lines) == 3 and len(read_book(out, CONFIG)) == 3
    for line in lines:
        moves, comment = line.split("#")
        assert comment.strip().startswith("White ") and "/2, search " in comment
        points = float(comment.split()[1].split("/")[0])
        assert playouts(_moves(moves), CONFIG, 3) == (points, 2)
    assert "--depth 3 --band 0.5" in text.splitlines()[0]


def test_the_verb_plays_out_for_a_time_and_refuses_both_a_time_and_a_depth(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "book.txt"
    assert main(["openings", "--plies", "2", "--count", "2", "-t", "1", "--band", "0.5",
                 "-o", str(out)]) == 0
    assert "-t 1" in out.read_text(encoding="utf-8").splitlines()[0]
    assert main(["openings", "-t", "20", "--depth", "3"]) == 2
    assert "not both" in capsys.readouterr().err


def test_the_help_names_the_books_file() -> None:
    from csl_game.cli import build_parser

    parser = build_parser()
    text = next(a for a in parser._subparsers._actions  # noqa: SLF001 - argparse has no API
                if a.choices)  # type: ignore[attr-defined]
    help_text = text.choices["openings"].format_help()
    assert "-o FILE, --output FILE" in help_text and "DIR" not in help_text
