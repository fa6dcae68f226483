"""The match clock (issue: the clock never decides a game by accident).

On the ``cpu`` clock a move costs the processor time of its thinker's process
tree, threads and child processes included, measured by the parent; on Linux
(schedstat) plus the time it waited of its own accord, never the time it
waited for a core; elsewhere a wall clock backstop ends a move that waits
instead of thinking. The thinkers here spend processor time, not wall time,
so every assertion holds however busy the machine is: several tests run with
busy processes beside them on purpose. tests/test_schedstat_clock.py holds
the clock's arithmetic.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest

from csl_game import MatchConfig, Winner
from csl_game.engine import ForfeitReason, Match, ThinkOutcome, ThreadRunner, result_to_json
from csl_game.engine.runners import clocks
from csl_game.engine.runners.clocks import backstop, schedstat_works
from csl_game.engine.runners.process import ProcessRunner
from csl_game.thinker.api import CancellationToken
from csl_game.thinker.prototype import ThinkerPrototype
from procs import CoreWaits

CLOCKED = (str(Path(__file__).parent / "clocked"),)
CPU = MatchConfig(time_limit_ms=200)


SPIN = "print('spinning', flush=True)\nwhile True: pass"


@contextmanager
def busy(count: int) -> Iterator[None]:
    """`count` processes spinning beside the test (each has said it spins),
    ended when it ends."""
    spinning = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE)
                for _ in range(count)]
    try:
        for p in spinning:
            assert p.stdout is not None and p.stdout.readline() == b"spinning\n"
        yield
    finally:
        for p in spinning:
            p.kill()
            p.communicate()


def think_once(name: str, params: str, mc: MatchConfig, runner: type = ProcessRunner,
               info: list[str] | None = None) -> ThinkOutcome:
    return think_all(1, name, params, mc, runner, info)[0]


def think_all(count: int, name: str, params: str, mc: MatchConfig,
              runner: type = ProcessRunner, info: list[str] | None = None
              ) -> list[ThinkOutcome]:
    """`count` thinkers' first moves, thought all at once, each in its own runner."""
    proto = ThinkerPrototype(name, params, mc, CLOCKED)
    runners = [runner(proto, (info.append if info is not None else None))
               for _ in range(count)]
    try:
        jobs = [r.start(mc.new_board()) for r in runners]
        outcomes = [job.wait(None) for job in jobs]
        assert None not in outcomes
        return outcomes  # type: ignore[return-value]
    finally:
        for r in runners:
            r.close()


@pytest.mark.unit
def test_a_token_without_a_limit_has_all_the_time() -> None:
    ct = CancellationToken()
    assert ct.time_left() == float("inf") and ct.time_limit == float("inf")
    assert ct.elapsed() >= 0


@pytest.mark.unit
def test_a_token_counts_down_on_its_clock() -> None:
    now = [10.0]
    ct = CancellationToken(0.5, lambda: now[0])
    assert ct.time_left() == 0.5
    now[0] = 10.2
    assert ct.time_left() == pytest.approx(0.3) and ct.elapsed() == pytest.approx(0.2)
    now[0] = 11.0
    assert ct.time_left() == 0.0


@pytest.mark.unit
@pytest.mark.parametrize("bad", [{"clock": "sundial"}, {"time_margin_ms": -1}])
def test_match_config_checks_its_clock(bad: dict[str, object]) -> None:
    from csl_game.errors import ConfigError
    with pytest.raises(ConfigError):
        MatchConfig(**bad)  # type: ignore[arg-type]


def test_cpu_time_under_the_limit_never_loses_on_a_busy_machine() -> None:
    """Four busy processes on the machine's cores, and four thinkers at once:
    each move spends 60 % of its limit in CPU time and answers, although it
    takes longer on the wall."""
    info: list[str] = []
    with busy(4):
        outcomes = think_all(4, "spend", "60", CPU, info=info)
    for outcome in outcomes:
        assert outcome.forfeit is None, outcome.detail
        assert 0.12 <= outcome.elapsed < 0.2  # charged: its CPU time, not the wall's
    # The thinker's own token counts on the same clock: it had about the limit.
    left = [float(line.split()[0].split("=")[1]) for line in info if line.startswith("left=")]
    assert left and all(0.15 < v <= 0.2 for v in left)


def test_cpu_time_over_the_limit_loses_on_an_idle_or_busy_machine() -> None:
    for load in (0, 4):
        with busy(load):
            outcome = think_once("spend", "150", CPU)
        assert outcome.forfeit is ForfeitReason.TIMEOUT
        assert "time limit 200 ms of CPU time" in outcome.detail
        assert "; it used" in outcome.detail
        assert outcome.elapsed > 0.2


