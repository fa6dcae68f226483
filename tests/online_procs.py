"""Processes of online-play tests: csl-game run as a host, a joiner or a
spectator on loopback, its output read on threads (no pipe ever fills), and
a raw protocol player for the tests that speak the protocol themselves."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from csl_game.model.board import Board, PShape
from csl_game.thinker.api import MatchConfig
from procs import INTERRUPTIBLE, OwnTime

CODE = "secret99"


PRIMED = ("import sys\n"
          "import csl_game.cli, csl_game.console.online_cmd\n"
          "print('primed', file=sys.stderr, flush=True)\n"
          "sys.stdin.readline()\n"
          "sys.exit(csl_game.cli.main(sys.argv[1:]))\n")
"""A csl-game whose interpreter and modules are loaded before it is told
(a line on its standard input) to run its command: what it does then is not
delayed by a start-up a loaded machine can stretch to seconds."""


class Proc:
    """A csl-game process whose stdout and stderr are collected as they come
    (with `primed`, loaded and waiting for `go()`; see PRIMED)."""

    def __init__(self, *args: str, stdin: str | None = None, primed: bool = False) -> None:
        start = ["-c", PRIMED] if primed else ["-m", "csl_game"]
        self.proc = subprocess.Popen([sys.executable, *start, *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1,
                                     **INTERRUPTIBLE)  # a test's SIGINT stops it
        self.out: list[str] = []
        self.err: list[str] = []
        self._news = threading.Condition()
        self._follow(stdin)

    def _follow(self, stdin: str | None) -> None:
        """Read the started process's output as it comes; type `stdin` to it."""
        self._readers = [threading.Thread(target=self._collect, args=(stream, into), daemon=True)
                         for stream, into in ((self.proc.stdout, self.out),
                                              (self.proc.stderr, self.err))]
        for reader in self._readers:
            reader.start()
        if stdin is not None:
            self.write(stdin)

    def _collect(self, stream: Any, into: list[str]) -> None:
        for line in stream:
            with self._news:
                into.append(line)
                self._news.notify_all()
        with self._news:
            self._news.notify_all()

    def go(self) -> None:
        """Let a primed process run its command, once it is loaded."""
        self.wait_for(r"\bprimed\b")
        self.write("go\n")

    def write(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def text(self) -> str:
        with self._news:
            return "".join(self.out) + "".join(self.err)

    def wait_for(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        """The first match of `pattern` in the output so far, waiting up to
        `timeout` s of the process's own time (see `own_left`)."""
        left = self.own_left(timeout)
        with self._news:
            while True:
                found = re.search(pattern, "".join(self.out) + "".join(self.err))
                if found:
                    return found
                remaining = left()
                if remaining <= 0 or (self.proc.poll() is not None and remaining < timeout - 1):
                    raise AssertionError(f"no {pattern!r} in:\n{self.text()[-3000:]}")
                self._news.wait(min(remaining, 0.2))

    def own_left(self, timeout: float) -> Callable[[], float]:
        """A countdown of `timeout` s of the process's own time from now: the
        wall time less its waits for a core (`procs.OwnTime`), so that a busy
        machine, which makes a start-up take ten times as long on the wall,
        stretches the wait with it; a hung process, which waits for no core,
        is found on time. Ten times `timeout` on the wall is the most it waits."""
        own, wall_end = OwnTime(self.proc.pid), time.monotonic() + 10 * timeout

        def left() -> float:
            own.look()
            return min(timeout - own.seconds(), wall_end - time.monotonic())
        return left

    def wait_count(self, text: str, count: int, timeout: float = 30) -> None:
        """Wait until `text` was printed `count` times."""
        self.wait_for("(?s)" + ".*?".join([re.escape(text)] * count), timeout)

    def finish(self, timeout: float = 60) -> int:
        """The exit status, waiting up to `timeout` s of the process's own time."""
        left = self.own_left(timeout)
        while (code := self.proc.poll()) is None:
            if left() <= 0:
                raise subprocess.TimeoutExpired(self.proc.args, timeout)
            time.sleep(0.02)
        for reader in self._readers:  # they take the last lines (at the end of the pipes)
            reader.join(10)
        return code

    def json(self) -> dict[str, Any]:
        """The last line of standard output, as JSON."""
        doc: dict[str, Any] = json.loads(self.out[-1])
        return doc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def host(*args: str, stdin: str | None = None) -> tuple[Proc, int]:
    """A hosting process on loopback, any free port, code CODE; and its port."""
    proc = Proc("match", "--listen", "127.0.0.1:0", "--code", CODE, "--in-process", *args,
                stdin=stdin)
    return proc, int(proc.wait_for(r"on port (\d+)")[1])


def join(port: int, *args: str, stdin: str | None = None) -> Proc:
    return Proc("match", "--connect", f"127.0.0.1:{port}", "--code", CODE, "--in-process",
                *args, stdin=stdin)


def connect_from(source: str, port: int, timeout: float = 10) -> socket.socket:
    """A connection to 127.0.0.1:`port` from the loopback address `source`
    (Linux routes all of 127.0.0.0/8 to loopback: another address, one machine)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return sock


def answered(sock: socket.socket) -> bool:
    """Whether the other end has said something on `sock` or closed (or reset)
    it; nothing is read, and the socket is left as it was."""
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        sock.recv(1, socket.MSG_PEEK)  # some bytes, or b"" at the end
        return True
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True
    finally:
        sock.settimeout(timeout)


def other_loopback_works() -> bool:
    """Whether 127.0.0.2 can be bound here (Linux: yes; macOS and Windows: not
    unless configured)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.2", 0))
        return True
    except OSError:
        return False


class RawPlayer:
    """The test itself as the joined player, speaking the protocol line by line:
    it answers pings and plays the lowest free column when it is to move."""

    def __init__(self, port: int, code: str = CODE) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        self.send({"type": "hello", "version": 1, "role": "player", "code": code,
                   "name": "Raw", "kind": "human"})
        self.welcome = self.read()
        assert self.welcome["type"] == "welcome", self.welcome
        settings = self.welcome["settings"]
        self.board = Board(**{k: settings[k] for k in ("rows", "cols", "win_sequence",
                                                        "round_pieces", "square_pieces")})
        self.config = MatchConfig(**settings)
        self.color = self.welcome["color"]
        for move in self.welcome["moves"]:
            self.board.do_move(PShape[move["shape"].upper()], move["col"])
        self.result: dict[str, Any] | None = None
        self.sent = -1

    def send(self, doc: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(doc).encode() + b"\n")

    def read(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the host closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        doc: dict[str, Any] = json.loads(line)
        return doc

    def step(self) -> None:
        """Move if it is this player's turn, else take one message from the host."""
        if self.result is None and self.board.turn.name.lower() == self.color and \
                self.sent != self.board.move_count:
            self.sent = self.board.move_count
            col = next(c for c in range(self.board.cols) if not self.board.is_column_full(c))
            shape = self.board.turn.shape
            if not self.board.piece_count(self.board.turn, shape):
                shape = shape.other
            self.send({"type": "move", "ply": self.board.move_count, "col": col,
                       "shape": shape.name.lower()})
        msg = self.read()
        if msg["type"] == "ping":
            self.send({"type": "pong"})
        elif msg["type"] == "played":
            assert msg["ply"] == self.board.move_count, msg
            self.board.do_move(PShape[msg["shape"].upper()], msg["col"])
        elif msg["type"] == "result":
            self.result = msg["result"]
        else:
            raise AssertionError(f"unexpected {msg}")

    def play(self, moves: int) -> None:
        """Go on until `moves` moves are on the board (or the game ended)."""
        while self.result is None and self.board.move_count < moves:
            self.step()

    def finish(self) -> dict[str, Any]:
        while self.result is None:
            self.step()
        self.sock.close()
        return self.result
