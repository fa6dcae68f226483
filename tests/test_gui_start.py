"""The window opens at once whatever the remembered setup holds: loading a
setup only parses and validates it; its players are set up later, all at
once, off the window's thread, by the setup screen's checker."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from csl_game.gui.scenes.setup import SetupScene
from csl_game.services.settings import PlayOptions
from csl_game.services.setup_file import load_config
from gui_events import DT, Apps, run_until
from procs import CoreWaits

SLOW = '''\
import time

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove


class SlowSetupThinker(AbstractThinker):
    """Takes SETUP_S seconds to set up: four of them probed one after another
    would keep a window from opening for a long time."""

    def setup(self, params: str) -> None:
        time.sleep(SETUP_S)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(0, board.turn.shape)
'''
SETUP_S = 4.0
"""Each slow thinker's setup: the window's first frame must come well before it
(it took up to 1.5 s on a busy machine)."""


def remembered_setup(home: Path, folder: Path) -> tuple[str, ...]:
    """A last setup of four AIs: three slow to set up, and one whose module is
    gone from the --thinkers folder since; returns the thinker paths."""
    (folder / "slow_thinkers.py").write_text(SLOW.replace("SETUP_S", str(SETUP_S)),
                                             encoding="utf-8")
    players = "".join(f'[[players]]\nthinker = "{name}"\nparams = "{params}"\n'
                      for name, params in (("slowsetup", "1"), ("slowsetup", "2"),
                                           ("slowsetup", "3"), ("gone", "")))
    home.mkdir(parents=True, exist_ok=True)
    (home / "last-setup.toml").write_text(players, encoding="utf-8")
    return (str(folder),)


@pytest.mark.timing
def test_loading_a_setup_file_never_sets_a_player_up(tmp_path: Path, user_home: Path) -> None:
    paths = remembered_setup(user_home, tmp_path)
    started = time.perf_counter()
    options = load_config(user_home / "last-setup.toml", PlayOptions(thinker_paths=paths))
    assert time.perf_counter() - started < SETUP_S
    assert [ai.thinker for ai in options.ais] == ["slowsetup"] * 3 + ["gone"]


@pytest.mark.timing
def test_the_window_opens_at_once_with_a_remembered_setup_of_four_ais(
        apps: Apps, tmp_path: Path, user_home: Path) -> None:
    paths = remembered_setup(user_home, tmp_path)
    started, waits = time.perf_counter(), CoreWaits(below=False)
    app = apps.open(PlayOptions(show_setup=True, window_size=(1024, 700),  # one frame drawn
                                thinker_paths=paths))
    # this process's own time: a busy machine's waits for a core aside (a setup's
    # sleep is no such wait: a window that waited for one would still be late)
    first_frame = time.perf_counter() - started - waits.seconds()
    scene = app.scenes.current
    assert isinstance(scene, SetupScene)
    assert [ai.thinker for ai in scene.players][-1] == "gone" and len(scene.players) == 4
    assert first_frame < SETUP_S, f"the first frame took {first_frame:.2f} s"
    # The checker finds the broken thinker while the window goes on drawing.
    run_until(app, lambda: "players[4].thinker" in scene.check.problems, seconds=30)
    assert not scene.check.options  # Start waits until the setup is fixed
    frames = 0
    started, waits = time.perf_counter(), CoreWaits(below=False)
    while time.perf_counter() - started - waits.seconds() < 0.5:  # of its own time
        app.step(DT)
        frames += 1
    assert frames > 5, "the window kept drawing while the players were checked"