def test_the_wall_clock_loses_what_the_cpu_clock_keeps() -> None:
    """The reference's clock, for comparison: 80 % of the limit in CPU time
    is over it on the wall clock when four busy processes share the cores."""
    wall = replace(CPU, clock="wall")
    with busy(4):
        results = [think_once("spend", "80", wall).forfeit for _ in range(3)]
    assert ForfeitReason.TIMEOUT in results


def test_every_thread_of_the_thinker_is_charged() -> None:
    outcome = think_once("twothreads", "60", CPU)  # 2 x 60 % of the limit
    assert outcome.forfeit is ForfeitReason.TIMEOUT and "of CPU time" in outcome.detail
    outcome = think_once("twothreads", "30", CPU)  # 2 x 30 %
    assert outcome.forfeit is None and outcome.elapsed >= 0.11


@pytest.mark.timing  # the thinker must run within the grace its child's spinning eats
def test_the_thinkers_child_processes_are_charged() -> None:
    """The child spends 300 % of the limit while the thinker itself only waits
    (a few ms of its own processor time): the processor time the verdict
    counts is the child's."""
    mc = MatchConfig(time_limit_ms=400)
    outcome = think_once("child", "300", mc)
    assert outcome.forfeit is ForfeitReason.TIMEOUT, outcome.detail
    used = re.search(r"it used (\d+) ms of CPU time", outcome.detail)
    assert used is not None and int(used.group(1)) >= 200, outcome.detail


def test_a_setup_is_held_to_its_limit_on_the_same_clock() -> None:
    """The setup time limit is a promise too: 40 % of it in CPU time (and the
    worker's own start) sets the thinker up beside six busy processes, although
    that takes longer than the limit on the wall; 150 % of it does not."""
    def set_up(params: str, limit: float) -> ThinkOutcome:
        proto = ThinkerPrototype("slowsetup", params, CPU, CLOCKED)
        runner = ProcessRunner(proto, startup_timeout=limit)
        try:
            outcome = runner.start(CPU.new_board()).wait(None)
        finally:
            runner.close()
        assert outcome is not None
        return outcome
    with busy(6):
        kept = set_up("400", 1.0)
    assert kept.forfeit is None, kept.detail
    lost = set_up("1500", 1.0)
    assert lost.forfeit is ForfeitReason.SETUP and "took more than 1 s" in lost.detail
    assert "of CPU time" in lost.detail, lost.detail


@pytest.mark.skipif(not schedstat_works(), reason="no schedstat on this system")
def test_a_setup_that_sleeps_pays_its_sleep() -> None:
    # the waits for a core of the referee, its fork server and its worker aside,
    # as the setup clock does
    with CoreWaits().watching() as waits:
        start = time.perf_counter()
        runner = ProcessRunner(ThinkerPrototype("slowsetup", "nap:5000", CPU, CLOCKED),
                               startup_timeout=0.5)
        try:
            outcome = runner.start(CPU.new_board()).wait(None)
        finally:
            runner.close()
        took = time.perf_counter() - start - waits.seconds()
    assert outcome is not None and outcome.forfeit is ForfeitReason.SETUP
    assert "ms of its own (sleeping or blocked)" in outcome.detail, outcome.detail
    assert took < 5


