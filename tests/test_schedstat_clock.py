"""The schedstat clock (engine/runners/clocks.py, schedstat.py): a move costs
max(cpu, wall - waits for a core), from made-up readings, without processes
(tests/test_schedstat_readers.py reads real ones).

A thinker pays its processor time plus the time it chose to wait (a sleep, a
blocked read), never the time it waited for a core others held, and never
less than its processor time. The readings here are injected: a fake wall
clock, processor clock, run-queue waits of the tree and of the polling thread.
"""

from __future__ import annotations

import threading
import time

import pytest

from csl_game import MatchConfig
from csl_game.engine.runners.clocks import (
    LAST_RESORT_EXTRA,
    LAST_RESORT_FACTOR,
    SETTLE,
    MoveClock,
    backstop,
    charge,
    schedstat_works,
)
from csl_game.engine.runners.schedstat import (
    UNSEEN_BASE,
    UNSEEN_SHARE,
    ThreadWaits,
)

pytestmark = pytest.mark.unit

LIMIT = MatchConfig(time_limit_ms=50)
MARGIN = MatchConfig(time_limit_ms=50, time_margin_ms=10)


class Fake:
    """Readings a test sets: the wall, the thinker's CPU time, its threads'
    waits for a core, whether one is runnable, the polling thread's waits."""

    def __init__(self) -> None:
        self.now = 100.0
        self.cpu_s = 7.0
        self.core = 3.0
        self.is_runnable = False
        self.reads = 0

    def wall(self) -> float:
        return self.now

    def cpu(self) -> float:
        return self.cpu_s

    def waits(self) -> float:
        self.reads += 1
        return self.core

    def runnable(self) -> bool:
        return self.is_runnable

    def advance(self, wall: float, cpu: float = 0.0, core: float = 0.0) -> None:
        self.now += wall
        self.cpu_s += cpu
        self.core += core


def clock(config: MatchConfig = LIMIT, waits: bool = True) -> tuple[MoveClock, Fake]:
    fake = Fake()
    move = MoveClock(config, fake.cpu, fake if waits else None, wall=fake.wall)
    return move, fake


def test_the_formula() -> None:
    """max(cpu, wall - core - unseen), unseen being 2 ms and a tenth of the CPU time."""
    assert (UNSEEN_BASE, UNSEEN_SHARE) == (0.002, 0.1)
    assert charge(cpu=0.003, wall=0.485, core=0.002) == pytest.approx(0.4807)  # a sleeper
    assert charge(cpu=0.01, wall=1.6, core=1.5) == pytest.approx(0.097)  # starved, then slept
    assert charge(cpu=0.044, wall=1.6, core=1.55) == 0.044  # starved: its CPU time
    assert charge(cpu=0.3, wall=0.16, core=0.02) == 0.3  # two threads: never below the CPU
    assert charge(cpu=0.045, wall=0.051, core=0.0) == 0.045  # 6 ms unseen: a VM's steal


def test_a_sleeper_pays_its_sleep_and_the_message_says_so() -> None:
    move, fake = clock()
    fake.advance(wall=0.487, cpu=0.003, core=0.002)
    assert move.charged() == pytest.approx(0.4827)
    verdict = move.over()
    assert verdict is not None
    assert verdict.startswith("time limit 50 ms of CPU time plus its own waits; ")
    assert ("it used 3 ms of CPU time and waited 480 ms of its own (sleeping or blocked), "
            "2 ms waiting for a core (487 ms on the wall clock)") in verdict


def test_a_starved_thinker_pays_only_its_cpu_time_however_long_on_the_wall() -> None:
    """The issue's case: 44 ms of CPU time in 1.6 s on the wall is no timeout
    when the rest was spent waiting for a core; the fallback's backstop loses it."""
    move, fake = clock(MatchConfig(time_limit_ms=50))
    fake.advance(wall=1.6, cpu=0.044, core=1.555)
    assert move.charged() == pytest.approx(0.044) and move.over() is None
    assert move.backstop == LAST_RESORT_FACTOR * 0.05 + LAST_RESORT_EXTRA
    old, fake = clock(MatchConfig(time_limit_ms=50), waits=False)
    fake.advance(wall=1.6, cpu=0.044)
    assert old.charged() == pytest.approx(0.044)
    verdict = old.over()
    assert verdict is not None and "still not done after 1.6 s on the wall clock" in verdict
    assert old.backstop == backstop(0.05) == 1.5


def test_a_clock_stopped_when_its_process_ended_charges_no_more() -> None:
    """A worker whose pipe ended is gone: its waits can no longer be read, so
    the wall since would look like a sleep (the issue's exiting thinker lost
    on time beside busy processes, its exit code slow to come): the clock
    stops at its last reading."""
    move, fake = clock()
    fake.advance(wall=0.02, cpu=0.005)
    before = move.charged()
    move.stop()
    fake.advance(wall=5.0, cpu=-0.005)  # the tree is gone: nothing of it is read
    assert move.charged() == before and move.over() is None
    assert move.wall() == pytest.approx(0.02)


