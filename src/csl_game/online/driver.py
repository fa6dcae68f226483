"""What the joiner's and the spectator's drivers share: the connection to a
host and the loop that feeds a state machine from it.

`Link` is one connection to a host (a non-blocking connect, the Hello, lines
in decoded, messages out). `LinkDriver` serves a state machine without I/O
(csl_game.online.joiner.JoinerState, tourney_client.WatchState: `receive`,
`lost`, `malformed`, `tick`, `next_deadline`) with a `Link` and the clock:
`poll()` feeds it what arrived and the time and does the `Step`s it returns
(send, hang up, connect again), never blocking; `wait()` blocks until the
link or the state's next deadline may have news. `FromState` makes a
driver's attribute its state's, read-only, so a frontend reads the driver.
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar, cast, overload

from csl_game.errors import NetworkError
from csl_game.online.joiner import CONNECT_TIMEOUT, Step
from csl_game.online.protocol import (
    ClientMessage,
    ErrorMsg,
    Hello,
    ProtocolError,
    decode_host,
)
from csl_game.online.wire import Clock, Connection, is_refused

__all__ = ["Link", "LinkDriver", "LinkedState", "FromState"]

E = TypeVar("E")
T = TypeVar("T")


class Link:
    """One connection to a host: connect (without blocking), hello, messages."""

    def __init__(self, address: tuple[str, int], hello: Hello, clock: Clock = time.monotonic,
                 idle_timeout: float | None = None,
                 decode: Callable[[bytes], Any] = decode_host) -> None:
        """Start connecting (the host name is looked up here, which may wait);
        `decode` parses the host's lines (a tournament broadcast's has more
        types); `idle_timeout`, when given, ends a link the host said nothing
        on for that long (the state machines keep their own time otherwise).

        Raises:
            NetworkError: the host name is unknown.
        """
        self.address = address
        self._hello = hello
        self._clock = clock
        self._idle = idle_timeout
        self._decode = decode
        self.shown = f"{address[0]}:{address[1]}"
        try:
            family, kind, proto, _, target = socket.getaddrinfo(
                address[0], address[1], type=socket.SOCK_STREAM)[0]
        except (socket.gaierror, UnicodeError) as e:
            raise NetworkError(f"cannot connect to {self.shown}: unknown host "
                               f"({getattr(e, 'strerror', None) or e})") from None
        self._sock = socket.socket(family, kind, proto)
        self._sock.setblocking(False)
        self.started = clock()
        self.conn: Connection | None = None
        self.error: str | None = None
        """Why the link ended, once it did."""
        self.refused = False
        """Whether the host refused (an error line), rather than the network failing."""
        self.broken = False
        """Whether the host sent a line that is no message (`error` says what)."""
        code = self._sock.connect_ex(target)
        if code not in (0, *_IN_PROGRESS):
            self._end(OSError(code, _strerror(code)))

    @property
    def closed(self) -> bool:
        return self.error is not None

    def poll(self) -> list[Any]:
        """The host's messages that arrived, without blocking ([] once closed):
        HostMessages (pings and the error line included: the caller answers),
        or what `decode` gives. An error line ends the link (`refused`), as
        does a line that is no message (`broken`)."""
        if self.error is not None:
            return []
        if self.conn is None and not self._connected():
            return []
        assert self.conn is not None
        messages: list[Any] = []
        for line in self.conn.read():
            try:
                msg = self._decode(line)
            except ProtocolError as e:
                self.broken = True
                self._end(None, str(e))
                return messages
            messages.append(msg)
            if isinstance(msg, ErrorMsg):
                self.refused = True
                self._end(None, msg.message)
                return messages
        if self.conn.closed:
            self._end(None, "the host closed the connection")
        elif self._idle is not None and self._clock() - self.conn.heard > self._idle:
            self._end(None, f"no word from the host for {self._idle:g} s")
        return messages

    def send(self, msg: ClientMessage) -> None:
        if self.conn is not None and self.error is None:
            self.conn.send(msg)

    def wait(self, timeout: float) -> None:
        """Block until the host may have news, at most `timeout` seconds."""
        if self.error is not None:
            time.sleep(timeout)
            return
        writing = [self._sock] if self.conn is None or self.conn.pending else []
        try:
            select.select([self._sock], writing, [], timeout)
        except (OSError, ValueError):
            time.sleep(min(timeout, 0.01))

    def close(self) -> None:
        if self.error is None:
            self.error = "closed"
        if self.conn is not None:
            self.conn.flush()
            self.conn.close()
        else:
            self._sock.close()

    def _connected(self) -> bool:
        try:
            _, writable, _ = select.select([], [self._sock], [], 0)
        except (OSError, ValueError) as e:
            self._end(e if isinstance(e, OSError) else None, "the connection failed")
            return False
        if not writable:
            if self._clock() - self.started > CONNECT_TIMEOUT:
                self._end(None, f"no answer within {CONNECT_TIMEOUT:g} s")
            return False
        code = self._sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code:
            self._end(OSError(code, _strerror(code)))
            return False
        self.conn = Connection(self._sock, self.shown, self._clock)
        self.conn.send(self._hello)
        return True

    def _end(self, error: OSError | None, why: str = "") -> None:
        if error is not None:
            why = ("connection refused (is the host listening there?)" if is_refused(error)
                   else error.strerror or str(error))
        self.error = why
        if self.conn is not None:
            self.conn.close()
        else:
            self._sock.close()


_IN_PROGRESS = {getattr(__import__("errno"), n, -1) for n in
                ("EINPROGRESS", "EWOULDBLOCK", "EAGAIN", "WSAEWOULDBLOCK", "EALREADY")}


def _strerror(code: int) -> str:
    import os

    try:
        return os.strerror(code)
    except ValueError:
        return f"error {code}"


class LinkedState(Protocol[E]):
    """A state machine a `LinkDriver` serves (its events of type E)."""

    @property
    def finished(self) -> bool: ...

    def receive(self, msg: Any, now: float) -> Step[E]: ...

    def lost(self, why: str, now: float) -> Step[E]: ...

    def malformed(self, problem: str, now: float) -> Step[E]: ...

    def tick(self, now: float) -> Step[E]: ...

    def next_deadline(self) -> float | None: ...


class FromState(Generic[T]):
    """A driver's read-only attribute that is its `state`'s of the same name."""

    def __init__(self, doc: str = "") -> None:
        self.__doc__ = doc
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type) -> FromState[T]: ...

    @overload
    def __get__(self, obj: object, owner: type) -> T: ...

    def __get__(self, obj: object, owner: type) -> FromState[T] | T:
        if obj is None:
            return self
        return cast(T, getattr(cast(Any, obj).state, self._name))


class LinkDriver(Generic[E]):
    """A state machine's sockets and clock: one `Link` at a time."""

    def __init__(self, state: LinkedState[E], link: Link, clock: Clock) -> None:
        self.state = state
        self.link = link
        self._clock = clock

    finished: FromState[bool] = FromState("Whether nothing more will happen.")

    def poll(self) -> list[E]:
        """What happened since the last call, without blocking."""
        events: list[E] = []
        if self.state.finished:
            return events
        now = self._clock()
        link = self.link
        for msg in link.poll():
            self._do(self.state.receive(msg, now), events, now)
            if self.state.finished or self.link is not link:
                break
        if self.link is link and link.closed and not self.state.finished:
            self._do(self.state.malformed(link.error or "", now) if link.broken
                     else self.state.lost(link.error or "the connection dropped", now),
                     events, now)
        self._do(self.state.tick(now), events, now)
        self._polled()
        return events

    def wait(self, timeout: float) -> None:
        """Block until something may have happened, at most `timeout` seconds."""
        deadline = self.state.next_deadline()
        if deadline is not None:
            timeout = max(0.0, min(timeout, deadline - self._clock()))
        self.link.wait(timeout)

    def close(self) -> None:
        self.link.close()

    def _do(self, step: Step[E], events: list[E], now: float) -> None:
        for msg in step.send:
            self.link.send(msg)
        events += step.events
        if step.hangup or step.connect:
            self.link.close()
        if step.connect:
            try:
                self.link = self._relink()
            except NetworkError as e:  # the name lookup failed this time: a failed try
                self._do(self.state.lost(str(e), now), events, now)

    def _relink(self) -> Link:
        """A new link to the same end (the state asked to connect again)."""
        raise NotImplementedError("this driver does not connect again")

    def _polled(self) -> None:
        """What a driver does at the end of each poll (play its own side)."""
