"""What one address may do to a host: guess join codes slowly, and fill its log slowly.

A host counts its peers by address (`addresses.address_of`: an IPv4 address, or an
IPv6 /64 network), so that one machine opening connection after connection
gets no more than one peer's share:

- `WrongCodes`: each address has `WRONG_CODES` wrong join codes to spend, and
  one comes back every 60 / `WRONG_CODES` seconds. An address that spent them
  all has its players' hellos refused unread (the code is not looked at,
  right or wrong) until one is back: a guesser gets a few codes a minute, not
  a thousand a second, and the player, from another address, is not held up.
- `RefusalLog`: what a host tells of the connections it turned away. The first
  `TOLD` refusals of an address in a minute are told one by one (a friend who
  mistyped the code sees why); the rest are counted and told as one line per
  address when its minute ends ("1,234 more connections ... 1,234 wrong join
  code"), and an address that is still at it is told only by that line each
  minute. However fast a peer breaks the rules, the log grows by a few lines a
  minute per address.

Both remember at most `MAX_ADDRESSES` addresses: those with nothing left to
remember go first, then the oldest.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from csl_game.online.wire import RateLimit

__all__ = ["WrongCodes", "RefusalLog", "WRONG_CODES", "TOLD", "SUMMARY_S", "MAX_ADDRESSES",
           "OTHERS", "summary_text"]

WRONG_CODES = 5
"""Wrong join codes one address may send at once; one more comes back every
60 / WRONG_CODES seconds."""
TOLD = 3
"""Refusals of one address told one by one in a minute; the rest are counted."""
SUMMARY_S = 60.0
"""Seconds over which an address's refusals are counted and told as one line."""
MAX_ADDRESSES = 4096
"""Addresses remembered at once."""
OTHERS = "other addresses"
"""Whom refusals are counted as when MAX_ADDRESSES addresses are being counted."""
_KINDS = 8
"""Kinds of refusal one summary names; the rest are 'other'."""
_KIND_CHARS = 60


class WrongCodes:
    """Each address's budget of wrong join codes (a token bucket per address)."""

    def __init__(self, per_minute: int = WRONG_CODES, max_addresses: int = MAX_ADDRESSES
                 ) -> None:
        self.per_minute = per_minute
        self._max = max_addresses
        self._buckets: dict[str, RateLimit] = {}

    def wait(self, address: str, now: float) -> float:
        """Seconds until `address` may try a code again (0: now)."""
        bucket = self._buckets.get(address)
        return 0.0 if bucket is None else bucket.wait(now)

    def wrong(self, address: str, now: float) -> None:
        """`address` sent a wrong code: it has one fewer to send."""
        bucket = self._buckets.get(address)
        if bucket is None:
            self._make_room(now)
            bucket = self._buckets[address] = RateLimit(self.per_minute / 60, self.per_minute)
        bucket.allow(now)

    def _make_room(self, now: float) -> None:
        if len(self._buckets) < self._max:
            return
        for address, bucket in list(self._buckets.items()):  # full again: nothing to remember
            if bucket.tokens(now) >= bucket.burst:
                del self._buckets[address]
        while len(self._buckets) >= self._max:
            del self._buckets[next(iter(self._buckets))]


@dataclass
class _Tally:
    since: float
    told: int = 0
    counted: Counter[str] = field(default_factory=Counter)


class RefusalLog:
    """Which refusals to tell one by one, and the counts of the rest, per address."""

    def __init__(self, told: int = TOLD, every: float = SUMMARY_S,
                 max_addresses: int = MAX_ADDRESSES) -> None:
        self.told, self.every = told, every
        self._max = max_addresses
        self._tallies: dict[str, _Tally] = {}

    def tell(self, address: str, reason: str, now: float) -> bool:
        """Count a refusal of `address`; whether to tell it by itself (else it
        is told in the address's summary, `due()`)."""
        if address not in self._tallies and len(self._tallies) >= self._max:
            self._drop_quiet()
        if address not in self._tallies and len(self._tallies) >= self._max:
            address = OTHERS
        tally = self._tallies.setdefault(address, _Tally(now))
        if tally.told < self.told:
            tally.told += 1
            return True
        kind = kind_of(reason)
        if kind not in tally.counted and len(tally.counted) >= _KINDS:
            kind = "other"
        tally.counted[kind] += 1
        return False

    def due(self, now: float, every_one: bool = False) -> list[tuple[str, Counter[str]]]:
        """(address, counts by kind) of each address whose minute ended (of every
        address, with `every_one`) having refusals counted, not told. Such an
        address stays counted, none told one by one, for another minute: one
        that goes on is told once a minute."""
        ended = []
        for address, tally in list(self._tallies.items()):
            if not every_one and now - tally.since < self.every:
                continue
            del self._tallies[address]
            if tally.counted:
                ended.append((address, tally.counted))
                self._tallies[address] = _Tally(now, told=self.told)
        return ended

    def _drop_quiet(self) -> None:
        for address, tally in list(self._tallies.items()):
            if not tally.counted and address != OTHERS:
                del self._tallies[address]


def kind_of(reason: str) -> str:
    """What a refusal was, for counting: its reason up to the first ':' or ';'
    ('wrong join code', 'not understood', 'too many messages')."""
    return reason.split(":", 1)[0].split(";", 1)[0].strip()[:_KIND_CHARS]


def summary_text(counts: Counter[str]) -> str:
    """'1,200 wrong join code, 34 too many messages' (the most first)."""
    return ", ".join(f"{n:,} {kind}" for kind, n in counts.most_common())
