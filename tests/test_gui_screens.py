"""What the screens between matches show: tables, result box, fit in the window."""

from __future__ import annotations

import io
import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402

from csl_game.engine import (  # noqa: E402  # noqa: E402
    ForfeitReason,  # noqa: E402
    Human,
    MatchRecord,
    MatchResult,
    Session,
    SessionState,
    standings,
)
from csl_game.gui.animation import VisualBoard  # noqa: E402
from csl_game.gui.app import App  # noqa: E402
from csl_game.gui.board_view import BoardView  # noqa: E402
from csl_game.gui.layout import compute_layout  # noqa: E402
from csl_game.gui.pieces import PieceArt  # noqa: E402
from csl_game.gui.scenes.info import FinalScene, PreMatchScene  # noqa: E402
from csl_game.gui.style import Fonts, TextCache, TextRole, palette  # noqa: E402
from csl_game.gui.tables import cell_style, result_rows, standings_rows  # noqa: E402
from csl_game.model.board import Pos, Winner  # noqa: E402
from csl_game.services.settings import PlayOptions  # noqa: E402
from csl_game.thinker.api import MatchConfig  # noqa: E402

NAMES = ("Ann", "Bob", "Cy")


@pytest.mark.unit
def test_results_show_the_winner_bold_in_its_colour_and_draws_grey() -> None:
    line = tuple(Pos(0, c) for c in range(4))
    records = [MatchRecord(0, 1, MatchResult(Winner.WHITE, "Ann", "Bob", solution=line)),
               MatchRecord(2, 0, MatchResult(Winner.RED, "Cy", "Ann",
                                             forfeit=ForfeitReason.TIMEOUT)),
               MatchRecord(1, 2, MatchResult(Winner.DRAW, "Bob", "Cy"))]
    rows = result_rows(NAMES, records, cells=42)
    assert rows[0] == [("1", "#cell_num"), ("Ann", "#cell_white"), ("Bob", "#cell"),
                       ("White", "#cell_white"), ("4 in a row", "#cell_dim")]
    assert rows[1] == [("2", "#cell_num"), ("Cy", "#cell"), ("Ann", "#cell_red"),
                       ("Red", "#cell_red"), ("timeout", "#cell")]
    assert rows[2] == [("3", "#cell_dim_num"), ("Bob", "#cell_dim"), ("Cy", "#cell_dim"),
                       ("Draw", "#cell_dim"), ("out of pieces", "#cell_dim")]
    white, red, dim, plain = (cell_style(i) for i in ("#cell_white", "#cell_red",
                                                       "#cell_dim", "#cell"))
    assert white.bold and red.bold and not dim.bold and not plain.bold
    assert len({tuple(white.color), tuple(red.color), tuple(dim.color)}) == 3
    table = standings_rows(standings(NAMES, records))
    assert [r[0][0] for r in table] == ["1.", "2.", "2."], "equal points share a position"
    assert [(r[1][0], r[2][0]) for r in table] == [("Ann", "6"), ("Bob", "1"), ("Cy", "1")]


@pytest.mark.unit
def test_results_keep_the_match_numbers_given() -> None:
    """Matches played off screen end out of order: each row keeps its match's number."""
    records = [MatchRecord(0, 1, MatchResult(Winner.WHITE, "Ann", "Bob")),
               MatchRecord(2, 0, MatchResult(Winner.DRAW, "Cy", "Ann"))]
    rows = result_rows(NAMES, records, [2, 5])
    assert [row[0][0] for row in rows] == ["2", "5"]


