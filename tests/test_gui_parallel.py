"""A tournament in the window with --workers: one match on screen, the others
off screen; the screens follow their results, and wait for the last ones."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest
from pygame_gui.elements import UILabel

from csl_game.cli import main
from csl_game.engine import Choice, Session
from csl_game.engine import background as background_module
from csl_game.gui.app import App
from csl_game.gui.scenes.info import FinalScene, PreMatchScene
from csl_game.model.board import Winner
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype
from gui_events import DT, FastClock, click, run_until
from held_scheduler import HeldScheduler
from procs import alive, descendants, interrupt_while_thinking

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
BOARD = dict(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)


def _texts(app: App) -> list[str]:
    """Every label's text on the window (the widgets alive in its UI manager)."""
    return [e.text for e in app.ui.get_sprite_group().sprites() if isinstance(e, UILabel)]


def _titled(app: App, title: str) -> bool:
    """Whether a table's title starts so (it may go on: '· click or Enter: replay')."""
    return any(text.startswith(title) for text in _texts(app))


MISBEHAVING = str(Path(__file__).parent / "misbehaving")


@pytest.fixture
def held_app(monkeypatch: pytest.MonkeyPatch) -> Iterator[App]:
    HeldScheduler.made.clear()
    monkeypatch.setattr(background_module, "Scheduler", HeldScheduler)
    config = MatchConfig(**BOARD, time_limit_ms=2000, min_move_time_ms=0)
    options = PlayOptions(ais=(AIEntry("sequential"), AIEntry("steady", "1"),
                               AIEntry("raiser")), match=config, window_size=(1024, 700),
                          in_process=True, thinker_paths=(FAKES,), last_move_animation_s=0.0,
                          wait_before_match=True, wait_after_match=False,
                          unblocked_screen_s=0.0, workers=2)
    app = App(options, out=io.StringIO())
    app.step(DT)
    yield app
    app.close()


def _pre_match(app: App) -> PreMatchScene:
    scene = app.scenes.current
    assert isinstance(scene, PreMatchScene)
    return scene


def test_results_from_off_screen_appear_and_the_last_screen_waits(held_app: App) -> None:
    app = held_app
    pre = _pre_match(app)
    session = pre.session
    background = HeldScheduler.made[0]
    assert session.current_index == 0 and background.indices == [1]
    background.end(1)
    app.step(DT)
    assert app.scenes.current is pre, "the same screen, its tables built anew"
    assert _titled(app, "Results (1 of 6)")
    background.end(2)  # the tables alone are built anew
    app.step(DT)
    assert app.scenes.current is pre
    assert _titled(app, "Results (2 of 6)") and not _titled(app, "Results (1 of 6)")
    assert _texts(app).count("Standings") == 1
    assert any(line.startswith("* Match 2 (off screen)") for line in app.log.lines)
    # Start every match on screen until only the one held off screen is left
    while not session.waiting:
        run_until(app, lambda: isinstance(app.scenes.current, PreMatchScene))
        if not session.waiting:
            click(app, _pre_match(app).buttons[Choice.START])
    waiting = _pre_match(app)
    assert waiting.buttons == {} and waiting.timeout is None
    texts = _texts(app)
    assert "Waiting for the last matches" in texts
    assert "1 match still playing off screen" in texts
    assert _titled(app, "Results (5 of 6)")
    for _ in range(30):
        app.step(DT)
    assert app.scenes.current is waiting, "it waits as long as the match plays"
    background.end(background.indices[0], Winner.DRAW)
    run_until(app, lambda: isinstance(app.scenes.current, FinalScene))
    assert len(session.records) == 6 and sum(s.draws for s in session.standings()) == 2


def test_auto_tournament_with_two_workers_from_the_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    thinkers = [("minimax", "2"), ("sequential", ""), ("raiser", ""), ("steady", "1")]
    config = tmp_path / "four.toml"
    config.write_text(
        "rows = 4\ncols = 4\nwin_sequence = 3\nround_pieces = 4\nsquare_pieces = 4\n"
        "time_limit_ms = 5000\nmin_move_time_ms = 0\nlast_move_animation_s = 0\n"
        "unblocked_screen_s = 0.2\n"
        + "".join(f'[[players]]\nthinker = "{t}"\nparams = "{p}"\n' for t, p in thinkers),
        encoding="utf-8")
    monkeypatch.setattr(pygame.time, "Clock", FastClock)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    code = main(["play", "--auto", "--config", str(config), "--in-process", "--workers", "2",
                 "--thinkers", FAKES])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    on_screen = [line for line in out if line.startswith("* Match ") and "now playing" in line]
    off_screen = [line for line in out if line.startswith("* Match ") and "off screen" in line]
    assert off_screen, "some matches were played off screen"
    assert sum(line.startswith("Game Over") for line in out) == len(on_screen)
    numbers = sorted(int(line.split()[2].rstrip(":")) for line in on_screen + off_screen)
    assert numbers == list(range(1, 13)), "every match once"
    mc = MatchConfig(**BOARD, time_limit_ms=5000, min_move_time_ms=0)
    expected = Session([ThinkerPrototype(t, p, mc, (FAKES,)) for t, p in thinkers], mc).run()
    table = out[out.index("Final standings:") + 1:]
    assert table == [f"{s.position}. {s.name}: {s.points} pts ({s.wins} W, {s.draws} D, "
                     f"{s.losses} L)" for s in expected]


@pytest.mark.unit
def test_workers_flag_is_checked() -> None:
    assert main(["play", "--ai", "random", "--workers", "0"]) == 2


@pytest.mark.timing
def test_closing_the_window_stops_the_matches_off_screen_too() -> None:
    config = MatchConfig(time_limit_ms=60_000, min_move_time_ms=0)
    options = PlayOptions(ais=(AIEntry("busy"),) * 3, match=config, auto=True,
                          unblocked_screen_s=0.0, window_size=(800, 600),
                          thinker_paths=(MISBEHAVING,), workers=2)
    before = descendants(os.getpid(), helpers=True)
    app = App(options, out=io.StringIO())
    try:
        session = app.flow.session if app.flow else None
        assert session is not None
        deadline = time.monotonic() + 20
        workers: set[int] = set()
        while time.monotonic() < deadline and len(workers) < 4:
            app.step(1 / 60)
            workers = {p for p in descendants(os.getpid(), helpers=True) - before if alive(p)}
        assert session.background_running == 1 and len(workers) >= 4, workers
        time.sleep(0.3)  # every busy thinker deep in its loop
        pygame.event.post(pygame.event.Event(pygame.QUIT))
        started = time.perf_counter()
        assert app.run() == 0
        elapsed = time.perf_counter() - started
    finally:
        app.close()
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline and any(alive(p) for p in workers - _servers()):
        time.sleep(0.02)
    assert elapsed < 1.0
    assert not [p for p in workers - _servers() if alive(p)]


def _servers() -> set[int]:
    """The fork server and the resource tracker, which live as long as the test process."""
    from multiprocessing import forkserver, resource_tracker

    pids = (getattr(forkserver._forkserver, "_forkserver_pid", None),  # noqa: SLF001
            getattr(resource_tracker._resource_tracker, "_pid", None))  # noqa: SLF001
    return {pid for pid in pids if pid}


@pytest.mark.timing
def test_ctrl_c_during_a_parallel_tournament_leaves_no_worker() -> None:
    interrupt_while_thinking(["play", "--ai", "busy", "--ai", "busy", "--ai", "busy",
                              "--workers", "2", "--thinkers", MISBEHAVING, "-t", "60000",
                              "--auto"], min_workers=4)
