"""The players of a session set up once before it starts: their names, or their forfeits.

Names are thinker code (``str(thinker)`` after ``setup()``), so they are
asked in worker processes (`csl_game.engine.runners.probe`), one per
distinct player, all at once and without blocking. Until every answer is
in, the players go by their class-name rule's names. A player whose setup
failed (it hung, exited, raised or ate its memory) keeps that name and
forfeits each of its matches at once, with the reason its setup gave.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from csl_game.engine.match import Human, Player, Remote
from csl_game.engine.runners.base import (
    MEMORY_LIMIT_MB,
    SETUP_TIME_LIMIT,
    Forfeit,
    ForfeitRunner,
    InfoCallback,
    RunnerFactory,
    ThinkerRunner,
)
from csl_game.engine.runners.probe import ProbeGroup, SetupReport
from csl_game.engine.scoring import unique_names
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["PlayerSetups", "failed_setups_factory"]


class PlayerSetups:
    """The display names of a session's players and the setups that failed.

    `known` skips the probes: the reports of an earlier session of the same
    players (one per player, None for humans). With a `pool` (a process
    WorkerPool), the probes' set-up workers go to it for the first matches.

    Raises:
        WorkerStartError: no worker process could be started for a probe.
    """

    def __init__(self, players: Sequence[Player], *, in_process: bool = False,
                 setup_limit: float = SETUP_TIME_LIMIT, memory_limit_mb: int = MEMORY_LIMIT_MB,
                 known: Sequence[SetupReport | None] | None = None, pool: Any = None) -> None:
        self._players = list(players)
        self._group: ProbeGroup | None = None
        self.reports: list[SetupReport | None] | None = None if known is None else list(known)
        if known is None:
            protos = [p if isinstance(p, ThinkerPrototype) else None for p in players]
            self._group = ProbeGroup(protos, in_process=in_process, setup_limit=setup_limit,
                                     memory_limit_mb=memory_limit_mb, pool=pool)
            self.poll()

    @property
    def pending(self) -> bool:
        """Whether some player's setup is still going on."""
        return self.reports is None

    def poll(self) -> bool:
        """Take the answers that came in, without blocking; whether all are known."""
        if self.reports is None and self._group is not None:
            self.reports = self._group.poll()
            if self.reports is not None:
                self.close()
        return self.reports is not None

    def wait(self) -> None:
        """Block until every player's setup is known."""
        if self.reports is None and self._group is not None:
            self.reports = self._group.wait()
            self.close()

    def names(self) -> tuple[str, ...]:
        """Each player's display name, numbered where several share one."""
        return unique_names([self._name(i) for i in range(len(self._players))])

    def _name(self, index: int) -> str:
        player = self._players[index]
        if isinstance(player, Human | Remote):
            return player.name
        report = self.reports[index] if self.reports is not None else None
        return report.name if report is not None else player.default_name

    def forfeits(self) -> list[Forfeit | None]:
        """Per player, the forfeit its failed setup costs each of its matches."""
        reports = self.reports or [None] * len(self._players)
        return [None if r is None else r.forfeit for r in reports]

    def reverse(self) -> None:
        """Follow the players' order when a two-player session swaps colours."""
        self._players.reverse()
        if self.reports is not None:
            self.reports.reverse()
        else:
            assert self._group is not None
            self._group.reverse()

    def close(self) -> None:
        """Stop the probes still running."""
        if self._group is not None:
            self._group.close()
            self._group = None


def own_pool(players: Sequence[Player], in_process: bool, elsewhere: bool) -> Any:
    """A pool of warm worker processes for a session of its own, when its AI
    players run in worker processes here (not `in_process`, not `elsewhere` on
    a Dask cluster); else None. Its owner closes it."""
    if in_process or elsewhere or not any(isinstance(p, ThinkerPrototype) for p in players):
        return None
    from csl_game.engine.runners.process import WorkerPool  # only when an AI plays

    return WorkerPool()


def failed_setups_factory(factory: RunnerFactory, players: Sequence[Player],
                          names: Sequence[str], forfeits: Sequence[Forfeit | None]
                          ) -> RunnerFactory:
    """`factory`, except for players whose setup failed: they forfeit at once."""
    if not any(forfeits):
        return factory

    def make(prototype: ThinkerPrototype, info: InfoCallback) -> ThinkerRunner:
        index = next((i for i, p in enumerate(players) if p is prototype), None)
        forfeit = None if index is None else forfeits[index]
        if forfeit is None:
            return factory(prototype, info)
        assert index is not None
        return ForfeitRunner(names[index], forfeit)

    return make
