"""A hosting process withstands what a network sends (loopback only, bounded
in count and time): the test holds the seat itself through the protocol and,
mid-game, random bytes, a 10 MB line, 200 connections at once, a client
sending a byte a second, wrong codes and versions, a second player, a
spectator who moves and valid JSON with absurd values come in. Each offender
gets at most one error line and is closed; then the game finishes normally."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from online_procs import CODE, Proc, RawPlayer, connect_from, host, other_loopback_works

HANDSHAKE_S = 1.0


@pytest.fixture
def game() -> Iterator[tuple[Proc, int, RawPlayer]]:
    """A host (a seeded random AI as White) and the test seated as Red, 4 moves in."""
    server, port = host("-W", "random", "--white-params", "5", "-t", "500",
                        "--handshake-timeout", str(HANDSHAKE_S), "--spectators", "2", "--json")
    try:
        player = RawPlayer(port)
        player.play(4)
        yield server, port, player
        result = player.finish()  # the game goes on to its end, as if nothing happened
        assert server.finish(30) == 0, server.text()
        assert server.json() == result
    finally:
        server.kill()


def _answer(port: int, raw: bytes, wait: float = 5.0) -> bytes:
    """Send `raw`, then read what comes back until the host closes (or `wait` s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        try:
            s.sendall(raw)
        except OSError:  # the host closed on us mid-send: what it said may still be there
            pass
        chunks = []
        try:
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except OSError:
            pass
        return b"".join(chunks)


def _error_of(answer: bytes) -> str:
    """The one error line the host sent before closing."""
    lines = answer.splitlines()
    assert len(lines) == 1, answer[:300]
    doc = json.loads(lines[0])
    assert doc["type"] == "error", doc
    return str(doc["message"])


def _hello(**fields: object) -> bytes:
    doc = {"type": "hello", "version": 1, "role": "player", "code": CODE, "name": "Mallory",
           "kind": "human", **fields}
    return json.dumps(doc).encode() + b"\n"


def test_random_bytes(game: tuple[Proc, int, RawPlayer]) -> None:
    _, port, _ = game
    for seed in range(3):
        noise = os.urandom(4000 + seed) + b"\n"
        answer = _answer(port, noise)
        assert answer == b"" or "not understood" in _error_of(answer)


def test_a_ten_megabyte_line(game: tuple[Proc, int, RawPlayer]) -> None:
    _, port, _ = game
    started = time.monotonic()
    answer = _answer(port, b"x" * 10_000_000 + b"\n", wait=10)
    assert answer == b"" or "longer than 65536 bytes" in _error_of(answer)
    assert time.monotonic() - started < 8


def test_two_hundred_connections_at_once(game: tuple[Proc, int, RawPlayer]) -> None:
    server, port, player = game
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(200)]
    try:
        player.play(player.board.move_count + 2)  # the game goes on meanwhile
        deadline = time.monotonic() + HANDSHAKE_S + 10
        for s in socks:  # every one is closed: turned away at once, or at the time-out
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                while s.recv(65536):
                    pass
            except ConnectionResetError:
                pass
    finally:
        for s in socks:
            s.close()
    assert "too many connections from your address are waiting" in server.text()


def test_a_client_sending_a_byte_a_second(game: tuple[Proc, int, RawPlayer]) -> None:
    _, port, _ = game
    ended: dict[str, float] = {}
    started = time.monotonic()
    slow = socket.create_connection(("127.0.0.1", port), timeout=10)

    def drip() -> None:
        try:
            for byte in _hello():
                slow.sendall(bytes([byte]))
                time.sleep(1.0)
        except OSError:
            pass

    threading.Thread(target=drip, daemon=True).start()
    try:
        said = b""
        while chunk := slow.recv(65536):
            said += chunk
    except OSError:
        pass
    ended["slow"] = time.monotonic() - started
    slow.close()
    assert "no hello within 1 s" in _error_of(said)
    assert ended["slow"] < HANDSHAKE_S + 3, ended


