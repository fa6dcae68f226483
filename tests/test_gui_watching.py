"""Watching AIs in the window, through real key and mouse events under the dummy
driver: Space (or P, or the Pause button) pauses between two moves and goes on,
- and + slow the moves down and bring them back, and a human's game is never held."""

from __future__ import annotations

import re
import time

import pygame

from csl_game.engine.runners.thread import ThreadRunner
from csl_game.gui.app import App
from csl_game.gui.pacing import SPEEDS, STAY_S
from csl_game.gui.scenes.match import MatchScene
from csl_game.model.board import PColor
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, Apps, click, key, run_until
from procs import CoreWaits

BIG = MatchConfig(rows=6, cols=7, win_sequence=4, time_limit_ms=2000, min_move_time_ms=0)


def watching(apps: Apps, *ais: AIEntry) -> tuple[App, MatchScene]:
    app = apps.open(PlayOptions(ais=ais or (AIEntry("sequential"), AIEntry("sequential")),
                                match=BIG, in_process=True, window_size=(1024, 700),
                                last_move_animation_s=0.0), runner_factory=ThreadRunner)
    key(app, pygame.K_RETURN, frames=2)  # Start
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene), seconds=20)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene) and scene.match is not None
    return app, scene


def frames(app: App, count: int) -> None:
    """`count` frames, each with a moment for the AIs' threads to answer."""
    for _ in range(count):
        app.step(DT)
        time.sleep(0.005)


def moves(scene: MatchScene) -> int:
    assert scene.match is not None
    return scene.match.board.move_count


def test_space_pauses_between_two_moves_and_p_goes_on(apps: Apps) -> None:
    app, scene = watching(apps)
    run_until(app, lambda: moves(scene) >= 2, seconds=20)
    key(app, pygame.K_SPACE)
    assert app.ctx.pacer.paused and any(line.startswith("Paused") for line in app.log.lines)
    frames(app, 20)
    held = moves(scene)
    frames(app, 40)
    assert moves(scene) == held, "no move while paused (but the one being thought out)"
    assert scene.held
    to_play = scene.match.board.turn  # type: ignore[union-attr]
    assert scene._panel_state(to_play).status == "Paused"
    assert not scene._panel_state(to_play).thinking, "no clock runs while paused"
    tools = scene.tools
    assert tools is not None and tools.buttons["pause"].text.startswith("Go on")
    key(app, pygame.K_p)
    assert not app.ctx.pacer.paused
    run_until(app, lambda: moves(scene) > held, seconds=20)
    click(app, tools.buttons["pause"])  # the button does the same
    assert app.ctx.pacer.paused


def _ink_width(app: App, scene: MatchScene, color: PColor) -> int:
    """How wide the text drawn in `color`'s panel status is, in pixels."""
    area = scene.layout.panels[color].status
    status = app.screen.subsurface(area)
    ground = status.get_at((area.w - 2, 1))
    inked = [x for x in range(area.w)
             if any(status.get_at((x, y)) != ground for y in range(area.h))]
    return inked[-1] - inked[0] if inked else 0


def test_slower_keeps_each_move_on_the_board_longer_and_faster_undoes_it(apps: Apps) -> None:
    app, scene = watching(apps)
    pacer = app.ctx.pacer
    now = [0.0]
    pacer._clock = lambda: now[0]  # the pacer's own time, moved by the test
    key(app, pygame.K_MINUS)
    assert pacer.speed == 0.5 and pacer.stay_s == STAY_S
    assert any(line.startswith("Speed \u00bd\u00d7") for line in app.log.lines)
    frames(app, 30)
    held = moves(scene)
    frames(app, 30)
    assert moves(scene) == held, "the move stays on the board for a second"
    assert scene._panel_state(scene.match.board.turn).status == "Next move in a moment"  # type: ignore[union-attr]
    now[0] += STAY_S + 0.1
    run_until(app, lambda: moves(scene) == held + 1, seconds=20)
    # the speed is in view, not only in the log: on the panel of the side that waits
    other = scene.match.board.turn.other  # type: ignore[union-attr]
    assert scene._panel_state(other).status == "Waiting \u00b7 speed \u00bd\u00d7"
    frames(app, 2)
    slow = _ink_width(app, scene, other)
    key(app, pygame.K_SPACE)  # paused, so that no move comes meanwhile
    key(app, pygame.K_EQUALS)  # back to 1x: the waiting panel says Waiting alone
    other = scene.match.board.turn.other  # type: ignore[union-attr]
    assert scene._panel_state(other).status == "Waiting"
    frames(app, 2)
    assert _ink_width(app, scene, other) < slow * 0.7, "the speed was drawn, and is gone"
    for _ in SPEEDS:
        key(app, pygame.K_EQUALS)  # + (on the = key), up to the fastest
    assert pacer.speed == max(SPEEDS) and pacer.animation_speed == max(SPEEDS)
    key(app, pygame.K_SPACE)  # goes on
    assert not pacer.holds()
    run_until(app, lambda: scene.match.is_over, seconds=30)  # type: ignore[union-attr]


def test_a_humans_game_is_never_held(apps: Apps) -> None:
    app = apps.open(PlayOptions(ais=(AIEntry("sequential"),), match=BIG, in_process=True,
                                window_size=(1024, 700), last_move_animation_s=0.0),
                    runner_factory=ThreadRunner)
    key(app, pygame.K_RETURN, frames=2)
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene), seconds=20)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene) and scene.match is not None
    assert not app.ctx.pacer.watching
    run_until(app, lambda: scene.input_enabled, seconds=20)
    key(app, pygame.K_3)
    key(app, pygame.K_SPACE)  # drops the human's piece, pauses nothing
    assert not app.ctx.pacer.paused
    run_until(app, lambda: scene.match.board.move_count == 2  # type: ignore[union-attr]
              and scene.match.board.turn is PColor.WHITE, seconds=20)  # type: ignore[union-attr]


def test_a_move_held_at_a_slow_speed_is_not_timed_for_its_hold(apps: Apps) -> None:
    """At ½× each move stays on the board a second before the next turn may
    think: that second is not the next move's time, on the panel's clock nor
    in the log (seen as '0.01 s of CPU time (1.24 s on the wall)')."""
    app, scene = watching(apps)
    run_until(app, lambda: moves(scene) >= 1, seconds=20)
    key(app, pygame.K_MINUS)
    start = moves(scene)
    with CoreWaits(below=False).watching() as waits:  # the AIs think on this process's threads
        run_until(app, lambda: moves(scene) >= start + 2, seconds=20)  # real time: ~2 s held
    placed = [line for line in app.log.lines if " placed a " in line][start:]
    assert len(placed) >= 2
    # The log adds the wall where it passed the CPU time by 0.1 s (an idle machine:
    # never, here); a busy machine may keep the threads from a core that long,
    # never for the second each move is held.
    for line in placed:
        if (shown := re.search(r"for ([\d.]+) s of CPU time \(([\d.]+) s on the wall", line)):
            cpu, wall = map(float, shown.groups())
            assert wall - cpu < 0.1 + waits.seconds(), placed
