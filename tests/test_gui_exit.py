"""Leaving the window, or pressing Ctrl+C, while a thinker hangs: out within 1 s, no workers left."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest

from csl_game.gui.app import App  # noqa: E402
from csl_game.services.settings import AIEntry, PlayOptions  # noqa: E402
from csl_game.thinker.api import MatchConfig  # noqa: E402
from procs import alive, interrupt_while_thinking

MISBEHAVING = str(Path(__file__).parent / "misbehaving")


def _thinking_workers(app: App) -> list[int]:
    match = getattr(app.scenes.current, "match", None)
    if match is None or not match.thinking_time():
        return []
    return [r.pid for r in match._runners if r is not None]  # noqa: SLF001


@pytest.mark.timing
def test_closing_the_window_while_a_thinker_hangs() -> None:
    config = MatchConfig(time_limit_ms=60_000, min_move_time_ms=0)
    options = PlayOptions(ais=(AIEntry("busy"), AIEntry("busy")), match=config, auto=True,
                          unblocked_screen_s=0.0, window_size=(800, 600),
                          thinker_paths=(MISBEHAVING,))
    app = App(options, out=io.StringIO())
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            app.step(1 / 60)
            if _thinking_workers(app):
                break
        pids = _thinking_workers(app)
        assert pids and all(pids)
        time.sleep(0.5)  # the worker is deep in its busy loop now
        pygame.event.post(pygame.event.Event(pygame.QUIT))
        started = time.perf_counter()
        assert app.run() == 0
        assert time.perf_counter() - started < 1.0
    finally:
        app.close()
    assert not any(alive(pid) for pid in pids)


@pytest.mark.timing
@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl+C is a console event on Windows, "
                    "not a signal a test can send to one process")
def test_ctrl_c_while_a_thinker_hangs_exits_within_a_second() -> None:
    interrupt_while_thinking(["play", "--ai", "busy", "--ai", "busy", "--thinkers",
                              MISBEHAVING, "-t", "60000", "--auto"])
