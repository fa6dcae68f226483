"""The hub's values: how the server runs, and a connected client.

A `Client` is one WebSocket connection as the hub sees it: who it is, and
its bounded outbox, which a writer task drains (csl_game.server.web), so a
client that reads slowly loses its connection instead of holding anyone up.
A game being played is a room (csl_game.server.room).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from csl_game.server.guard import Limits
from csl_game.thinker.api import MatchConfig

__all__ = ["ServerOptions", "Client"]


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
    max_ai_games: int = 16
    """AI games at once; more are refused."""
    max_ai_thinking: int = 2
    """AI moves thought at once (the others wait their turn in a queue)."""
    tick_s: float = 0.05
    pair_every_s: float = 0.5
    ping_every_s: float = 15.0
    max_waiting: int = 3
    """Games one player may have waiting for an opponent at once."""
    max_games: int = 20_000
    """Games the server holds at once (being played or waiting)."""
    analysis_ms: int = 100
    """Analysis time per position of a finished game's review."""
    write_every_s: float = 0.2
    """The database's writes are gathered and made together this often (one transaction)."""
    lobby_every_s: float = 1.0
    """The lobby is sent to those who follow it at most this often (as it changes)."""
    outbox: int = 512
    """Messages waiting for a slow reader before its connection is closed."""
    max_errors: int = 3
    """Bad messages a connection may send before it is closed."""
    limits: Limits = Limits()


@dataclass(eq=False)
class Client:
    """One WebSocket connection as the hub sees it."""

    address: str
    session: str = ""
    """Who a browser is (the hash of its cookie): its seats survive a reconnect."""
    name: str = ""
    bot: bool = False
    capacity: int = 1
    outbox: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(512))
    kill: Callable[[], None] | None = None
    """Drops the connection at once (for a reader too slow to wait for)."""
    closed: bool = False
    errors: int = 0
    lobby: bool = False
    rooms: set[str] = field(default_factory=set)
    """The games it plays or watches here."""

    @property
    def identity(self) -> str:
        if self.bot:
            return f"bot:{self.name}"
        return f"web:{self.session}" if self.session and self.name else ""

    def send(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:  # it does not read: let it go rather than hold us
            self.close()

    def close(self) -> None:
        """Send nothing more: the writer sends what waits, then ends the connection."""
        if not self.closed:
            self.closed = True
            try:
                self.outbox.put_nowait(None)
            except asyncio.QueueFull:
                while not self.outbox.empty():
                    self.outbox.get_nowait()
                self.outbox.put_nowait(None)
                if self.kill is not None:
                    self.kill()
