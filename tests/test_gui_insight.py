"""The analysis panel, threat marks, best line and spectator's figures in the
window, driven with real key and mouse events under the dummy video driver,
checked by state and by the pixels drawn."""

from __future__ import annotations

import io
from collections.abc import Callable

import pygame
import pytest

from csl_game.gui.app import App
from csl_game.gui.insight import split_for_panel
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.style import palette
from csl_game.model.board import Board, PColor, Pos, Winner
from csl_game.services.replay import Replay
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, Apps, board_scene, click, click_at, key, run_until
from solvers import solve

SMALL = dict(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)
MakeApp = Callable[..., App]


@pytest.fixture
def make_app(apps: Apps) -> MakeApp:
    def make(*ais: AIEntry, size: tuple[int, int] = (1024, 700), out: io.StringIO | None = None,
             **options: object) -> App:
        config = MatchConfig(**SMALL, time_limit_ms=2000, min_move_time_ms=0)
        app = apps.open(PlayOptions(ais=ais, match=config, window_size=size, in_process=True,
                                    last_move_animation_s=0.0, wait_before_match=False,
                                    **options),  # type: ignore[arg-type]
                        out=out or io.StringIO())
        key(app, pygame.K_RETURN, frames=2)  # past the players' introduction
        run_until(app, lambda: isinstance(app.scenes.current, MatchScene), frames=200)
        return app

    return make


def _drop(app: App, col: int) -> None:
    scene = board_scene(app)
    run_until(app, lambda: scene.input_enabled, seconds=20)
    click_at(app, scene.layout.arrows[col].center, frames=1)
    run_until(app, lambda: scene.visual.idle and (
        scene.input_enabled or scene.match is not None and scene.match.is_over), seconds=20)


def _settle(app: App, frames: int = 3) -> pygame.Surface:
    for _ in range(frames):
        app.step(DT)
    pygame.event.post(pygame.event.Event(pygame.VIDEOEXPOSE))  # draw the whole window
    app.step(DT)
    return app.screen.copy()


def _same(a: pygame.Surface, b: pygame.Surface, rect: pygame.Rect) -> bool:
    return pygame.image.tobytes(a.subsurface(rect), "RGB") == \
        pygame.image.tobytes(b.subsurface(rect), "RGB")


@pytest.mark.parametrize("size", [(800, 600), (1920, 1080)])
def test_the_analysis_panel_marks_threats_and_shows_the_proven_line(
        make_app: MakeApp, size: tuple[int, int]) -> None:
    app = make_app(AIEntry("sequential"), size=size)
    scene = board_scene(app)
    for col in (1, 2):  # White rounds on 1 and 2; the sequential Red fills 0, then 1
        _drop(app, col)
    tool = scene.insight.tool  # type: ignore[union-attr]
    assert not tool.on, "off by default in a game against the AI"
    button = scene.tools.buttons["analysis"]  # type: ignore[union-attr]
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=button.rect.center,
                                         rel=(0, 0), buttons=(0, 0, 0)))
    off = _settle(app)  # the pointer where the click to turn it off will be
    key(app, pygame.K_a)
    assert tool.on and tool.marks, "a round in column 3 would give White three in a row"
    board = scene.match.board  # type: ignore[union-attr]
    run_until(app, lambda: tool.analysis is not None and not tool.searching, seconds=60)
    on = _settle(app)
    lay = scene.layout
    panel, log = split_for_panel(lay.log, lay.scale)
    assert not _same(off, on, panel), "the panel is drawn where the log was"
    for mark in tool.marks:
        assert not _same(off, on, lay.cell_rect(mark.pos.row, mark.pos.col)), mark
    assert tool.cells, "the best line is drawn on the board"
    first = tool.cells[0][0]
    assert not _same(off, on, lay.cell_rect(first.row, first.col))
    # What the panel says is exact: the independent solver agrees.
    analysis = tool.analysis
    assert analysis is not None
    best = analysis.best
    outcome, plies = solve(board.copy())  # 1: the player to move wins, -1: loses, 0: draw
    mover = board.turn.name.lower()
    other = board.turn.other.name.lower()
    assert (best.result, best.plies) == ({1: mover, -1: other, 0: "draw"}[outcome], plies)
    # The button turns it off again, and the screen is as it was.
    click(app, button)
    assert not tool.on and tool.analyst is None, "off stops the analysis worker"
    again = _settle(app)
    assert _same(off, again, lay.board_region) and _same(off, again, lay.log)


