"""The server on the network: aiohttp's HTTP and WebSocket server around the hub.

aiohttp gives, in one well-kept package, the HTTP server, WebSockets (with
size limits) and the client the bots and the benchmark use.
Its request handler is wrapped in `_Guarded`, a protocol that counts each
address's connections (`AddressGuard`) and aborts a connection that sends no
complete request in time (slowloris). Pages are rendered by
csl_game.server.pages; the JSON API and the WebSocket are here. Nothing a
client sends is used as a path: ids are checked against a pattern and only
looked up in the hub's tables or the database.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from csl_game.online.protocol import config_json
from csl_game.server.export import game_pgn
from csl_game.server.game import Rejected
from csl_game.server.guard import AddressGuard, Limits, TokenBucket
from csl_game.server.hub import Client, Hub, hash_token
from csl_game.server.messages import MAX_MESSAGE, encode, is_id
from csl_game.server.pages import game_page, lobby_page, message_page, player_page, static_file
from csl_game.server.people import best_game, log_in, player_doc, sign_up
from csl_game.server.seats import Transport
from csl_game.server.store import GameRow, game_settings
from csl_game.server.trust import (
    came_over_tls,
    client_address,
    host_allowed,
    origin_allowed,
    proxied,
)

__all__ = ["make_app", "serve", "Served", "COOKIE"]

log = logging.getLogger(__name__)
COOKIE = "csl_session"


class _Deadlines:
    """When each connection must have sent its next complete request."""

    def __init__(self, limits: Limits, guard: AddressGuard) -> None:
        self.limits = limits
        self.guard = guard
        self.timers: dict[asyncio.BaseTransport, asyncio.TimerHandle] = {}

    def arm(self, transport: asyncio.BaseTransport) -> None:
        self.disarm(transport)
        loop = asyncio.get_running_loop()
        self.timers[transport] = loop.call_later(self.limits.request_timeout_s,
                                                 _abort, transport)

    def disarm(self, transport: asyncio.BaseTransport | None) -> None:
        timer = self.timers.pop(transport, None) if transport is not None else None
        if timer is not None:
            timer.cancel()


_HUB = web.AppKey("hub", Hub)
_ENDED = (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED)
_GUARD = web.AppKey("deadlines", _Deadlines)


def _abort(transport: asyncio.BaseTransport) -> None:
    """End a connection at once (looked at for `abort`, not for its class:
    another event loop's transports are not asyncio's)."""
    abort = getattr(transport, "abort", None)
    if callable(abort):
        abort()


class _Guarded(asyncio.Protocol):
    """aiohttp's request handler behind the address guard and the deadlines."""

    def __init__(self, inner: asyncio.Protocol, deadlines: _Deadlines) -> None:
        self.inner = inner
        self.deadlines = deadlines
        self.address = ""
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if isinstance(peer, tuple) else "local"
        refused = self.deadlines.guard.admit(self.address, time.monotonic())
        self.inner.connection_made(transport)
        if refused is not None:
            self.address = ""
            log.info("refused a connection: %s", refused)
            _abort(transport)
            return
        self.transport = transport
        self.deadlines.arm(transport)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.deadlines.disarm(self.transport)
        if self.address:
            self.deadlines.guard.release(self.address)
            self.address = ""
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


