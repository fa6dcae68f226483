"""Engines: executables speaking the engine protocol play as thinkers.

The Python example engine and a misbehaving engine (tests/engines/) play
whole matches in worker processes, as every thinker does; each misbehaviour
costs its match with the reason a Python thinker's would. The C example is
built and played where a C compiler is found.
"""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

import procs
from csl_game import CancellationToken, FutureMove, MatchConfig, PColor, ThinkerPrototype
from csl_game.engine import (
    ForfeitReason,
    InfoCallback,
    InvalidPlay,
    Match,
    ThinkingInfo,
    ThreadRunner,
    probe_all,
)
from csl_game.engine.runners.process import ProcessRunner
from csl_game.errors import ConfigError, ThinkerError
from csl_game.thinker import engine_thinker
from csl_game.thinker.discovery import registry
from csl_game.thinker.engine_thinker import EngineSpec, engine_class
from procs import CoreWaits, forfeit_within

pytestmark = pytest.mark.timing

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "engines"
BAD = Path(__file__).resolve().parent / "engines" / "misbehaving_engine.py"
PY = sys.executable
LIMIT_MS = 250
FAST = MatchConfig(time_limit_ms=LIMIT_MS)
WALL = MatchConfig(time_limit_ms=LIMIT_MS, clock="wall")
"""An engine that waits (never answers, or only when told to stop) loses at the
limit on the wall clock; on the CPU clock only at the backstop, 10 times later."""
FULL = MatchConfig(rows=2, cols=3, win_sequence=3, time_limit_ms=LIMIT_MS)
FEW_ROUND = MatchConfig(win_sequence=6, round_pieces=2, square_pieces=19, time_limit_ms=LIMIT_MS)
PROMPT = LIMIT_MS / 1000 + 2  # every forfeit within the limit, plus engine start-ups


def source(name: str, command: str) -> str:
    return EngineSpec.parse(f"{name}={command}").source


PYRANDOM = source("pyrandom", f"{PY} {EXAMPLES / 'random_engine.py'}")


def bad(mode: str) -> str:
    return source(mode, f"{PY} {BAD} {mode}")


def engine_pids() -> set[int]:
    """Processes running one of this test's engine scripts."""
    found = set()
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or ())
        if any(name in cmdline for name in ("misbehaving_engine.py", "random_engine",
                                            "thinking_engine")):
            found.add(proc.pid)
    return found


@pytest.fixture(autouse=True)
def no_engine_left() -> Iterator[None]:
    """Each test's engines are gone soon after it ends."""
    before = engine_pids()
    yield
    gc.collect()
    deadline = time.monotonic() + 3
    while engine_pids() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not engine_pids() - before


def play(white: ThinkerPrototype, red: ThinkerPrototype, mc: MatchConfig,
         in_process: bool = False) -> tuple[Match, list[object]]:
    def factory(prototype: ThinkerPrototype, info: InfoCallback) -> ProcessRunner | ThreadRunner:
        return ThreadRunner(prototype, info) if in_process else ProcessRunner(prototype, info)

    match = Match(mc, white, red, factory)
    events: list[object] = []
    match.subscribe(events.append)
    try:
        match.run()
    finally:
        match.close()
    return match, events


# ------------------------------------------------------------ declarations
@pytest.mark.parametrize("text, name, command", [
    ("crandom=./random_engine", "crandom", "./random_engine"),
    (" c.2+x = mono Host.exe T.dll  ", "c.2+x", "mono Host.exe T.dll"),
    ("e=python3 -c 'print(1)'", "e", "python3 -c 'print(1)'"),
    ("a=b=c", "a", "b=c"),
])
def test_a_declaration_names_an_engine_and_its_command(text: str, name: str,
                                                       command: str) -> None:
    spec = EngineSpec.parse(text)
    assert (spec.name, spec.command) == (name, command)
    assert EngineSpec.from_source(spec.source) == spec
    assert EngineSpec.parse(spec.declaration) == spec


@pytest.mark.parametrize("text, problem", [
    ("crandom", "write NAME=COMMAND"),
    ("crandom=", "write NAME=COMMAND"),
    ("=./engine", "engine name ''"),
    ("my engine=./engine", "engine name 'my engine'"),
    ("-x=./engine", "engine name '-x'"),
    ("e=python3 'unclosed", "No closing quotation"),
])
def test_a_bad_declaration_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        EngineSpec.parse(text)


def test_a_path_is_no_engine() -> None:
    assert EngineSpec.from_source("my_thinkers/") is None


def test_discovery_knows_an_engine_by_its_name() -> None:
    reg = registry((PYRANDOM,))
    cls = reg.resolve("PyRandom")
    assert cls is engine_class(EngineSpec.parse(PYRANDOM.removeprefix("engine:")))
    fqn = "csl_game.thinker.engine_thinker.EngineThinker[pyrandom]"
    assert reg.resolve(fqn) is cls and reg.short_name(fqn) == "pyrandom"
    assert "pyrandom" not in {n.lower() for n in (registry().classes)}


