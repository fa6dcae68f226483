"""The window's Watch of a tournament broadcast (``session --listen`` in another
process, on loopback), under the dummy driver: the online board for the
match being played, the standings drawn between matches, and at the end the
final standings the session prints itself."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pygame
import pytest

from csl_game.gui.app import App
from csl_game.gui.scenes.online import OnlineScene
from csl_game.gui.scenes.tourney_board import TourneyBoardScene
from gui_events import DT, Apps, click, key
from online_procs import Proc
from procs import CoreWaits
from test_gui_online import drawn, type_text, window
from test_online_tourney import BOARD, _final_rows

SECONDS = 40.0


PACED = """
import time

from csl_game.thinkers.random import RandomAIThinker


class PacedThinker(RandomAIThinker):
    \"\"\"Random, a tenth of a second a move: a tournament that lasts long
    enough for a window started after it to watch it, however busy the
    machine (unpaced, it is over in about 2 s).\"\"\"

    def think(self, board, ct):
        time.sleep(0.1)
        return super().think(board, ct)
"""


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Callable[[], tuple[Proc, int]]]:
    """Starts the tournament broadcast on a port once called: after the window
    is up, so that a window slow to start on a busy machine misses nothing."""
    path = tmp_path / "three.txt"
    path.write_text("paced 1\nsequential\npaced 2\n")
    thinkers = tmp_path / "paced.py"
    thinkers.write_text(PACED)
    started: list[Proc] = []

    def start() -> tuple[Proc, int]:
        proc = Proc("session", "-g", str(path), "--thinkers", str(thinkers), "--in-process",
                    "--listen", "127.0.0.1:0", *BOARD)
        started.append(proc)
        return proc, int(proc.wait_for(r"Broadcasting the tournament on port (\d+)")[1])

    try:
        yield start
    finally:
        for proc in started:
            proc.kill()


def steps(app: App, done: Callable[[], bool], seconds: float = SECONDS) -> None:
    """Step the window until `done`, within `seconds` of wall time less the
    waits for a core of this process and the session's (a busy machine's)."""
    start, waits = time.monotonic(), CoreWaits()
    while not done():
        if time.monotonic() - start > seconds:
            assert time.monotonic() - start - waits.seconds() < seconds, \
                "the condition was not met in time"
        app.step(DT)
        time.sleep(0.002)


def watch(app: App, port: int) -> None:
    key(app, pygame.K_5, frames=2)  # Play online
    scene = app.scenes.current
    assert isinstance(scene, OnlineScene)
    click(app, scene.widgets["mode.watch"])
    scene = app.scenes.current  # type: ignore[assignment]
    assert isinstance(scene, OnlineScene)
    click(app, scene.widgets["address"], frames=1)
    type_text(app, f"127.0.0.1:{port}")
    click(app, scene.widgets["go"])


def shown(app: App) -> TourneyBoardScene | None:
    scene = app.scenes.current
    return scene if isinstance(scene, TourneyBoardScene) else None


@pytest.mark.timing  # each wait is bounded in wall time (40 s less the waits for a core)
def test_the_window_watches_a_tournament_with_standings_between_matches(
        apps: Apps, session: Callable[[], tuple[Proc, int]]) -> None:
    app = window(apps)
    proc, port = session()
    watch(app, port)
    steps(app, lambda: shown(app) is not None)
    scene = shown(app)
    assert scene is not None and scene.watch.is_tournament
    # a match on the board, then the standings after it
    steps(app, lambda: not scene.watch.between and scene.table.board.move_count > 0)
    app.step(DT)
    assert scene.standings_rect is None
    steps(app, lambda: scene.showing_standings and scene.watch.standings is not None
          and scene.watch.standings.played >= 1)
    app.step(DT)
    assert scene.standings_rect is not None
    assert drawn(app.screen, scene.standings_rect) > 4, "the standings table is drawn"
    if os.environ.get("CSL_SHOTS"):
        pygame.image.save(app.screen, os.environ["CSL_SHOTS"])
    assert len(scene.watch.rows) == 3
    # the next match takes the board again, and the end shows the session's standings
    steps(app, lambda: not scene.showing_standings)
    steps(app, lambda: scene.watch.standings is not None and scene.watch.standings.final)
    app.step(DT)
    assert scene.showing_standings and scene.standings_rect is not None
    assert proc.finish(30) == 0, proc.text()
    final = [(s.name, s.points, s.wins, s.draws, s.losses) for s in scene.watch.rows]
    assert final == _final_rows("".join(proc.out))