def test_watching_ais_shows_each_sides_figures_not_raw_lines(make_app: MakeApp) -> None:
    out = io.StringIO()
    app = make_app(AIEntry("negamax", "depth=3"), AIEntry("negamax", "depth=2"), out=out)
    scene = board_scene(app)
    insight = scene.insight
    assert insight is not None and insight.spectator is not None and insight.shown
    run_until(app, lambda: scene.match is not None and scene.match.board.move_count >= 4,
              seconds=60)
    white, red = insight.spectator.sides
    assert white.figures.get("depth") == 3 and red.figures.get("depth") == 2
    assert white.evals and red.evals, "the graph has each side's evaluations"
    assert all(0 <= v <= 1 for v in [*white.evals.values(), *red.evals.values()])
    assert white.line and white.line[0][-1] in "rs"
    assert not any(" says: " in line for line in app.log.lines), "the screen's log is spared"
    assert " says: depth=3" in out.getvalue(), "standard output keeps every line"
    panel = split_for_panel(scene.layout.log, scene.layout.scale)[0]
    shot = _settle(app, frames=1)
    colours = {tuple(shot.get_at((x, y)))[:3] for x in range(panel.x, panel.right, 3)
               for y in range(panel.y, panel.bottom, 3)}
    assert len(colours) > 8, "figures are drawn in the panel"


@pytest.mark.parametrize("size", [(1024, 700), (1600, 900)])
def test_the_evaluation_graph_spans_the_panel_under_the_sides_lines(
        make_app: MakeApp, size: tuple[int, int]) -> None:
    """Beside the sides' lines the graph had two fifths of the panel and the
    lines were cut short; under them it is as wide as the panel."""
    app = make_app(AIEntry("negamax", "depth=3"), AIEntry("negamax", "depth=2"), size=size)
    scene = board_scene(app)
    run_until(app, lambda: scene.match is not None and scene.match.board.move_count >= 8,
              seconds=60)
    panel = split_for_panel(scene.layout.log, scene.layout.scale)[0]
    shot = _settle(app, frames=1)
    pal = palette()
    inner = panel.inflate(-20, -20)  # inside the box's rounded edge
    ground = tuple(pal.background_low)[:3]  # the graph's own, drawn nowhere else there
    graph = [x for x in range(inner.x, inner.right) for y in range(inner.y, inner.bottom)
             if tuple(shot.get_at((x, y)))[:3] == ground]
    assert graph, "the graph is drawn"
    assert min(graph) < inner.x + inner.w // 4 and max(graph) > inner.right - inner.w // 4, \
        (min(graph), max(graph), inner)
    sides = {tuple(pal.white_fill)[:3], tuple(pal.red_fill)[:3]}
    assert any(tuple(shot.get_at((x, y)))[:3] in sides for x in range(inner.x, inner.right)
               for y in range(panel.centery, inner.bottom)), "with its lines"


