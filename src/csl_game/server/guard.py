"""Limits a hostile client meets at the server's edge, without I/O.

`AddressGuard` admits a new connection only while its address holds fewer
than `per_address` connections, has opened fewer than `burst` in the last
`window_s` seconds, and the server holds fewer than `total`. `TokenBucket`
bounds the messages of one connection. `Deadlines` closes a connection that
does not finish a request in time (slowloris), the web layer telling it when
a request arrived and when its answer went out. `Guesses` bounds the wrong
passwords tried for an account, from one address and from all. Addresses are compared as
the text the socket gives; nothing a client says is used.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

__all__ = ["Limits", "AddressGuard", "TokenBucket", "Guesses"]


@dataclass(frozen=True)
class Limits:
    """The edge's limits (docs/server.md says why each is what it is)."""

    per_address: int = 64
    """Connections one address may hold at once."""
    total: int = 20_000
    """Connections the server holds at once."""
    burst: int = 60
    """New connections one address may open within `window_s`."""
    window_s: float = 10.0
    messages_per_s: float = 20.0
    """Messages a connection may send a second, on average..."""
    message_burst: float = 40.0
    """... and at once."""
    request_timeout_s: float = 10.0
    """Seconds a connection has to send a complete request (the first, and the
    next after each answer, keep-alive time included)."""


@dataclass
class AddressGuard:
    """Connections by address."""

    limits: Limits
    _open: dict[str, int] = field(default_factory=dict)
    _recent: dict[str, deque[float]] = field(default_factory=dict)
    total: int = 0

    def admit(self, address: str, now: float) -> str | None:
        """Count a new connection from `address`; None when admitted, else why not."""
        if self.total >= self.limits.total:
            return "the server is full"
        if self._open.get(address, 0) >= self.limits.per_address:
            return f"more than {self.limits.per_address} connections from one address"
        recent = self._recent.setdefault(address, deque())
        while recent and now - recent[0] > self.limits.window_s:
            recent.popleft()
        if len(recent) >= self.limits.burst:
            return f"more than {self.limits.burst} new connections in {self.limits.window_s:g} s"
        recent.append(now)
        self._open[address] = self._open.get(address, 0) + 1
        self.total += 1
        return None

    def release(self, address: str) -> None:
        """A connection `admit` counted has closed."""
        left = self._open.get(address, 0) - 1
        if left > 0:
            self._open[address] = left
        else:
            self._open.pop(address, None)
            if not self._recent.get(address):
                self._recent.pop(address, None)
        self.total = max(0, self.total - 1)

    def open_from(self, address: str) -> int:
        return self._open.get(address, 0)


@dataclass
class TokenBucket:
    """`rate` messages a second on average, `burst` at once."""

    rate: float
    burst: float
    _tokens: float = -1.0
    _last: float = 0.0

    def take(self, now: float) -> bool:
        """Whether one more message may pass now."""
        if self._tokens < 0:
            self._tokens, self._last = self.burst, now
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


@dataclass
class Guesses:
    """Wrong passwords by account: once an address has tried `per_address`
    wrong ones for an account within `window_s` seconds, or all addresses
    `per_account`, that account's sign-in is closed to it (to all) until the
    oldest try leaves the window, right password or not (it is not checked).
    An attacker guessing from one address thus closes the account to that
    address alone; one guessing from many closes it to everyone for a while,
    which a signed-in session does not notice. At most `most` keys are kept
    (the least recently failed go first), so a flood of names takes no memory."""

    per_address: int = 5
    per_account: int = 50
    window_s: float = 300.0
    most: int = 20_000
    _failed: dict[tuple[str, str | None], deque[float]] = field(default_factory=dict)
    """Recent wrong tries by (account, address), and by (account, None) from all."""

    def _counts(self, account: str, address: str
                ) -> tuple[tuple[tuple[str, str | None], int], ...]:
        name = account.casefold()
        return ((name, address), self.per_address), ((name, None), self.per_account)

    def wait(self, account: str, address: str, now: float) -> float:
        """Seconds before `address` may try a password of `account` (0: now)."""
        wait = 0.0
        for key, most in self._counts(account, address):
            tries = self._failed.get(key)
            if tries is None:
                continue
            while tries and now - tries[0] >= self.window_s:
                tries.popleft()
            if not tries:
                del self._failed[key]
            elif len(tries) >= most:
                wait = max(wait, self.window_s - (now - tries[0]))
        return wait

    def failed(self, account: str, address: str, now: float) -> None:
        """`address` tried a wrong password of `account` (or an account that does not exist)."""
        for key, most in self._counts(account, address):
            tries = self._failed.pop(key, None) or deque()  # re-inserted: the newest last
            tries.append(now)
            while len(tries) > most:
                tries.popleft()
            self._failed[key] = tries
        while len(self._failed) > self.most:
            del self._failed[next(iter(self._failed))]

    def succeeded(self, account: str, address: str) -> None:
        """The right password from `address`: its own wrong tries are forgotten."""
        self._failed.pop((account.casefold(), address), None)