# ------------------------------------------------------------------ the application
def make_app(hub: Hub, deadlines: _Deadlines | None = None) -> web.Application:
    app = web.Application(middlewares=[_on_request], client_max_size=16 * 1024)
    app[_HUB] = hub
    if deadlines is not None:
        app[_GUARD] = deadlines
    app.router.add_get("/", _lobby)
    app.router.add_get("/game/{id}", _game)
    app.router.add_get("/ws", _websocket)
    app.router.add_get("/api/ladder", _api_ladder)
    app.router.add_get("/api/lobby", _api_lobby)
    app.router.add_get("/api/games", _api_games)
    app.router.add_get("/api/games/{id}", _api_game)
    app.router.add_get("/static/{name}", _static)
    app.router.add_post("/api/signup", _sign)
    app.router.add_post("/api/login", _sign)
    app.router.add_post("/api/logout", _sign)
    app.router.add_get("/api/players/{name}", _api_player)
    app.router.add_get("/@/{name}", _player)
    app.router.add_get("/tv", _tv)
    return app


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def _on_request(request: web.Request, handler: Handler) -> web.StreamResponse:
    deadlines = request.app.get(_GUARD)
    if deadlines is not None:
        deadlines.disarm(request.transport)
    response: web.StreamResponse | None = None
    try:
        response = await handler(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response
    finally:  # an error answer (404, 403) too: the next request has its deadline
        if deadlines is not None and request.transport is not None and \
                not isinstance(response, web.WebSocketResponse):
            deadlines.arm(request.transport)


def _session(request: web.Request) -> str:
    """The request's session: its cookie, if this server issued it."""
    return request.app[_HUB].session_of(request.cookies.get(COOKIE, ""))


def _with_cookie(request: web.Request, response: web.Response, made: str = "") -> web.Response:
    if made or not _session(request):
        response.set_cookie(COOKIE, made or request.app[_HUB].new_session(), httponly=True,
                            samesite="Lax", secure=came_over_tls(request.secure, request.headers),
                            max_age=365 * 24 * 3600, path="/")
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; frame-ancestors 'none'")
    return response


async def _account(request: web.Request) -> str | None:
    """The account the request's session is signed in to."""
    session = _session(request)
    hub = request.app[_HUB]
    return await hub.db(hub.store.logged_in, hash_token(session)) if session else None


async def _lobby(request: web.Request) -> web.StreamResponse:
    hub = request.app[_HUB]
    account = await _account(request)
    found = await hub.db(hub.store.player, account) if account else None
    you = (found[0], found[2].rating) if found is not None else None
    return _with_cookie(request, web.Response(text=lobby_page(hub.lobby(), you),
                                              content_type="text/html"))


async def _sign(request: web.Request) -> web.StreamResponse:
    """POST /api/signup, /api/login (a form's name and password) and /api/logout:
    the session is (or no longer is) the account's; back to the lobby."""
    hub = request.app[_HUB]
    if not _same_site(request):
        raise web.HTTPForbidden(text="a form from another site")
    session = _session(request)
    made = "" if session else hub.new_session()
    form = await request.post()
    name, password = str(form.get("name", "")).strip(), str(form.get("password", ""))
    kind = request.path.rsplit("/", 1)[-1]
    try:
        if kind == "logout":
            await hub.db(hub.store.log_in, hash_token(session or made), None)
        elif kind == "signup":
            await sign_up(hub, hash_token(session or made), name, password)
        else:
            await log_in(hub, hash_token(session or made), name, password,
                         _address(request))
    except Rejected as e:
        return _with_cookie(request, web.Response(status=400, text=message_page(
            "Not signed in", str(e)), content_type="text/html"), made)
    return _with_cookie(request, web.Response(status=303, headers={"Location": "/"}), made)


def _peer(request: web.Request) -> str:
    """The address the request's connection comes from ('local' if none)."""
    transport = request.transport
    peer = transport.get_extra_info("peername") if transport is not None else None
    return str(peer[0]) if isinstance(peer, tuple) else "local"


def _address(request: web.Request) -> str:
    """The client's address: the peer's, or what a proxy on this machine saw."""
    return client_address(_peer(request), request.headers)


def _same_site(request: web.Request) -> bool:
    """A form posted from this server's own page (or by a client without an Origin)."""
    origin = request.headers.get("Origin")
    return origin is None or urlsplit(origin).netloc.lower() == request.host.lower()


async def _tv(request: web.Request) -> web.StreamResponse:
    """The best-rated game being played (its page follows the next one when it ends)."""
    best = await best_game(request.app[_HUB])
    if best is None:
        return _with_cookie(request, web.Response(text=message_page(
            "TV", "No game is being played right now: come back soon."),
            content_type="text/html"))
    return web.Response(status=302, headers={"Location": f"/game/{best}?tv=1",
                                             "Cache-Control": "no-store"})


async def _api_player(request: web.Request) -> web.StreamResponse:
    doc = await player_doc(request.app[_HUB], request.match_info["name"][:40])
    if doc is None:
        raise web.HTTPNotFound(text="no such player")
    return web.json_response({k: doc[k] for k in ("name", "rating", "rd", "games")})


async def _player(request: web.Request) -> web.StreamResponse:
    doc = await player_doc(request.app[_HUB], request.match_info["name"][:40])
    if doc is None:
        raise web.HTTPNotFound(text="no such player")
    return _with_cookie(request, web.Response(text=player_page(doc), content_type="text/html"))


async def _game(request: web.Request) -> web.StreamResponse:
    hub = request.app[_HUB]
    game_id = request.match_info["id"]
    if not is_id(game_id):
        raise web.HTTPNotFound(text="no such game")
    live = hub.games.get(game_id)
    row: GameRow | None = None
    if live is not None:
        doc = _live_doc(hub, game_id)
    else:
        row = await hub.db(hub.store.game, game_id)
        if row is None:
            raise web.HTTPNotFound(text="no such game")
        doc = _row_doc(row)
    analysis = None
    if row is not None and row.state == "over" and row.result is not None:
        analysis = await hub.analyses.of(row)
        doc["analysis"] = "done" if analysis is not None else \
            "queued" if hub.analyses.queued(game_id) else "busy"
    return _with_cookie(request, web.Response(text=game_page(doc, analysis),
                                              content_type="text/html"))


async def _static(request: web.Request) -> web.StreamResponse:
    found = static_file(request.match_info["name"])  # a name of a fixed list, not a path
    if found is None:
        raise web.HTTPNotFound()
    body, content_type = found
    return web.Response(body=body, content_type=content_type,
                        headers={"Cache-Control": "max-age=300"})


async def _api_ladder(request: web.Request) -> web.StreamResponse:
    return web.json_response(request.app[_HUB].ladder_table())


async def _api_lobby(request: web.Request) -> web.StreamResponse:
    return web.json_response(request.app[_HUB].lobby())


async def _api_games(request: web.Request) -> web.StreamResponse:
    return web.json_response(request.app[_HUB].lobby()["games"])


async def _api_game(request: web.Request) -> web.StreamResponse:
    hub = request.app[_HUB]
    game_id = request.match_info["id"]
    if game_id.endswith(".pgn"):
        return await _api_pgn(hub, game_id.removesuffix(".pgn"))
    if not is_id(game_id):
        raise web.HTTPNotFound(text="no such game")
    if game_id in hub.games:
        return web.json_response(_live_doc(hub, game_id))
    row = await hub.db(hub.store.game, game_id)
    if row is None:
        raise web.HTTPNotFound(text="no such game")
    return web.json_response(_row_doc(row))


async def _api_pgn(hub: Hub, game_id: str) -> web.StreamResponse:
    """A finished game as PGN (as `report --format pgn` writes it)."""
    row = await hub.db(hub.store.game, game_id) if is_id(game_id) else None
    if row is None:
        raise web.HTTPNotFound(text="no such game")
    pgn = game_pgn(row)
    if pgn is None:
        raise web.HTTPConflict(text="the game is not finished: its PGN comes at its end")
    return web.Response(text=pgn, content_type="application/x-chess-pgn", charset="utf-8",
                        headers={"Content-Disposition":
                                 f"attachment; filename=\"{game_id}.pgn\""})


def _live_doc(hub: Hub, game_id: str) -> dict[str, Any]:
    live = hub.games[game_id]
    g = live.game
    return {"id": g.id, "kind": live.kind, "state": "playing", "white": g.names[0],
            "red": g.names[1], "settings": config_json(g.config), "moves": g.moves_json(),
            **g.clock_doc(hub.now())}


def _row_doc(row: GameRow) -> dict[str, Any]:
    """A stored game: a finished one as the results file records it, with its id."""
    if row.state == "over" and row.result is not None:
        return {**row.result, "id": row.id, "kind": row.kind, "state": "over"}
    return {"id": row.id, "kind": row.kind, "state": row.state, "white": row.white,
            "red": row.red, "settings": game_settings(row.settings), "moves": row.moves}


# ------------------------------------------------------------------ the WebSocket
async def _websocket(request: web.Request) -> web.StreamResponse:
    """A browser's WebSocket must come from this server's own pages (a page
    elsewhere cannot play in its visitor's name), under a name the server
    answers to (DNS rebinding: csl_game.server.trust); a client without an
    Origin (a bot, the app) is no browser and carries no cookie of a visitor's."""
    hub = request.app[_HUB]
    transport = request.transport
    peer_ip = _peer(request)
    if not origin_allowed(request.headers.get("Origin"), request.host,
                          hub.options.public_hosts, proxied(peer_ip, request.headers)):
        raise web.HTTPForbidden(text="a WebSocket from another site's page, or to a name "
                                "this server does not answer to")
    ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, autoping=False, compress=False)
    # no heartbeat of aiohttp's: it is a timer reset for every message; the
    # hub's ticker pings every connection and drops the silent (seats.Pinger)
    await ws.prepare(request)
    session = _session(request)
    ending: set[asyncio.Task[Any]] = set()

    def end() -> None:
        task = asyncio.ensure_future(ws.close())
        ending.add(task)
        task.add_done_callback(ending.discard)

    address = client_address(peer_ip, request.headers)
    account = await hub.db(hub.store.logged_in, hash_token(session)) if session else None
    client = Client(address,
                    hash_token(session) if session else "", account=account or "",
                    transport=transport if isinstance(transport, Transport) else None,
                    ending=end, socket=ws, heard=hub.now(),
                    outbox_bytes=hub.options.outbox_bytes)
    hub.connected(client)
    limits = hub.limits
    bucket = TokenBucket(limits.messages_per_s, limits.message_burst)
    receive, clock = ws.receive, hub.now
    try:
        while True:  # as `async for msg in ws`, a coroutine fewer a message
            msg = await receive()
            kind = msg.type
            if kind in _ENDED:
                break
            client.heard = now = clock()
            if not bucket.take(now):
                client.send(encode("error", message="too many messages"))
                break
            if kind is not WSMsgType.TEXT:
                if kind is WSMsgType.PING:
                    await ws.pong(msg.data)
                    continue
                if kind is WSMsgType.PONG:
                    continue
                client.send(encode("error", message="text messages only"))
                break
            await hub.receive(client, msg.data)
            if client.closed:
                break
    finally:
        hub.disconnected(client)
        try:  # a close the hub began is waited for too: ending now would reset the
            # connection, and a client still sending would lose what it was last told
            await asyncio.wait_for(asyncio.gather(ws.close(), *ending), 5)
        except (TimeoutError, ConnectionError):
            if transport is not None:
                _abort(transport)
    return ws


