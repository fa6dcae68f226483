"""A host that is no csl-game: a plain socket server on loopback (127.0.0.1)
that says what a test scripts, to see what a joiner or a spectator does with
a hostile host. Bounded: it serves at most `max_connections` connections,
each script's reads time out, and everything stops when the test leaves it
(or after `lifetime` seconds)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from csl_game.engine import ForfeitReason, MatchResult, PlayedMove
from csl_game.model.board import Board, PColor, Pos, PShape, Winner
from csl_game.online.protocol import Played, Result, Welcome, encode
from csl_game.online.tourney_protocol import (
    Finished,
    MatchMsg,
    StandingsMsg,
    Tournament,
    encode_tourney,
)
from csl_game.thinker.api import MatchConfig

CONFIG = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=8, square_pieces=8,
                     time_limit_ms=200)
NAMES = ("Host", "Bob")


class Peer:
    """One connection to the fake host, as its script sees it."""

    def __init__(self, sock: socket.socket, index: int) -> None:
        self.sock = sock
        self.index = index
        """0 for the first connection, 1 for the next ..."""
        self._buffer = b""
        self.hello = self.read(5.0) or {}

    def send(self, *lines: bytes) -> None:
        """Every line in one write (so that they tend to arrive in one read)."""
        try:
            self.sock.sendall(b"".join(lines))
        except OSError:
            pass

    def read(self, timeout: float = 5.0) -> dict[str, Any] | None:
        """The next message that is not a pong; None when the peer closed or
        said nothing for `timeout` seconds."""
        end = time.monotonic() + timeout
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                doc: dict[str, Any] = json.loads(line)
                if doc.get("type") != "pong":
                    return doc
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return None
            if not chunk:
                return None
            self._buffer += chunk

    def hold(self, seconds: float, ping_every: float | None = None) -> None:
        """Keep the connection open `seconds` (or until the peer closes),
        pinging every `ping_every` seconds when given; what comes is dropped."""
        end = time.monotonic() + seconds
        next_ping = time.monotonic()
        while (left := end - time.monotonic()) > 0:
            if ping_every is not None and time.monotonic() >= next_ping:
                self.send(b'{"type":"ping"}\n')
                next_ping += ping_every
            wait = min(left, 0.1 if ping_every is None else max(0.01, next_ping -
                                                                  time.monotonic()))
            self.sock.settimeout(wait)
            try:
                if self.sock.recv(65536) == b"":
                    return
            except TimeoutError:
                continue
            except OSError:
                return


class FakeHost:
    """Serves `script(peer)` on every connection, each on a thread of its own."""

    def __init__(self, script: Callable[[Peer], None], max_connections: int = 300,
                 lifetime: float = 60.0) -> None:
        self._script = script
        self._max = max_connections
        self._end = time.monotonic() + lifetime
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.port: int = self._listener.getsockname()[1]
        self.address = ("127.0.0.1", self.port)
        self.connections: list[float] = []
        """When each connection came (time.monotonic())."""
        self.hellos: list[dict[str, Any]] = []
        self._socks: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set() and time.monotonic() < self._end:
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if len(self.connections) >= self._max:
                sock.close()
                continue
            self.connections.append(time.monotonic())
            self._socks.append(sock)
            threading.Thread(target=self._run, args=(sock, len(self.connections) - 1),
                             daemon=True).start()

    def _run(self, sock: socket.socket, index: int) -> None:
        try:
            peer = Peer(sock, index)
            self.hellos.append(peer.hello)
            self._script(peer)
        except OSError:
            pass
        finally:
            sock.close()

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        self._thread.join(5)
        for sock in self._socks:
            try:
                sock.close()
            except OSError:
                pass

    def __enter__(self) -> FakeHost:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


# ---------------------------------------------------------------------- messages
Moves = tuple[tuple[int, PShape], ...]


def welcome(color: PColor | None = PColor.RED, moves: Moves = (), names: tuple[str, str] = NAMES,
            humans: tuple[bool, bool] = (False, True), config: MatchConfig = CONFIG,
            waiting: str = "") -> bytes:
    return encode(Welcome(1, "spectator" if color is None else "player", color, config, names,
                          humans, tuple((c, s, 0.001) for c, s in moves), waiting))


def played(ply: int, col: int, shape: PShape) -> bytes:
    return encode(Played(ply, col, shape, 0.001))


def board_of(moves: Moves, config: MatchConfig = CONFIG) -> Board:
    board = config.new_board()
    for col, shape in moves:
        board.do_move(shape, col)
    return board


def result(moves: Moves, winner: Winner, solution: tuple[tuple[int, int], ...] = (),
           forfeit: ForfeitReason | None = None, names: tuple[str, str] = NAMES,
           config: MatchConfig = CONFIG) -> MatchResult:
    """A result of `moves` (rows worked out on a board), as the host would send it."""
    history = board_of(moves, config).history
    return MatchResult(winner, *names, tuple(Pos(r, c) for r, c in solution), forfeit, "",
                       tuple(PlayedMove(m, 0.001) for m in history))


def result_line(moves: Moves, winner: Winner, solution: tuple[tuple[int, int], ...] = (),
                forfeit: ForfeitReason | None = None, names: tuple[str, str] = NAMES) -> bytes:
    return encode(Result(result(moves, winner, solution, forfeit, names), CONFIG))


def move_of(doc: dict[str, Any] | None) -> tuple[int, PShape]:
    assert doc is not None and doc["type"] == "move", doc
    return doc["col"], PShape[doc["shape"].upper()]


# ---------------------------------------------------------------------- a broadcast
PLAYERS = ("Ann", "Ben", "Cid")


def tournament(matches: int = 6) -> bytes:
    return encode_tourney(Tournament(PLAYERS, matches, CONFIG))


def match(index: int, white: str = "Ann", red: str = "Ben", moves: Moves = ()) -> bytes:
    return encode_tourney(MatchMsg(index, white, red, CONFIG,
                                   tuple((c, s, 0.001) for c, s in moves)))


def finished(index: int, res: MatchResult) -> bytes:
    return encode_tourney(Finished(index, res, CONFIG))


def standings(played_: int, rows: list[tuple[int, str, int, int, int, int]],
              final: bool = False) -> bytes:
    """Rows of (player, name, points, wins, draws, losses), positions by order."""
    from csl_game.engine import Standing

    return encode_tourney(StandingsMsg(played_, final, tuple(
        Standing(i + 1, p, n, pts, w, d, lo) for i, (p, n, pts, w, d, lo) in enumerate(rows))))


__all__ = ["FakeHost", "Peer", "CONFIG", "NAMES", "welcome", "played", "result",
           "result_line", "board_of", "move_of", "tournament", "match", "finished", "standings",
           "PLAYERS", "Moves"]