def test_the_analysis_follows_the_moves_and_stops_when_the_game_ends(
        make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"))
    scene = board_scene(app)
    run_until(app, lambda: scene.input_enabled, seconds=20)
    key(app, pygame.K_a)
    tool = scene.insight.tool  # type: ignore[union-attr]
    run_until(app, lambda: tool.analysis is not None, seconds=30)
    assert tool.board is not None and tool.board.move_count == 0
    _drop(app, 1)
    run_until(app, lambda: tool.board is not None and tool.board.move_count == 2, seconds=30)
    run_until(app, lambda: tool.analysis is not None, seconds=30)
    assert tool.analysis.to_move == "white"  # type: ignore[union-attr]
    for col in (2, 3):  # White 1r 2r 3r wins (Red fills column 0, then 1)
        if scene.match is not None and scene.match.is_over:
            break
        _drop(app, col)
    run_until(app, lambda: scene.match is not None and scene.match.is_over, seconds=30)
    run_until(app, lambda: tool.board is None, seconds=10)
    assert tool.status() == "Game over" and not tool.searching


@pytest.mark.unit
def test_threat_marks_follow_the_rules_order_on_the_board(make_app: MakeApp) -> None:
    from csl_game.services.analysis import threats

    board = Board(**SMALL)  # type: ignore[arg-type]
    for col, shape in ((1, 0), (0, 1), (2, 0), (1, 1)):
        board.do_move(shape, col)  # type: ignore[arg-type]
    cells = {(t.pos, t.piece.color, t.piece.shape): t.winner for t in threats(board)}
    # A red round piece on the bottom right completes three rounds: White's win.
    assert cells[(type(next(iter(cells))[0])(0, 3), PColor.RED, 0)] is PColor.WHITE


# ----------------------------------------------------------------- game review
def _review_replay() -> Replay:
    """A 4x4 game where White misses a win and the block: White 0r, Red 3s,
    White 0s, Red 2s, White 3r?? (0r makes three whites in column 0), Red 1s
    makes three squares and wins."""
    from csl_game.engine import MatchResult, PlayedMove
    from csl_game.model.board import Move, Piece, PShape

    board = Board(**SMALL)  # type: ignore[arg-type]
    moves = []
    for col, shape in ((0, PShape.ROUND), (3, PShape.SQUARE), (0, PShape.SQUARE),
                       (2, PShape.SQUARE), (3, PShape.ROUND), (1, PShape.SQUARE)):
        color = board.turn
        row = board.do_move(shape, col)
        moves.append(PlayedMove(Move(row, col, Piece(color, shape)), 0.01))
    solution: list[Pos] = []
    winner = board.check_winner(solution)
    assert winner is Winner.RED
    result = MatchResult(winner, "Random", "Negamax", solution=tuple(solution),
                         moves=tuple(moves))
    return Replay(board.settings, 1000, result)


def test_review_grades_the_moves_and_shows_the_better_one(apps: Apps) -> None:
    from csl_game.engine import ThreadRunner
    from csl_game.gui.review_view import ReviewTool
    from csl_game.gui.scenes.replay import ReplayScene

    replay = _review_replay()
    app = apps.open(PlayOptions(window_size=(1024, 700)), runner_factory=ThreadRunner,
                    start=lambda ctx: ReplayScene(ctx, replay))
    scene = app.scenes.current
    assert isinstance(scene, ReplayScene) and not scene.review.started
    # a tenth of the review's second a position: the miss and the block are found at once
    scene.review = ReviewTool(replay, ThreadRunner, time_ms=100)
    key(app, pygame.K_v)
    assert scene.review.started
    run_until(app, lambda: scene.review.job is None and scene.review.review is not None,
              seconds=90)
    review = scene.review.review
    assert review is not None and len(review.moves) == 6
    blunder = review.moves[4]
    assert blunder.grade == "blunder" and blunder.best.move == "0r", blunder
    assert blunder.played.result == "red" and blunder.best.result == "white"
    assert review.graph()[-1] == 0.0, "the game ended in Red's win"
    before = _settle(app)
    key(app, pygame.K_x)  # to the next mistake: the first one graded so from the start
    mistakes = [m.ply + 1 for m in review.moves if m.grade in ("inaccuracy", "mistake",
                                                               "blunder")]
    assert scene.step == mistakes[0]
    scene.go(5)
    run_until(app, lambda: scene.visual.idle, frames=200)
    better = scene.review.better(5, scene.boards)
    assert better is not None and better[0] == Pos(2, 0)
    after = _settle(app)
    assert not _same(before, after, scene.layout.cell_rect(2, 0)), "the better move is drawn"
    # the log names the column as the arrows do, from 1: the notation's 0r
    assert any("5. White: 4r in 10.0 ms \u00b7 Blunder (best 1r)" == line
               for line in scene.log.lines), scene.log.lines
    assert review.accuracy("red") is not None and review.accuracy("white") is not None
    assert review.accuracy("white") < review.accuracy("red")  # type: ignore[operator]


def test_review_after_a_game_opens_the_game_with_its_review(make_app: MakeApp) -> None:
    from csl_game.engine import Choice, ThreadRunner
    from csl_game.gui.review_view import ReviewTool
    from csl_game.gui.scenes.replay import ReplayScene
    from gui_events import press, shown_result

    app = make_app(AIEntry("sequential"))
    scene = board_scene(app)
    for col in (1, 2, 3):  # White 1r 2r 3r wins; Red fills 0 then 1
        if scene.match is not None and scene.match.is_over:
            break
        _drop(app, col)
    run_until(app, lambda: shown_result_or_none(app), seconds=30)
    assert Choice.REVIEW in shown_result(app).choices
    press(app, Choice.REVIEW)
    review = app.scenes.current
    assert isinstance(review, ReplayScene) and review.review.started
    assert [p.move for p in review.replay.moves] == \
        [p.move for p in scene.match.result.moves]  # type: ignore[union-attr]
    assert "Play again" in [b.text for b in review.buttons.values()]
    # the rest of the review at a tenth of its second a position: it ends the same way
    review.review.close()
    review.review = ReviewTool(review.replay, ThreadRunner, time_ms=100)
    review.review.start()
    run_until(app, lambda: review.review.job is None, seconds=90)
    assert review.review.review is not None
    old = app.flow.session if app.flow is not None else None
    click(app, next(b for b in review.buttons.values() if b.text == "Play again"))
    assert not isinstance(app.scenes.current, ReplayScene)
    assert app.flow is not None and app.flow.session is not old, "a new game"


def shown_result_or_none(app: App) -> bool:
    from gui_events import result_overlay

    return result_overlay(app) is not None
