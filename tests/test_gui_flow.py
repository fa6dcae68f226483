"""The GUI's structure, pinned through real events: the flow advances the session
once a frame and scenes only render; the result is an overlay of the match
scene; no GUI module reaches the application or forms an import cycle."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from csl_game.engine import Choice, SessionState
from csl_game.gui.app import App
from csl_game.gui.scenes.info import FinalScene, PreMatchScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import (
    DT,
    Apps,
    ShownChecker,
    board_scene,
    drop,
    key,
    keys_reach_the_result,
    press,
    result_overlay,
    run_until,
    shown_result,
)
from import_graph import MODULES, imports_of

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
SMALL = dict(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)
TOURNAMENT = (AIEntry("sequential"), AIEntry("raiser"), AIEntry("nomove"))

MakeApp = Callable[..., App]


@pytest.fixture
def make_app(apps: Apps) -> MakeApp:
    def make(*ais: AIEntry, board: dict[str, int] = SMALL, size: tuple[int, int] = (1024, 700),
             **options: object) -> App:
        config = MatchConfig(**board, time_limit_ms=2000, min_move_time_ms=0)
        return apps.open(PlayOptions(ais=ais, match=config, window_size=size, in_process=True,
                                     thinker_paths=(FAKES,), last_move_animation_s=0.0,
                                     **options))  # type: ignore[arg-type]

    return make


def humans_play_to_a_win(app: App, white: tuple[int, ...], red: tuple[int, ...]) -> MatchScene:
    """Start a match of two humans; they drop in turn until White's last drop wins."""
    press(app, Choice.START)
    scene = board_scene(app)
    for i, col in enumerate(white):
        drop(app, col)
        if i < len(red):
            drop(app, red[i])
    run_until(app, lambda: result_overlay(app) is not None)
    return scene


# ----------------------------------------------------------------- the session's one step
def test_the_flow_advances_the_session_once_a_frame(make_app: MakeApp,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(*TOURNAMENT, wait_before_match=False, wait_after_match=False,
                   unblocked_screen_s=0.1)
    assert app.flow is not None
    session = app.flow.session
    calls: list[str] = []
    real = session.update

    def counted() -> None:
        calls.append(sys._getframe(1).f_code.co_qualname)  # who stepped the session
        real()

    monkeypatch.setattr(session, "update", counted)
    shown: set[str] = set()
    frames = 0
    while not isinstance(app.scenes.current, FinalScene) and frames < 3000:
        app.step(DT)
        frames += 1
        assert len(calls) == frames, "one session step a frame, whatever the screen"
        shown.add("result" if result_overlay(app) else type(app.scenes.current).__name__)
    assert session.state is SessionState.END and len(session.records) == 6
    assert set(calls) == {"SessionFlow.update"}, "no scene steps the session"
    assert {"PreMatchScene", "MatchScene", "result", "FinalScene"} <= shown
    app.step(DT)
    assert len(calls) == frames + 1, "the final screen goes on stepping the session"


def test_no_session_is_stepped_on_the_setup_screen(make_app: MakeApp) -> None:
    app = make_app(show_setup=True)
    assert app.flow is None
    for _ in range(3):
        assert app.step(DT)


# ----------------------------------------------------------------- the result overlay
def test_the_result_shows_over_the_same_match_scene(make_app: MakeApp) -> None:
    app = make_app()
    scene = humans_play_to_a_win(app, white=(0, 1, 2), red=(0, 1))
    assert app.scenes.current is scene
    overlay = shown_result(app)
    assert scene.result is overlay and scene._banner == (
        "White (Player 1) wins", "White (Player 1) made 3 round pieces in a row")
    progress = scene.visual.win_progress
    assert progress < 1
    for _ in range(15):
        app.step(DT)
    assert scene.visual.win_progress == 1.0, "the win line goes on under the banner"
    box = overlay.box
    assert box is not None and box.size >= overlay.room
    assert box.collidelist([scene.layout.piece_rect(*p) for p in scene.visual.solution]) < 0
    assert all(box.contains(b.rect) for b in overlay.buttons.values())
    press(app, Choice.PLAY_AGAIN_SWAPPED)
    again = app.scenes.current
    assert isinstance(again, MatchScene), "swapped already: the game starts at once"
    assert again.session.next_pairing == ("Player 2", "Player 1")
    assert not overlay.shown, "the choices went with their scene"


def test_back_to_setup_and_quit_from_the_result(make_app: MakeApp) -> None:
    app = make_app()
    humans_play_to_a_win(app, white=(0, 1, 2), red=(0, 1))
    press(app, Choice.SETUP)
    assert app.flow is None and type(app.scenes.current).__name__ == "SetupScene"
    app = make_app(AIEntry("sequential"), AIEntry("random", "1"))
    press(app, Choice.START)
    run_until(app, lambda: result_overlay(app) is not None)
    press(app, Choice.QUIT)
    assert not app.running and app.status == 0


def test_after_a_tournament_match_enter_takes_ok(make_app: MakeApp) -> None:
    app = make_app(*TOURNAMENT, unblocked_screen_s=0.0)
    press(app, Choice.START)
    run_until(app, lambda: result_overlay(app) is not None)
    overlay = keys_reach_the_result(app)
    assert overlay.choices == (Choice.OK,) and overlay.timeout is None
    assert overlay.buttons[Choice.OK].object_ids[-1] == "#primary"
    key(app, pygame.K_KP_ENTER)
    pre = app.scenes.current
    assert isinstance(pre, PreMatchScene) and pre.session.current_index == 1


def test_a_timed_result_counts_down_then_moves_on(make_app: MakeApp) -> None:
    app = make_app(*TOURNAMENT, wait_after_match=False, unblocked_screen_s=0.5)
    press(app, Choice.START)
    run_until(app, lambda: result_overlay(app) is not None)
    overlay = shown_result(app)
    countdown = overlay.row.countdown
    assert overlay.timeout == 0.5 and countdown is not None
    assert countdown.text.startswith("Moving on in 0.5")
    for _ in range(12):  # 0.4 s
        app.step(DT)
    assert result_overlay(app) is overlay and countdown.text == "Moving on in 0.1 s"
    run_until(app, lambda: isinstance(app.scenes.current, PreMatchScene), frames=10)
    assert app.scenes.current.session.current_index == 1  # type: ignore[union-attr]


def test_the_areas_shown_cover_the_result_overlay(make_app: MakeApp) -> None:
    app = make_app()
    humans_play_to_a_win(app, white=(0, 1, 2), red=(0, 1))
    check = ShownChecker(app)
    check.step(20)  # the win line
    for widget in shown_result(app).buttons.values():
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=widget.rect.center,
                                             rel=(0, 0), buttons=(0, 0, 0)))
        check.step(5)
    assert check.partial >= 20


