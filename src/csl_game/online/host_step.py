"""What the host's state machine (csl_game.online.hosting) hands its driver:
the events of its peers for the frontend, and a `HostStep` of each call (the
messages to send, the peers to close, the events)."""

from __future__ import annotations

from dataclasses import dataclass, field

from csl_game.model.board import PColor
from csl_game.online.door import TurnedAway
from csl_game.online.protocol import HostMessage

__all__ = ["PlayerJoined", "PlayerLeft", "PlayerBack", "ClaimOffered", "HostEvent", "HostStep"]


@dataclass(frozen=True)
class PlayerJoined:
    name: str
    color: PColor


@dataclass(frozen=True)
class PlayerLeft:
    """The seated player's connection dropped: the game is paused."""

    name: str


@dataclass(frozen=True)
class PlayerBack:
    name: str


@dataclass(frozen=True)
class ClaimOffered:
    """The seat has been empty `seconds`: the host may claim the game."""

    name: str
    seconds: float


HostEvent = PlayerJoined | PlayerLeft | PlayerBack | ClaimOffered | TurnedAway


@dataclass
class HostStep:
    """What the driver does after a call: send each message of `send` to its
    peer; close each peer of `close` after telling it the reason (one error
    line); hand `events` to the frontend."""

    send: list[tuple[int, HostMessage]] = field(default_factory=list)
    close: list[tuple[int, str]] = field(default_factory=list)
    events: list[HostEvent] = field(default_factory=list)

    def to(self, peer: int) -> list[HostMessage]:
        """The messages for `peer`, in order."""
        return [msg for p, msg in self.send if p == peer]

    def closes(self, peer: int) -> str | None:
        """The reason `peer` is closed with, if it is."""
        return next((reason for p, reason in self.close if p == peer), None)