def test_a_thinker_that_never_gets_a_core_loses_at_the_last_resort() -> None:
    move, fake = clock(MatchConfig(time_limit_ms=50))
    fake.is_runnable = True  # it lowered its own priority: it waits and never runs
    fake.advance(wall=14.9, cpu=0.01)
    assert move.over() is None
    fake.advance(wall=0.2)
    verdict = move.over()
    assert verdict is not None and "still not done after 15.1 s on the wall clock" in verdict
    assert "(a move may wait at most 15 s)" in verdict


def test_threads_at_once_are_charged_their_cpu_time() -> None:
    move, fake = clock()
    fake.advance(wall=0.03, cpu=0.06, core=0.0)  # two threads spinning 30 ms each
    assert move.charged() == pytest.approx(0.06)
    assert "it used 60 ms of CPU time and waited 0 ms of its own" in (move.over() or "")


def test_the_margin_is_allowed() -> None:
    move, fake = clock(MARGIN)
    fake.advance(wall=0.061, cpu=0.001)
    assert move.over() is None
    fake.advance(wall=0.002)
    verdict = move.over()
    assert verdict is not None and "and a margin of 10 ms" in verdict


def test_a_runnable_thread_leaves_the_wall_uncharged_until_its_wait_is_counted() -> None:
    """A thread waiting for a core has that wait in its schedstat only once it
    runs: while one is runnable, wall - core may be short of the wait."""
    move, fake = clock()
    fake.is_runnable = True
    fake.advance(wall=0.2, cpu=0.01)  # 190 ms waiting for a core, not counted yet
    assert move.charged() == pytest.approx(0.01) and move.over() is None
    fake.is_runnable = False
    fake.advance(wall=0.004, core=0.19)  # it ran: the wait is counted
    assert move.charged() == pytest.approx(0.011) and move.over() is None
    fake.advance(wall=0.1)  # then it slept 100 ms
    assert move.charged() == pytest.approx(0.111)
    assert move.over() is not None


def test_the_last_reading_waits_for_a_runnable_thread_to_run() -> None:
    """The answer is in, but a thread of the thinker is still runnable (it was
    preempted on its way to sleep): its wait for a core is counted once it
    runs, against the wall of the reading, not the wall since."""
    move, fake = clock()
    fake.is_runnable = True
    fake.advance(wall=0.04, cpu=0.01)  # 20 ms of it spent waiting for a core
    assert move.settle() is None
    fake.advance(wall=0.002)
    assert move.settle() is None
    fake.is_runnable = False
    fake.advance(wall=0.002, core=0.02)  # it ran: the wait is in its schedstat now
    assert move.settle() == pytest.approx(0.017)  # 40 ms less 20 and 3 unseen, not 4 more
    assert move.last.wall == pytest.approx(0.04)


def test_the_last_reading_settles_for_the_cpu_time_if_a_thread_never_runs() -> None:
    move, fake = clock()
    fake.is_runnable = True
    fake.advance(wall=0.04, cpu=0.01)
    assert move.settle() is None
    fake.advance(wall=SETTLE)
    assert move.settle() == pytest.approx(0.01)


def test_a_sure_last_reading_settles_at_once() -> None:
    move, fake = clock()
    fake.advance(wall=0.04, cpu=0.01, core=0.01)
    assert move.settle() == pytest.approx(0.027)


def test_the_charge_never_goes_back() -> None:
    move, fake = clock()
    fake.advance(wall=0.03, cpu=0.001)
    assert move.charged() == pytest.approx(0.0279)
    fake.advance(wall=0.001, core=0.02)  # a wait that began before the reading
    assert move.charged() == pytest.approx(0.0279)


def test_the_wall_runs_to_the_referees_last_look_without_an_answer() -> None:
    """The referee looked at 30 ms and found no answer, then took 50 ms to
    look again (a busy machine): the thinker, asleep since it answered in
    between, is charged the wall up to the look that found none."""
    move, fake = clock()
    fake.advance(wall=0.03, cpu=0.001)
    move.quiet(fake.now)
    fake.advance(wall=0.05)
    assert move.settle() == pytest.approx(0.03 - 0.0021)
    assert move.last.wall == pytest.approx(0.03) and move.wall() == pytest.approx(0.08)
    move.quiet(fake.now - 0.07)  # an older look changes nothing
    assert move.charged() == pytest.approx(0.0279)


