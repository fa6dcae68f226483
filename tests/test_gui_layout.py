"""The board scene's layout and animations: pure computations, no window."""

from __future__ import annotations

import itertools

import pytest
from pygame import Rect

from csl_game.gui.animation import VisualBoard, fall_curve, fall_duration
from csl_game.gui.layout import Arrangement, BoardLayout, compute_layout
from csl_game.model.board import Move, PColor, Piece, Pos, PShape

BOARDS = [(6, 7), (10, 10), (14, 7), (4, 20), (20, 4)]
WINDOWS = [(640, 480), (800, 600), (1024, 768), (1280, 720), (1280, 800), (1366, 768),
           (1600, 900), (1920, 1080), (800, 1000)]


def _disjoint(rects: list[Rect]) -> None:
    for a, b in itertools.combinations(rects, 2):
        assert not a.colliderect(b), f"{a} overlaps {b}"


@pytest.mark.unit
@pytest.mark.parametrize("board", BOARDS, ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("window", WINDOWS, ids=lambda w: f"{w[0]}x{w[1]}")
def test_everything_fits_the_window(board: tuple[int, int], window: tuple[int, int]) -> None:
    lay = compute_layout(*board, window)
    screen = Rect(0, 0, *window)
    for rect in lay.all_rects():
        assert screen.contains(rect), f"{rect} is off the {window} window"
    _disjoint([lay.frame.union(lay.ground).union(lay.arrows[0]).union(lay.arrows[-1]),
               lay.panels[0].rect, lay.panels[1].rect, lay.log])
    for panel in lay.panels:
        for part in panel.parts():
            assert panel.rect.contains(part)
        _disjoint(list(panel.toggles) + [panel.status])
    assert lay.cell >= 20, "cells big enough to click and to read"


@pytest.mark.unit
@pytest.mark.parametrize("board", BOARDS, ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("window", [(800, 600), (1920, 1080)], ids=str)
def test_pieces_never_overlap(board: tuple[int, int], window: tuple[int, int]) -> None:
    lay = compute_layout(*board, window)
    rows, cols = board
    pieces = [lay.piece_rect(r, c) for r in range(rows) for c in range(cols)]
    _disjoint(pieces)
    for r, c in itertools.product(range(rows), range(cols)):
        assert lay.cell_rect(r, c).contains(lay.piece_rect(r, c))
        assert lay.frame.contains(lay.cell_rect(r, c))
    _disjoint(list(lay.arrows))
    assert lay.cells.bottom == lay.ground.top, "pieces rest on the ground"


@pytest.mark.unit
@pytest.mark.parametrize("board", BOARDS, ids=lambda b: f"{b[0]}x{b[1]}")
def test_column_at_finds_arrows_and_cells(board: tuple[int, int]) -> None:
    lay = compute_layout(*board, (1280, 800))
    for col, arrow in enumerate(lay.arrows):
        assert lay.column_at(arrow.center) == col
        assert lay.column_at(lay.cell_rect(0, col).center) == col
        assert lay.column_at(lay.cell_rect(board[0] - 1, col).center) == col
    assert lay.column_at((lay.cells.left - 1, lay.cells.centery)) is None
    assert lay.column_at((lay.cells.centerx, lay.ground.bottom + 1)) is None
    assert lay.column_at(lay.panels[0].rect.center) is None


@pytest.mark.unit
def test_row_zero_is_the_bottom_row() -> None:
    lay = compute_layout(6, 7, (1280, 800))
    assert lay.cell_rect(0, 0).bottom == lay.cells.bottom
    assert lay.cell_rect(5, 0).top == lay.cells.top
    assert lay.cell_rect(0, 6).right == lay.cells.right


@pytest.mark.unit
def test_the_arrangement_with_the_biggest_cells_wins() -> None:
    best = compute_layout(4, 20, (800, 600))
    for arrangement in Arrangement:
        assert compute_layout(4, 20, (800, 600), arrangement).cell <= best.cell
    assert best.arrangement is Arrangement.TOP, "a wide board takes the full width"
    assert compute_layout(20, 4, (1280, 800)).arrangement is not Arrangement.TOP


@pytest.mark.unit
@pytest.mark.parametrize("window", [(1920, 1080), (2560, 1080), (1600, 900)])
def test_a_wide_window_gives_the_sidebar_what_the_board_leaves(window: tuple[int, int]) -> None:
    """At 1920x1080 the sidebar stayed 360 px with an empty band beside the
    board (issue 43, item 8): the width the board does not take goes to the
    sidebar (up to 1.6 times its own), the board's cells as big as before."""
    lay = compute_layout(6, 7, window)
    assert lay.arrangement is Arrangement.SIDEBAR
    own = round(270 * lay.scale)
    sidebar = lay.panels[0].rect
    assert own < sidebar.w <= round(own * 1.6) + 1
    assert lay.log.w == sidebar.w and lay.toolbar.w == sidebar.w
    band = sidebar.left - lay.ground.right
    if sidebar.w < round(own * 1.6):  # not at its widest: the board sits in the middle
        assert abs(band - lay.ground.left) <= 2 and band < window[0] * 0.07, band
    assert lay.cell == compute_layout(6, 7, (window[0] * 2, window[1])).cell, \
        "the board keeps its size: its height sets it"
    assert all(Rect(0, 0, *window).contains(r) for r in lay.all_rects())


def test_layout_is_a_value() -> None:
    a: BoardLayout = compute_layout(6, 7, (1024, 768))
    assert a == compute_layout(6, 7, (1024, 768))
    assert a != compute_layout(6, 7, (1024, 700))


# ----------------------------------------------------------------- animation
def _move(row: int, col: int, color: PColor = PColor.WHITE) -> Move:
    return Move(row, col, Piece(color, PShape.ROUND))


@pytest.mark.unit
def test_fall_curve_accelerates_bounces_and_settles() -> None:
    assert fall_curve(0.0, 6) == 0.0
    assert fall_curve(1.0, 6) == pytest.approx(1.0)
    assert fall_curve(0.2, 6) < 0.2, "slow at first, like a dropped piece"
    assert fall_curve(0.8, 6) == pytest.approx(1.0)
    assert 0.9 < fall_curve(0.9, 6) < 1.0, "a small bounce after touching down"
    assert fall_duration(1) < fall_duration(6) < fall_duration(20) < 0.6


@pytest.mark.unit
def test_a_piece_falls_then_lands_then_pulses() -> None:
    vb = VisualBoard(6, 7, pulse_s=1.0)
    vb.push(_move(0, 3))
    assert vb.falling is not None and not vb.idle and not vb.landed
    start = vb.falling.height
    vb.update(0.1)
    assert 0 < vb.falling.height < start
    vb.update(1.0)
    assert vb.idle and vb.landed == {Pos(0, 3): Piece(PColor.WHITE, PShape.ROUND)}
    assert vb.pulsing and vb.version == 1
    vb.update(0.5)
    assert vb.pulsing and vb.pulse_phase == pytest.approx(0.5)
    vb.update(0.6)
    assert not vb.pulsing and vb.last == _move(0, 3)


@pytest.mark.timing
def test_moves_show_in_order_and_a_backlog_plays_faster() -> None:
    vb = VisualBoard(6, 7)
    for i in range(5):
        vb.push(_move(i, 0))
    elapsed = 0.0
    while not vb.idle:
        vb.update(1 / 60)
        elapsed += 1 / 60
    assert len(vb.landed) == 5 and vb.last == _move(4, 0)
    assert elapsed < 5 * fall_duration(6) / 2


@pytest.mark.unit
def test_the_win_line_waits_for_the_last_piece() -> None:
    vb = VisualBoard(6, 7)
    vb.push(_move(0, 3))
    vb.show_win((Pos(0, 0), Pos(0, 1), Pos(0, 2), Pos(0, 3)))
    vb.update(0.05)
    assert vb.win_progress == 0.0
    vb.update(1.0)
    vb.update(0.2)
    assert 0 < vb.win_progress <= 1.0
    vb.update(1.0)
    assert vb.win_progress == 1.0
