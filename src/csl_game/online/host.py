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
"""

from __future__ import annotations

import hmac
import logging
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from csl_game import __version__
from csl_game.engine import (
    Forfeit,
    ForfeitReason,
    Human,
    Match,
    MatchEvent,
    MatchOver,
    MoveAnswer,
    MovePerformed,
    Player,
    RunnerFactory,
    unique_names,
)
from csl_game.errors import NetworkError
from csl_game.model.board import PColor, PShape
from csl_game.online.door import (
    HostLimits,
    TurnedAway,
    accept_waiting,
    dismiss,
    drain_and_close,
    read_message,
    report_failures,
    summaries,
    wait_for_news,
)
from csl_game.online.guard import RefusalLog, WrongCodes
from csl_game.online.protocol import (
    PROTOCOL_VERSION,
    ForfeitMsg,
    Hello,
    MoveMsg,
    Paused,
    Ping,
    Played,
    Pong,
    Result,
    Resumed,
    Welcome,
    code_problem,
    config_json,
)
from csl_game.online.seat import GameClock, Seat, SeatPlayer
from csl_game.online.wire import Clock, Connection, listen
from csl_game.thinker.api import MatchConfig

__all__ = ["Host", "HostEvent", "PlayerJoined", "PlayerLeft", "PlayerBack", "ClaimOffered",
           "new_code"]

log = logging.getLogger(__name__)
_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


def new_code() -> str:
    """A join code: 8 letters and digits, hard to guess, easy to read out."""
    return "".join(secrets.choice(_CODE_LETTERS) for _ in range(8))


@dataclass(frozen=True)
class PlayerJoined:
    name: str
    color: PColor


@dataclass(frozen=True)
class PlayerLeft:
    """The seated player's connection dropped: the game is paused."""

    name: str


@dataclass(frozen=True)
class PlayerBack:
    name: str


@dataclass(frozen=True)
class ClaimOffered:
    """The seat has been empty `seconds`: the host may claim the game."""

    name: str
    seconds: float


