"""Issue 12's closing session: every misbehaving thinker plus an honest one, on the
command line, locally and on a local Dask cluster. It ends by itself with exit 0,
the honest thinker first, every forfeit reason shown, the main process under
300 MB, and no process of the session alive a second after it ends."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from procs import HELPERS, marked

pytestmark = [pytest.mark.slow, pytest.mark.timing, pytest.mark.long]

MISBEHAVING = str(Path(__file__).parent / "misbehaving")
PLAYERS = ["minimax 2", "setuphang", "setupexit", "setupexit hard", "setupbase", "setuphog",
           "strhang", "forker", "forker setsid", "linger"]
SHOWN = ["(setup)"]  # every failed setup is one reason: the thinker never got to play
# ... and what went wrong is in each match's detail in the results file
DETAILS = [("SystemExit: 9",), ("exited with code 0 while setting up",), ("KeyboardInterrupt",),
           # the memory cap: the address-space limit, or the parent's watch of resident memory
           ("ran out of memory while setting up", "MB while setting up"),
           ("took more than 6 s",)]
ARGS = ["-r", "4", "-c", "4", "-w", "3", "-o", "4", "-s", "4", "-t", "1000",
        # a low memory cap: the hog fails in a fraction of a second on a busy machine
        "--memory-limit", "400", "--setup-time-limit", "6000", "--workers", "2",
        "--thinkers", MISBEHAVING]


def _family(root: psutil.Process) -> set[psutil.Process]:
    try:
        return {root, *root.children(recursive=True)}
    except psutil.Error:
        return set()


def _run(tmp_path: Path, extra: list[str]) -> tuple[subprocess.CompletedProcess[str],
                                                      float, set[psutil.Process], int]:
    """Run the session; its peak main-process memory (MB) and every process seen in it."""
    game = tmp_path / "players.txt"
    game.write_text("\n".join(PLAYERS) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "csl_game", "session", "-g", str(game),
                             *ARGS, "--results", str(tmp_path / "r.jsonl"), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    main = psutil.Process(proc.pid)
    peak, seen = 0.0, set()
    deadline = time.monotonic() + 600
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            peak = max(peak, main.memory_info().rss / 2 ** 20)
        except psutil.Error:
            break
        seen |= _family(main)
        time.sleep(0.05)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), peak, seen, proc.pid


def _check_output(done: subprocess.CompletedProcess[str], results: Path) -> None:
    assert done.returncode == 0, done.stderr
    table = done.stdout.split("Final standings:")[1].strip().splitlines()
    first, second = table[1].split(), table[2].split()
    assert first[:2] == ["1.", "MinimaxD2"] and second[0] != "1.", table
    for words in SHOWN:
        assert words in done.stdout, f"{words} is shown"
    details = "\n".join(json.loads(line).get("detail", "") for line in
                        results.read_text(encoding="utf-8").splitlines() if line.strip())
    for either in DETAILS:
        assert any(words in details for words in either), f"{either} is recorded in {details}"


def _alive_after(procs: set[psutil.Process], seconds: float = 10.0) -> list[psutil.Process]:
    """Those of `procs` still alive once they all ended or `seconds` passed
    (a loaded machine may take a while to reap them)."""
    end = time.monotonic() + seconds
    while (left := _gone(procs)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


def _gone(procs: set[psutil.Process]) -> list[psutil.Process]:
    """Those of `procs` still alive (not zombies)."""
    alive = []
    for proc in procs:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except psutil.Error:
            continue
    return alive


def test_the_closing_session_locally(tmp_path: Path) -> None:
    done, peak, seen, pid = _run(tmp_path, [])
    _check_output(done, tmp_path / "r.jsonl")
    assert peak < 300, f"main process peaked at {peak:.0f} MB"
    assert not _alive_after(seen), "a process of the session outlived it"
    assert not marked(pid), "no escapee either"
    print(f"local: peak {peak:.0f} MB, {len(seen)} processes seen")


# ------------------------------------------------------------------ on Dask
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def cluster() -> Iterator[tuple[str, psutil.Process]]:
    pytest.importorskip("distributed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    bin_dir = Path(sys.executable).parent
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                  "--host", "127.0.0.1", "--port", str(port),
                                  "--dashboard-address", ":0"], **quiet)  # type: ignore[call-overload]
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                               "--nworkers", "2", "--nthreads", "1", "--host", "127.0.0.1",
                               "--dashboard-address", ":0", "--memory-limit", "0"],
                              **quiet)  # type: ignore[call-overload]
    assert bin_dir.exists()
    try:
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, psutil.Process(worker.pid)
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_the_closing_session_on_dask(tmp_path: Path,
                                     cluster: tuple[str, psutil.Process]) -> None:
    address, nanny = cluster
    infrastructure = _family(nanny)
    done, peak, seen, _ = _run(tmp_path, ["--dask", address])
    _check_output(done, tmp_path / "r.jsonl")
    assert peak < 300, f"main process peaked at {peak:.0f} MB"
    assert not _alive_after(seen)
    left = [p for p in _alive_after(_family(nanny) - infrastructure) if p not in infrastructure
            and not any(h in " ".join(p.cmdline()) for h in HELPERS)]
    assert not left, "a thinker's process outlived its match on the cluster"
    workers = [p for p in infrastructure if p is not nanny]
    before = sum(p.cpu_times().user + p.cpu_times().system for p in workers)
    time.sleep(1)
    after = sum(p.cpu_times().user + p.cpu_times().system for p in workers)
    assert after - before < 0.3, "nothing burns CPU after the session"
    print(f"dask: peak {peak:.0f} MB, {len(seen)} processes seen")