def test_an_engine_name_declared_twice_with_two_commands_is_refused() -> None:
    with pytest.raises(ThinkerError, match="declared twice"):
        registry((source("twin", "./a"), source("twin", "./b")))
    assert registry((source("twin", "./a"), source("twin", "./a"))).resolve("twin")


def test_an_engine_sharing_a_builtin_name_is_ambiguous() -> None:
    reg = registry((source("random", "./x"),))
    with pytest.raises(ThinkerError, match="ambiguous"):
        reg.resolve("random")


# ----------------------------------------------------------------- playing
def test_the_example_engine_plays_in_process_with_its_own_name() -> None:
    thinker = ThinkerPrototype("pyrandom", "7", FAST, (PYRANDOM,)).create()
    try:
        assert str(thinker) == "RandomPy"
        board = FAST.new_board()
        for _ in range(20):
            move = thinker.think(board.copy(), CancellationToken())
            assert board.move_problem(move.shape, move.column) is None
            board.do_move(move.shape, move.column)
    finally:
        assert isinstance(thinker, engine_thinker.EngineThinker)
        thinker.close()


@pytest.mark.parametrize("in_process", [False, True], ids=["worker", "in-process"])
def test_the_example_engine_plays_a_whole_match(in_process: bool) -> None:
    mc = MatchConfig(time_limit_ms=2000)
    engine = ThinkerPrototype("pyrandom", "1", mc, (PYRANDOM,))
    match, events = play(engine, ThinkerPrototype("random", "2", mc), mc, in_process)
    assert match.result is not None and match.result.forfeit is None
    infos = [e for e in events if isinstance(e, ThinkingInfo)]
    assert infos and all("legal moves" in e.text for e in infos)


# ------------------------------------------------------ the thinking example
THINKING = EXAMPLES / "thinking_engine.py"


