"""What the verbs that play matches share: the thinkers checked before anything
plays, the setup and memory limits of the flags, a Dask cluster to play on,
the results file (a new one, or one resumed) and the forfeits printed at the end."""

from __future__ import annotations

import argparse
import re
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Executor
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, TextIO

from csl_game.engine import (
    MEMORY_LIMIT_MB,
    Player,
    SetupReport,
    duplicates_note,
    first_lines,
    probe_all,
    read_results,
    sandbox_note,
    worker_pool,
)
from csl_game.errors import ConfigError, UsageError
from csl_game.services.forfeits import Forfeits
from csl_game.services.narration import counted
from csl_game.services.players import refusal
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:
    from csl_game.engine import WorkerPool

__all__ = ["check_thinkers", "warm_pool", "report_every", "setup_limit_of", "memory_limit_of", "MIN_MEMORY_LIMIT_MB",
           "dask_executor", "DASK_TIMEOUT", "results_paths", "refuse_used_results",
           "resumed_lines", "print_forfeits", "say_sandbox"]

DASK_TIMEOUT = 10.0
"""Seconds to reach a Dask scheduler before giving up."""
_DASK_ADDRESS = re.compile(r"^(?:(tcp|tls|inproc|ucx|ws|wss)://)?\[?[\w.:-]+\]?:\d{1,5}$")
def warm_pool(in_process: bool, stack: ExitStack) -> WorkerPool | None:
    """A pool for the setup probes to leave their workers in, for the session's
    matches to take (`SessionOptions.pool`); closed with `stack`. None in-process."""
    if in_process:
        return None
    pool = worker_pool()
    stack.callback(pool.close)
    return pool


def say_sandbox() -> None:
    """One line on standard error where thinkers' workers get no sandbox
    here (and why), before anything plays; nothing where they do."""
    line = sandbox_note()
    if line:
        print(f"csl-game: {line}", file=sys.stderr, flush=True)


def check_thinkers(players: Sequence[Player], where: Sequence[str], in_process: bool,
                   setup_limit: float, memory_limit_mb: int = MEMORY_LIMIT_MB,
                   pool: WorkerPool | None = None, network: Sequence[str] = (),
                   ) -> list[SetupReport | None]:
    """Set each AI player up once, in a worker process, before anything plays;
    returns the reports (None for humans) for the session to use. With a
    `pool`, the set-up workers wait there for the session's first matches.
    The thinkers `network` names (--network) keep the network in their sandbox.

    Raises:
        ConfigError: a thinker refuses its parameters (`where` names each player).
        UsageError: `network` names no player.
        WorkerStartError: no worker process could be started.
    """
    protos = [p for p in players if isinstance(p, ThinkerPrototype)]
    for name in network:
        chosen = [p for p in protos if name.lower() in (p.requested_name.lower(), p.fqn.lower())]
        if not chosen:
            raise UsageError(f"--network {name}: no player here is {name} (the players: "
                             f"{', '.join(dict.fromkeys(p.requested_name for p in protos))})")
        for proto in chosen:
            proto.network = True
    if protos and not in_process:
        say_sandbox()
    reports = iter(probe_all(protos, in_process=in_process, setup_limit=setup_limit,
                             memory_limit_mb=memory_limit_mb, pool=pool))
    known: list[SetupReport | None] = []
    for player, place in zip(players, where):
        report = next(reports) if isinstance(player, ThinkerPrototype) else None
        if isinstance(player, ThinkerPrototype) and report is not None:
            problem = refusal(player, report)
            if problem is not None:
                raise ConfigError(f"{place}: {problem}")
        known.append(report)
    return known


def dask_executor(args: argparse.Namespace, stack: ExitStack) -> Executor | None:
    if args.dask is None:
        return None
    address = args.dask.strip()
    if not _DASK_ADDRESS.match(address):
        raise ConfigError(f"--dask: '{args.dask}' is not a scheduler address "
                          "(HOST:PORT or tcp://HOST:PORT)")
    try:
        from dask.distributed import Client
    except ImportError:
        raise ConfigError("--dask needs the dask extra: pip install 'csl-game[dask]'") from None
    client = _connect(Client, address)
    stack.callback(client.close)
    executor: Executor = client.get_executor()
    return executor


