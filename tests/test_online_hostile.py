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

from csl_game.online.door import HostLimits
from csl_game.online.guard import TOLD, WRONG_CODES
from online_procs import (
    CODE,
    Proc,
    RawPlayer,
    answered,
    connect_from,
    other_loopback_works,
)
from online_warm import Warm
from waiting import until

HANDSHAKE_S = 1.0


@pytest.fixture(scope="module")
def warm() -> Iterator[Warm]:
    """Hosts forked from a loaded csl-game (each test still has its own)."""
    pool = Warm()
    yield pool
    pool.close()


@pytest.fixture
def game(warm: Warm) -> Iterator[tuple[Proc, int, RawPlayer]]:
    """A host (a seeded random AI as White) and the test seated as Red, 4 moves in."""
    server, port = warm.host("-W", "random", "--white-params", "5", "-t", "500",
                             "--handshake-timeout", str(HANDSHAKE_S), "--spectators", "2",
                             "--json")
    try:
        player = RawPlayer(port)
        player.play(4)
        yield server, port, player
        result = player.finish()  # the game goes on to its end, as if nothing happened
        assert server.finish(30) == 0, server.text()
        # the wire leaves out the clock's settings when they are the defaults
        settings = {"clock": "cpu", "time_margin_ms": 0, **result["settings"]}
        assert server.json() == {**result, "settings": settings}
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


