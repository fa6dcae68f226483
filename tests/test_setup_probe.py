"""Thinkers set up in worker processes only: names, parameter checks, failed setups."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.engine import (
    ForfeitReason,
    RunOptions,
    Session,
    SessionOptions,
    SetupProbe,
    probe_all,
)
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.services.setup_file import SetupChecker
from procs import descendants

pytestmark = pytest.mark.timing

MISBEHAVING = (str(Path(__file__).parent / "misbehaving"),)
MC = MatchConfig(time_limit_ms=500)
LIMIT = 4.0  # seconds of setup allowed in these tests (a loaded machine needs some)
HANG_LIMIT = 2.0
"""Seconds of setup allowed a thinker whose setup never ends: it fails at
whatever limit, and the test waits it out."""
R = ForfeitReason

FAILED_SETUPS = [  # thinker, params, reason, words in the detail
    ("setuphang", "", R.SETUP, "took more than 2 s"),
    ("setupexit", "", R.SETUP, "SystemExit: 9"),
    ("setupexit", "hard", R.SETUP, "exited with code 0 while setting up"),
    ("setupbase", "", R.SETUP, "KeyboardInterrupt"),
    ("setuphog", "", R.SETUP, "memory limit 300 MB"),
    ("strhang", "", R.SETUP, "its name"),
]


def proto(name: str, params: str = "") -> ThinkerPrototype:
    return ThinkerPrototype(name, params, MC, MISBEHAVING)


@pytest.mark.timing
@pytest.mark.parametrize("name, params, reason, words", FAILED_SETUPS,
                         ids=[f"{c[0]}-{c[1]}" if c[1] else c[0] for c in FAILED_SETUPS])
def test_a_failed_setup_is_a_forfeit_with_its_reason(name: str, params: str,
                                                     reason: ForfeitReason, words: str) -> None:
    limit = HANG_LIMIT if name.endswith("hang") else LIMIT
    started = time.perf_counter()
    probe = SetupProbe(proto(name, params), setup_limit=limit, memory_limit_mb=300)
    report = probe.wait(30)
    assert report is not None and report.forfeit is not None, report
    assert (report.forfeit.reason, report.refused) == (reason, False)
    assert words in report.forfeit.detail
    assert report.name == proto(name, params).default_name
    assert time.perf_counter() - started < limit + 3


def test_the_memory_limit_is_the_users_to_set(capsys: pytest.CaptureFixture[str]) -> None:
    """--memory-limit reaches the probe and the match's workers: a setup filling
    memory fails at the given cap, named in the forfeit's detail."""
    import json

    from csl_game.cli import main

    code = main(["match", "-W", "setuphog", "-R", "random", "--thinkers", MISBEHAVING[0],
                 "--memory-limit", "200", "-t", "100", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and (result["winner"], result["forfeit"]) == ("red", "setup"), result
    assert "memory limit 200 MB" in result["detail"]


def test_this_process_runs_no_thinker_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session, its names and its parameter checks never set a thinker up here."""
    from csl_game import AbstractThinker

    def refuse(*_: object) -> None:
        raise AssertionError("thinker code ran in the main process")

    for name in ("setup", "__str__"):
        monkeypatch.setattr(AbstractThinker, name, refuse)
    monkeypatch.setattr(ThinkerPrototype, "create", refuse)
    players = [proto("sequential"), ThinkerPrototype("minimax", "2", MC)]
    session = Session(players, MC, SessionOptions(run=RunOptions(runner_factory=_process_factory())))
    session.run()
    assert session.names == ("Sequential", "MinimaxD2") and len(session.records) == 1
    options = PlayOptions(ais=(AIEntry("minimax", "2"),), match=MC)
    checker = SetupChecker()
    check = checker.check(options, {}, options.ais)
    while check.pending:
        time.sleep(0.01)
        checker.poll()
        check = checker.check(options, {}, options.ais)
    assert check.options is not None and check.problems == {}


def _process_factory():  # type: ignore[no-untyped-def]
    from csl_game.engine.runners.process import ProcessRunner

    return ProcessRunner


@pytest.mark.timing
def test_a_session_with_failed_setups_names_everyone_and_plays_on() -> None:
    players = [proto("sequential"), proto("setuphang"), proto("setupexit"), proto("strhang")]
    started = time.perf_counter()
    session = Session(players, MC, SessionOptions(tournament=True, run=RunOptions(runner_factory=_process_factory(), setup_limit=LIMIT, workers=2, foreground=False)))
    assert session.naming  # answers come from workers
    table = session.run()
    assert time.perf_counter() - started < LIMIT + 10
    assert session.names == ("Sequential", "SetupHang", "SetupExit", "StrHang")
    assert table[0].name == "Sequential" and table[0].wins == 6
    reasons = {r.result.forfeit for r in session.records if "Sequential" in
               (r.result.white, r.result.red)}
    assert reasons == {R.SETUP}


def test_the_setup_screen_check_never_blocks_and_finds_refusals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from functools import partial

    from csl_game.services import setup_file

    # the hanging thinker's check ends at its set-up limit, here LIMIT, not 10 s
    monkeypatch.setattr(setup_file, "SetupProbe", partial(SetupProbe, setup_limit=LIMIT))
    checker = SetupChecker()
    base = PlayOptions(match=MC, thinker_paths=MISBEHAVING)
    ais = (AIEntry("setuphang"), AIEntry("negamax", "depth=x"))
    worst, check = 0.0, checker.check(base, {}, ais)
    deadline = time.monotonic() + 20
    while check.pending and time.monotonic() < deadline:
        started = time.perf_counter()
        checker.poll()
        check = checker.check(base, {}, ais)
        worst = max(worst, time.perf_counter() - started)
        time.sleep(0.01)
    checker.close()
    # A check that waited for the hanging thinker would take its whole set-up
    # time (seconds); a busy machine can hold a frame for a tenth of a second.
    assert worst < 0.3, "a frame's check took too long"
    assert check.problems == {"players[2].params": "negamax does not accept 'depth=x': "
                              "parameter depth must be a whole number, got 'x'"}


def test_equal_players_share_one_probe_and_probes_leave_nothing() -> None:
    before = descendants(os.getpid())
    reports = probe_all([ThinkerPrototype("minimax", "2", MC)] * 3 + [proto("sequential")])
    assert [r.name for r in reports] == ["MinimaxD2"] * 3 + ["Sequential"]
    assert descendants(os.getpid()) <= before


@pytest.mark.skipif(sys.platform == "win32", reason="names only")
def test_in_process_mode_sets_up_here() -> None:
    report = SetupProbe(ThinkerPrototype("minimax", "4", MC), in_process=True).poll()
    assert report is not None and report.name == "MinimaxD4"


def test_the_engines_diagnostics_are_logged_when_asked() -> None:
    """--log-level info tells what happened to the worker processes and why a
    player forfeited, on standard error; by default nothing of it is shown."""
    import subprocess

    argv = [sys.executable, "-m", "csl_game", "match", "-W", "setuphog", "-R", "random",
            "--thinkers", MISBEHAVING[0], "--memory-limit", "200", "-t", "100"]
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for args in (argv, [*argv, "--log-level", "info"])]  # both at once
    quiet, told = (subprocess.CompletedProcess(p.args, 0, *p.communicate(timeout=120))
                   for p in procs)
    assert [p.returncode for p in procs] == [0, 0]
    assert "csl-game: INFO" not in quiet.stderr
    assert "(misbehaving_thinkers.SetupHogThinker) ended while setting up the thinker: " \
           "exit code" in told.stderr
    forfeit = [line for line in told.stderr.splitlines() if "SetupHog (White) forfeits" in line]
    assert len(forfeit) == 1 and "setup: " in forfeit[0] and "memory limit 200 MB" in forfeit[0]
