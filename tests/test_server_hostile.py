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
            # read while flooding, as any client does: a reply left unread in the
            # kernel's buffer is lost if the cut-off connection is reset
            replies = asyncio.ensure_future(_replies(ws))
            for _ in range(200):
                try:
                    await ws.send_str('{"type": "pong"}')
                except aiohttp.ClientConnectionResetError:
                    break  # cut off before the flood was all sent
                await asyncio.sleep(0)
            return await replies
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
    """Two connections idle side by side (their deadlines run at once): one
    after an answer, one after an error answer."""
    socks = [connect_from("127.0.0.1", server.port) for _ in range(2)]
    try:
        for sock, path in zip(socks, (b"/api/ladder", b"/no/such/page"), strict=True):
            sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        answered_at = []
        for sock in socks:
            sock.settimeout(5)
            assert sock.recv(65536).startswith(b"HTTP/1.1 ")
            answered_at.append(time.monotonic())
        for sock, start in zip(socks, answered_at, strict=True):
            assert closed_within(sock, LIMITS.request_timeout_s + 3)
            assert time.monotonic() - start < LIMITS.request_timeout_s + 3
    finally:
        for sock in socks:
            sock.close()


def _cookie_of(server: ServerThread, **headers: str) -> str:
    request = urllib.request.Request(server.url + "/", headers=headers)
    with urllib.request.urlopen(request, timeout=5) as page:
        return str(page.headers.get("Set-Cookie", ""))


def test_behind_a_tls_proxy_the_session_cookie_is_secure(server: ServerThread) -> None:
    """Issue 41, item 9: X-Forwarded-Proto and Forwarded were ignored."""
    assert "Secure" not in _cookie_of(server)
    assert "Secure" in _cookie_of(server, **{"X-Forwarded-Proto": "https"})
    assert "Secure" in _cookie_of(server, Forwarded='for=192.0.2.1;proto=https;host=a.example')
    assert "Secure" not in _cookie_of(server, **{"X-Forwarded-Proto": "http"})


def test_a_cookie_the_server_never_issued_is_no_session(server: ServerThread) -> None:
    """Issue 41, item 9: any value of the cookie's shape was taken as a session."""
    made_up = "A" * 32 + "." + "B" * 22
    assert "csl_session=" in _cookie_of(server, Cookie=f"csl_session={made_up}")  # a new one
    issued = _cookie_of(server).split(";")[0].split("=", 1)[1]
    assert _cookie_of(server, Cookie=f"csl_session={issued}") == ""  # kept

    async def welcome(cookie: str) -> dict[str, Any]:
        http, ws = await _ws(server.url, headers={"Cookie": f"csl_session={cookie}"})
        async with http:
            await ws.send_str('{"type": "hello", "version": 1, "name": "Mallory"}')
            said = await ws.receive_json(timeout=5)
            await ws.close()
            return dict(said)
    forged = asyncio.run(welcome(made_up))
    assert forged["type"] == "welcome" and forged["session"] != made_up
    assert "session" not in asyncio.run(welcome(issued))


def test_a_websocket_to_another_name_is_refused_dns_rebinding(server: ServerThread) -> None:
    """Issue 41, item 9: a handshake whose Host and Origin were both the
    attacker's name was accepted."""
    async def status(host: str, origin: str, **more: str) -> int:
        try:
            http, ws = await _ws(server.url, headers={"Host": host, **more}, origin=origin)
        except aiohttp.WSServerHandshakeError as e:
            return e.status
        async with http:
            await ws.close()
        return 101
    port = server.port
    assert asyncio.run(status(f"evil.example:{port}", f"http://evil.example:{port}")) == 403
    assert asyncio.run(status(f"127.0.0.1:{port}", f"http://127.0.0.1:{port}")) == 101
    assert asyncio.run(status(f"localhost:{port}", f"http://localhost:{port}")) == 101
    # through a proxy on this machine, which chose this server by that name
    assert asyncio.run(status("csl.example.org", "https://csl.example.org",
                              **{"X-Forwarded-For": "192.0.2.9"})) == 101


