"""The online protocol without sockets: every message encodes and decodes to
itself, and what is no message (garbage, absurd values, unknown keys, deep
nesting, oversized lines, floods) is refused with ProtocolError."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csl_game.engine import ForfeitReason, MatchResult, PlayedMove
from csl_game.model.board import Move, PColor, Piece, Pos, PShape, Winner
from csl_game.online.protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    ErrorMsg,
    ForfeitMsg,
    Hello,
    LineReader,
    MoveMsg,
    Paused,
    Ping,
    Played,
    Pong,
    ProtocolError,
    Result,
    Resumed,
    Welcome,
    decode_client,
    decode_host,
    encode,
)
from csl_game.online.wire import RateLimit
from csl_game.services.addresses import address_of, parse_address
from csl_game.thinker.api import MatchConfig

names = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1,
                max_size=40).filter(str.isprintable)
shapes = st.sampled_from(PShape)


@pytest.mark.unit
@settings(max_examples=60, deadline=None)
@given(ply=st.integers(0, 1600), col=st.integers(0, 63), shape=shapes)
def test_moves_round_trip(ply: int, col: int, shape: PShape) -> None:
    assert decode_client(encode(MoveMsg(ply, col, shape))[:-1]) == MoveMsg(ply, col, shape)


@settings(max_examples=60, deadline=None)
@given(name=names, code=st.text(min_size=0, max_size=64).filter(str.isprintable),
       kind=st.sampled_from(("human", "ai")), color=st.sampled_from([None, *PColor]),
       rows=st.none() | st.integers(1, 40))
def test_hellos_round_trip(name: str, code: str, kind: str, color: PColor | None,
                           rows: int | None) -> None:
    hello = Hello(PROTOCOL_VERSION, "player", code, name, kind, color,
                  None if rows is None else {"rows": rows})
    line = encode(hello)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and line.isascii()
    assert decode_client(line[:-1]) == hello


@pytest.mark.unit
@settings(max_examples=40, deadline=None)
@given(moves=st.lists(st.tuples(st.integers(0, 6), shapes,
                                st.integers(0, 10 ** 6).map(lambda m: m / 1000)), max_size=42),
       waiting=st.sampled_from(["", "Bob"]), color=st.sampled_from([None, *PColor]))
def test_welcomes_round_trip(moves: list[tuple[int, PShape, float]], waiting: str,
                             color: PColor | None) -> None:
    welcome = Welcome(PROTOCOL_VERSION, "spectator" if color is None else "player", color,
                      MatchConfig(time_limit_ms=200), ("Alice", "Bob"), (True, False),
                      tuple(moves), waiting)
    assert decode_host(encode(welcome)[:-1]) == welcome


@pytest.mark.unit
def test_every_host_message_round_trips() -> None:
    result = MatchResult(Winner.RED, "Alice", "Bob", (Pos(0, 0), Pos(1, 1)),
                         ForfeitReason.TIMEOUT, "time limit 200 ms\nsecond line",
                         (PlayedMove(Move(0, 3, Piece(PColor.WHITE, PShape.ROUND)), 0.012,
                                     (("depth", 5), ("nodes", 1.5))),))
    config = MatchConfig(rows=6, cols=7, time_limit_ms=200)
    for msg in (Played(3, 2, PShape.SQUARE, 0.25), Paused("Bob"), Resumed(), Ping(),
                ErrorMsg("wrong join code"), Result(result, config)):
        assert decode_host(encode(msg)[:-1]) == msg
    for msg in (Pong(), ForfeitMsg(4, ForfeitReason.EXCEPTION, "Traceback\n  line"),
                Hello(PROTOCOL_VERSION, "spectator")):
        assert decode_client(encode(msg)[:-1]) == msg



@pytest.mark.unit
def test_a_result_sends_the_clock_only_when_it_is_not_the_default() -> None:
    """A game on the default clock reads as version 1 always sent it; one on
    another clock or with a margin says so, and the joiner learns it (so both
    sides print the same result)."""
    result = MatchResult(Winner.DRAW, "Alice", "Bob")
    board = {"rows": 6, "cols": 7, "win_sequence": 4, "round_pieces": 10,
             "square_pieces": 11, "time_limit_ms": 200}
    plain = MatchConfig(time_limit_ms=200)
    assert json.loads(encode(Result(result, plain)))["result"]["settings"] == board
    config = MatchConfig(time_limit_ms=200, clock="wall", time_margin_ms=30)
    sent = json.loads(encode(Result(result, config)))["result"]["settings"]
    assert sent == {**board, "clock": "wall", "time_margin_ms": 30}
    got = decode_host(encode(Result(result, config))[:-1])
    assert isinstance(got, Result) and got.result == result
    assert (got.config.clock, got.config.time_margin_ms) == ("wall", 30)
    welcome = Welcome(PROTOCOL_VERSION, "player", PColor.RED, config, ("A", "B"),
                      (False, True), (), "")
    back = decode_host(encode(welcome)[:-1])
    assert isinstance(back, Welcome) and back.config == config


DEEP = b"[" * 100_000 + b"]" * 100_000
ABSURD = [
    b"", b"\xff\xfe\x00garbage", b"not json", b"[1, 2]", b"null", b'"hello"', b"1e999",
    DEEP[:60_000], b'{"type": "hello", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"type": "launch_missiles"}', b'{"kind": "move"}', b'{"type": ["move"]}',
    b'{"type": "move", "ply": 0, "col": -1, "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": 64, "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": 1e3, "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": 3.0, "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": true, "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": "3", "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": ' + b"9" * 5000 + b', "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": ' + b"9" * 400 + b', "shape": "round"}',
    b'{"type": "move", "ply": -5, "col": 3, "shape": "round"}',
    b'{"type": "move", "ply": 0, "col": 3, "shape": "triangle"}',
    b'{"type": "move", "ply": 0, "col": 3, "shape": 0}',
    b'{"type": "move", "ply": 0, "col": 3, "shape": "round", "extra": 1}',
    b'{"type": "move", "ply": 0, "col": 3}',
    b'{"type": "move", "ply": NaN, "col": 3, "shape": "round"}',
    b'{"type": "forfeit", "ply": 0, "reason": "bored", "detail": ""}',
    b'{"type": "forfeit", "ply": 0, "reason": "timeout", "detail": "\\u001b[2J"}',
    b'{"type": "forfeit", "ply": 0, "reason": "timeout", "detail": "' + b"x" * 3000 + b'"}',
    b'{"type": "hello", "version": 1, "role": "king"}',
    b'{"type": "hello", "version": -1, "role": "spectator"}',
    b'{"type": "hello", "version": ' + b"1" * 300 + b', "role": "spectator"}',
    b'{"type": "hello", "version": 1, "role": "spectator", "code": "x"}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "",'
    b' "kind": "human"}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "' +
    b"n" * 41 + b'", "kind": "human"}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "a\\nb",'
    b' "kind": "human"}',
    b'{"type": "hello", "version": 1, "role": "player", "code": ["abcd"], "name": "a",'
    b' "kind": "human"}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "a",'
    b' "kind": "robot"}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "a",'
    b' "kind": "ai", "settings": {"rows": -1}}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "a",'
    b' "kind": "ai", "settings": {"rows": 100000000000}}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "a",'
    b' "kind": "ai", "settings": {"path": "/etc/passwd"}}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "a",'
    b' "kind": "ai", "settings": [6, 7]}',
    b'{"type": "hello", "version": 1, "role": "player", "code": "abcd", "name": "a",'
    b' "kind": "ai", "color": "blue"}',
]


@pytest.mark.unit
@pytest.mark.parametrize("line", ABSURD, ids=lambda b: repr(b[:40]))
def test_what_is_no_message_is_refused(line: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_client(line)


HOST_ABSURD = [
    b'{"type": "welcome"}', b'{"type": "played", "ply": 0, "col": 0, "shape": "round",'
    b' "ms": -1}', b'{"type": "played", "ply": 0, "col": 0, "shape": "round", "ms": 1e300}',
    b'{"type": "result", "result": {}}', b'{"type": "result", "result": [1]}',
    b'{"type": "paused", "name": "\\u0007bell"}', b'{"type": "error"}',
    b'{"type": "move", "ply": 0, "col": 0, "shape": "round"}',
]


@pytest.mark.unit
@pytest.mark.parametrize("line", HOST_ABSURD, ids=lambda b: repr(b[:40]))
def test_what_no_host_sends_is_refused(line: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_host(line)


@pytest.mark.unit
def test_a_welcome_of_an_unplayable_board_is_refused() -> None:
    doc = json.loads(encode(Welcome(1, "spectator", None, MatchConfig(), ("a", "b"),
                                    (True, True), (), "")))
    doc["settings"]["win_sequence"] = 40  # no line of 40 fits on 6 x 7
    with pytest.raises(ProtocolError, match="no playable game"):
        decode_host(json.dumps(doc).encode())


@pytest.mark.unit
def test_lines_are_bounded() -> None:
    reader = LineReader()
    assert reader.feed(b'{"a": 1}\n{"b"') == [b'{"a": 1}']
    assert reader.feed(b': 2}\n') == [b'{"b": 2}']
    with pytest.raises(ProtocolError, match="longer than"):
        reader.feed(b"x" * MAX_LINE)  # refused as it arrives: no newline is waited for
    reader = LineReader(max_line=10)
    with pytest.raises(ProtocolError):
        reader.feed(b"0123456789abc\n")
    assert LineReader(max_line=10).feed(b"012345678\n") == [b"012345678"]


@pytest.mark.unit
def test_the_rate_limit_allows_bursts_then_the_rate() -> None:
    limit = RateLimit(rate=10, burst=5)
    assert [limit.allow(0.0) for _ in range(6)] == [True] * 5 + [False]
    assert limit.allow(0.1) and not limit.allow(0.1)
    assert all(limit.allow(t / 10) for t in range(10, 20))


@pytest.mark.unit
@pytest.mark.parametrize("text, bare, expected", [
    ("127.0.0.1:5000", False, ("127.0.0.1", 5000)), ("[::1]:80", False, ("::1", 80)),
    ("5000", True, ("", 5000)), (":0", True, ("", 0)), ("host.lan:65535", False,
                                                        ("host.lan", 65535))])
def test_addresses(text: str, bare: bool, expected: tuple[str, int]) -> None:
    assert parse_address(text, bare) == expected


@pytest.mark.unit
@pytest.mark.parametrize("peer, counted_as", [
    (("192.0.2.7", 5000), "192.0.2.7"), (("::ffff:192.0.2.7", 5000, 0, 0), "192.0.2.7"),
    (("2001:db8:1:2:aaaa::1", 5000, 0, 0), "2001:db8:1:2::/64"),
    (("2001:db8:1:2:bbbb::9", 6000, 0, 0), "2001:db8:1:2::/64"),
    (("fe80::1%eth0", 5000, 0, 2), "fe80::/64"), ("/tmp/a-socket", "/tmp/a-socket")])
def test_per_address_limits_count_a_machine_once(peer: object, counted_as: str) -> None:
    """IPv4 by address; IPv6 by its /64 (one machine is commonly given a whole
    /64, so it cannot take a new address per connection)."""
    assert address_of(peer) == counted_as


@pytest.mark.unit
@pytest.mark.parametrize("text, bare", [("5000", False), ("host:70000", False), ("host:", False),
                                        (":5000", False), ("host:-1", False), ("x:1e3", False),
                                        ("70000", True), ("", True), ("host:123456", False)])
def test_bad_addresses(text: str, bare: bool) -> None:
    with pytest.raises(ValueError, match="port|HOST"):
        parse_address(text, bare)


def test_check_keys_finds_an_unknown_key_whether_or_not_the_type_is_there() -> None:
    """check_keys' quick answer (the type and the required keys, nothing more)
    holds only with the type: a key unknown in its place is still found."""
    from csl_game.errors import ProtocolError
    from csl_game.online.validators import check_keys
    check_keys({"type": "move", "col": 1}, ("col",))
    check_keys({"type": "move", "col": 1, "why": ""}, ("col",), ("why",))
    for doc in ({"col": 1, "evil": 2}, {"type": "move", "col": 1, "evil": 2}):
        with pytest.raises(ProtocolError, match="unknown key 'evil'"):
            check_keys(doc, ("col",))
    with pytest.raises(ProtocolError, match="without 'col'"):
        check_keys({"type": "move", "evil": 1}, ("col",))
