"""The host's driver (csl_game.online.host.Host) on loopback, polled by the
test on a made-up clock, its joiners raw sockets speaking the protocol: a
connection that drops right after its move and one that goes half-open
mid-game give way to their player's next connection, whose moves are the
ones played, and a player whose connection went silent before the result
is told it when it connects again."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import pytest

from csl_game.engine import Human
from csl_game.model.board import PColor, PShape, Winner
from csl_game.online.door import HostLimits
from csl_game.online.host import Host
from csl_game.online.protocol import (
    ErrorMsg,
    Hello,
    HostMessage,
    MoveMsg,
    Played,
    Result,
    Welcome,
    decode_host,
    encode,
)
from hostile_host import CONFIG
from waiting import until

R, S = PShape.ROUND, PShape.SQUARE
CODE = "secret99"
BOB = Hello(1, "player", CODE, "Bob", "human")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Raw:
    """A joiner's connection, line by line."""

    def __init__(self, port: int, hello: Hello = BOB) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buffer = b""
        self.sock.sendall(encode(hello))

    def send(self, msg: MoveMsg) -> None:
        self.sock.sendall(encode(msg))

    def read(self) -> HostMessage:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the host closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return decode_host(line)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def served() -> Iterator[tuple[Host, Clock, Callable[[Callable[[], bool]], None]]]:
    """A host (Alice, a human, White) and a way to poll it until something holds."""
    clock = Clock()
    host = Host(CONFIG, Human(), "Alice", PColor.WHITE, ("127.0.0.1", 0), code=CODE,
                limits=HostLimits(silent_after=6.0), clock=clock)

    def serve(done: Callable[[], bool]) -> None:
        def step() -> bool:
            host.poll()
            return done()
        until(step, 5.0)

    try:
        yield host, clock, serve
    finally:
        host.close(linger=0.1)


def _alice(host: Host, col: int, shape: PShape) -> None:
    assert host.match is not None
    host.match.submit_move(col, shape)


def _played(raw: Raw) -> tuple[int, int, PShape]:
    msg = raw.read()
    while not isinstance(msg, Played):
        msg = raw.read()
    return msg.ply, msg.col, msg.shape


def test_a_dropped_and_a_half_open_connection_give_way_to_the_next(
        served: tuple[Host, Clock, Callable[[Callable[[], bool]], None]]) -> None:
    host, clock, serve = served
    first = Raw(host.port)
    serve(lambda: host.match is not None and host.match.awaiting_human)
    assert isinstance(first.read(), Welcome)
    _alice(host, 0, R)
    serve(lambda: host.match is not None and host.match.board.move_count == 1)
    assert _played(first) == (0, 0, R)
    first.send(MoveMsg(1, 3, S))  # its move, and then the connection is gone
    first.close()
    serve(lambda: host.paused)
    # a new program of Bob's, which never sent that move: what it is told is its game
    clock.now = 1.0
    second = Raw(host.port)
    serve(lambda: host.seat is not None and host.seat.peer == 2)
    welcome = second.read()
    assert isinstance(welcome, Welcome)
    if len(welcome.moves) == 1:  # the drop was seen before the move was played: asked again
        second.send(MoveMsg(1, 1, S))
        serve(lambda: host.match is not None and host.match.board.move_count == 2)
        assert _played(second) == (1, 1, S)
    assert host.match is not None and not host.is_over
    # now its connection goes half-open: it says nothing, reads nothing
    _alice(host, 1, R)
    serve(lambda: host.match is not None and host.match.board.move_count == 3)
    clock.now = 8.0  # silent for 7 s
    third = Raw(host.port)
    serve(lambda: host.seat is not None and host.seat.peer == 3 and host.connection(2) is None)
    assert isinstance(third.read(), Welcome) and not host.paused
    third.send(MoveMsg(3, 2, S))
    serve(lambda: host.match is not None and host.match.board.move_count == 4)
    assert _played(third) == (3, 2, S)
    leftover = second.sock.recv(65536)  # told why, then closed
    assert b"replaced: its player connected again" in leftover
    second.close()


def test_a_player_whose_connection_went_silent_is_told_the_result(
        served: tuple[Host, Clock, Callable[[Callable[[], bool]], None]]) -> None:
    host, clock, serve = served
    bob = Raw(host.port)
    serve(lambda: host.match is not None and host.match.awaiting_human)
    for ply, (col, shape) in enumerate(((0, R), (0, S), (1, R), (1, S), (2, R))):
        if ply % 2 == 0:
            _alice(host, col, shape)
        else:
            bob.send(MoveMsg(ply, col, shape))
        serve(lambda n=ply + 1: host.match is not None and host.match.board.move_count == n)
    assert host.is_over and host.state.owes_result  # bob never read it: silent
    clock.now = 30.0
    again = Raw(host.port)
    serve(lambda: host.seat is not None and host.seat.peer == 2)
    welcome, result = again.read(), again.read()
    assert isinstance(welcome, Welcome) and len(welcome.moves) == 5
    assert isinstance(result, Result) and result.result.winner is Winner.WHITE
    again.close()  # as a joiner does once it has the result
    assert host.finish(timeout=5.0) and not host.state.owes_result
    spectator = Raw(host.port, Hello(1, "spectator"))
    serve(lambda: _has_line(spectator) is not None)
    assert spectator.read() == ErrorMsg("the game is over")
    bob.close()


def _has_line(raw: Raw) -> bytes | None:
    raw.sock.settimeout(0.01)
    try:
        chunk = raw.sock.recv(65536)
    except (TimeoutError, BlockingIOError):
        return None
    finally:
        raw.sock.settimeout(5)
    raw.buffer += chunk
    return chunk