def test_a_wrong_code(game: tuple[Proc, int, RawPlayer]) -> None:
    _, port, _ = game
    for code in ("", "secret9", "SECRET99", "secret99 ", "x" * 64):
        assert _error_of(_answer(port, _hello(code=code))) == "wrong join code"


def test_a_wrong_version(game: tuple[Proc, int, RawPlayer]) -> None:
    _, port, _ = game
    for version in (0, 2, 99):
        message = _error_of(_answer(port, _hello(version=version)))
        assert f"not version {version}" in message and "protocol version 1" in message


def test_a_second_player(game: tuple[Proc, int, RawPlayer]) -> None:
    _, port, _ = game
    assert "the seat is taken" in _error_of(_answer(port, _hello()))


def test_a_spectator_cannot_move(game: tuple[Proc, int, RawPlayer]) -> None:
    _, port, player = game
    spectator = json.dumps({"type": "hello", "version": 1, "role": "spectator"}).encode()
    move = json.dumps({"type": "move", "ply": player.board.move_count, "col": 0,
                       "shape": "round"}).encode()
    answer = _answer(port, spectator + b"\n" + move + b"\n")
    first, *rest = answer.splitlines()
    assert json.loads(first)["type"] == "welcome"
    assert rest and "spectators cannot move" in json.loads(rest[-1])["message"]


ABSURD: list[Callable[[], bytes]] = [
    lambda: _hello(version=10 ** 300), lambda: _hello(version=-1), lambda: _hello(version=1.0),
    lambda: _hello(code=["secret99"]), lambda: _hello(name="x" * 100_00),
    lambda: _hello(name="\x1b]0;pwned\x07"), lambda: _hello(kind=None),
    lambda: _hello(settings={"rows": 10 ** 100}), lambda: _hello(settings={"rows": -6}),
    lambda: _hello(settings={"../../etc/passwd": 1}), lambda: _hello(color="green"),
    lambda: _hello(extra={"a": [[[[[]]]]]}),
    lambda: b'{"type": "hello", "version": 1, "role": "player", "code": ' + b"[" * 50_000
    + b"]" * 5_000 + b"}\n",
    lambda: b'{"type": "move", "ply": 0, "col": -3, "shape": "round"}\n',
    lambda: b'{"type": "hello", "version": 1, "role": "player", "code": "' + CODE.encode()
    + b'", "name": "a", "kind": "ai", "settings": {"rows": 7}}\n',
]


@pytest.mark.parametrize("make", ABSURD, ids=range(len(ABSURD)))
def test_valid_json_with_absurd_values(game: tuple[Proc, int, RawPlayer],
                                       make: Callable[[], bytes]) -> None:
    _, port, _ = game
    answer = _answer(port, make())
    assert answer, "no error line"
    message = _error_of(answer)
    assert message and "Traceback" not in message


needs_two_addresses = pytest.mark.skipif(not other_loopback_works(),
                                         reason="127.0.0.2 is not loopback here")


@needs_two_addresses
def test_silent_connections_of_one_address_keep_nobody_else_out() -> None:
    """20 connections from 127.0.0.2 that never say hello (more than the host
    holds waiting in all) leave room for the player and a spectator from
    127.0.0.1: one address has its own share of the waiting connections."""
    server, port = host("-W", "random", "--white-params", "5", "-t", "500",
                        "--handshake-timeout", "5", "--json")
    silent = []
    try:
        silent = [connect_from("127.0.0.2", port) for _ in range(20)]
        time.sleep(0.3)  # all taken in (or turned away) before the player comes
        player = RawPlayer(port)  # welcomed, not "too many connections are waiting"
        spectator = _answer(port, b'{"type":"hello","version":1,"role":"spectator"}\n', 1.0)
        assert json.loads(spectator.splitlines()[0])["type"] == "welcome", spectator[:200]
        result = player.finish()
        assert server.finish(30) == 0, server.text()
        assert server.json() == result
        assert "too many connections from your address are waiting" in server.text()
    finally:
        for s in silent:
            s.close()
        server.kill()