def test_without_schedstat_a_thinker_that_waits_loses_at_the_wall_clock_backstop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS, Windows, a kernel without CONFIG_SCHED_INFO: the CPU time alone
    and the backstop (simulated here: the parent reads no waits for a core)."""
    monkeypatch.setattr(clocks, "schedstat_works", lambda: False)
    mc = MatchConfig(time_limit_ms=50)
    outcome = think_once("nap", "10000", mc)  # sleeps 100 times its limit
    assert outcome.forfeit is ForfeitReason.TIMEOUT
    assert "still not done after" in outcome.detail
    # The move's own wall time (a spawned worker's start before it is not the move's).
    assert outcome.wall is not None and backstop(0.05) <= outcome.wall < backstop(0.05) + 2
    # A short nap costs nothing on the CPU clock: it is not thinking.
    assert think_once("nap", "300", mc).forfeit is None


schedstat = pytest.mark.skipif(not schedstat_works(), reason="no schedstat on this system")


@schedstat
def test_a_sleeper_loses_on_time_on_its_first_move() -> None:
    """time.sleep(9 * limit) in think(): charged its sleep, it is over its
    limit long before the sleep ends, and its late answer loses the match on
    time (the grace is long enough here for it to answer at all)."""
    mc = MatchConfig(time_limit_ms=100)
    runner = partial(ProcessRunner, grace=2.0)
    with busy(2):
        match = Match(mc, ThinkerPrototype("oversleep", "", mc, CLOCKED),
                      ThinkerPrototype("spend", "10", mc, CLOCKED), runner)
        result = match.run()
    assert result.forfeit is ForfeitReason.TIMEOUT and result.winner is Winner.RED
    assert result.moves == ()
    assert "ms of its own (sleeping or blocked)" in result.detail, result.detail
    assert result_to_json(result, mc)["forfeit"] == "timeout"


@schedstat
def test_a_sleeper_is_stopped_within_a_few_ms_of_its_limit() -> None:
    """A thinker that waits (listening to its token) is cancelled as soon as
    its wait passes the limit, on an idle machine or a busy one."""
    mc = MatchConfig(time_limit_ms=100)
    for load in (0, 4):
        with busy(load), CoreWaits().watching() as waits:
            outcome = think_once("nap", "900", mc)
        # a referee (or worker) kept from a core looks late, and charges the nap so far
        late = waits.seconds()
        assert outcome.forfeit is ForfeitReason.TIMEOUT
        assert 0.1 < outcome.elapsed < 0.16 + late, outcome.detail
        assert outcome.wall is not None and outcome.wall < 1.0 + late


@schedstat
def test_the_thinker_reads_its_waits_on_its_token() -> None:
    """A 100 ms nap (about 2 ms of processor time): the thinker's token and
    the referee both count the nap, less the time its threads waited for a
    core (a busy machine's), and the referee less the few ms no account
    shows too; neither more than the wall."""
    info: list[str] = []
    referee = CoreWaits(below=False)
    with CoreWaits().watching() as tree:  # the referee's process and every one below
        outcome = think_once("nap", "50", CPU, info=info)
    assert outcome.forfeit is None and outcome.wall is not None
    told = [float(line.split("=")[1]) for line in info if line.startswith("elapsed=")]
    # The move's wall starts once the request is sent (`MoveClock`): a referee kept
    # from a core just then starts it after the token, by as much as it waited.
    assert told and 0.05 <= told[0] <= outcome.wall + referee.seconds()
    # The referee charges the wall less the waits of every thread of the worker:
    # two of its threads waiting at once (the thinker's and its output's, after
    # the nap) are both forgiven, so a busy machine may forgive a little of the
    # nap, never more than the waits; an idle one charges all of it.
    assert 0.05 - tree.seconds() <= outcome.elapsed <= outcome.wall


def test_the_wall_time_is_kept_beside_the_charged_time() -> None:
    with busy(4):
        outcome = think_once("spend", "60", CPU)
    assert outcome.forfeit is None and outcome.wall is not None
    assert outcome.wall >= outcome.elapsed * 0.9  # nothing is charged the wall did not see


def test_the_margin_forgives_a_small_overrun() -> None:
    over = "115"  # 15 % past the limit
    assert think_once("spend", over, CPU).forfeit is ForfeitReason.TIMEOUT
    lenient = replace(CPU, time_margin_ms=60)
    outcome = think_once("spend", over, lenient)
    assert outcome.forfeit is None and outcome.elapsed > 0.2


def test_in_process_the_thinking_threads_cpu_time_is_charged() -> None:
    """Four busy processes beside the thinking thread: its CPU time is
    charged, not the wall's, and its backstop leaves out its waits for a core."""
    with busy(4):
        kept = think_once("spend", "60", CPU, ThreadRunner)
        lost = think_once("spend", "150", CPU, ThreadRunner)
    assert kept.forfeit is None and 0.12 <= kept.elapsed < 0.2
    assert lost.forfeit is ForfeitReason.TIMEOUT and "of CPU time" in lost.detail


@pytest.mark.slow
@pytest.mark.parametrize("level", ["easy", "medium", "hard", "mcts", "minimax 4"])
def test_the_built_ins_answer_in_time_on_a_busy_machine(level: str) -> None:
    """A whole game at 50 ms a move with four busy processes beside it: the
    window's levels never lose on time to a human, nor the guide's minimax."""
    from csl_game.services.presets import LEVELS
    mc = MatchConfig(time_limit_ms=50)
    named = {lv.name: f"{lv.thinker} {lv.params}" for lv in LEVELS}
    name, _, params = named.get(level, level).partition(" ")
    with busy(4):
        for _ in range(1):
            match = Match(mc, ThinkerPrototype(name, params, mc),
                          ThinkerPrototype("random", "", mc), ProcessRunner)
            result = match.run()
            assert result.forfeit is None, result.detail
