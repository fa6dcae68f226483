"""A session played in the window, broadcast to spectators (``play --listen``).

`WindowBroadcast` listens where the options say, follows the session and the
match on screen, and serves spectators once a frame without blocking (the
same `Broadcaster` as ``session --listen``; ``csl-game watch`` and the
window's Watch follow it, with the standings after each match). Where it
cannot listen, the log says so and the games go on unbroadcast.
"""

from __future__ import annotations

from csl_game.engine import Match, Session
from csl_game.errors import NetworkError
from csl_game.gui.panels import MessageLog
from csl_game.online.broadcast import Broadcaster
from csl_game.services.addresses import parse_address

__all__ = ["WindowBroadcast"]


class WindowBroadcast:
    """One session's broadcast, for as long as the window shows it."""

    def __init__(self, session: Session, listen: str, log: MessageLog) -> None:
        self.log = log
        self.broadcaster: Broadcaster | None = None
        self._followed: Match | None = None
        try:
            address = parse_address(listen, bare=True)
            self.broadcaster = Broadcaster(session, address)
        except ValueError as e:
            log.add(f"Not broadcasting: --listen {e}")
            return
        except NetworkError as e:
            log.add(f"Not broadcasting: {e}")
            return
        for line in self.broadcaster.where_to_watch():
            log.add(line.strip())

    def follow(self, match: Match | None) -> None:
        """The match on screen (each is followed once, from its start)."""
        if self.broadcaster is not None and match is not None and match is not self._followed:
            self._followed = match
            self.broadcaster.follow_match(match)

    def poll(self) -> None:
        """Serve the spectators (never waits); say whom it turned away."""
        if self.broadcaster is None:
            return
        for refused in self.broadcaster.poll():
            self.log.add(refused.text[0].upper() + refused.text[1:], shown=False)

    def close(self) -> None:
        if self.broadcaster is not None:
            self.broadcaster.close(linger=0.5)
            self.broadcaster = None