def _first_line(port: int, raw: bytes, wait: float = 5.0) -> bytes:
    """Send `raw`, then read what comes back until its first line (a spectator
    welcomed is kept, so reading to the close would wait out `wait`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(raw)
        return s.makefile("rb").readline()


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
    server, port, _ = game
    started = time.monotonic()
    answer = _answer(port, b"x" * 10_000_000 + b"\n", wait=10)
    assert answer == b"" or "longer than 65536 bytes" in _error_of(answer)
    assert time.monotonic() - started < 8
    server.wait_for(r"turned away a connection from 127\.0\.0\.1:\d+: a line longer than "
                    r"65536 bytes", 5)  # told, as every refusal is


def test_too_many_messages_are_refused_and_told(game: tuple[Proc, int, RawPlayer]) -> None:
    server, port, _ = game
    spectator = b'{"type":"hello","version":1,"role":"spectator"}\n'
    answer = _answer(port, spectator + b'{"type":"pong"}\n' * 200)
    assert "too many messages" in json.loads(answer.splitlines()[-1])["message"]
    server.wait_for(r"turned away a connection from 127\.0\.0\.1:\d+: too many messages", 5)


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
def test_silent_connections_of_one_address_keep_nobody_else_out(warm: Warm) -> None:
    """20 connections from 127.0.0.2 that never say hello (more than the host
    holds waiting in all) leave room for the player and a spectator from
    127.0.0.1: one address has its own share of the waiting connections."""
    server, port = warm.host("-W", "random", "--white-params", "5", "-t", "500",
                             "--handshake-timeout", "5", "--json")
    silent = []
    try:
        silent = [connect_from("127.0.0.2", port) for _ in range(20)]
        # all taken in (or turned away) before the player comes: its share waits, the
        # others are told and closed
        share = HostLimits().max_pending_per_address
        until(lambda: sum(map(answered, silent)) >= len(silent) - share, 10,
              lambda: f"{sum(map(answered, silent))} of {len(silent)} turned away")
        player = RawPlayer(port)  # welcomed, not "too many connections are waiting"
        spectator = _first_line(port, b'{"type":"hello","version":1,"role":"spectator"}\n')
        assert json.loads(spectator)["type"] == "welcome", spectator[:200]
        result = player.finish()
        assert server.finish(30) == 0, server.text()
        # the wire leaves out the clock's settings when they are the defaults
        settings = {"clock": "cpu", "time_margin_ms": 0, **result["settings"]}
        assert server.json() == {**result, "settings": settings}
        assert "too many connections from your address are waiting" in server.text()
    finally:
        for s in silent:
            s.close()
        server.kill()


@needs_two_addresses
def test_guessing_join_codes_is_slowed_and_summed_up(
        game: tuple[Proc, int, RawPlayer]) -> None:
    """A client guessing codes as fast as it can from 127.0.0.2 for 2 s: the host
    looks at a handful of its codes (it looked at over a thousand a second),
    tells three refusals one by one and counts the rest; a spectator from
    127.0.0.1 is welcome meanwhile, and the game goes on."""
    server, port, _ = game
    told_before = len(server.err)
    said: dict[str, int] = {}
    started = time.monotonic()
    attempts = 0
    while time.monotonic() - started < 2.0:
        with connect_from("127.0.0.2", port, timeout=5) as s:
            s.sendall(_hello(code=f"guess{attempts:04d}"))
            attempts += 1
            line = s.makefile("rb").readline()
        kind = json.loads(line)["message"].split(":")[0] if line else "(closed)"
        said[kind] = said.get(kind, 0) + 1
    took = time.monotonic() - started
    assert attempts > 50, said  # it did try fast
    assert said.get("wrong join code", 0) <= WRONG_CODES, said
    assert said.get("wrong join code", 0) / took < 3, said
    assert said.get("too many wrong join codes from your address", 0) > 0, said
    spectator = _first_line(port, b'{"type":"hello","version":1,"role":"spectator"}\n')
    assert json.loads(spectator)["type"] == "welcome", spectator[:200]

    def told() -> list[str]:
        return [line for line in server.err[told_before:] if "127.0.0.2" in line]

    until(lambda: len(told()) >= TOLD, 5, told)  # the first few are told one by one
    # and no more: any other would have been written before the refusals it tells were
    # read above, so a moment for the pipe to bring it is enough to see it
    time.sleep(0.1)
    assert len(told()) <= TOLD, told()


@pytest.mark.unit
def test_a_join_code_is_at_least_six_characters() -> None:
    from csl_game.engine import Human
    from csl_game.model.board import PColor
    from csl_game.online.host import Host
    from csl_game.thinker.api import MatchConfig

    for code in ("", "abcd", "tiger", "tiger 42", "x" * 65):
        with pytest.raises(ValueError, match="6 to 64 characters"):
            Host(MatchConfig(), Human(), "Alice", PColor.WHITE, ("127.0.0.1", 0), code=code)


@needs_two_addresses
def test_refusals_are_told_one_line_per_address_a_minute() -> None:
    """On the host's own clock: of 30 wrong guesses from 127.0.0.2, three are told
    one by one and the rest in one line when the minute ends; an address still
    at it is told by that line alone. Its right code is refused unread while it
    has no guesses left, and 127.0.0.1 keeps its own budget and gets the seat."""
    from csl_game.engine import Human
    from csl_game.model.board import PColor
    from csl_game.online.door import TurnedAway
    from csl_game.online.host import Host
    from csl_game.thinker.api import MatchConfig

    now = [0.0]
    host = Host(MatchConfig(), Human(), "Alice", PColor.WHITE, ("127.0.0.1", 0), code=CODE,
                clock=lambda: now[0])
    events: list[object] = []

    def attempt(source: str, code: str) -> str:
        with connect_from(source, host.port) as s:
            s.sendall(_hello(code=code))
            s.settimeout(0.01)
            for _ in range(500):
                events.extend(host.poll())
                try:
                    return str(json.loads(s.makefile("rb").readline())["message"])
                except TimeoutError:
                    continue
        raise AssertionError("no answer")

    try:
        said = [attempt("127.0.0.2", f"guess{i:03d}") for i in range(30)]
        assert said[:WRONG_CODES] == ["wrong join code"] * WRONG_CODES
        assert all(m.startswith("too many wrong join codes from your address: try again in")
                   for m in said[WRONG_CODES:])
        assert attempt("127.0.0.2", CODE).startswith("too many wrong join codes")  # unread
        told = [e for e in events if isinstance(e, TurnedAway)]
        assert [(e.count, e.reason) for e in told] == [(1, "wrong join code")] * TOLD
        now[0] += 61
        events.extend(host.poll())
        summary = [e for e in events if isinstance(e, TurnedAway)][TOLD:]
        assert len(summary) == 1 and summary[0].peer == "127.0.0.2"
        assert summary[0].count == 31 - TOLD
        assert summary[0].reason == (f"{31 - WRONG_CODES:,} too many wrong join codes from "
                                     f"your address, {WRONG_CODES - TOLD} wrong join code")
        assert summary[0].text.startswith("turned away 28 more connections from 127.0.0.2 in "
                                          "the last minute: ")
        events.clear()
        for i in range(10):  # a minute later it has its guesses back, and goes on
            attempt("127.0.0.2", f"again{i:03d}")
        assert not [e for e in events if isinstance(e, TurnedAway)]  # counted only
        now[0] += 61
        events.extend(host.poll())
        assert [e.count for e in events if isinstance(e, TurnedAway)] == [10]
        events.clear()
        assert attempt("127.0.0.1", "notit99") == "wrong join code"
        assert [e.peer.split(":")[0] for e in events if isinstance(e, TurnedAway)] == \
            ["127.0.0.1"]  # told at once: its own first refusal
        with connect_from("127.0.0.1", host.port) as s:
            s.sendall(_hello())
            s.settimeout(0.01)
            for _ in range(500):
                host.poll()
                try:
                    assert json.loads(s.makefile("rb").readline())["type"] == "welcome"
                    break
                except TimeoutError:
                    continue
    finally:
        host.close(linger=0)


@pytest.mark.unit
def test_what_a_host_remembers_of_addresses_is_bounded() -> None:
    """Refusals from more addresses than it remembers are counted as 'other
    addresses'; a refusal of a new kind each time names at most 8 kinds; wrong
    codes from ever new addresses keep at most MAX_ADDRESSES budgets."""
    from csl_game.online.guard import OTHERS, RefusalLog, WrongCodes

    log = RefusalLog(told=1, every=60, max_addresses=100)
    for i in range(300):
        for _ in range(3):
            log.tell(f"192.0.2.{i}", f"this host speaks version 1, not version {i}", 0.0)
    ended = dict(log.due(61.0))
    assert len(ended) == 101 and OTHERS in ended  # 100 addresses, and the others
    assert len(ended[OTHERS]) == 9 and ended[OTHERS]["other"] > 0  # 8 kinds and 'other'
    codes = WrongCodes(per_minute=5, max_addresses=100)
    for i in range(1000):
        codes.wrong(f"198.51.100.{i}", float(i))
    assert len(codes._buckets) <= 100
    assert codes.wait("198.51.100.999", 999.0) == 0  # four left of its five
