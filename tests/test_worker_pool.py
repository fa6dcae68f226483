"""Worker processes kept between the matches of a session."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import psutil
import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.engine import (
    ForfeitReason,
    Match,
    PostMatch,
    RunOptions,
    Session,
    SessionOptions,
    probe_all,
)
from csl_game.engine.runners.process import ProcessRunner, WorkerPool
from csl_game.sandbox import in_own_namespace
from csl_game.services.settings import AIEntry
from procs import alive, descendants

MISBEHAVING = (str(Path(__file__).parent / "misbehaving"),)


def _gone(pid: int) -> bool:
    return not alive(pid)


def _play(pool: WorkerPool, white: str, red: str, mc: MatchConfig) -> tuple[Match, list[int]]:
    match = Match(mc, ThinkerPrototype(white, "", mc, MISBEHAVING),
                  ThinkerPrototype(red, "", mc, MISBEHAVING), partial(ProcessRunner, pool=pool))
    pids = [r.pid for r in match._runners]  # type: ignore[union-attr]  # noqa: SLF001
    match.run()
    return match, pids


def test_healthy_workers_are_reused_with_a_fresh_thinker() -> None:
    mc = MatchConfig(time_limit_ms=1000)
    pool = WorkerPool()
    try:
        first, pids1 = _play(pool, "sequential", "minimax", mc)
        second, pids2 = _play(pool, "sequential", "minimax", mc)
        assert pids1 == pids2 and pool.reused == 2
        assert [m.move for m in first.result.moves] == [m.move for m in second.result.moves]
    finally:
        pool.close()
    assert all(_gone(p) for p in pids1)


def test_a_failed_worker_is_never_reused() -> None:
    mc = MatchConfig(time_limit_ms=200)
    pool = WorkerPool()
    try:
        match, pids = _play(pool, "busy", "sequential", mc)
        assert match.result is not None
        assert match.result.forfeit is ForfeitReason.IGNORED_CANCELLATION
        assert _gone(pids[0])
        _, again = _play(pool, "busy", "sequential", mc)
        assert again[0] != pids[0] and again[1] == pids[1]
    finally:
        pool.close()
    assert all(_gone(p) for p in pids + again)


def test_tournament_uses_few_processes_and_leaves_none(tmp_path: Path) -> None:
    entries = [AIEntry("random", "1"), AIEntry("sequential"), AIEntry("minimax", "1")]
    seen: set[int] = set()
    before = descendants(os.getpid())
    players = [ThinkerPrototype(e.thinker, e.params, MatchConfig()) for e in entries]
    t = Session(players, MatchConfig(), SessionOptions(tournament=True, run=RunOptions(foreground=False)))
    t.subscribe(lambda e: seen.update(_worker_pids(before)) if isinstance(e, PostMatch) else None)
    t.run()
    assert len(t.records) == 6
    assert 0 < len(seen) <= 4  # 3 thinkers (+1 at most), not 12
    assert all(_gone(p) for p in seen)


def _worker_pids(before: set[int]) -> set[int]:
    """This process's worker processes (multiprocessing's helpers aside; a
    sandboxed worker counted once, by its keeper: the init and worker inside
    its namespace are its own)."""
    return {p for p in descendants(os.getpid()) - before if not in_own_namespace(p)
            and not any(in_own_namespace(c) for c in _parents(p))}


def _parents(pid: int) -> list[int]:
    try:
        return [p.pid for p in psutil.Process(pid).parents()]
    except psutil.Error:
        return []


def test_a_closed_pool_takes_no_worker_back() -> None:
    mc = MatchConfig(time_limit_ms=5000)
    pool = WorkerPool()
    runner = ProcessRunner(ThinkerPrototype("sequential", "", mc), None, pool=pool)
    job = runner.start(mc.new_board())
    assert job.wait(30) is not None
    pid = runner.pid
    assert pid is not None
    pool.close()
    runner.close()  # the match ends after its session closed the pool
    assert _gone(pid)


def test_the_setup_probes_workers_play_the_first_match() -> None:
    mc = MatchConfig(time_limit_ms=1000)
    pool = WorkerPool()
    try:
        reports = probe_all([ThinkerPrototype("sequential", "", mc, MISBEHAVING),
                             ThinkerPrototype("minimax", "", mc, MISBEHAVING)], pool=pool)
        assert all(r.ok for r in reports)
        _, pids = _play(pool, "sequential", "minimax", mc)
        assert pool.reused == 2  # no process was started for the match
    finally:
        pool.close()
    assert all(_gone(p) for p in pids)


def test_a_probe_whose_setup_failed_leaves_no_worker_in_the_pool() -> None:
    mc = MatchConfig(time_limit_ms=1000)
    pool = WorkerPool()
    try:
        report, = probe_all([ThinkerPrototype("badsetup", "", mc, MISBEHAVING)], pool=pool)
        assert not report.ok
        _, pids = _play(pool, "sequential", "sequential", mc)
        assert pool.reused == 0
    finally:
        pool.close()
    assert all(_gone(p) for p in pids)


def test_a_session_hands_its_probes_workers_to_its_matches() -> None:
    mc = MatchConfig(time_limit_ms=1000)
    players = [ThinkerPrototype("sequential", "", mc), ThinkerPrototype("random", "1", mc)]
    session = Session(players, mc, SessionOptions(tournament=True, run=RunOptions(foreground=False)))
    session.wait_for_names()
    probed = _worker_pids(set())
    seen: set[int] = set()
    session.subscribe(lambda e: seen.update(_worker_pids(set()))
                      if isinstance(e, PostMatch) else None)
    session.run()
    assert len(session.records) == 2
    assert seen and seen <= probed  # the probes' workers played every match
    assert all(_gone(p) for p in probed)


def test_a_bot_keeps_a_worker_set_up_for_each_game_it_plays_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before it connects, a bot with --games 2 sets two workers up and keeps them
    warm: its games' first moves take them, and wait for no process to start
    (a busy machine stretches that to seconds of the server's clock). A
    game's thinker is started when the game is announced."""
    import asyncio
    import time

    from csl_game.server.bot import BotSpec, _Bot
    from csl_game.server.thinking import SeatThinker

    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path))  # where a bot keeps its tokens

    async def play() -> tuple[int, int, object]:
        bot = _Bot(BotSpec("http://127.0.0.1:9", "random", games=2), lambda _: None)
        assert bot.pool is not None
        try:
            await bot.warm(asyncio.Event())
            deadline = time.monotonic() + 60
            while bot.pool.idle < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            warm = bot.pool.idle
            mc = MatchConfig()
            seat = SeatThinker(ThinkerPrototype("random", "", mc), pool=bot.pool)
            await seat.start()  # made before its first move is asked for
            answer = await seat.answer(mc.new_board())
            seat.close()
            return warm, bot.pool.reused, answer
        finally:
            bot.pool.close()

    warm, reused, answer = asyncio.run(play())
    assert warm == 2 and reused == 1
    assert isinstance(answer, tuple), answer