HostEvent = PlayerJoined | PlayerLeft | PlayerBack | ClaimOffered | TurnedAway


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
        if code is not None and (problem := code_problem(code)) is not None:
            raise ValueError(f"a join code is {problem}")
        self.config = config
        self.code = code if code is not None else new_code()
        self.limits = limits
        self.local_color = local_color
        self._local = local
        self._local_name = local_name
        self._factory = runner_factory
        self._now = clock
        self.game_clock = GameClock(clock)
        self._listener = listen(*address)
        self.port: int = self._listener.getsockname()[1]
        self.bound_host: str = address[0]
        self.match: Match | None = None
        self.names: tuple[str, str] | None = None
        self.seat: Seat | None = None
        self._pending: list[Connection] = []
        self._spectators: list[Connection] = []
        self._closing: list[Connection] = []
        self._moves: list[tuple[int, PShape, float]] = []
        self._events: list[HostEvent] = []
        self._subscribers: list[Callable[[MatchEvent], None]] = []
        self._last_ping = clock()
        self._wrong_codes = WrongCodes(limits.wrong_codes_per_minute)
        self._refusals = RefusalLog()

    # ------------------------------------------------------------------ reading
    @property
    def remote_color(self) -> PColor:
        return self.local_color.other

    @property
    def paused(self) -> bool:
        """Whether the game waits for the seated player to come back."""
        return self.seat is not None and self.seat.conn is None and not self.is_over

    @property
    def is_over(self) -> bool:
        return self.match is not None and self.match.is_over

    def away_for(self) -> float:
        """Seconds the seat has been empty (0 when it is not)."""
        if self.seat is None or self.seat.away_since is None:
            return 0.0
        return self._now() - self.seat.away_since

    @property
    def claimable(self) -> bool:
        """Whether the seat has been empty longer than the reconnect time-out."""
        return self.paused and self.away_for() >= self.limits.reconnect_timeout

    @property
    def spectators(self) -> int:
        return len(self._spectators)

    def subscribe(self, callback: Callable[[MatchEvent], None]) -> None:
        """Call `callback` with every event of the match (once it starts)."""
        self._subscribers.append(callback)
        if self.match is not None:
            self.match.subscribe(callback)

    # ------------------------------------------------------------------ driving
    def poll(self) -> list[HostEvent]:
        """Serve the network and advance the match as far as it goes now,
        without blocking; returns what happened to connections."""
        now = self._now()
        started = self.match is not None
        self._accept()
        for conn in self._connections():
            for line in conn.read():
                self._handle(conn, line)
        self._keep_time(now)
        report_failures(self._connections(), self._closing, self._turn_away)
        self._events += summaries(self._refusals, now)
        self._collect_closed()
        if started and self.match is not None and not self.paused and not self.match.is_over:
            self.match.update()  # (not in the poll that seated the player: it is told first)
        for conn in self._connections():
            conn.flush()
        events, self._events = self._events, []
        return events

    def wait(self, timeout: float) -> None:
        """Block until a connection has news, at most `timeout` seconds."""
        wait_for_news(self._listener, self._connections(), timeout)

    def claim(self) -> None:
        """The absent player forfeits: the match ends now.

        Raises:
            NetworkError: the seat is not empty, or the match is not running.
        """
        if not self.paused or self.match is None or self.seat is None:
            raise NetworkError("only a game whose player is away can be claimed")
        away = self.away_for()
        self.match.forfeit(self.seat.color, ForfeitReason.DISCONNECTED,
                           f"{self.seat.name} was away for {away:.0f} s")

    def close(self, linger: float = 2.0) -> None:
        """Stop listening; let what is queued leave (at most `linger` seconds);
        close every connection and the match."""
        self._listener.close()
        drain_and_close(self._connections(), linger, self._now)
        if self.match is not None:
            self.match.close()

    # ------------------------------------------------------------------ connections
    def _connections(self) -> list[Connection]:
        seat = [self.seat.conn] if self.seat is not None and self.seat.conn is not None else []
        return [*self._pending, *seat, *self._spectators, *self._closing]

    def _accept(self) -> None:
        accept_waiting(self._listener, self._pending, self.limits, self._now, self._turn_away)

    def _turn_away(self, conn: Connection, reason: str) -> None:
        if self._refusals.tell(conn.address, reason, self._now()):
            log.info("turned away %s: %s", conn.peer, reason)
            self._events.append(TurnedAway(conn.peer, reason))
        for group in (self._pending, self._spectators):
            if conn in group:
                group.remove(conn)
        if self.seat is not None and self.seat.conn is conn:
            self._leave()
        dismiss(conn, reason, self._closing)

    def _handle(self, conn: Connection, line: bytes) -> None:
        msg = read_message(conn, line, self._pending, self._turn_away)
        if msg is None:
            return
        if isinstance(msg, Hello) and conn in self._pending:  # the pending say nothing else
            self._pending.remove(conn)
            self._hello(conn, msg)
        elif isinstance(msg, Hello):
            self._turn_away(conn, "hello was said already")
        elif isinstance(msg, Pong):
            pass
        elif conn in self._spectators:
            self._turn_away(conn, "spectators cannot move")
        else:
            self._move(conn, msg)

    def _hello(self, conn: Connection, hello: Hello) -> None:
        refusal = self._refusal(conn, hello)
        if refusal is not None:
            self._turn_away(conn, refusal)
            return
        if hello.role == "spectator":
            self._spectators.append(conn)
            conn.send(self._welcome(None))
            return
        if self.seat is None:
            self._seat(conn, hello)
        else:
            self._broadcast(Resumed())  # to the spectators: the seat is told by its welcome
            self.seat.conn, self.seat.away_since, self.seat.offered = conn, None, False
            self.game_clock.resume()
            self._events.append(PlayerBack(self.seat.name))
        conn.send(self._welcome(self.remote_color))

    def _refusal(self, conn: Connection, hello: Hello) -> str | None:
        if hello.version != PROTOCOL_VERSION:
            return (f"this host speaks protocol version {PROTOCOL_VERSION} (csl-game "
                    f"{__version__}), not version {hello.version}: use the same csl-game")
        if self.is_over:
            return "the game is over"
        if hello.role == "spectator":
            if self.match is None:
                return "the game has not begun: watch once a player has joined"
            if len(self._spectators) >= self.limits.spectators:
                return f"no room for more spectators (at most {self.limits.spectators})"
            return None
        wait = self._wrong_codes.wait(conn.address, self._now())
        if wait > 0:  # its code unread: right or wrong, it is not told
            return (f"too many wrong join codes from your address: try again in "
                    f"{math.ceil(wait)} s")
        if not hmac.compare_digest(hello.code.encode("utf-8"), self.code.encode("utf-8")):
            self._wrong_codes.wrong(conn.address, self._now())
            return "wrong join code"
        if self.seat is not None and self.seat.conn is not None:
            return "the seat is taken: a player is playing already"
        if hello.color is not None and hello.color is not self.remote_color:
            return (f"the host plays {self.local_color}: you would play {self.remote_color}, "
                    f"not {hello.color}")
        return _settings_refusal(hello, self.config)

    def _seat(self, conn: Connection, hello: Hello) -> None:
        self.seat = Seat(hello.name, self.remote_color, hello.kind == "ai", conn)
        names = [self._local_name, hello.name]
        if self.local_color is PColor.RED:
            names.reverse()
        white_name, red_name = unique_names(names)
        self.names = (white_name, red_name)
        limit = None
        if self.seat.timed:
            limit = (self.config.time_limit_ms + self.limits.network_margin_ms) / 1000
        remote = SeatPlayer(self.names[self.remote_color], self.seat, self.game_clock, limit,
                            f"time limit {self.config.time_limit_ms} ms (and "
                            f"{self.limits.network_margin_ms} ms for the network)")
        white, red = (self._local, remote) if self.local_color is PColor.WHITE \
            else (remote, self._local)
        factory = self._factory
        if factory is None:
            from csl_game.engine import ThreadRunner
            factory = ThreadRunner
        self.match = Match(self.config, white, red, runner_factory=factory,
                           clock=self.game_clock, names=self.names)
        self.match.subscribe(self._on_match_event)
        for callback in self._subscribers:
            self.match.subscribe(callback)
        self._events.append(PlayerJoined(self.names[self.remote_color], self.remote_color))

    def _welcome(self, color: PColor | None) -> Welcome:
        assert self.names is not None
        names = self.names
        local_human = isinstance(self._local, Human)
        remote_human = self.seat is not None and not self.seat.timed
        humans = (local_human, remote_human) if self.local_color is PColor.WHITE \
            else (remote_human, local_human)
        waiting = self.seat.name if self.paused and self.seat is not None else ""
        return Welcome(PROTOCOL_VERSION, "player" if color is not None else "spectator", color,
                       self.config, names, humans, tuple(self._moves), waiting)

    def _move(self, conn: Connection, msg: MoveMsg | ForfeitMsg) -> None:
        seat = self.seat
        assert seat is not None and conn is seat.conn
        if self.is_over:
            return  # a move that crossed the result on the way
        if seat.expected != msg.ply or seat.answer is not None:
            self._turn_away(conn, f"not your turn: {len(self._moves)} moves are played")
            return
        if isinstance(msg, MoveMsg):
            seat.answer = MoveAnswer(msg.col, int(msg.shape))
        elif msg.reason is ForfeitReason.DISCONNECTED:
            self._turn_away(conn, "a player cannot say it left")
        else:
            seat.answer = Forfeit(msg.reason, msg.detail)

    def _leave(self) -> None:
        assert self.seat is not None
        self.seat.conn = None
        if self.is_over:
            return
        self.seat.away_since = self._now()
        self.game_clock.pause()
        self._events.append(PlayerLeft(self.seat.name))
        self._broadcast(Paused(self.seat.name))

    def _collect_closed(self) -> None:
        if self.seat is not None and self.seat.conn is not None and self.seat.conn.closed:
            self._leave()
        self._pending = [c for c in self._pending if not c.closed]
        self._spectators = [c for c in self._spectators if not c.closed]
        self._closing = [c for c in self._closing if not c.closed]

    def _keep_time(self, now: float) -> None:
        for conn in list(self._pending):
            if now - conn.opened > self.limits.handshake_timeout:
                self._turn_away(conn, f"no hello within {self.limits.handshake_timeout:g} s")
        joined = [c for c in self._connections() if c not in self._pending
                  and c not in self._closing and not c.closed]
        for conn in joined:
            if now - conn.heard > self.limits.idle_timeout:
                self._turn_away(conn, f"no word from you for {self.limits.idle_timeout:g} s")
        if now - self._last_ping >= self.limits.ping_interval:
            self._last_ping = now
            self._broadcast(Ping())
        if self.claimable and self.seat is not None and not self.seat.offered:
            self.seat.offered = True
            self._events.append(ClaimOffered(self.seat.name, self.away_for()))

    def _broadcast(self, msg: Played | Paused | Resumed | Result | Ping) -> None:
        seat = self.seat.conn if self.seat is not None else None
        for conn in [*([seat] if seat is not None else []), *self._spectators]:
            conn.send(msg)

    def _on_match_event(self, event: MatchEvent) -> None:
        if isinstance(event, MovePerformed):
            ply = len(self._moves)
            move = (event.move.col, event.move.piece.shape, event.elapsed)
            self._moves.append(move)
            self._broadcast(Played(ply, *move))
        elif isinstance(event, MatchOver):
            self._broadcast(Result(event.result, self.config))
            for conn in self._pending:
                conn.fail("the game is over")


def _settings_refusal(hello: Hello, config: MatchConfig) -> str | None:
    ours = {**config_json(config), "clock": config.clock,
            "time_margin_ms": config.time_margin_ms}
    differ = [f"{key.replace('_', ' ')} {value} (the host's: {ours[key]})"
              for key, value in (hello.settings or {}).items() if ours[key] != value]
    if not differ:
        return None
    return ("board settings differ from the host's game: " + ", ".join(differ)
            + "; drop those flags to play the host's settings")


