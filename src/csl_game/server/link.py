"""A connection to a game server for a frontend that polls (the window).

`ServerLink` runs the WebSocket on a thread of its own (its own event loop),
so `poll()` never blocks a frame: it gives the server's messages as they
came, each read by the strict parser (`decode_event`), and a ('closed', ...)
entry when the connection ends. `send()` queues a message. The link knows
nothing of the game: the window's table (csl_game.gui.server_table) checks
every message against its own board, as bots do.
"""

from __future__ import annotations

import asyncio
import json
import queue
import secrets
import threading
from typing import Any

import aiohttp

from csl_game.errors import ProtocolError
from csl_game.server.bot import BotError, ws_url
from csl_game.server.messages import VERSION, decode_event

__all__ = ["ServerLink"]


class ServerLink:
    """One WebSocket to a game server, on its own thread."""

    def __init__(self, url: str, name: str, first: dict[str, Any], cookie: str = "") -> None:
        """Connect, say hello as `name`, then send `first` (a join, create or watch).

        Raises:
            BotError: `url` is no server address.
        """
        self.url = ws_url(url)
        self.name = name
        self.cookie = cookie or secrets.token_urlsafe(24)
        """Who this end is to the server: a new link with it finds its seats again
        (a value the server did not issue is replaced by the session its welcome gives)."""
        self._first = first
        self._events: queue.SimpleQueue[tuple[str, dict[str, Any]]] = queue.SimpleQueue()
        self._loop = asyncio.new_event_loop()
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._main: asyncio.Future[None] | None = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="csl-server-link")
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._main = asyncio.ensure_future(self._talk(), loop=self._loop)
        try:
            self._loop.run_until_complete(self._main)
        except asyncio.CancelledError:
            pass
        finally:
            self._loop.close()

    async def _talk(self) -> None:
        why = "the server closed the connection"
        try:
            async with aiohttp.ClientSession() as http, http.ws_connect(
                    self.url, headers={"Cookie": f"csl_session={self.cookie}"},
                    heartbeat=30.0, max_msg_size=1 << 22) as ws:
                self._ws = ws
                await ws.send_str(json.dumps({"type": "hello", "version": VERSION,
                                              "name": self.name}))
                await ws.send_str(json.dumps(self._first))
                async for msg in ws:
                    if msg.type is not aiohttp.WSMsgType.TEXT:
                        break
                    kind, doc = decode_event(msg.data)
                    if kind == "ping":
                        await ws.send_str('{"type":"pong"}')
                    else:
                        if kind == "welcome" and "session" in doc:  # ours was not the server's
                            self.cookie = str(doc["session"])
                        self._events.put((kind, doc))
        except ProtocolError as e:
            why = f"the server sent a message that is none: {e}"
        except (aiohttp.ClientError, OSError, BotError) as e:
            why = f"cannot reach the server: {e}"
        self._events.put(("closed", {"message": why}))

    def poll(self) -> list[tuple[str, dict[str, Any]]]:
        """What the server said since the last call (never blocks)."""
        got = []
        while True:
            try:
                got.append(self._events.get_nowait())
            except queue.Empty:
                return got

    def send(self, doc: dict[str, Any]) -> None:
        """Send `doc` (in the background; lost if the connection is gone)."""
        async def out() -> None:
            if self._ws is not None and not self._ws.closed:
                await self._ws.send_str(json.dumps(doc))
        if self._loop.is_running():
            asyncio.run_coroutine_threadsafe(out(), self._loop)

    def close(self) -> None:
        """End the connection and its thread."""
        if self._main is not None and self._loop.is_running():
            self._loop.call_soon_threadsafe(self._main.cancel)
        self._thread.join(5)
