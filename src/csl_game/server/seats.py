"""The hub's values: how the server runs, and a connected client.

A `Client` is one WebSocket connection as the hub sees it: who it is, and
its transport, where each message goes as a frame made once for all its
receivers; a client that reads slowly loses its connection instead of
holding anyone up.
A game being played is a room (csl_game.server.room).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from csl_game.server.guard import Limits
from csl_game.server.messages import encode, frame
from csl_game.thinker.api import MatchConfig

__all__ = ["ServerOptions", "Client", "Transport", "PING", "Pinger"]


@dataclass(frozen=True)
class ServerOptions:
    """How the server runs (csl-game server's flags, and the limits)."""

    config: MatchConfig = MatchConfig()
    """Every game's settings; the time limit is also counted on the server's wall
    clock for remote players, with `grace_ms` more for the network."""
    register: str = "admin"
    """'open': a bot registers by name; 'admin': it needs a token from --add-bot."""
    grace_ms: int = 1000
    """Wall-clock time past the limit a remote move may take to arrive (the network)."""
    reconnect_s: float = 30.0
    """Seconds a player who left has to come back before it forfeits."""
    claim_s: float = 15.0
    """Seconds a player must have been away before the other may claim the win."""
    rematch_s: float = 600.0
    """Seconds after a game's end that its players may ask for a rematch."""
    max_ai_games: int = 16
    """AI games at once; more are refused."""
    max_ai_thinking: int = 2
    """AI moves thought at once (the others wait their turn in a queue)."""
    tick_s: float = 0.25
    """The ticker's period (the ladder's pairing, the pings, the lobby): each tick
    wakes the process, idle or not, so no more often than those need."""
    pair_every_s: float = 0.5
    ping_every_s: float = 15.0
    silent_s: float = 40.0
    """Seconds a connection may send nothing, not even the pong to a ping, before
    it is dropped as gone."""
    max_waiting: int = 3
    """Games one player may have waiting for an opponent at once."""
    max_waiting_per_address: int = 10
    """Games waiting for an opponent that one address may have made (a player is
    a cookie, which a client may make anew)."""
    lobby_ladder: int = 50
    """Bots the lobby lists (the best; /api/ladder has them all)."""
    public_hosts: tuple[str, ...] = ()
    """Names browsers reach the server by (besides IP addresses and localhost):
    another name in a WebSocket's Host is refused (DNS rebinding)."""
    max_games: int = 20_000
    """Games the server holds at once (being played or waiting)."""
    analysis_ms: int = 100
    """Analysis time per position of a finished game's review."""
    write_every_s: float = 0.02
    """The database's writes gather at most this long, then are made together (one
    transaction; more gather while one is made); a move is told once made."""
    lobby_every_s: float = 1.0
    """The lobby is sent to those who follow it at most this often (as it changes)."""
    outbox_bytes: int = 1 << 20
    """Bytes a slow reader's connection may hold unsent before it is dropped."""
    max_errors: int = 3
    """Bad messages a connection may send before it is closed."""
    limits: Limits = Limits()


class Closable(Protocol):
    """A WebSocket as the hub looks at it (aiohttp's WebSocketResponse)."""

    @property
    def closed(self) -> bool: ...


@runtime_checkable
class Transport(Protocol):
    """Where a client's frames go: its connection's transport, asyncio's or
    another loop's (uvloop's are no `asyncio.Transport`, but do all this)."""

    def write(self, data: bytes) -> None: ...
    def get_write_buffer_size(self) -> int: ...
    def is_closing(self) -> bool: ...
    def abort(self) -> None: ...


@dataclass(eq=False)
class Client:
    """One WebSocket connection as the hub sees it.

    A message is written to the connection's transport as a whole WebSocket
    frame, made once for all its receivers (`messages.frame`); what the
    transport holds unsent is bounded in bytes, past which the connection is
    dropped: a client that reads slowly loses it instead of holding anyone up.
    """

    address: str
    session: str = ""
    """Who a browser is (the hash of its cookie): its seats survive a reconnect."""
    name: str = ""
    account: str = ""
    """The account a browser is signed in to ('' : a guest)."""
    bot: bool = False
    capacity: int = 1
    transport: Transport | None = None
    """Its connection (None: nothing is sent, a client of a test)."""
    ending: Callable[[], None] | None = None
    """Ends the connection in good order (a close frame), when the server ends it."""
    socket: Closable | None = None
    """Its WebSocket: once that is closed (a close frame sent), nothing more is sent."""
    heard: float | None = None
    """When it last sent anything, a pong to a ping included, on the hub's clock
    (None: not counted, a client of a test)."""
    outbox_bytes: int = 1 << 20
    closed: bool = False
    errors: int = 0
    lobby: bool = False
    rooms: set[str] = field(default_factory=set)
    """The games it plays or watches (in a cluster, those other processes own too)."""
    via: int = 0
    """In a cluster: the process it is connected to, when that is another (0: this one)."""
    conn: int = 0
    """In a cluster: its number on the process it is connected to."""

    @property
    def identity(self) -> str:
        if self.bot:
            return f"bot:{self.name}"
        if self.account:
            return f"user:{self.account}"
        return f"web:{self.session}" if self.session and self.name else ""

    def send(self, text: str) -> None:
        self.send_frame(frame(text))

    def send_frame(self, data: bytes) -> None:
        """Write a frame (`messages.frame`); a reader too slow for it is dropped."""
        transport = self.transport
        if self.closed or transport is None or transport.is_closing() or \
                (self.socket is not None and self.socket.closed):
            return
        transport.write(data)
        if transport.get_write_buffer_size() > self.outbox_bytes:
            self.drop()  # it does not read: let it go rather than hold us

    def drop(self) -> None:
        """End the connection at once, without a close frame (it does not read)."""
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        """Send nothing more, and end the connection."""
        if not self.closed:
            self.closed = True
            if self.ending is not None:
                self.ending()


PING = b"\x89\x00" + frame(encode("ping"))
"""A WebSocket ping, which every client's WebSocket answers with a pong, and
the protocol's `ping`, which the server's pages answer (a page cannot see
the other): one write."""


class Pinger:
    """Pings every connection once every `every_s`, dropping those not heard
    from in `silent_s` (a connection whose other end went without a word).
    Each tick of the hub's ticker pings its share of them, in turn: thousands
    pinged at once would answer at once, and hold every game up meanwhile."""

    def __init__(self, every_s: float, silent_s: float) -> None:
        self.every_s = every_s
        self.silent_s = silent_s
        self._turns: deque[Client] = deque()
        self._last: float | None = None
        self._due = 0.0  # pings owed, a fraction of one carried to the next tick

    def add(self, client: Client) -> None:
        self._turns.append(client)

    def tick(self, now: float) -> None:
        """The share of the connections whose turn came since the last tick."""
        turns = self._turns
        if self._last is not None:
            self._due += len(turns) * (now - self._last) / self.every_s
        self._last = now
        self._due = min(self._due, float(len(turns)))  # once each at most, after a stall
        count = int(self._due)
        self._due -= count
        for _ in range(count):
            client = turns.popleft()
            if client.closed:
                continue  # gone: out of the turns
            if client.heard is not None and now - client.heard > self.silent_s:
                client.drop()
                continue
            client.send_frame(PING)
            turns.append(client)