def test_the_thinking_engine_answers_stop_at_once() -> None:
    """Deep in a search with a minute to go, it answers `stop` well within the
    grace a worker gives (CANCEL_GRACE), with the best move found so far."""
    from csl_game.engine.runners.process import CANCEL_GRACE

    engine = subprocess.Popen([PY, str(THINKING)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None
    try:
        for line in ("csl 1", "setup 7 9 4 40 40 60000", "position 4r 4s", "go 60000"):
            engine.stdin.write(line + "\n")
        engine.stdin.flush()
        assert engine.stdout.readline().split()[:2] == ["csl", "1"]
        assert engine.stdout.readline().startswith("ready")
        # thinking now (no answer is due for a minute): depth 4 is done, depth 5
        # under way (about a second of search on its own)
        while not (line := engine.stdout.readline()).startswith("info depth 4 "):
            assert line.startswith("info depth"), line
        sent = time.perf_counter()
        engine.stdin.write("stop\n")
        engine.stdin.flush()
        while not (line := engine.stdout.readline()).startswith("move"):
            assert line.startswith("info"), line
        waited = time.perf_counter() - sent
        assert waited < CANCEL_GRACE / 2, f"answered stop in {waited * 1000:.0f} ms"
        assert line.split()[1] in {f"{c}{s}" for c in range(9) for s in "rs"}
        engine.stdin.write("quit\n")
        engine.stdin.flush()
        assert engine.wait(5) == 0
    finally:
        engine.kill()
        engine.wait()


def test_the_thinking_engine_knows_the_winning_rule() -> None:
    """At depth 1 it takes an immediate win whenever the board has one (shape
    before colour, as csl-game's board judges), over 40 positions of random
    games: its rules are the game's."""
    import random

    from csl_game import Winner
    from csl_game.model.notation import format_move

    mc = MatchConfig(rows=5, cols=6, win_sequence=3, round_pieces=15, square_pieces=15)
    rng = random.Random(5)
    engine = subprocess.Popen([PY, str(THINKING)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None
    checked = 0
    try:
        engine.stdin.write("csl 1\nsetup 5 6 3 15 15 5000 1\n")
        engine.stdin.flush()
        engine.stdout.readline(), engine.stdout.readline()
        while checked < 40:
            board = mc.new_board()
            while board.check_winner() == Winner.NONE:
                mover = board.turn.winner
                winning = set()
                for col, shape in board.legal_moves():
                    board.do_move(shape, col)
                    if board.check_winner() == mover:
                        winning.add(f"{col}{'rs'[int(shape)]}")
                    board.undo_move()
                if winning:
                    history = " ".join(format_move(m.col, m.piece.shape) for m in board.history)
                    engine.stdin.write(f"position {history}\ngo 5000\n")
                    engine.stdin.flush()
                    while not (line := engine.stdout.readline()).startswith("move"):
                        pass
                    assert line.split()[1] in winning, (history, winning, line)
                    checked += 1
                col, shape = rng.choice(board.legal_moves())
                board.do_move(shape, col)
    finally:
        engine.kill()
        engine.wait()


def test_the_thinking_engine_plays_whole_matches_in_time() -> None:
    mc = MatchConfig(time_limit_ms=LIMIT_MS)
    thinking = source("thinking", f"{PY} {THINKING}")
    for colour in range(2):
        players = [ThinkerPrototype("thinking", "", mc, (thinking,)),
                   ThinkerPrototype("random", "3", mc)]
        match, _ = play(*players[::1 - 2 * colour], mc)
        assert match.result is not None and match.result.forfeit is None
        assert match.result.winner == (PColor.WHITE, PColor.RED)[colour].winner


def test_a_seeded_engine_plays_the_same_moves_again() -> None:
    def moves() -> list[FutureMove]:
        thinker = ThinkerPrototype("pyrandom", "42", FAST, (PYRANDOM,)).create()
        board, played = FAST.new_board(), []
        for _ in range(8):
            played.append(thinker.think(board.copy(), CancellationToken()))
            board.do_move(played[-1].shape, played[-1].column)
        return played

    assert moves() == moves()


R = ForfeitReason
CASES = [  # mode, config, reason, text in the detail
    ("hang", WALL, R.IGNORED_CANCELLATION, "was killed"),
    ("slow", WALL, R.TIMEOUT, f"time limit {LIMIT_MS} ms"),
    ("spin", FAST, R.TIMEOUT, f"time limit {LIMIT_MS} ms of CPU time"),  # the engine's CPU
    ("late", WALL, R.TIMEOUT, f"time limit {LIMIT_MS} ms of wall-clock time"),
    ("crash", FAST, R.WORKER_DIED, "exited with code 3"),
    ("segfault", FAST, R.WORKER_DIED, "SIGSEGV"),
    ("garbage", FAST, R.EXCEPTION, "sent 'hello there', which is not a line of the engine"),
    ("debug", FAST, R.EXCEPTION, "debugging output goes to standard error"),
    ("badmove", FAST, R.EXCEPTION, "answered 'move 3x': '3x' is not a move"),
    ("negative", FAST, R.EXCEPTION, "'-1r' is not a move"),
    ("twice", FAST, R.EXCEPTION, "after its answer, without being asked"),
    ("error", FAST, R.EXCEPTION, "reported an error (waiting for a move): deliberate failure"),
    ("none", FAST, R.NO_MOVE, ""),
    ("column", FAST, R.INVALID_COLUMN, "round at column 99"),
    ("full", FULL, R.FULL_COLUMN, "column 0"),
    ("round", FEW_ROUND, R.NO_PIECES, "round"),
    ("refuse", FAST, R.SETUP, "cannot use parameters xyz"),
    ("version", FAST, R.SETUP, "speaks protocol version 2"),
    ("quit-early", FAST, R.SETUP, "ended before it was set up: its process exited with code 0"),
]


@pytest.mark.timing
@pytest.mark.parametrize("mode, mc, reason, text", CASES,
                         ids=[f"{c[0]}-{c[1].clock}" for c in CASES])
def test_each_misbehaviour_forfeits_its_match(mode: str, mc: MatchConfig,
                                              reason: ForfeitReason, text: str) -> None:
    engine = ThinkerPrototype(mode, "xyz", mc, (bad(mode),))
    started = time.perf_counter()
    with CoreWaits().watching() as waits:  # the waits for a core of the referee and engines aside
        match, events = play(engine, ThinkerPrototype("sequential", "", mc), mc)
    took = time.perf_counter() - started - waits.seconds()
    assert match.result is not None
    assert (match.result.forfeit, match.result.winner) == (reason, PColor.RED.winner)
    assert text in match.result.detail
    # On the CPU clock a busy machine may stretch a move up to its backstops.
    assert took < (PROMPT if mc.clock == "wall" else forfeit_within(mc, extra=2))
    invalid = [e for e in events if isinstance(e, InvalidPlay)]
    assert len(invalid) == 1 and invalid[0].color is PColor.WHITE


@pytest.mark.parametrize("mode, reason", [("hang", R.TIMEOUT), ("crash", R.WORKER_DIED),
                                          ("garbage", R.EXCEPTION)])
def test_misbehaviour_in_process_forfeits_too(mode: str, reason: ForfeitReason) -> None:
    engine = ThinkerPrototype(mode, "", WALL, (bad(mode),))
    match, _ = play(ThinkerPrototype("sequential", "", WALL), engine, WALL, in_process=True)
    assert match.result is not None
    assert (match.result.forfeit, match.result.winner) == (reason, PColor.WHITE.winner)


def test_closing_a_thread_runner_ends_its_engine_at_once() -> None:
    before = engine_pids()
    runner = ThreadRunner(ThinkerPrototype("pyrandom", "", FAST, (PYRANDOM,)), lambda _: None)
    job = runner.start(FAST.new_board())
    deadline = time.monotonic() + PROMPT
    while job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    started = engine_pids() - before
    assert len(started) == 1, "the engine runs while its runner lives"
    runner.close()
    assert not any(procs.alive(pid) for pid in started), "gone before the runner is dropped"
    runner.close()  # twice is harmless


@pytest.mark.timing
def test_a_hung_engine_in_process_is_killed_after_the_stop_grace() -> None:
    thinker = ThinkerPrototype("hang", "", FAST, (bad("hang"),)).create()
    ct = CancellationToken()
    ct.cancel()
    start = time.perf_counter()
    assert thinker.think(FAST.new_board(), ct) == FutureMove.NO_MOVE
    assert engine_thinker.STOP_GRACE <= time.perf_counter() - start < engine_thinker.STOP_GRACE + 1


def test_info_lines_and_standard_error_reach_the_message_log() -> None:
    engine = ThinkerPrototype("chatty", "", FAST, (bad("chatty"),))
    _, events = play(engine, ThinkerPrototype("sequential", "", FAST), FAST)
    texts = [e.text for e in events if isinstance(e, ThinkingInfo)]
    assert "looking at 3 moves" in texts and "a line on standard error" in texts


def _worker_name(prototype: ThinkerPrototype) -> str:
    """The name the thinker gives itself where it is set up (a worker process)."""
    return probe_all([prototype])[0].name


def test_the_engine_name_is_its_own_or_else_the_declared_one() -> None:
    assert _worker_name(ThinkerPrototype("chatty", "", FAST, (bad("chatty"),))) == "Bad chatty"
    nameless = ThinkerPrototype("nameless", "", FAST, (bad("nameless"),))
    assert _worker_name(nameless) == "nameless"


def test_an_engine_that_is_not_there_cannot_be_set_up() -> None:
    proto = ThinkerPrototype("ghost", "", FAST, (source("ghost", "/no/such/engine"),))
    with pytest.raises(ThinkerError, match="cannot start `/no/such/engine`"):
        proto.create()


def test_an_engine_silent_at_the_handshake_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_thinker, "HELLO_TIMEOUT", 0.3)
    proto = ThinkerPrototype("silent", "", FAST, (bad("silent"),))
    with pytest.raises(ThinkerError, match="silent' .*misbehaving_engine.py silent`. did not "
                                           "answer `csl 1` within 0.3 s"):
        proto.create()


# --------------------------------------------------------------- C example
@pytest.fixture(scope="module")
def c_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) to build examples/engines/random_engine.c")
    binary = tmp_path_factory.mktemp("c_engine") / "random_engine"
    subprocess.run([compiler, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2",
                    "-o", str(binary), str(EXAMPLES / "random_engine.c")],
                   check=True, capture_output=True, timeout=120)
    return binary


@pytest.mark.parametrize("mc", [MatchConfig(time_limit_ms=2000),
                                MatchConfig(rows=9, cols=37, win_sequence=5, round_pieces=83,
                                            square_pieces=84, time_limit_ms=2000)],
                         ids=["6x7", "9x37"])
def test_the_c_example_engine_plays_a_whole_match(c_engine: Path, mc: MatchConfig) -> None:
    engine = ThinkerPrototype("crandom", "3", mc, (source("crandom", str(c_engine)),))
    assert _worker_name(engine) == "RandomC"
    match, events = play(ThinkerPrototype("random", "1", mc), engine, mc)
    assert match.result is not None and match.result.forfeit is None
    assert any(isinstance(e, ThinkingInfo) and "legal moves" in e.text for e in events)


def test_the_python_and_c_engines_play_a_whole_session(c_engine: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    from csl_game.cli import main

    games = tmp_path / "games.txt"
    games.write_text(f"# engines are declared as on the command line\n"
                     f"--engine pyrandom={PY} {EXAMPLES / 'random_engine.py'}\n"
                     f"--engine \"crandom={c_engine}\"\n"
                     "pyrandom 1\ncrandom 2\nrandom 3\n", encoding="utf-8")
    results = tmp_path / "results.jsonl"
    code = main(["session", "-g", str(games), "-t", "1000", "--workers", "2", "--quiet",
                 "--results", str(results)])
    assert code == 0, capsys.readouterr().err
    docs = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert len(docs) == 6 and not [d for d in docs if d.get("forfeit")]
    names = {d["white"]["name"] for d in docs}
    assert {"RandomPy", "RandomC", "Random"} == names
    out = capsys.readouterr().out
    assert "RandomPy" in out and "RandomC" in out