def test_the_wall_runs_to_the_answer_the_worker_says_it_gave() -> None:
    """The referee last looked at 30 ms; the worker says think() took 45 ms
    and it is read at 80 ms: the wall runs to 45 ms. A worker that says less
    than the last look gains nothing; one that says more is held to now."""
    for took, wall in ((0.045, 0.045), (0.01, 0.03), (5.0, 0.08)):
        move, fake = clock()
        move.start()
        fake.advance(wall=0.03, cpu=0.001)
        move.quiet(fake.now)
        fake.advance(wall=0.05)
        move.answered(took)
        assert move.settle() == pytest.approx(wall - 0.0021)
        assert move.last.wall == pytest.approx(wall)


def test_the_workers_word_means_nothing_before_the_request_is_sent() -> None:
    move, fake = clock()  # no start(): the in-process runner reads on the thinking thread
    fake.advance(wall=0.03, cpu=0.001)
    move.answered(0.001)
    assert move.settle() == pytest.approx(0.03 - 0.0021)


def test_the_wall_starts_when_the_request_is_sent() -> None:
    """The referee took 60 ms to send the request (a busy machine): the
    thinker, waiting for it meanwhile, is not charged that time."""
    move, fake = clock()
    fake.advance(wall=0.06, core=0.01)  # its threads' waits meanwhile count from the start
    move.start()
    fake.advance(wall=0.03, cpu=0.001)
    move.quiet(fake.now)
    assert move.charged() == pytest.approx(0.03 - 0.01 - 0.0021)
    assert move.wall() == pytest.approx(0.03) and move.over() is None


def test_a_referee_that_never_looked_charges_the_processor_time() -> None:
    """Sent, then the referee was kept from looking for a second: the answer
    may have come at once, so only the processor time is charged; a look
    that finds none moves the wall's end up to it."""
    move, fake = clock()
    move.start()
    fake.advance(wall=1.0, cpu=0.004)
    assert move.settle() == pytest.approx(0.004) and move.wall() == pytest.approx(1.0)
    move2, fake2 = clock()
    move2.start()
    fake2.advance(wall=0.02, cpu=0.004)
    move2.quiet(fake2.now)
    fake2.advance(wall=1.0)
    assert move2.settle() == pytest.approx(0.02 - 0.0024)


def test_a_sleeper_is_caught_within_a_few_ms_of_its_limit() -> None:
    """Looking when next_check says, the clock sees a sleeper over its limit
    and margin at most 2 ms after it is."""
    for config in (LIMIT, MARGIN, MatchConfig(time_limit_ms=1000)):
        move, fake = clock(config)
        start, verdict = fake.now, None
        for _ in range(10_000):
            fake.now = move.next_check(fake.now)
            fake.cpu_s += 0.00001
            move.quiet(fake.now)  # a look without an answer
            verdict = move.over()
            if verdict is not None:
                break
        assert verdict is not None
        assert move.allowed + UNSEEN_BASE < fake.now - start \
            <= move.allowed + UNSEEN_BASE + 0.0021, config


def test_looking_again_is_cheap_while_nothing_can_be_over() -> None:
    move, fake = clock(MatchConfig(time_limit_ms=1000))
    fake.advance(wall=0.1, cpu=0.1)
    assert move.over() is None and fake.reads == 1  # the clock's start only
    assert move.next_check(fake.now) - fake.now == pytest.approx(0.05)
    fake.advance(wall=0.45, cpu=0.45)
    assert move.over() is None and fake.reads == 2
    ahead = move.next_check(fake.now) - fake.now
    assert 0.002 <= ahead <= 0.05


def test_the_wall_clock_is_untouched() -> None:
    fake = Fake()
    move = MoveClock(MatchConfig(time_limit_ms=50, clock="wall"), None, fake, wall=fake.wall)
    assert not move.waits_known and move.backstop == 0.05
    fake.advance(wall=0.06)
    assert move.charged() == pytest.approx(0.06)
    assert "time limit 50 ms of wall-clock time; it answered after 60 ms" in (move.over() or "")


# ----------------------------------------------------------- the readers, on Linux
linux = pytest.mark.skipif(not schedstat_works(), reason="no schedstat on this system")


@linux
def test_an_ended_thread_keeps_its_waits() -> None:
    waits = ThreadWaits()
    thread = threading.Thread(target=time.sleep, args=(0.05,))
    thread.start()
    seen = waits.read(("self",))
    thread.join()
    assert waits.read(("self",)) >= seen


def test_a_threads_backstop_leaves_out_its_waits_for_a_core() -> None:
    """The in-process runner's clock charges the thread's processor time; a
    thread that got no core for most of its move is not lost at the backstop
    for that, one that waited of its own accord is."""
    fake = Fake()
    starved = {"s": 1.0}
    move = MoveClock(MatchConfig(time_limit_ms=50), fake.cpu, wall=fake.wall,
                     starved=lambda: starved["s"])
    fake.advance(wall=1.6, cpu=0.04)
    starved["s"] += 1.55  # it waited for a core nearly all the while
    assert move.over() is None
    fake.advance(wall=1.5)  # and then waited 1.5 s of its own
    verdict = move.over()
    assert verdict is not None and "still not done after" in verdict
