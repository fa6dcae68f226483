"""Broadcasting a tournament to spectators: the session, read-only, over the network.

`Broadcaster` listens where it is told and follows a `Session`: it
subscribes to the session's events and to each match played on screen, and
sends every spectator the session's players and number of matches, each
match's start (names, settings), its moves as they are played, each result,
and the standings after each match and at the end (the session's own
standings, a tie-break applied). A spectator that comes mid-tournament gets
the standings so far and the current match from its current position.

Spectators only: a connection says hello as a spectator within the
handshake time-out, then only answers pings; anything else (a player's
hello, a move, garbage, an oversized line, too many lines) gets one error
line and is closed, and the tournament goes on. The bounds are a host's
(`HostLimits`: handshake time-out, idle time-out, spectators at once,
connections waiting for their hello, in all and of one address;
`wire.Connection`: line length, rate, bytes queued), and so is the telling
of refusals (`guard.RefusalLog`: a flood is one line per address a minute). `poll()` never blocks: a window calls it once a frame; the
console calls `serve()`, which polls on a thread of its own. Every method
holds one lock, so the session's events may come from another thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from csl_game.engine import (
    Match,
    MatchEvent,
    MatchOver,
    MatchStarted,
    MovePerformed,
    PostMatch,
    PreMatch,
    Session,
    SessionEnded,
    SessionEvent,
    SessionStarted,
    Standing,
)
from csl_game.model.board import PShape
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
from csl_game.online.guard import RefusalLog
from csl_game.online.protocol import (
    PROTOCOL_VERSION,
    Hello,
    Ping,
    Played,
    Pong,
    encode,
)
from csl_game.online.tourney_protocol import (
    Finished,
    MatchMsg,
    StandingsMsg,
    Tournament,
    TourneyMessage,
    encode_tourney,
)
from csl_game.online.wire import Clock, Connection, listen
from csl_game.services.addresses import lan_address

__all__ = ["Broadcaster"]

log = logging.getLogger(__name__)


class Broadcaster:
    """One session, broadcast to at most `limits.spectators` spectators.

    Raises:
        NetworkError: the address cannot be listened on.
    """

    def __init__(self, session: Session, address: tuple[str, int], *,
                 limits: HostLimits = HostLimits(), clock: Clock = time.monotonic) -> None:
        self.session = session
        self.limits = limits
        self._now = clock
        self._lock = threading.RLock()
        self._listener = listen(*address)
        self.port: int = self._listener.getsockname()[1]
        self.bound_host: str = address[0]
        self._pending: list[Connection] = []
        self._spectators: list[Connection] = []
        self._closing: list[Connection] = []
        self._standings = StandingsMsg(0, False, ())
        self._current: MatchMsg | None = None
        self._index = 0
        self._moves: list[tuple[int, PShape, float]] = []
        self._turned_away: list[TurnedAway] = []
        self._refusals = RefusalLog()
        self._last_ping = clock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.closed = False
        session.subscribe(self._on_session_event)

    # ------------------------------------------------------------------ reading
    @property
    def spectators(self) -> int:
        with self._lock:
            return len(self._spectators)

    @property
    def ended(self) -> bool:
        """Whether the final standings were sent."""
        return self._standings.final

    # ------------------------------------------------------------------ following
    def follow_match(self, match: Match) -> None:
        """Broadcast `match` (the session's match on screen), move by move."""
        match.subscribe(self._on_match_event)

    def _on_session_event(self, event: SessionEvent) -> None:
        with self._lock:
            if isinstance(event, SessionStarted):
                self._standings = StandingsMsg(0, False, self._rows())
            elif isinstance(event, PreMatch):
                self._index = event.index
            elif isinstance(event, PostMatch):
                result = event.record.result
                self._send_all(Finished(event.index, result, self.session.config))
                if not event.background:
                    self._current = None
                self._standings = StandingsMsg(len(self.session.records), False, self._rows())
                self._send_all(self._standings)
            elif isinstance(event, SessionEnded):
                self._current = None
                self._standings = StandingsMsg(len(self.session.records), True, event.standings)
                self._send_all(self._standings)

    def _rows(self) -> tuple[Standing, ...]:
        return tuple(self.session.standings())

    def _on_match_event(self, event: MatchEvent) -> None:
        with self._lock:
            if isinstance(event, MatchStarted):
                self._moves = []
                self._current = MatchMsg(self._index, event.white, event.red, event.config)
                self._send_all(self._current)
            elif isinstance(event, MovePerformed) and self._current is not None:
                move = (event.move.col, event.move.piece.shape, event.elapsed)
                self._send_all(Played(len(self._moves), *move))
                self._moves.append(move)
            elif isinstance(event, MatchOver):
                pass  # the session's PostMatch sends the result, with the match's index

    # ------------------------------------------------------------------ driving
    def poll(self) -> list[TurnedAway]:
        """Serve the network without blocking; returns the connections refused."""
        with self._lock:
            if self.closed:
                return []
            now = self._now()
            self._accept()
            for conn in [*self._pending, *self._spectators]:
                for line in conn.read():
                    self._handle(conn, line)
            self._keep_time(now)
            report_failures(self._connections(), self._closing, self._turn_away)
            self._turned_away += summaries(self._refusals, now)
            self._pending = [c for c in self._pending if not c.closed]
            self._spectators = [c for c in self._spectators if not c.closed]
            self._closing = [c for c in self._closing if not c.closed]
            for conn in self._connections():
                conn.flush()
            refused, self._turned_away = self._turned_away, []
            return refused

    def wait(self, timeout: float) -> None:
        """Block until a connection has news, at most `timeout` seconds."""
        with self._lock:
            if self.closed:
                time.sleep(timeout)
                return
            conns = self._connections()
        wait_for_news(self._listener, conns, timeout)

    def where_to_watch(self) -> list[str]:
        """The lines that tell where spectators watch from."""
        where = self.bound_host
        shown = lan_address() if not where else (f"[{where}]" if ":" in where else where)
        networks = "every network of this machine" if not where else f"address {where}"
        return [f"Broadcasting the tournament on port {self.port} ({networks}), "
                f"spectators only (at most {self.limits.spectators})",
                f"  spectators watch with: csl-game watch {shown}:{self.port}"]

    def serve(self, on_refused: Callable[[TurnedAway], None] | None = None) -> None:
        """Poll on a daemon thread until `close()` (the console's way)."""
        def loop() -> None:
            while not self._stop.is_set():
                for refused in self.poll():
                    if on_refused is not None:
                        on_refused(refused)
                self.wait(0.05)

        self._thread = threading.Thread(target=loop, name="csl-broadcast", daemon=True)
        self._thread.start()

    def close(self, linger: float = 2.0) -> None:
        """Stop listening; let what is queued leave (at most `linger` seconds);
        close every connection."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self._listener.close()
            drain_and_close(self._connections(), linger, self._now)

    # ------------------------------------------------------------------ connections
    def _connections(self) -> list[Connection]:
        return [*self._pending, *self._spectators, *self._closing]

    def _accept(self) -> None:
        accept_waiting(self._listener, self._pending, self.limits, self._now, self._turn_away)

    def _turn_away(self, conn: Connection, reason: str) -> None:
        if self._refusals.tell(conn.address, reason, self._now()):
            log.info("turned away %s: %s", conn.peer, reason)
            self._turned_away.append(TurnedAway(conn.peer, reason))
        for group in (self._pending, self._spectators):
            if conn in group:
                group.remove(conn)
        dismiss(conn, reason, self._closing)

    def _handle(self, conn: Connection, line: bytes) -> None:
        msg = read_message(conn, line, self._pending, self._turn_away)
        if msg is None:
            return
        if isinstance(msg, Hello) and conn in self._pending:
            self._hello(conn, msg)
        elif not isinstance(msg, Pong):
            self._turn_away(conn, "this is a tournament broadcast: spectators only watch")

    def _hello(self, conn: Connection, hello: Hello) -> None:
        refusal = None
        if hello.version != PROTOCOL_VERSION:
            refusal = (f"this broadcast speaks protocol version {PROTOCOL_VERSION}, not "
                       f"version {hello.version}: use the same csl-game")
        elif hello.role != "spectator":
            refusal = ("this is a tournament broadcast: nobody takes a seat, spectators "
                       "watch with csl-game watch")
        elif len(self._spectators) >= self.limits.spectators:
            refusal = f"no room for more spectators (at most {self.limits.spectators})"
        if refusal is not None:
            self._turn_away(conn, refusal)
            return
        self._pending.remove(conn)
        self._spectators.append(conn)
        session = self.session
        self._send(conn, Tournament(tuple(session.names), session.total_matches,
                                    session.config))
        self._send(conn, self._standings)
        if self._current is not None:
            current = self._current
            self._send(conn, MatchMsg(current.index, current.white, current.red,
                                      current.config, tuple(self._moves)))

    def _keep_time(self, now: float) -> None:
        for conn in list(self._pending):
            if now - conn.opened > self.limits.handshake_timeout:
                self._turn_away(conn, f"no hello within {self.limits.handshake_timeout:g} s")
        for conn in list(self._spectators):
            if now - conn.heard > self.limits.idle_timeout:
                self._turn_away(conn, f"no word from you for {self.limits.idle_timeout:g} s")
        if now - self._last_ping >= self.limits.ping_interval:
            self._last_ping = now
            for conn in self._spectators:
                conn.send(Ping())

    def _send(self, conn: Connection, msg: TourneyMessage | Played) -> None:
        conn.send_line(encode(msg) if isinstance(msg, Played) else encode_tourney(msg))

    def _send_all(self, msg: TourneyMessage | Played) -> None:
        line = encode(msg) if isinstance(msg, Played) else encode_tourney(msg)
        for conn in self._spectators:
            conn.send_line(line)
