"""Thinker isolation: a misbehaving AI in a worker process costs only its own match."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from csl_game import (
    AbstractThinker,
    Board,
    CancellationToken,
    FutureMove,
    MatchConfig,
    PColor,
    PShape,
    ThinkerPrototype,
    Winner,
)
from csl_game.engine import (
    ForfeitReason,
    InfoCallback,
    InvalidPlay,
    Match,
    RunOptions,
    Session,
    SessionOptions,
    ThinkingInfo,
)
from csl_game.engine.runners.process import ProcessRunner
from procs import INTERRUPTIBLE, CoreWaits, OwnTime, alive, descendants, forfeit_within, gone_within

pytestmark = pytest.mark.timing

MISBEHAVING = (str(Path(__file__).parent / "misbehaving"),)
LIMIT_MS = 250
FAST = MatchConfig(time_limit_ms=LIMIT_MS)
WALL = MatchConfig(time_limit_ms=LIMIT_MS, clock="wall")
"""The reference's wall clock: a thinker that sleeps loses at the limit itself
(on the CPU clock only at the backstop, see test_a_sleeper_loses_at_the_backstop)."""
# Where the cap is the parent's watch of resident memory (no RLIMIT_AS), memory
# fills at the speed of page faults: a hog needs more than 250 ms to reach it.
HOG = MatchConfig(time_limit_ms=3000)
MEMORY_MB = 300
FULL = MatchConfig(rows=2, cols=3, win_sequence=3, time_limit_ms=LIMIT_MS)
FEW_ROUND = MatchConfig(win_sequence=6, round_pieces=2, square_pieces=19, time_limit_ms=LIMIT_MS)

R = ForfeitReason
CASES = [  # thinker, params, config, reason, text in the detail
    ("raise", "", FAST, R.EXCEPTION, "deliberate failure in think"),
    ("sleepy", "", WALL, R.TIMEOUT, f"time limit {LIMIT_MS} ms of wall-clock time"),
    ("busy", "", FAST, R.IGNORED_CANCELLATION, "was killed"),
    ("exit", "", FAST, R.WORKER_DIED, "exited with code 3"),
    pytest.param("segfault", "", FAST, R.WORKER_DIED, "SIGSEGV", marks=pytest.mark.skipif(
        sys.platform == "win32", reason="no signals on Windows: os.kill terminates")),
    # its pipe ends and it spins on: ended (by the sandbox, or killed after the grace)
    # with its clock stopped at the hang-up, never a timeout
    pytest.param("hangup", "", FAST, R.WORKER_DIED, "its process", marks=pytest.mark.skipif(
        sys.platform == "win32", reason="a worker's pipes are handles, not descriptors")),
    # a MemoryError under an address-space cap, a kill by the parent's watch
    # elsewhere: the detail names the cap either way
    ("hog", "", HOG, R.MEMORY, f"memory limit {MEMORY_MB} MB"),
    ("hog", "once", HOG, R.MEMORY, f"memory limit {MEMORY_MB} MB"),
    ("hog", "thread", HOG, R.MEMORY, f"limit {MEMORY_MB} MB"),
    ("invalid", "none", FAST, R.NO_MOVE, ""),
    ("invalid", "minus1", FAST, R.NO_MOVE, ""),  # column -1 is FutureMove.NO_MOVE
    ("invalid", "minus2", FAST, R.INVALID_COLUMN, "column -2"),
    ("invalid", "cols", FAST, R.INVALID_COLUMN, "column 7"),
    ("invalid", "full", FULL, R.FULL_COLUMN, "column 0"),
    ("invalid", "round", FEW_ROUND, R.NO_PIECES, "round"),
    ("invalid", "shape7", FAST, R.NO_PIECES, "shape 7 at column 0"),
    ("invalid", "tuple", FAST, R.EXCEPTION, "not a FutureMove"),
    ("invalid", "strcol", FAST, R.INVALID_COLUMN, "whole numbers"),
    ("chatty", "forever", FAST, R.IGNORED_CANCELLATION, "was killed"),
    ("badsetup", "xyz", FAST, R.SETUP, "cannot parse 'xyz'"),
]


def proto(name: str, params: str = "", mc: MatchConfig = FAST) -> ThinkerPrototype:
    return ThinkerPrototype(name, params, mc, MISBEHAVING)


class Factory:
    """A runner factory that keeps its runners, to check their workers are gone."""

    def __init__(self, **options: object) -> None:
        self.options = {"memory_limit_mb": MEMORY_MB, **options}
        self.runners: list[ProcessRunner] = []

    def __call__(self, prototype: ThinkerPrototype, info: InfoCallback) -> ProcessRunner:
        runner = ProcessRunner(prototype, info, **self.options)  # type: ignore[arg-type]
        self.runners.append(runner)
        return runner

    @property
    def pids(self) -> list[int]:
        return [r.pid for r in self.runners if r.pid is not None]


def start_allowance() -> float:
    """Seconds starting a match's workers may add to it: spawned workers (no
    fork server, as on Windows) import everything anew."""
    from multiprocessing.context import SpawnContext

    from csl_game.engine.runners.handle import mp_context

    return 2.0 if isinstance(mp_context(), SpawnContext) else 0.0


def address_cap() -> bool:
    """Whether workers here get an address-space cap (RLIMIT_AS) that works."""
    import csl_platform_sim

    if csl_platform_sim.mode in ("no-resource", "rlimit-as-fails"):
        return False
    try:
        import resource
    except ImportError:
        return False
    return sys.platform.startswith("linux") and hasattr(resource, "RLIMIT_AS")


# ---------------------------------------------------------------- processes
# (psutil, so that these tests read the same on every OS)
@pytest.fixture(autouse=True)
def no_orphans() -> Iterator[None]:
    """Each test leaves no process behind (other modules' leftovers aside)."""
    children, below = set(multiprocessing.active_children()), descendants(os.getpid())
    yield
    assert set(multiprocessing.active_children()) <= children
    assert descendants(os.getpid()) <= below


# ------------------------------------------------------------------- matches
def play(white: ThinkerPrototype, red: ThinkerPrototype, mc: MatchConfig,
         factory: Factory) -> tuple[Match, list[object], float]:
    match = Match(mc, white, red, factory)
    events: list[object] = []
    match.subscribe(events.append)
    # The match's wall time less the waits for a core of the referee and its
    # workers (a busy machine's: the setup clock does not count them either)
    started = time.perf_counter()
    with CoreWaits().watching() as waits:
        match.run()
    return match, events, time.perf_counter() - started - waits.seconds()


@pytest.mark.parametrize("bad_color", list(PColor), ids=lambda c: c.name.lower())
@pytest.mark.parametrize("name, params, mc, reason, text", CASES,
                         ids=[f"{v[0]}-{v[1]}" if v[1] else str(v[0])
                              for v in (getattr(c, "values", c) for c in CASES)])
def test_each_misbehaviour_forfeits_its_match(name: str, params: str, mc: MatchConfig,
                                              reason: ForfeitReason, text: str,
                                              bad_color: PColor) -> None:
    bad, good = proto(name, params, mc), proto("sequential", mc=mc)
    white, red = (bad, good) if bad_color is PColor.WHITE else (good, bad)
    factory = Factory()
    match, events, took = play(white, red, mc, factory)
    assert match.result is not None
    assert (match.result.forfeit, match.result.winner) == (reason, bad_color.other.winner)
    assert text in match.result.detail
    assert took < forfeit_within(mc) + start_allowance()
    invalid = [e for e in events if isinstance(e, InvalidPlay)]
    assert len(invalid) == 1 and invalid[0].color is bad_color
    assert len(set(factory.pids)) == 2 and not any(alive(p) for p in factory.pids)


def test_exception_detail_has_the_traceback() -> None:
    match, _, _ = play(proto("raise"), proto("sequential"), FAST, Factory())
    assert match.result is not None
    assert match.result.detail.startswith("ValueError: deliberate failure in think")
    assert "Traceback (most recent call last)" in match.result.detail
    assert "misbehaving_thinkers.py" in match.result.detail


def test_one_worker_serves_the_whole_match() -> None:
    factory = Factory()
    match = Match(FAST, proto("minimax", "2"), proto("sequential"), factory)
    pids = [r.pid for r in factory.runners]
    result = match.run()
    assert result.forfeit is None and result.winner is not Winner.NONE
    assert len(result.moves) > 6
    assert [r.pid for r in factory.runners] == pids and None not in pids


def test_output_reaches_the_info_callback_in_order() -> None:
    lines: list[str] = []
    runner = ProcessRunner(proto("chatty", "5000"), lines.append)
    try:
        outcome = runner.start(FAST.new_board()).wait(5)
    finally:
        runner.close()
    assert outcome is not None and outcome.forfeit is None and outcome.move == (0, 0)
    assert lines == ["thinking about move 0", "to stderr", "raw write to fd 1",
                     *(f"line {n} " + "x" * 60 for n in range(5000)), "last words"]


def test_output_in_a_match_becomes_thinking_info() -> None:
    match, events, _ = play(proto("chatty", "50"), proto("sequential"), FAST, Factory())
    assert match.result is not None and match.result.forfeit is None
    infos = [e for e in events if isinstance(e, ThinkingInfo)]
    assert {e.color for e in infos} == {PColor.WHITE}
    assert infos[0].text == "thinking about move 0" and infos[0].name == "Chatty"
    assert sum(e.text.startswith("line ") for e in infos) == 50 * len(
        [m for m in match.result.moves if m.move.piece.color is PColor.WHITE])


class LocalThinker(AbstractThinker):
    """Known to no discovery path: its worker imports this module to find it."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(3, board.turn.shape)


def test_a_prototype_made_from_a_class_runs_in_its_worker() -> None:
    runner = ProcessRunner(ThinkerPrototype(LocalThinker, "", FAST))
    try:
        outcome = runner.start(FAST.new_board()).wait(10)
    finally:
        runner.close()
    assert outcome is not None and outcome.forfeit is None
    assert outcome.move == FutureMove(3, PShape.ROUND)


def test_setup_failure_forfeits_every_move() -> None:
    runner = ProcessRunner(proto("badsetup", "xyz"))
    try:
        board = FAST.new_board()
        outcomes = [runner.start(board).wait(5) for _ in range(2)]
    finally:
        runner.close()
    for outcome in outcomes:
        assert outcome is not None and outcome.forfeit is ForfeitReason.SETUP
        assert "could not be set up" in outcome.detail and "cannot parse" in outcome.detail
    assert runner.name == "BadSetup"


@pytest.mark.timing
def test_setup_that_hangs_is_given_up() -> None:
    runner = ProcessRunner(proto("slowsetup"), startup_timeout=0.5)
    started = time.perf_counter()
    try:  # the waits for a core of the referee and its worker aside, as the setup clock does
        with CoreWaits().watching() as waits:
            outcome = runner.start(FAST.new_board()).wait(None)
    finally:
        runner.close()
    assert outcome is not None and outcome.forfeit is ForfeitReason.SETUP
    assert "setting up" in outcome.detail
    assert time.perf_counter() - started - waits.seconds() < 1.5


def test_poll_never_blocks() -> None:
    runner = ProcessRunner(proto("busy"))
    try:
        job = runner.start(FAST.new_board())
        polls, outcome = [], None
        while outcome is None:
            own = OwnTime(os.getpid(), threading.get_native_id())  # a busy machine aside
            outcome = job.poll()
            own.look()
            polls.append(own.seconds())
            time.sleep(0.005)
    finally:
        runner.close()
    assert outcome.forfeit is ForfeitReason.IGNORED_CANCELLATION
    assert max(polls[:-1]) < 0.05, sorted(polls)[-5:]
    # The last kills the worker and reaps it, which a busy machine may keep
    # from ending for a while: held to the kill's own wait (2 s).
    assert polls[-1] < 2.05


@pytest.mark.timing
def test_close_during_a_turn_kills_the_worker_at_once() -> None:
    factory = Factory()
    match = Match(MatchConfig(time_limit_ms=60_000), proto("busy"), proto("sequential"),
                  factory)
    match.update()
    time.sleep(0.2)
    start = time.perf_counter()
    match.close()
    match.close()
    assert time.perf_counter() - start < 0.5
    assert not any(alive(p) for p in factory.pids)


def test_cancel_then_start_again_waits_for_the_worker() -> None:
    runner = ProcessRunner(proto("sleepy"))
    try:
        board = FAST.new_board()
        first = runner.start(board)
        first.cancel()
        second = runner.start(board).wait(5)
    finally:
        runner.close()
    assert second is not None and second.forfeit is ForfeitReason.TIMEOUT


# ------------------------------------------------------------------ session
SESSION_PLAYERS = [("sequential", ""), ("raise", ""), ("sleepy", ""), ("busy", ""),
                   ("segfault", ""), ("hog", "")]
"""Six players, 30 matches: an exception, a timeout, a deaf loop, a crash and
a memory hog in one session (test_each_misbehaviour_forfeits_its_match has
every misbehaviour, each in a match of its own)."""
SESSION_REASONS = {"Raise": R.EXCEPTION, "Sleepy": R.TIMEOUT, "Busy": R.IGNORED_CANCELLATION,
                   "Exit": R.WORKER_DIED, "Segfault": R.WORKER_DIED, "Hog": R.MEMORY,
                   "Invalid": R.INVALID_COLUMN}


def test_a_session_of_misbehaving_thinkers_finishes_with_correct_standings() -> None:
    mc = MatchConfig(time_limit_ms=200)  # the CPU clock: a busy machine bends none of it
    players = [proto(name, params, mc) for name, params in SESSION_PLAYERS]
    factory = Factory(grace=0.2)  # a thinker that ignores a stop is killed sooner
    session = Session(players, mc, SessionOptions(run=RunOptions(runner_factory=factory)))
    durations: list[float] = []

    def timed(match: Match) -> object:
        started = time.perf_counter()
        with CoreWaits().watching() as waits:  # the waits for a core of all its processes aside
            result = match.run()
        durations.append(time.perf_counter() - started - waits.seconds())
        return result

    table = session.run(timed)  # type: ignore[arg-type]
    n = len(players)
    # The limit and the grace, each up to its backstop, and a second for the workers.
    bound = forfeit_within(mc, extra=1 + start_allowance())
    assert len(session.records) == n * (n - 1) and max(durations) < bound, durations
    assert (table[0].name, table[0].points, table[0].wins) == ("Sequential", 6 * (n - 1),
                                                               2 * (n - 1))
    assert {(s.position, s.points, s.wins, s.losses) for s in table[1:]} == {
        (2, 3 * (n - 2), n - 2, n)}
    for record in session.records:
        loser = record.result.red if record.result.winner is Winner.WHITE else record.result.white
        reason = record.result.forfeit
        if loser == "Hog" and not address_cap():  # see HOG: time may come first
            assert reason in (R.MEMORY, R.TIMEOUT, R.IGNORED_CANCELLATION)
        else:
            assert reason is SESSION_REASONS[loser]
    assert len(factory.pids) == 2 * n * (n - 1)
    assert not any(alive(p) for p in factory.pids)


# --------------------------------------------------- the parent going away
CHILD = textwrap.dedent("""
    import sys
    from csl_game import MatchConfig, ThinkerPrototype
    from csl_game.engine.match import Match
    from csl_game.engine.runners.process import ProcessRunner
    runners = []
    def factory(prototype, info):
        runners.append(ProcessRunner(prototype, info))
        return runners[-1]
    mc = MatchConfig(time_limit_ms=60_000)
    match = Match(mc, ThinkerPrototype("busy", "", mc, (sys.argv[1],)),
                  ThinkerPrototype("sequential", "", mc), factory)
    match.update()
    print(" ".join(str(r.pid) for r in runners), flush=True)
    match.run()
""")


def _start_child() -> tuple[subprocess.Popen[str], list[int]]:
    child = subprocess.Popen([sys.executable, "-c", CHILD, MISBEHAVING[0]],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             **INTERRUPTIBLE)
    assert child.stdout is not None
    pids = [int(p) for p in child.stdout.readline().split()]
    assert len(pids) == 2 and all(alive(p) for p in pids)
    time.sleep(0.3)  # the busy thinker is well into its think()
    family = descendants(child.pid, helpers=True)
    assert set(pids) < family  # with the fork server and resource tracker
    return child, sorted(family)


POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="sends POSIX signals")


@pytest.mark.timing
@POSIX_ONLY
def test_ctrl_c_during_an_ai_turn_exits_within_a_second() -> None:
    child, pids = _start_child()
    own = OwnTime(child.pid, tree=True)  # its and its workers' waits for a core aside
    child.send_signal(signal.SIGINT)
    while child.poll() is None and own.seconds() < 5:
        own.look()
        time.sleep(0.005)
    _, errors = child.communicate(timeout=5)
    assert own.seconds() < 1, errors
    assert "KeyboardInterrupt" in errors
    assert gone_within(pids, 0.5)


@POSIX_ONLY
def test_workers_die_with_a_killed_parent() -> None:
    child, pids = _start_child()
    child.kill()
    child.communicate(timeout=5)
    assert gone_within(pids, 2)
