"""What the window shares with the console's sessions: results files written as
matches end, resuming an interrupted tournament, competition tie-breaks on the
final screen, and the unknown track in the setup screen."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pygame_gui.elements import UICheckBox, UILabel, UITextEntryLine

from csl_game.engine import SessionState, read_results
from csl_game.gui.app import App
from csl_game.gui.scenes.info import FinalScene
from csl_game.gui.scenes.setup import SetupScene
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, click, run_until
from procs import kill_after_lines

FAKES = str(Path(__file__).parent / "fakes")
BOARD = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                    time_limit_ms=5000, min_move_time_ms=0)
PLAYERS = (AIEntry("sequential"), AIEntry("random", "1"), AIEntry("minimax", "1"))


def options(**changes: object) -> PlayOptions:
    base = PlayOptions(ais=PLAYERS, match=BOARD, in_process=True, auto=True,
                       unblocked_screen_s=0.0, last_move_animation_s=0.0,
                       thinker_paths=(FAKES,), window_size=(1024, 700))
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture
def play() -> Iterator[Callable[[PlayOptions], App]]:
    apps: list[App] = []

    def run(opts: PlayOptions) -> App:
        app = App(opts, out=io.StringIO())
        apps.append(app)
        assert app.flow is not None
        session = app.flow.session
        run_until(app, lambda: session.state is SessionState.END, seconds=120)
        return app

    yield run
    for app in apps:
        app.close()


def _standings(app: App) -> list[tuple[str, int, int]]:
    assert app.flow is not None
    return [(s.name, s.position, s.points) for s in app.flow.session.standings()]


def test_the_window_writes_a_line_per_match_and_resumes(
        tmp_path: Path, play: Callable[[PlayOptions], App]) -> None:
    full = tmp_path / "full.jsonl"
    expected = _standings(play(options(results_file=str(full))))
    lines = full.read_text(encoding="utf-8").splitlines(keepends=True)
    assert sorted(d["match"] for d in read_results(full)) == list(range(6))
    part = tmp_path / "part.jsonl"
    part.write_text("".join(lines[:2]) + lines[2][:40], encoding="utf-8")  # a torn third line
    resumed = play(options(results_file=str(part), resume=True))
    assert _standings(resumed) == expected
    docs = read_results(part)
    assert sorted(d["match"] for d in docs) == list(range(6)), "each match once"
    assert [d["match"] for d in docs[:2]] == [d["match"] for d in read_results(full)[:2]]


def test_a_tie_for_first_place_is_broken_on_the_final_screen(
        play: Callable[[PlayOptions], App]) -> None:
    mirror = (AIEntry("sequential"),) * 3  # every match the same: all tied
    one_move = MatchConfig(rows=1, cols=3, win_sequence=1, round_pieces=1, square_pieces=1,
                           time_limit_ms=5000, min_move_time_ms=0)  # White wins at once
    app = play(options(ais=mirror, match=one_move, competition=True))
    assert app.flow is not None
    session = app.flow.session
    tb = session.tie_break
    assert tb is not None and len(tb.steps) == 21 and len(tb.tied) == 3
    assert isinstance(app.scenes.current, FinalScene)
    texts = [e.text for e in app.ui.get_sprite_group().sprites() if isinstance(e, UILabel)]
    assert any(t.startswith("Officially tied for first place after 20 tie-break") for t in texts)
    log = "\n".join(app.ctx.log.lines)
    assert "* Tie-break 10 for first place, the time limit doubled" in log
    assert "* Tie-break 1 for first place, the time limit halved (2500 ms)" in log


def test_the_unknown_track_derives_and_locks_the_board(tmp_path: Path) -> None:
    opts = options(show_setup=True, auto=False, window_size=(1920, 1080))
    app = App(opts, out=io.StringIO())
    try:
        app.step(DT)
        scene = app.scenes.current
        assert isinstance(scene, SetupScene) and scene.form is not None
        controls = scene.form.controls
        box = controls["unknown_track"]
        assert isinstance(box, UICheckBox)
        click(app, box)
        derived = {k: controls[k] for k in ("win_sequence", "round_pieces", "square_pieces",
                                            "time_limit_ms")}
        assert {k: c.get_text() for k, c in derived.items()  # type: ignore[union-attr]
                } == {"win_sequence": "2", "round_pieces": "4", "square_pieces": "4",
                      "time_limit_ms": "100"}
        assert not any(c.is_enabled for c in derived.values())
        assert scene.check.options is not None
        assert scene.check.options.match == replace(MatchConfig.unknown_track(4, 4),
                                                    min_move_time_ms=0)
        results = controls["results_file"]
        assert isinstance(results, UITextEntryLine)
        results.set_text("my results.jsonl")  # letters and spaces are allowed here
        assert results.get_text() == "my results.jsonl"
        click(app, box)
        assert all(c.is_enabled for c in derived.values())
    finally:
        app.close()


def _play_command(config: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "csl_game", "play", "--auto", "--config", str(config),
            "--thinkers", FAKES, *extra]


def _final_lines(out: str) -> list[str]:
    return out.split("Final standings:")[1].strip().splitlines()


def test_play_resumes_after_kill_9(tmp_path: Path) -> None:
    """A session killed with no chance to clean up resumes from its results
    file and ends with the standings of a session never killed (played at
    the same time, beside it: on threads, as the thinkers play alike anywhere)."""
    config = tmp_path / "setup.toml"
    config.write_text(
        "rows = 4\ncols = 4\nwin_sequence = 3\nround_pieces = 4\nsquare_pieces = 4\n"
        "time_limit_ms = 5000\nmin_move_time_ms = 0\nlast_move_animation_s = 0.0\n"
        "unblocked_screen_s = 0.0\n"
        + "".join(f'[[players]]\nthinker = "{t}"\nparams = "{p}"\n'
                  for t, p in (("sequential", ""), ("random", "1"), ("steady", "2"))),
        encoding="utf-8")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    full_log = tmp_path / "full.txt"  # a file, not a pipe nobody reads for a while
    with full_log.open("w", encoding="utf-8") as out:
        full = subprocess.Popen(_play_command(config, "--in-process"), stdout=out,
                                stderr=subprocess.STDOUT, env=env)
    try:
        results = tmp_path / "r.jsonl"
        kill_after_lines(_play_command(config, "--results", str(results)), results, 2, 120, env)
        done = len(read_results(results))
        assert 2 <= done < 6
        # the resumed session plays while the one never killed finishes
        resumed = subprocess.run(_play_command(config, "--resume", str(results)),
                                 capture_output=True, text=True, timeout=180, env=env)
        full.wait(timeout=180)
    finally:
        full.kill()
        full.wait()
    full_out = full_log.read_text(encoding="utf-8")
    assert full.returncode == 0, full_out
    assert resumed.returncode == 0, resumed.stderr
    assert _final_lines(resumed.stdout) == _final_lines(full_out)
    assert sorted(d["match"] for d in read_results(results)) == list(range(6))
    assert resumed.stdout.count("now playing") == 6 - done, "only the missing matches"
