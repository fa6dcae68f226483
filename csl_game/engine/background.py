"""A tournament's matches played off screen while the screen shows another.

`Session` hands matches to `BackgroundMatches` when it plays with more than
one worker; each runs through the console's parallel engine
(`tournament.play_job`) on a thread of a pool, its thinkers in worker
processes (or threads with `in_process`), and is collected without blocking.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from csl_game.engine.match import MatchResult
from csl_game.engine.results import PlayerInfo, record_from_json
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["BackgroundMatches"]


class BackgroundMatches:
    """Up to `slots` matches at once, each a `tournament.MatchJob` by pairing index."""

    def __init__(self, players: Sequence[ThinkerPrototype], names: Sequence[str],
                 config: MatchConfig, slots: int, in_process: bool = False) -> None:
        self.players = list(players)
        self.infos = [PlayerInfo(p.fqn, p.params, n) for p, n in zip(players, names)]
        self._index_of = {info: i for i, info in enumerate(self.infos)}
        # nobody watches these: no apparent move time to wait out
        self.config = dataclasses.replace(config, min_move_time_ms=0)
        self.slots = slots
        self.in_process = in_process
        self.running: dict[int, Future[dict[str, Any]]] = {}
        self.failed: set[int] = set()
        """Matches that raised instead of ending; the caller plays them itself."""
        self.stop_event = threading.Event()
        self._executor: ThreadPoolExecutor | None = None

    @property
    def has_room(self) -> bool:
        return len(self.running) < self.slots and not self.stop_event.is_set()

    def submit(self, index: int, white: int, red: int) -> None:
        """Start playing match `index` between players `white` and `red`."""
        # here, not at the top: both modules import the session, which imports this one
        from csl_game.engine.settings import AIEntry
        from csl_game.engine.tournament import MatchJob, play_job

        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.slots,
                                                thread_name_prefix="match")
        w, r = self.players[white], self.players[red]
        job = MatchJob(index, AIEntry(w.fqn, w.params), AIEntry(r.fqn, r.params),
                       self.infos[white], self.infos[red], self.config,
                       tuple(dict.fromkeys(w.paths + r.paths)), self.in_process)
        self.running[index] = self._executor.submit(play_job, job, stop=self.stop_event)

    def finished(self) -> list[tuple[int, MatchResult | None]]:
        """The matches that ended since the last call, by index; None: it failed."""
        out: list[tuple[int, MatchResult | None]] = []
        for index, future in sorted(self.running.items()):
            if not future.done():
                continue
            del self.running[index]
            try:
                out.append((index, record_from_json(future.result(), self._index_of).result))
            except Exception:  # noqa: BLE001 - the caller plays the match itself
                self.failed.add(index)
                out.append((index, None))
        return out

    def wait_any(self) -> None:
        """Block until a running match ends."""
        wait(list(self.running.values()), return_when=FIRST_COMPLETED)

    def close(self) -> None:
        """Stop the running matches and return at once; their threads close
        their worker processes as soon as they see the stop."""
        self.stop_event.set()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        self.running.clear()