def test_a_finalizer_in_the_memory_watch_thread_can_close_workers() -> None:
    """A garbage collection in the memory watch's thread, while it holds its
    lock, may run a Session's finalizer, which closes its pool's workers and
    so forgets their trees: that must return, not wait for the lock it holds
    (CI hung there once, the test's main thread waiting for it too)."""
    import threading

    from csl_game.engine.runners.tree import MemoryWatch

    watch = MemoryWatch()
    done = threading.Event()

    def finalizer_while_locked() -> None:
        with watch._lock:  # noqa: SLF001 - as the watch's own thread holds it
            watch.forget(psutil.Process())
            done.set()

    thread = threading.Thread(target=finalizer_while_locked, daemon=True)
    thread.start()
    thread.join(5)
    assert done.is_set()


_STARTER_KILLED = """
import os, signal, time
from csl_game.engine.runners.handle import WorkerHandle
from csl_game.engine.runners.process import worker_spec
from csl_game.forkserver import server_pid
from csl_game.thinker.prototype import ThinkerPrototype

if __name__ == "__main__":
    worker = WorkerHandle(worker_spec(ThinkerPrototype("sequential"), 0), None, 60)
    until = time.monotonic() + 60
    while worker.setup_done() is None and time.monotonic() < until:
        time.sleep(0.01)
    server = server_pid()
    if server is None:  # workers are spawned (Windows)
        raise SystemExit(print("spawned"))
    os.kill(server, signal.SIGKILL)  # what a thinker without the sandbox may do
    while not worker.is_dead() and time.monotonic() < until:
        time.sleep(0.01)
    forfeit = worker.death()
    print(forfeit.reason.name, forfeit.detail, sep="\\n")
    worker.kill()
"""


def test_a_worker_whose_fork_server_another_killed_is_not_blamed(tmp_path: Path) -> None:
    """Without the sandbox a thinker can kill csl-game's fork server, which
    tells each worker's exit code: a worker it started then has none of its
    own (multiprocessing gives it 255). Its match is played again
    (`interfered`), not forfeited for a death that was not its thinker's."""
    script = tmp_path / "starter_killed.py"
    script.write_text(_STARTER_KILLED, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "CSL_GAME_SANDBOX": "off"})
    assert done.returncode == 0, done.stderr
    if done.stdout.strip() == "spawned":
        pytest.skip("workers are spawned here: there is no fork server")
    reason, detail = done.stdout.strip().splitlines()
    assert reason == "INTERFERED", detail
    assert "fork server" in detail and "killed by a signal csl-game did not send" in detail