# ----------------------------------------------------------------- resizing
def _pieces_shown(app: App, scene: MatchScene) -> int:
    """Check every landed piece not under the win line or the banner is on the
    screen; return how many were checked."""
    covered = [scene.layout.piece_rect(*p) for p in scene.visual.solution]
    if scene.result is not None and scene.result.box is not None:
        covered.append(scene.result.box)
    checked = 0
    for pos, piece in scene.visual.landed.items():
        rect = scene.layout.piece_rect(*pos)
        if rect.collidelist(covered) >= 0:
            continue
        image = app.ctx.art.piece(piece, rect.w)
        assert app.screen.get_at(rect.center)[:3] == image.get_at(image.get_rect().center)[:3], \
            f"the piece at {pos} is not shown"
        checked += 1
    return checked


@pytest.mark.parametrize("on_result", [False, True], ids=["match", "result"])
def test_resizing_keeps_the_pieces_on_the_board(make_app: MakeApp, on_result: bool) -> None:
    app = make_app(board=dict(rows=6, cols=7, win_sequence=4, round_pieces=10,
                              square_pieces=11), size=(1280, 800))
    if on_result:
        scene = humans_play_to_a_win(app, white=(0, 1, 2, 3), red=(6, 6, 5))
    else:
        press(app, Choice.START)
        scene = board_scene(app)
        for col in (0, 6, 1, 6, 5):
            drop(app, col)
        run_until(app, lambda: scene.visual.idle)
    assert _pieces_shown(app, scene) >= 2
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(800, 600), w=800, h=600))
    app.step(DT)
    assert app.scenes.current is scene and scene.layout.size == (800, 600)
    assert _pieces_shown(app, scene) >= 2
    if on_result:
        overlay = shown_result(app)
        assert overlay.box is not None and app.screen.get_rect().contains(overlay.box)
        assert all(overlay.box.contains(b.rect) for b in overlay.buttons.values())


# ----------------------------------------------------------------- imports
def _gui_graph() -> dict[str, set[str]]:
    gui = {m for m in MODULES if m.startswith("csl_game.gui")}
    return {m: {i for i in imports_of(m) if i in gui and i != m} for m in gui}


def _cycle(graph: dict[str, set[str]]) -> tuple[str, ...] | None:
    """An import cycle of `graph` (its modules in order), if it has one."""
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> tuple[str, ...] | None:
        if module in path:
            return (*path[path.index(module):], module)
        if module in done:
            return None
        for imported in sorted(graph[module]):
            found = visit(imported, (*path, module))
            if found:
                return found
        done.add(module)
        return None

    return next((c for m in sorted(graph) if (c := visit(m, ())) is not None), None)


def test_gui_modules_import_no_cycle() -> None:
    cycle = _cycle(_gui_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_only_the_package_imports_the_app() -> None:
    importers = {m for m in MODULES if "csl_game.gui.app" in set(imports_of(m))}
    assert importers == {"csl_game.gui"}
    assert not any("csl_game.gui.flow" in set(imports_of(m)) for m in MODULES
                   if m.startswith("csl_game.gui.scenes")), "scenes get callbacks, not the flow"


def test_the_cycle_check_sees_a_scene_importing_the_app() -> None:
    graph = _gui_graph()
    graph["csl_game.gui.scenes.match"].add("csl_game.gui.app")
    cycle = _cycle(graph)
    assert cycle is not None and "csl_game.gui.app" in cycle
