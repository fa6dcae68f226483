"""The door of a listening end, shared by the match host and the tournament
broadcaster (csl_game.online.host, csl_game.online.broadcast).

`HostLimits` are the bounds it holds every connection to. The connections
waiting at the listening socket (`wire.listen`) are taken (`accepted`), or
turned away beyond their bounds, in all and per address (`accept_waiting`;
the match host's state machine, csl_game.online.hosting, holds them itself); a new
connection's first line must be a hello (`read_message`); every refusal is
told (`dismiss`), and told as a `TurnedAway` event, a flood of them summed up
per address a minute (`summaries`). `wait_for_news` blocks until a socket has
news; `drain_and_close` lets what is queued leave before closing.
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from csl_game.online.guard import WRONG_CODES, RefusalLog, summary_text
from csl_game.online.protocol import ClientMessage, Hello, ProtocolError, decode_client
from csl_game.online.wire import Clock, Connection
from csl_game.services.addresses import address_of

__all__ = ["HostLimits", "TurnedAway", "read_message", "accept_waiting", "accepted",
           "report_failures",
           "summaries", "dismiss", "wait_for_news", "drain_and_close"]

_MAX_CLOSING = 64


@dataclass(frozen=True)
class HostLimits:
    """How long and how many: the bounds a host holds every connection to."""

    handshake_timeout: float = 10.0
    """Seconds a new connection has to send its Hello."""
    reconnect_timeout: float = 120.0
    """Seconds the seat may stay empty before the host may claim the game."""
    idle_timeout: float = 30.0
    """Seconds of silence after which a joined peer counts as gone."""
    ping_interval: float = 5.0
    spectators: int = 8
    max_pending: int = 16
    """Connections waiting for their Hello at once; more are turned away."""
    max_pending_per_address: int = 4
    """Connections of one address (`addresses.address_of`) waiting for their Hello
    at once; more from it are turned away, so one address cannot fill `max_pending`."""
    network_margin_ms: int = 1000
    """Time a remote AI has beyond the time limit, for the network."""
    silent_after: float = 6.0
    """Seconds without a line after which the seat's connection gives way to a
    new one with the seat's credentials (its join code and its player's name):
    a joiner answers every ping (`ping_interval`), so only a connection that
    died without a word (half-open) is that silent."""
    result_wait: float = 45.0
    """Seconds a finished host stays for the seated player when the connection
    the result went out on has not confirmed it (silent, or dropped): its
    player reconnects and is told (`HostState.owes_result`)."""
    wrong_codes_per_minute: int = WRONG_CODES
    """Wrong join codes one address may send at once, and in a minute; an
    address that sent them is refused, its code unread, until one is back."""


@dataclass(frozen=True)
class TurnedAway:
    """A connection was refused and closed: who, and why (as it was told).

    With `count` above 1 it sums up the refusals of one address (`peer`) that
    were not told one by one: `reason` then counts them by kind
    ('1,200 wrong join code, 34 too many messages')."""

    peer: str
    reason: str
    count: int = 1

    @property
    def text(self) -> str:
        """'turned away a connection from 192.0.2.7:5501: wrong join code', or
        'turned away 1,234 more connections from 192.0.2.7 in the last minute: ...'."""
        if self.count == 1:
            return f"turned away a connection from {self.peer}: {self.reason}"
        return (f"turned away {self.count:,} more connections from {self.peer} in the last "
                f"minute: {self.reason}")


def read_message(conn: Connection, line: bytes, pending: list[Connection],
                 turn_away: Callable[[Connection, str], None]) -> ClientMessage | None:
    """The message `line` brings from `conn`; None when there is none to act
    on: `conn` is closing, or is turned away here for a line not understood
    or for anything but a hello while it is `pending`."""
    if conn.closed or conn.failing_since is not None:
        return None
    try:
        msg = decode_client(line)
    except ProtocolError as e:
        turn_away(conn, f"not understood: {e}")
        return None
    if conn in pending and not isinstance(msg, Hello):
        turn_away(conn, "the first message must be a hello")
        return None
    return msg


def accept_waiting(listener: socket.socket, pending: list[Connection], limits: HostLimits,
                   now: Clock, turn_away: Callable[[Connection, str], None]) -> None:
    """Take the connections waiting at `listener` (64 at most a call) into
    `pending`; beyond `limits.max_pending` waiting for their hello, or
    `limits.max_pending_per_address` of the same address, turn them away."""
    for conn in accepted(listener, now):
        if sum(c.address == conn.address for c in pending) >= limits.max_pending_per_address:
            turn_away(conn, "too many connections from your address are waiting; "
                      "try again later")
        elif len(pending) >= limits.max_pending:
            turn_away(conn, "too many connections are waiting; try again later")
        else:
            pending.append(conn)


def accepted(listener: socket.socket, now: Clock, most: int = 64) -> Iterator[Connection]:
    """The connections waiting at `listener`, `most` at most, each counted
    by its address (`addresses.address_of`)."""
    for _ in range(most):
        try:
            sock, peer = listener.accept()
        except OSError:  # nothing waiting, out of file descriptors, a reset before accept
            return
        yield Connection(sock, _peer_text(peer), now, address=address_of(peer))


def report_failures(conns: list[Connection], closing: list[Connection],
                    turn_away: Callable[[Connection, str], None]) -> None:
    """Turn away, and so tell, each of `conns` that a bound of its own failed or
    cut off (a line too long, too many messages, reading nothing) and that is
    not among `closing` already."""
    for conn in conns:
        if conn.failure is not None and conn not in closing:
            turn_away(conn, conn.failure)


def summaries(refusals: RefusalLog, now: float) -> list[TurnedAway]:
    """The refusals counted, not told, per address whose minute ended."""
    return [TurnedAway(address, summary_text(counts), sum(counts.values()))
            for address, counts in refusals.due(now)]


def dismiss(conn: Connection, reason: str, closing: list[Connection]) -> None:
    """Tell `conn` why and let it close (among `closing`), or close it at once
    when too many are closing already."""
    if len(closing) >= _MAX_CLOSING:
        conn.close()
        return
    conn.fail(reason)
    closing.append(conn)


def wait_for_news(listener: socket.socket, conns: list[Connection], timeout: float) -> None:
    """Block until the listener or a connection has news, at most `timeout` seconds."""
    socks = [listener, *(c.sock for c in conns if not c.closed)]
    writing = [c.sock for c in conns if c.pending]
    try:
        select.select(socks, writing, [], timeout)
    except (OSError, ValueError):  # a socket closed meanwhile: look again next time
        time.sleep(min(timeout, 0.01))


def drain_and_close(conns: list[Connection], linger: float, now: Clock) -> None:
    """Let what is queued on `conns` leave (at most `linger` seconds), then close them."""
    end = now() + linger
    while any(c.pending for c in conns) and now() < end:
        for conn in conns:
            conn.flush()
        time.sleep(0.01)
    for conn in conns:
        conn.close()


def _peer_text(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return str(peer)
