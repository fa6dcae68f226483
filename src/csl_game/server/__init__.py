"""The game server: everyone connects out to one server, which keeps the games.

Browsers play and watch through its pages and WebSocket, the app and
``csl-game match --connect URL`` through the same WebSocket, and bots
(``csl-game bot``) run their thinkers on their owners' machines and play a
ladder the server pairs and rates. The server runs nobody's code but its own
AI levels. This module is the package's front door: `run_server` is what
``csl-game server`` runs, `run_bot` what ``csl-game bot`` runs.
docs/server.md describes the protocol, the threat model and deployment.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable

from csl_game.errors import NetworkError
from csl_game.server.bot import BotError, BotGame, BotSpec, run_bot, saved_token, ws_url
from csl_game.server.cluster import ClusterHub
from csl_game.server.guard import AddressGuard, Limits, TokenBucket
from csl_game.server.hub import Client, Hub, ServerOptions, hash_token, new_token
from csl_game.server.ladder import Ladder
from csl_game.server.messages import decode_event, decode_request
from csl_game.server.postgres import PostgresStore
from csl_game.server.room import Room, RoomStep
from csl_game.server.store import GameRow, SqliteStore, Store
from csl_game.server.thinking import Answer, SeatThinker, answer_doc
from csl_game.server.web import Served, make_app, serve

__all__ = ["run_server", "server_loop", "tune_gc", "GC_YOUNG", "add_bot", "serve", "Served", "make_app", "Hub", "Client",
           "ServerOptions", "Limits", "AddressGuard", "TokenBucket", "Ladder", "Store",
           "SqliteStore", "PostgresStore", "GameRow", "open_store", "hash_token", "new_token",
           "decode_request", "decode_event", "BotSpec", "BotGame", "BotError", "run_bot",
           "saved_token", "ws_url", "Room", "RoomStep", "ClusterHub", "SeatThinker", "Answer", "answer_doc"]


GC_YOUNG = 50_000
"""Allocations between two collections of the garbage collector's youngest
generation in a server process (Python's default is 700). A server holds
some hundred objects for each connection it keeps open for minutes, and each
game's moves and rooms live for many seconds: at the default, so much of
that is promoted to the oldest generation that it is scanned whole (600,000
objects, 0.2-0.4 s each time, the event loop stopped) every few seconds. At
50,000, the load benchmark's server spent 0.4 s of 7 collecting garbage
where it had spent 3.1 s of 8.5, its move latency p99 fell from 400 to 30
ms, and its CPU a move to 0.70x (docs/server.md, "Scale")."""


def tune_gc() -> None:
    """The garbage collector as a server process wants it (`GC_YOUNG`)."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, middle, old)


def server_loop(store: Store, platform: str = sys.platform
                ) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop `run_server` runs on for `store` (`asyncio.Runner`'s
    `loop_factory`; None: asyncio's default).

    Where uvloop is installed (the server extra installs it, but for
    Windows, which it does not run on), uvloop's: the server's CPU a move
    0.95x as fast as the clients can and 0.88x at 1,000 games moving every
    2 s (docs/server.md, "Scale"). On Windows, a process of several on
    PostgreSQL runs on a selector loop: the default there, the proactor loop,
    has no socket callbacks (`add_reader`), which the relay listens with, and
    psycopg's async connections refuse it. Windows's selector loop watches at
    most 512 sockets (`select`): a Windows host of many clients runs one
    process on SQLite, or its processes on Linux."""
    if platform == "win32":
        return asyncio.SelectorEventLoop if isinstance(store, PostgresStore) else None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def open_store(where: str) -> Store:
    """The store `where` names: a postgresql:// URL, else an SQLite file's path."""
    if where.startswith(("postgresql://", "postgres://")):
        return PostgresStore(where)
    return SqliteStore(where)


def add_bot(store: Store, name: str) -> str | None:
    """Register a bot called `name`; its token (None when the name is taken)."""
    token = new_token()
    return token if store.add_bot(name, hash_token(token)) else None


async def run_server(store: Store, options: ServerOptions, host: str, port: int,
                     ready: Callable[[Served], None] | None = None,
                     stop: asyncio.Event | None = None) -> None:
    """Serve until `stop` is set (or the task is cancelled: Ctrl+C). On PostgreSQL
    the process is one of as many as share the database (csl_game.server.cluster);
    an SQLite file is served by one process only.

    Raises:
        UsageError: another process serves the SQLite file.
        NetworkError: the connection to PostgreSQL was lost (the process's
            games are taken over by the others: it must not serve them).
    """
    tune_gc()
    if isinstance(store, PostgresStore):
        hub: Hub = ClusterHub(store, options, store.url)
    else:
        if isinstance(store, SqliteStore):
            store.serve_alone()
        hub = Hub(store, options)
    served = await serve(hub, host, port)
    try:
        if ready is not None:
            ready(served)
        waits = [asyncio.ensure_future((stop or asyncio.Event()).wait())]
        if isinstance(hub, ClusterHub):
            waits.append(asyncio.ensure_future(hub.relay.lost.wait()))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
        if isinstance(hub, ClusterHub) and hub.relay.lost.is_set():
            raise NetworkError("the connection to the database was lost: this process stops "
                               "(the others take its games over)")
    finally:
        await served.close()