def _connect(client_class: Any, address: str) -> Any:
    """A client of the scheduler at `address`, within DASK_TIMEOUT seconds.

    Dask's own timeout does not cover every case (a port that accepts but
    never answers), so the attempt runs on a thread this waits for.

    Raises:
        ConfigError: the scheduler cannot be reached in time.
    """
    got: list[Any] = []
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            got.append(client_class(address, timeout=DASK_TIMEOUT))
        except BaseException as e:  # noqa: BLE001 - reported as one line below
            failed.append(e)

    thread = threading.Thread(target=connect, name="csl-dask-connect", daemon=True)
    thread.start()
    thread.join(DASK_TIMEOUT + 0.5)
    if got:
        return got[0]
    why = (f"{type(failed[0]).__name__}: {failed[0]}" if failed
           else f"no answer within {DASK_TIMEOUT:g} s")
    raise ConfigError(f"cannot reach the Dask scheduler at {address}: {why}".splitlines()[0])


def results_paths(results: str | None, resume: str | None) -> tuple[str, bool]:
    """(the results file, whether to resume from it) of --results and --resume.

    Raises:
        ConfigError: both name files, and not the same one.
    """
    if results and resume and results != resume:
        raise ConfigError("--results and --resume name different files; --resume appends "
                          "to the file it resumes from")
    if results and not resume:
        refuse_used_results(results)
    return (resume or results or ""), bool(resume)


def refuse_used_results(path: str) -> None:
    """Refuse a results file that already holds matches: this run's would be
    mixed with an earlier run's (its standings shown as this one's).

    Raises:
        ConfigError: the file holds at least one match.
    """
    try:
        with open(path, "rb") as f:
            held = sum(1 for line in f if line.strip())
    except OSError:
        return  # a new file (or one the writer will say it cannot open)
    if held:
        raise ConfigError(f"results file {path} already holds "
                          f"{counted(held, 'match line')} of an earlier run: to go on with "
                          f"that run use --resume {path}; to start anew name a new file")


def print_forfeits(forfeits: Forfeits, noun: str = "matches", out: TextIO | None = None) -> None:
    """The forfeits by reason, a line of `out` (standard output) when there were
    any; and the warning when too many games were lost on time, on standard error."""
    summary = forfeits.summary(noun)
    if summary is not None:
        print(f"\n{summary}", file=out or sys.stdout, flush=True)
    warning = forfeits.warning(noun)
    if warning is not None:
        print(f"csl-game: warning: {warning}", file=sys.stderr, flush=True)


def report_every(args: argparse.Namespace) -> int | None:
    """N of --report-every N (None: not given).

    Raises:
        ConfigError: below 1.
    """
    every: int | None = getattr(args, "report_every", None)
    if every is not None and every < 1:
        raise ConfigError(f"--report-every must be at least 1, got {every}")
    return every


def setup_limit_of(args: argparse.Namespace) -> float:
    """Seconds of --setup-time-limit.

    Raises:
        ConfigError: below 1 ms.
    """
    limit: int = args.setup_time_limit
    if limit < 1:
        raise ConfigError(f"--setup-time-limit must be at least 1 ms, got {limit}")
    return min(limit, 3_600_000) / 1000


MIN_MEMORY_LIMIT_MB = 64
"""Below this not even the interpreter of a worker starts."""
def memory_limit_of(args: argparse.Namespace) -> int:
    """MB of --memory-limit.

    Raises:
        ConfigError: below MIN_MEMORY_LIMIT_MB.
    """
    limit: int = args.memory_limit
    if limit < MIN_MEMORY_LIMIT_MB:
        raise ConfigError(f"--memory-limit must be at least {MIN_MEMORY_LIMIT_MB} MB, got {limit}")
    return min(limit, 1 << 30)


def resumed_lines(path: str) -> list[dict[str, Any]]:
    docs, twice = first_lines(read_results(path))
    if twice:
        print(f"csl-game: note: {duplicates_note(path, twice)}", file=sys.stderr, flush=True)
    return docs
