"""Connections of the online game: non-blocking sockets, bounded at the edge.

A `Connection` wraps one TCP socket in non-blocking mode. Reading gives the
complete lines that arrived (`protocol.LineReader`: no line longer than
`MAX_LINE`), at most `RateLimit` allows; writing queues bytes and sends what
the socket takes, up to `MAX_QUEUED` bytes waiting (a peer that reads nothing
is cut off rather than let memory grow). `fail()` sends one error line, then
closes: it stops reading for the game, lets the line leave, and discards
what the peer still sends for at most `DRAIN_S` seconds, so the peer can read
why before the connection goes. `listen()` opens the non-blocking socket a
host or a broadcast takes its connections from. Nothing here blocks.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from csl_game.errors import NetworkError
from csl_game.online.protocol import (
    MAX_LINE,
    ClientMessage,
    ErrorMsg,
    HostMessage,
    LineReader,
    ProtocolError,
    encode,
)

__all__ = ["Connection", "RateLimit", "MAX_QUEUED", "DRAIN_S", "Clock", "listen", "is_refused"]

MAX_QUEUED = 1 << 20
"""Bytes waiting to be sent to one peer before it is cut off."""
DRAIN_S = 1.0
"""Seconds a failed connection is kept to let its error line leave."""
_CHUNK = 65536
_DRAIN_BYTES = 1 << 20
Clock = Callable[[], float]


@dataclass
class RateLimit:
    """A token bucket: `rate` messages a second on average, `burst` at once."""

    rate: float = 20.0
    burst: float = 40.0
    _tokens: float = -1.0
    _at: float = 0.0

    def allow(self, now: float) -> bool:
        """Take one token if there is one."""
        self._tokens, self._at = self.tokens(now), now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def tokens(self, now: float) -> float:
        """The tokens there are at `now` (none taken)."""
        if self._tokens < 0:
            return self.burst
        return min(self.burst, self._tokens + (now - self._at) * self.rate)

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0: one is now)."""
        return max(0.0, 1 - self.tokens(now)) / self.rate


class Connection:
    """One peer: lines in (bounded, rate-limited), messages out (queued)."""

    def __init__(self, sock: socket.socket, peer: str, clock: Clock = time.monotonic,
                 rate: RateLimit | None = None, max_line: int = MAX_LINE,
                 address: str = "") -> None:
        sock.setblocking(False)
        self.sock = sock
        self.peer = peer
        self.address = address or peer
        """Whom per-address limits count this connection as (`address_of`)."""
        self._clock = clock
        self._reader = LineReader(max_line)
        self._rate = rate or RateLimit()
        self._out = bytearray()
        self.opened = clock()
        self.heard = self.opened
        """When the peer last sent a line."""
        self.closed = False
        self.failing_since: float | None = None
        """When fail() was called (the connection drains until DRAIN_S later)."""
        self.failure: str | None = None
        """Why it was failed or cut off (a bound of this module's, or its user's
        fail()), else None."""
        self._drained = 0
        self._shut = False

    # ------------------------------------------------------------------ reading
    def read(self) -> list[bytes]:
        """The complete lines that arrived, without blocking ([] when none).
        A peer that closed, reset or broke a bound leaves `closed` set (a
        broken bound through `fail()`, with its error line)."""
        data = self.read_data()
        if not data:
            return []
        try:
            lines = self._reader.feed(data)
        except ProtocolError as e:
            self.fail(str(e))
            return []
        now = self._clock()
        if lines:
            self.heard = now
        for count, _ in enumerate(lines):
            if not self._rate.allow(now):
                self.fail("too many messages: at most "
                          f"{self._rate.rate:g} a second")
                return lines[:count]
        return lines

    def read_data(self) -> bytes:
        """The bytes that arrived, unread (at most 256 KiB a call, so others
        get their turn), without blocking (b'' when none): a state machine
        that cuts them into lines and bounds them itself takes them. A peer
        that closed or reset leaves `closed` set; a failing connection
        discards what comes (`fail()`)."""
        if self.closed:
            return b""
        if self.failing_since is not None:
            self._drain()
            return b""
        chunks: list[bytes] = []
        for _ in range(4):
            try:
                data = self.sock.recv(_CHUNK)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self.close()
                break
            if not data:
                self.close()
                break
            chunks.append(data)
            if len(data) < _CHUNK:
                break
        return b"".join(chunks)

    # ------------------------------------------------------------------ writing
    def send(self, msg: HostMessage | ClientMessage) -> None:
        """Queue a message and send what the socket takes now."""
        self.send_line(encode(msg))

    def send_line(self, line: bytes) -> None:
        """Queue one encoded line (a message of another module's protocol) and
        send what the socket takes now."""
        if self.closed or self._shut:
            return
        self._out += line
        if len(self._out) > MAX_QUEUED:
            self.failure = f"it reads nothing: more than {MAX_QUEUED >> 20} MiB wait for it"
            self.close()  # cut it off
            return
        self.flush()

    def flush(self) -> None:
        """Send what the socket takes of the queue, without blocking."""
        while self._out and not self.closed:
            try:
                sent = self.sock.send(self._out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.close()
                return
            del self._out[:sent]
        if not self._out and self.failing_since is not None and not self._shut:
            self._shut = True
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_WR)

    @property
    def pending(self) -> bool:
        """Whether bytes wait to be sent."""
        return bool(self._out) and not self.closed

    # ------------------------------------------------------------------ ending
    def fail(self, message: str) -> None:
        """Send `message` as the last line (an error), then close."""
        if self.closed or self.failing_since is not None:
            return
        self.send(ErrorMsg(message[:500]))
        self.failure = message
        self.failing_since = self._clock()
        self.flush()

    def _drain(self) -> None:
        self.flush()
        assert self.failing_since is not None
        if self._clock() - self.failing_since > DRAIN_S or self._drained > _DRAIN_BYTES:
            self.close()
            return
        try:
            data = self.sock.recv(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        self._drained += len(data)
        if not data and not self._out:
            self.close()

    def close(self) -> None:
        """Close now (what is queued is dropped)."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.sock.close()


def listen(host: str, port: int) -> socket.socket:
    """A non-blocking listening socket: every interface (IPv4 and, where the
    system has it, IPv6) when `host` is '', else the address `host` names.

    Raises:
        NetworkError: the address cannot be listened on.
    """
    shown = f"{host or '*'}:{port}"
    try:
        if not host and socket.has_dualstack_ipv6():
            sock = socket.create_server(("", port), family=socket.AF_INET6, backlog=64,
                                        dualstack_ipv6=True)
        elif not host:
            sock = socket.create_server(("0.0.0.0", port), backlog=64)
        else:
            info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
            sock = socket.create_server(info[4][:2], family=info[0], backlog=64)
    except socket.gaierror as e:
        raise NetworkError(f"cannot listen on {shown}: unknown address ({e.strerror})") \
            from None
    except OSError as e:
        raise NetworkError(f"cannot listen on {shown}: {e.strerror or e}") from None
    sock.setblocking(False)
    return sock


def is_refused(error: OSError) -> bool:
    """Whether a connect failed because nothing listens there."""
    return isinstance(error, ConnectionRefusedError) or error.errno in (
        errno.ECONNREFUSED, getattr(errno, "WSAECONNREFUSED", -1))