@pytest.mark.unit
@pytest.mark.parametrize("solution", [
    [Pos(2, 0), Pos(3, 0), Pos(4, 0), Pos(5, 0)],   # up high
    [Pos(0, 1), Pos(0, 2), Pos(0, 3), Pos(0, 4)],   # along the bottom
    [Pos(5, 3), Pos(4, 4), Pos(3, 5), Pos(2, 6)],   # a diagonal at the top
])
@pytest.mark.parametrize("size", [(800, 600), (1280, 800)])
def test_the_result_box_with_buttons_keeps_clear_of_the_win_line(
        solution: list[Pos], size: tuple[int, int]) -> None:
    pygame.font.init()
    lay = compute_layout(6, 7, size)
    view = BoardView(PieceArt(), TextCache(Fonts()))
    view.set_layout(lay)
    visual = VisualBoard(6, 7)
    visual.show_win(tuple(solution))
    box = view.banner_rect(visual, (round(560 * lay.scale), round(80 * lay.scale)))
    assert pygame.Rect(0, 0, *size).contains(box)
    assert box.collidelist([lay.piece_rect(*p) for p in solution]) < 0


LONG_WHY = ("Match 1 of 6 · Red (NegamaxD3) made 4 squares in a row (squares count for Red, "
            "whatever their colour)")


@pytest.mark.unit
@pytest.mark.parametrize("size", [(800, 600), (1280, 800), (1920, 1080)])
def test_a_long_explanation_takes_a_second_line_not_an_ellipsis(size: tuple[int, int]) -> None:
    pygame.font.init()
    lay = compute_layout(6, 7, size)
    view = BoardView(PieceArt(), TextCache(Fonts()))
    view.set_layout(lay)
    visual = VisualBoard(6, 7)
    solution = (Pos(0, 1), Pos(0, 2), Pos(0, 3), Pos(0, 4))
    visual.show_win(solution)
    room = (round(300 * lay.scale), round(60 * lay.scale))
    short = view.banner_rect(visual, room, "4 in a row")
    long = view.banner_rect(visual, room, LONG_WHY)
    lines = view._subtitle_lines(LONG_WHY, long.w, lay.scale)
    assert len(lines) == 2 and " ".join(lines) == LONG_WHY, "every word shown"
    line_h = view.text.fonts.get(TextRole.BODY.size(lay.scale)).get_linesize()
    assert long.h == short.h + line_h
    assert pygame.Rect(0, 0, *size).contains(long)
    assert long.collidelist([lay.piece_rect(*p) for p in solution]) < 0
    surface = pygame.Surface(size)
    view.draw_banner(surface, visual, "Red (NegamaxD3) wins", LONG_WHY, room)
    text_bottom = long.y + (long.h - room[1]) // 2 + (short.h - room[1]) // 2
    band = pygame.Rect(long.x, text_bottom - line_h, long.w, line_h)  # the second line
    ink = tuple(palette().text)[:3]
    assert any(tuple(surface.get_at((x, y)))[:3] == ink
               for y in range(band.top, band.bottom) for x in range(band.left, band.right, 2))


def finished(n: int) -> Session:
    session = Session([Human(f"Player {i}") for i in range(n)], MatchConfig())
    session.start()
    while session.state is not SessionState.END:
        session.begin_match()
        white, red = session.next_pairing
        session.end_match(MatchResult(Winner.WHITE, white, red))
        session.next()
    return session


@pytest.mark.parametrize("size", [(800, 600), (1280, 800), (1920, 1080)])
def test_info_screens_fit_the_window(size: tuple[int, int]) -> None:
    app = App(PlayOptions(window_size=size, show_setup=True), out=io.StringIO())
    try:
        screen = pygame.Rect(0, 0, *size)
        app.play_session(finished(8))
        final = app.scenes.current
        assert isinstance(final, FinalScene)
        assert all(screen.contains(b.rect) for b in final.buttons.values())
        session = Session([Human(f"P{i}") for i in range(4)], MatchConfig())
        session.start()
        session.begin_match()
        session.end_match(MatchResult(Winner.DRAW, *session.next_pairing))
        session.next()
        app.play_session(session)
        pre = app.scenes.current
        assert isinstance(pre, PreMatchScene) and pre.session.current_index == 1
        for _, card in pre.cards:
            assert screen.contains(card)
        assert all(screen.contains(b.rect) for b in pre.buttons.values())
        app.step(1 / 30)
    finally:
        app.close()
