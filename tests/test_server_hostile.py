"""The game server against hostile clients, each bounded in time: too many
sockets from one address, slowloris, a flood of messages, oversized, binary
and malformed messages, a WebSocket from another site's page, a client that
never reads; in each case the others go on being served."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from csl_game.server import Limits, ServerOptions
from online_procs import answered, connect_from, other_loopback_works
from server_thread import ServerThread
from waiting import until

pytestmark = pytest.mark.timing

LIMITS = Limits(per_address=20, burst=1000, request_timeout_s=1.0, messages_per_s=5.0,
                message_burst=10.0)


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with ServerThread(tmp_path, ServerOptions(limits=LIMITS)) as s:
        yield s


def served_quickly(server: ServerThread, source: str = "127.0.0.1") -> float:
    """Seconds a well-behaved client from `source` takes to get the ladder."""
    start = time.monotonic()
    sock = connect_from(source, server.port, 5)
    with sock:
        sock.sendall(b"GET /api/ladder HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200"), data[:200]
    return time.monotonic() - start


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_one_address_holds_only_so_many_sockets(server: ServerThread) -> None:
    idle = [connect_from("127.0.0.1", server.port) for _ in range(LIMITS.per_address)]
    try:
        until(lambda: server.open_connections() == LIMITS.per_address, 5,
              lambda: f"{server.open_connections()} connections held")
        extra = connect_from("127.0.0.1", server.port)
        assert closed_within(extra, 2.0)  # refused at once
        extra.close()
        if other_loopback_works():  # another address is served all the while
            assert served_quickly(server, "127.0.0.2") < 1.0
    finally:
        for sock in idle:
            sock.close()


def test_a_thousand_idle_sockets_are_let_go_and_nobody_waits(server: ServerThread) -> None:
    socks = []
    for _ in range(1000):
        try:
            socks.append(connect_from("127.0.0.1", server.port, 2))
        except OSError:
            break
    try:
        # every socket taken in (held) or turned away (closed) by the server
        until(lambda: sum(map(answered, socks)) + server.open_connections() >= len(socks), 10,
              lambda: f"{sum(map(answered, socks))} closed, {server.open_connections()} held, "
                      f"of {len(socks)}")
        assert server.open_connections() <= LIMITS.per_address
        # no request within the deadline: every admitted one is closed
        until(lambda: server.open_connections() == 0, LIMITS.request_timeout_s + 1.0,
              lambda: f"{server.open_connections()} idle connections still held")
        assert served_quickly(server) < 1.0
    finally:
        for sock in socks:
            sock.close()


def test_slowloris_is_cut_off_and_others_are_served(server: ServerThread) -> None:
    slow = connect_from("127.0.0.1", server.port)
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    start = time.monotonic()
    cut = False
    while time.monotonic() - start < LIMITS.request_timeout_s + 3:
        try:
            slow.sendall(b"X-a: b\r\n")  # a header line now and then, never the end
        except OSError:
            cut = True
            break
        if closed_within(slow, 0.3):
            cut = True
            break
        assert served_quickly(server) < 1.0
    slow.close()
    assert cut, "a request sent a line at a time was never cut off"
    assert time.monotonic() - start < LIMITS.request_timeout_s + 3


async def _ws(url: str, **kwargs: Any) -> tuple[aiohttp.ClientSession,
                                                aiohttp.ClientWebSocketResponse]:
    http = aiohttp.ClientSession()
    ws = await http.ws_connect(url.replace("http://", "ws://") + "/ws", **kwargs)
    return http, ws


async def _replies(ws: aiohttp.ClientWebSocketResponse, seconds: float = 3.0) -> list[Any]:
    """What the server says until it closes the connection (or `seconds` pass)."""
    said: list[Any] = []
    try:
        async with asyncio.timeout(seconds):
            async for msg in ws:
                if msg.type is aiohttp.WSMsgType.TEXT:
                    said.append(json.loads(msg.data))
                else:
                    break
    except TimeoutError:
        said.append("still open")
    return said


@pytest.mark.parametrize("bad", [
    "not json", '{"type": "move"}', '{"type": "hello", "version": 1, "name": "x", "admin": 1}',
    '{"type": "watch", "game": "../../etc/passwd"}', '{"type": "nope"}',
    '{"type": "move", "game": "abcdefgh", "ply": 0, "col": 99, "shape": "round"}',
    '{"type": "hello", "version": 1, "name": "\\u0000evil"}', "[1, 2, 3]",
    '{"type": "bot", "version": 1, "name": "x", "token": "' + "t" * 500 + '"}',
])
def test_malformed_messages_are_refused_and_three_close_the_connection(
        server: ServerThread, bad: str) -> None:
    async def go() -> list[Any]:
        http, ws = await _ws(server.url)
        async with http:
            for _ in range(3):
                await ws.send_str(bad)
            return await _replies(ws)
    said = asyncio.run(go())
    assert said and all(isinstance(m, dict) and m["type"] == "error" for m in said), said
    assert len(said) == 3


def test_an_oversized_or_binary_message_closes_the_connection(server: ServerThread) -> None:
    async def go(send: Any) -> list[Any]:
        http, ws = await _ws(server.url)
        async with http:
            await send(ws)
            said = await _replies(ws)
            return said + (["closed"] if ws.closed else [])
    big = asyncio.run(go(lambda ws: ws.send_str('{"type":"lobby","x":"' + "a" * 10000 + '"}')))
    assert "still open" not in big
    binary = asyncio.run(go(lambda ws: ws.send_bytes(b"\x00\x01")))
    assert "still open" not in binary


def test_a_flood_of_messages_is_cut_off(server: ServerThread) -> None:
    async def go() -> list[Any]:
        http, ws = await _ws(server.url)
        async with http:
            for _ in range(200):
                await ws.send_str('{"type": "pong"}')
            return await _replies(ws)
    said = asyncio.run(go())
    assert {"type": "error", "message": "too many messages"} in said
    assert "still open" not in said
    assert served_quickly(server) < 1.0


def test_a_websocket_from_another_sites_page_is_refused(server: ServerThread) -> None:
    async def go(origin: str) -> int:
        async with aiohttp.ClientSession() as http:
            try:
                ws = await http.ws_connect(server.url.replace("http", "ws") + "/ws",
                                           origin=origin)
            except aiohttp.WSServerHandshakeError as e:
                return e.status
            await ws.close()
            return 101
    assert asyncio.run(go("http://evil.example")) == 403
    assert asyncio.run(go(server.url)) == 101


def test_the_session_cookie_is_httponly_and_samesite(server: ServerThread) -> None:
    with urllib.request.urlopen(server.url + "/", timeout=5) as page:
        cookie = page.headers["Set-Cookie"]
        policy = page.headers["Content-Security-Policy"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "script-src 'self'" in policy


def test_a_client_that_never_reads_loses_its_connection_not_the_others(
        server: ServerThread) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", server.port))
    with sock:
        sock.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     b"Sec-WebSocket-Version: 13\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 101")
        deadline = time.monotonic() + 5
        while not server.hub.clients:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        client = next(iter(server.hub.clients))
        big = '{"type":"ping"}' + " " * 60000
        for _ in range(server.hub.options.outbox_bytes // len(big) + 100):  # it reads none
            server.loop.call_soon_threadsafe(client.send, big)
        deadline = time.monotonic() + 10
        while not client.closed:
            assert time.monotonic() < deadline, "a client that never reads was kept"
            time.sleep(0.05)
        assert served_quickly(server) < 1.0
        assert server.open_connections() <= 1


def test_a_connection_idle_after_an_answer_is_let_go(server: ServerThread) -> None:
    for path in (b"/api/ladder", b"/no/such/page"):  # after an error answer too
        sock = connect_from("127.0.0.1", server.port)
        with sock:
            sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.settimeout(5)
            assert sock.recv(65536).startswith(b"HTTP/1.1 ")
            start = time.monotonic()
            assert closed_within(sock, LIMITS.request_timeout_s + 3)
            assert time.monotonic() - start < LIMITS.request_timeout_s + 3
