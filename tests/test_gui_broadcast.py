"""A tournament played in the window with ``play --listen``, followed by a real
``csl-game watch`` process on loopback (bounded in time): the watcher prints
the window's own final standings."""

from __future__ import annotations

import io
import time

import pytest

from csl_game.cli import main
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, Apps
from online_procs import Proc


def test_the_windows_tournament_is_watched_to_the_same_standings(apps: Apps) -> None:
    config = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                         time_limit_ms=2000, min_move_time_ms=40)
    options = PlayOptions(ais=(AIEntry("random", "1"), AIEntry("sequential"),
                               AIEntry("random", "2")),
                          match=config, window_size=(800, 600), in_process=True, auto=True,
                          unblocked_screen_s=0.0, listen="127.0.0.1:0")
    app = apps.open(options, out=io.StringIO())
    flow = app.flow
    assert flow is not None and flow.broadcast is not None
    broadcaster = flow.broadcast.broadcaster
    assert broadcaster is not None, app.log.lines
    assert any(line.startswith("Broadcasting the tournament on port") for line in app.log.lines)
    watcher = Proc("watch", f"127.0.0.1:{broadcaster.port}", "--json")
    try:
        # The window serves spectators between its frames: it polls until the
        # watcher took its seat (its start-up bounded by its own time), so a
        # watcher kept from a core still sees the tournament from its start.
        left = watcher.own_left(30)
        while broadcaster.spectators == 0:
            assert left() > 0 and watcher.proc.poll() is None, watcher.text()
            flow.broadcast.poll()
            time.sleep(0.01)
        session = flow.session
        end = time.monotonic() + 90
        while app.step(DT):
            assert time.monotonic() < end, "the tournament did not end in time"
        assert watcher.finish(30) == 0, watcher.text()
        table = [(s.name, s.points, s.wins, s.draws, s.losses) for s in session.standings()]
        doc = watcher.json()
        assert [(r["name"], r["points"], r["wins"], r["draws"], r["losses"])
                for r in doc["standings"]] == table
        assert doc["played"] == doc["matches"] == 6
    finally:
        watcher.kill()


@pytest.mark.unit
@pytest.mark.parametrize("address", ["nowhere", "127.0.0.1:99999"])
def test_a_bad_listen_address_is_one_line_and_exit_2(
        address: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--listen", address, "--ai", "random", "--ai", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--listen" in err[0], err
