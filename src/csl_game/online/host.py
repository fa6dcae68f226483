"""The host of an online match: the one judge, the seat, the spectators.

`Host` listens where it is told, lets one player take the seat with the join
code (and take it again after a dropped connection), lets a bounded number
of spectators watch, and runs the ordinary `Match` once the seat is taken:
its local side is any player, the seated one a `Remote` whose moves arrive
over the network and are judged like a thinker's answers (timed like one
when the joiner says its player is an AI, with `network_margin_ms` more).
While the seat is empty the game is paused: nothing moves and the game clock
stops. After `reconnect_timeout` the host may `claim()` the game (the absent
side forfeits) or keep waiting.

Every connection sends a Hello first, within `handshake_timeout`; a
connection that breaks the protocol or a bound gets one error line and is
closed, and the game goes on. A join code is at least `MIN_CODE` characters,
and each address has only a few wrong ones a minute (`guard.WrongCodes`).
Every refusal is told as a `TurnedAway` event, a flood of them as one event
per address a minute (`guard.RefusalLog`); the door that does it, shared
with the broadcaster, is csl_game.online.door. `poll()` never blocks: a window
calls it every frame, the console loops over `wait()` and `poll()`.

The rules are `state`'s (csl_game.online.hosting.HostState, a state machine
without I/O); this class serves its sockets and its clock.
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections.abc import Callable

from csl_game.engine import Match, MatchEvent, Player, RunnerFactory
from csl_game.model.board import PColor
from csl_game.online.door import (
    HostLimits,
    TurnedAway,
    accepted,
    dismiss,
    drain_and_close,
    wait_for_news,
)
from csl_game.online.driver import FromState
from csl_game.online.hosting import (
    ClaimOffered,
    HostEvent,
    HostState,
    HostStep,
    PlayerBack,
    PlayerJoined,
    PlayerLeft,
)
from csl_game.online.seat import GameClock, Seat
from csl_game.online.wire import Clock, Connection, listen
from csl_game.thinker.api import MatchConfig

__all__ = ["Host", "HostEvent", "PlayerJoined", "PlayerLeft", "PlayerBack", "ClaimOffered",
           "TurnedAway", "new_code"]

_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


def new_code() -> str:
    """A join code: 8 letters and digits, hard to guess, easy to read out."""
    return "".join(secrets.choice(_CODE_LETTERS) for _ in range(8))


class Host:
    """One hosted match: listening, the seat, the spectators and the match.

    Raises:
        NetworkError: the address cannot be listened on.
        ValueError: `code` is no join code (`protocol.code_problem`).
    """

    def __init__(self, config: MatchConfig, local: Player, local_name: str,
                 local_color: PColor, address: tuple[str, int], *, code: str | None = None,
                 runner_factory: RunnerFactory | None = None,
                 limits: HostLimits = HostLimits(), clock: Clock = time.monotonic) -> None:
        if runner_factory is None:
            from csl_game.engine import ThreadRunner
            runner_factory = ThreadRunner
        self._now = clock
        self.state = HostState(config, local, local_name, local_color,
                               code if code is not None else new_code(), clock(),
                               limits=limits, runner_factory=runner_factory)
        self._listener = listen(*address)
        self.port: int = self._listener.getsockname()[1]
        self.bound_host: str = address[0]
        self._conns: dict[int, Connection] = {}
        """The connections the state knows, by their number."""
        self._closing: list[Connection] = []
        self._numbers = itertools.count(1)
        self._events: list[HostEvent] = []

    # ------------------------------------------------------------------ reading
    config: FromState[MatchConfig] = FromState()
    code: FromState[str] = FromState()
    limits: FromState[HostLimits] = FromState()
    local_color: FromState[PColor] = FromState()
    remote_color: FromState[PColor] = FromState()
    match: FromState[Match | None] = FromState()
    names: FromState[tuple[str, str] | None] = FromState()
    seat: FromState[Seat | None] = FromState()
    game_clock: FromState[GameClock] = FromState()
    paused: FromState[bool] = FromState("Whether the game waits for the seated player "
                                        "to come back.")
    is_over: FromState[bool] = FromState()
    spectators: FromState[int] = FromState()

    def away_for(self) -> float:
        """Seconds the seat has been empty (0 when it is not)."""
        return self.state.away_for(self._now())

    @property
    def claimable(self) -> bool:
        """Whether the seat has been empty longer than the reconnect time-out."""
        return self.state.claimable(self._now())

    def subscribe(self, callback: Callable[[MatchEvent], None]) -> None:
        """Call `callback` with every event of the match (once it starts)."""
        self.state.subscribe(callback)

    def connection(self, peer: int | None) -> Connection | None:
        """The connection the state calls `peer` (as `seat.peer`), while it is open."""
        return self._conns.get(peer) if peer is not None else None

    # ------------------------------------------------------------------ driving
    def poll(self) -> list[HostEvent]:
        """Serve the network and advance the match as far as it goes now,
        without blocking; returns what happened to connections."""
        now = self._now()
        self._do(self.state.pending())
        self._accept(now)
        for number, conn in list(self._conns.items()):
            data = conn.read_data()
            if data:
                self._do(self.state.receive_data(number, data, now))
        for conn in self._closing:
            conn.read_data()  # discards what comes, until the error line has left
        for number, conn in list(self._conns.items()):
            if conn.closed and self._conns.get(number) is conn:
                del self._conns[number]
                self._do(self.state.closed(number, now, conn.failure))
        self._do(self.state.tick(now))
        self._closing = [c for c in self._closing if not c.closed]
        for conn in [*self._conns.values(), *self._closing]:
            conn.flush()
        events, self._events = self._events, []
        return events

    def finish(self, say: Callable[[HostEvent], None] | None = None,
               timeout: float | None = None) -> bool:
        """Once the match is over, go on serving until the seated player has had
        the result (`HostState.owes_result`), at most `timeout` seconds (default
        `limits.result_wait`): a player whose connection died without a word
        connects again and is told it. `say` gets what happens meanwhile;
        returns whether the result was confirmed."""
        end = self._now() + (self.limits.result_wait if timeout is None else timeout)
        while self.state.owes_result and self._now() < end:
            for event in self.poll():
                if say is not None:
                    say(event)
            self.wait(min(0.1, max(0.0, end - self._now())))
        return not self.state.owes_result

    def wait(self, timeout: float) -> None:
        """Block until a connection has news, at most `timeout` seconds."""
        wait_for_news(self._listener, [*self._conns.values(), *self._closing], timeout)

    def claim(self) -> None:
        """The absent player forfeits: the match ends now.

        Raises:
            NetworkError: the seat is not empty, or the match is not running.
        """
        self._do(self.state.claim(self._now()))

    def close(self, linger: float = 2.0) -> None:
        """Stop listening; let what is queued leave (at most `linger` seconds);
        close every connection and the match."""
        self._listener.close()
        self._do(self.state.pending())
        drain_and_close([*self._conns.values(), *self._closing], linger, self._now)
        if self.state.match is not None:
            self.state.match.close()

    # ------------------------------------------------------------------ connections
    def _accept(self, now: float) -> None:
        for conn in accepted(self._listener, self._now):
            number = next(self._numbers)
            self._conns[number] = conn
            self._do(self.state.connected(number, conn.address, conn.peer, now))

    def _do(self, step: HostStep) -> None:
        for number, msg in step.send:
            conn = self._conns.get(number)
            if conn is not None:
                conn.send(msg)
        for number, reason in step.close:
            conn = self._conns.pop(number, None)
            if conn is not None:
                dismiss(conn, reason, self._closing)
        self._events += step.events