def test_clients_asking_for_a_big_lobby_without_reading_hold_bounded_bytes(
        tmp_path: Path) -> None:
    """Issue 41, item 10: twenty clients of one address asking for the lobby
    (with 300 bots) 19 times a second without reading raised the server from
    66.5 to 433.6 MB."""
    from csl_game.server import SqliteStore, hash_token
    store = SqliteStore(tmp_path / "games.sqlite3")
    for i in range(300):
        store.add_bot(f"Bot number {i:03d} with a long name", hash_token(f"t{i}"))
    store.close()
    source = "127.0.0.2" if other_loopback_works() else "127.0.0.1"
    options = ServerOptions(outbox_bytes=256 * 1024)
    with ServerThread(tmp_path, options) as server:
        socks = []
        for _ in range(20):
            sock = connect_from(source, server.port)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                         b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                         b"Sec-WebSocket-Version: 13\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 101")
            socks.append(sock)
        ask = b'{"type":"lobby"}'
        masked = bytes((0x81, 0x80 | len(ask))) + b"\0\0\0\0" + ask  # a zero mask
        start = time.monotonic()
        sent_lobbies = 0
        while time.monotonic() - start < 3:  # 19 a second each, none read
            tick = time.monotonic()
            for sock in socks:
                try:
                    sock.sendall(masked)
                except OSError:
                    pass
            sent_lobbies += 1
            time.sleep(max(0.0, 1 / 19 - (time.monotonic() - tick)))
        held = server.call(lambda: _held(server))
        assert held <= 20 * (options.outbox_bytes + 64 * 1024), held
        assert served_quickly(server) < 1.0
        lobby = server.call(lambda: _lobby_size(server))
        assert lobby < 8000, lobby
        for sock in socks:
            sock.close()


async def _held(server: ServerThread) -> int:
    """Bytes the server's transports hold unsent."""
    return sum(c.transport.get_write_buffer_size() for c in server.hub.clients
               if c.transport is not None and not c.transport.is_closing())


async def _lobby_size(server: ServerThread) -> int:
    return len(server.hub._lobby_now())


def test_waiting_games_are_counted_by_the_address_a_proxy_says(server: ServerThread) -> None:
    """Issue 41, item 11: behind a proxy every client is 127.0.0.1; its
    X-Forwarded-For says whose games wait."""
    async def made(forwarded: str, name: str) -> str:
        http, ws = await _ws(server.url, headers={"X-Forwarded-For": forwarded})
        async with http:
            await ws.send_str(json.dumps({"type": "hello", "version": 1, "name": name}))
            await ws.send_str(json.dumps({"type": "create", "opponent": "open",
                                          "color": "white"}))
            kinds = []
            while len(kinds) < 2:
                kinds.append((await ws.receive_json(timeout=5))["type"])
            clients = server.hub.clients
            address = {c.address for c in clients if c.name == name}
            await ws.close()
            return f"{kinds[-1]} {','.join(address)}"
    assert asyncio.run(made("192.0.2.1, 198.51.100.7", "Ann")) == "game 198.51.100.7"


def test_a_connection_that_answers_no_ping_is_dropped_and_one_that_does_stays(
        tmp_path: Path) -> None:
    """The server pings every connection (ping_every_s) and drops one it has
    heard nothing from, not even the pong its WebSocket owes a ping, in
    silent_s: a client whose other end went without a word. A client whose
    library answers pings (aiohttp's, a browser's), and says nothing else,
    stays."""
    options = ServerOptions(limits=LIMITS, ping_every_s=0.2, silent_s=2.0)

    async def mute_reader(ws: aiohttp.ClientWebSocketResponse) -> tuple[list[str], float]:
        said, started = [], time.monotonic()
        async with asyncio.timeout(10):
            async for msg in ws:  # pings come to it, and are not answered
                if msg.type is aiohttp.WSMsgType.TEXT:
                    said.append(json.loads(msg.data)["type"])
                elif msg.type is not aiohttp.WSMsgType.PING:
                    break
        return said, time.monotonic() - started

    async def go(url: str) -> tuple[tuple[list[str], float], list[Any]]:
        http, answering = await _ws(url)  # autoping: it answers pings as it reads
        mute_http, mute = await _ws(url, autoping=False)
        async with http, mute_http:
            return await asyncio.gather(mute_reader(mute), _replies(answering, 4.0))
    with ServerThread(tmp_path, options) as s:
        (mute_said, took), kept = asyncio.run(go(s.url))
    assert 1.9 < took < 8.0  # dropped once 2 s passed without a word
    assert set(mute_said) == {"ping"}
    assert kept[-1] == "still open"  # never dropped, though it never spoke
    assert len(kept) > 5 and {m["type"] for m in kept[:-1]} == {"ping"}
