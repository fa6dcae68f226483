"""Setting a thinker up once before it plays: its name, or why it cannot play.

A session needs its players' names before its first match, and a setup
screen wants to know whether a thinker accepts its parameters. Both mean
running thinker code (its constructor, setup() and __str__), so a
`SetupProbe` runs them in a worker process, with the setup time limit, and
never blocks: `poll()` it every frame, or `wait()` for it. A setup that
hangs, exits, raises a BaseException or eats its memory is the thinker's
forfeit, with its reason; one that raises an Exception is the thinker
refusing its parameters. In-process mode (debugging) runs them in this
process, at once.

A probe given a `WorkerPool` hands its worker, set up and healthy, to the
pool instead of ending it: the session's first matches take it from there
(with a fresh thinker) rather than starting processes of their own.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from csl_game.engine.runners.answer import plain_text
from csl_game.engine.runners.base import MEMORY_LIMIT_MB, SETUP_TIME_LIMIT, Forfeit, ForfeitReason
from csl_game.engine.runners.handle import WorkerHandle
from csl_game.errors import SetupRefused, ThinkerError
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:
    from csl_game.engine.runners.process import WorkerPool

__all__ = ["SetupReport", "SetupProbe", "ProbeGroup", "probe_all"]


@dataclass(frozen=True)
class SetupReport:
    """How setting a thinker up went."""

    name: str
    """Its display name: its str() as read where it was set up, or the
    class-name rule's name when that failed."""
    forfeit: Forfeit | None = None
    """Why each of its matches is lost, when its setup failed."""
    refused: bool = False
    """Its constructor or setup() raised an Exception: it refuses its parameters."""
    error: str = ""
    """When refused: the class name of the exception it raised (``ValueError``)."""
    reason: str = ""
    """When refused: that exception's message, in the thinker's own words."""
    where: str = ""
    """When refused: where the thinker's code raised it ('FILE, line N, in FUNCTION: CODE')."""

    @property
    def ok(self) -> bool:
        """Whether the thinker was set up and named."""
        return self.forfeit is None


def _in_process(prototype: ThinkerPrototype) -> SetupReport:
    """Set up and name the thinker here (in-process mode: thinker code may run here)."""
    try:
        thinker = prototype.create()
    except SetupRefused as e:
        return SetupReport(prototype.default_name, Forfeit(ForfeitReason.SETUP, str(e)),
                           True, e.error, e.reason, e.where)
    except ThinkerError as e:  # it failed (an engine that would not start): no refusal
        return SetupReport(prototype.default_name, Forfeit(ForfeitReason.SETUP, str(e)))
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # user code: SystemExit and friends are forfeits too
        return SetupReport(prototype.default_name, Forfeit(
            ForfeitReason.SETUP, f"thinker {prototype.fqn} could not be set up: "
                                     f"{type(e).__name__}: {e}"))
    try:
        return SetupReport(plain_text(str(thinker)))
    except Exception as e:
        return SetupReport(f"{prototype.default_name} (its name could not be read: "
                           f"{type(e).__name__})")


class SetupProbe:
    """Sets one thinker up in a worker process and reads its name, without blocking.

    With a `pool`, a worker whose thinker was set up goes to it once the
    report is known, for a match to take.

    Raises:
        WorkerStartError: no worker process could be started (from the
            constructor, or from `poll()` when the worker could not make itself ready).
    """

    def __init__(self, prototype: ThinkerPrototype, *, in_process: bool = False,
                 setup_limit: float = SETUP_TIME_LIMIT, memory_limit_mb: int = MEMORY_LIMIT_MB,
                 pool: WorkerPool | None = None) -> None:
        self.prototype = prototype
        self._report: SetupReport | None = None
        self._worker: WorkerHandle | None = None
        self._pool = pool
        if in_process:
            self._report = _in_process(prototype)
            return
        from csl_game.engine.runners.process import worker_spec

        self._worker = WorkerHandle(worker_spec(prototype, memory_limit_mb), None, setup_limit)

    def poll(self) -> SetupReport | None:
        """The report once the thinker is set up or has failed; None meanwhile."""
        worker = self._worker
        if self._report is None and worker is not None:
            done = worker.setup_done()
            if done is None:
                return None
            if isinstance(done, str):
                self._report = SetupReport(done)
            else:
                error = worker.setup_error
                if error is not None and error.refused:
                    self._report = SetupReport(self.prototype.default_name, done, True,
                                               error.error, error.reason, error.where)
                else:
                    self._report = SetupReport(self.prototype.default_name, done)
            if self._report.ok and self._pool is not None and self._pool.give(worker):
                self._worker = None
            self.close()
        return self._report

    def wait(self, timeout: float | None = None) -> SetupReport | None:
        """Block until the report is known, at most `timeout` seconds."""
        end = None if timeout is None else time.perf_counter() + timeout
        while (report := self.poll()) is None:
            assert self._worker is not None
            step = 0.05 if end is None else min(0.05, end - time.perf_counter())
            if step <= 0:
                return None
            self._worker.wait_for_news(step)
        return report

    def close(self) -> None:
        """Stop the worker, if it still runs."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None


def _key(prototype: ThinkerPrototype) -> tuple[object, ...]:
    return prototype.fqn, prototype.params, prototype.paths, prototype.match_config


class ProbeGroup:
    """Probes of several players at once, equal players sharing one; polled, never blocking."""

    def __init__(self, prototypes: Sequence[ThinkerPrototype | None], *, in_process: bool,
                 setup_limit: float, memory_limit_mb: int = MEMORY_LIMIT_MB,
                 pool: WorkerPool | None = None) -> None:
        self._probes: dict[tuple[object, ...], SetupProbe] = {}
        self._keys = [None if p is None else _key(p) for p in prototypes]
        for prototype, key in zip(prototypes, self._keys):
            if prototype is not None and key is not None and key not in self._probes:
                self._probes[key] = SetupProbe(prototype, in_process=in_process,
                                               setup_limit=setup_limit,
                                               memory_limit_mb=memory_limit_mb, pool=pool)

    def poll(self) -> list[SetupReport | None] | None:
        """A report per prototype (None where none was given) once all are known."""
        reports = {key: probe.poll() for key, probe in self._probes.items()}
        if any(r is None for r in reports.values()):
            return None
        return [None if key is None else reports[key] for key in self._keys]

    def wait(self) -> list[SetupReport | None]:
        """Block until every report is known."""
        for probe in self._probes.values():
            probe.wait()
        reports = self.poll()
        assert reports is not None
        return reports

    def reverse(self) -> None:
        """Reverse the order of the prototypes (colours swapped before a match)."""
        self._keys.reverse()

    def close(self) -> None:
        """Stop every probe still running."""
        for probe in self._probes.values():
            probe.close()


def probe_all(prototypes: Sequence[ThinkerPrototype], *, in_process: bool = False,
              setup_limit: float = SETUP_TIME_LIMIT,
              memory_limit_mb: int = MEMORY_LIMIT_MB,
              pool: WorkerPool | None = None) -> list[SetupReport]:
    """Set each thinker up once (equal ones share a probe), all at once; block
    until every report is known. With a `pool`, the set-up workers go to it.

    Raises:
        WorkerStartError: no worker process could be started.
    """
    group = ProbeGroup(prototypes, in_process=in_process, setup_limit=setup_limit,
                       memory_limit_mb=memory_limit_mb, pool=pool)
    try:
        reports = group.wait()
    finally:
        group.close()
    return [r for r in reports if r is not None]