# ------------------------------------------------------------------ running it
class Served:
    """A running server: its address, and how to stop it."""

    def __init__(self, runner: web.AppRunner, server: asyncio.Server, hub: Hub,
                 ticker: asyncio.Task[None], guard: AddressGuard) -> None:
        self.guard = guard
        """The connections held, by address."""
        self.runner = runner
        self.server = server
        self.hub = hub
        self.ticker = ticker
        sock = server.sockets[0].getsockname()
        self.host, self.port = str(sock[0]), int(sock[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def close(self) -> None:
        self.server.close()
        self.ticker.cancel()
        await self.hub.close()
        await self.runner.cleanup()


async def serve(hub: Hub, host: str, port: int, limits: Limits | None = None) -> Served:
    """Start serving `hub` on host:port (port 0: any free port)."""
    limits = limits or hub.limits
    if not host_allowed(host, hub.options.public_hosts):  # the name it listens on is its own
        hub.options = replace(hub.options, public_hosts=(*hub.options.public_hosts, host))
    deadlines = _Deadlines(limits, AddressGuard(limits))
    await hub.start()
    runner = web.AppRunner(make_app(hub, deadlines), access_log=None, keepalive_timeout=15,
                           handle_signals=False)
    await runner.setup()
    inner = runner.server
    assert inner is not None
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Guarded(inner(), deadlines), host, port,
                                      family=socket.AF_UNSPEC, reuse_address=True,
                                      backlog=1024)
    ticker = asyncio.create_task(hub.run())
    return Served(runner, server, hub, ticker, deadlines.guard)
