"""A game server's open challenges, fetched for the window without blocking it.

`LobbyLook.look(url)` asks the server's ``GET /api/lobby`` on a thread of its
own; the picker calls `take_news()` each frame and shows the challenges once
they came (at most `SHOWN`, each checked as data: a name, a colour, a join
code of the server's pattern), or why they did not.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass

__all__ = ["Challenge", "LobbyLook", "SHOWN"]

SHOWN = 3
"""Challenges the picker has room for."""
_CODE = re.compile(r"[A-Za-z0-9_-]{8,32}")
_LONGEST = 1 << 20


@dataclass(frozen=True)
class Challenge:
    name: str
    free: str
    """The colour the one who accepts plays: 'white' or 'red'."""
    code: str
    clock: str = ""
    """Its time control as the lobby gives it ('180+2': seconds + seconds a move; '': none)."""


_CLOCK = re.compile(r"\d{1,5}(\.\d{1,3})?\+\d{1,3}(\.\d{1,3})?")


def challenges_of(doc: object) -> list[Challenge]:
    """The well-formed open challenges of a lobby document (the others are left out)."""
    found = []
    items = doc.get("challenges") if isinstance(doc, dict) else None
    for c in items if isinstance(items, list) else []:
        if not isinstance(c, dict):
            continue
        name, free, code = c.get("name"), c.get("free"), c.get("code")
        if isinstance(name, str) and 0 < len(name) <= 40 and name.isprintable() and \
                free in ("white", "red") and isinstance(code, str) and _CODE.fullmatch(code):
            clock = c.get("clock")
            found.append(Challenge(name, free, code, clock if isinstance(clock, str)
                                   and _CLOCK.fullmatch(clock) else ""))
    return found[:SHOWN]


class LobbyLook:
    """The last look at a server's lobby."""

    def __init__(self) -> None:
        self.challenges: list[Challenge] | None = None
        """None before a look came back."""
        self.problem = ""
        self._lock = threading.Lock()
        self._news = False

    def look(self, url: str) -> None:
        """Start asking `url` for its challenges.

        Raises:
            ValueError: `url` is no http(s) address.
        """
        if not url.startswith(("http://", "https://")):
            raise ValueError("Server: its address, http://HOST:PORT or https://HOST")
        where = url.rstrip("/") + "/api/lobby"
        threading.Thread(target=self._fetch, args=(where,), daemon=True,
                         name="csl-lobby").start()

    def _fetch(self, where: str) -> None:
        try:
            with urllib.request.urlopen(where, timeout=5) as answer:  # noqa: S310 (http(s) only)
                doc = json.loads(answer.read(_LONGEST))
            found, problem = challenges_of(doc), ""
        except (OSError, ValueError, urllib.error.URLError) as e:
            found, problem = [], f"The server's lobby: {e}"
        with self._lock:
            self.challenges, self.problem, self._news = found, problem, True

    def take_news(self) -> bool:
        """Whether a look came back since the last call."""
        with self._lock:
            news, self._news = self._news, False
            return news
