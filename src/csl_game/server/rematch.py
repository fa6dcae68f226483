"""Rematches without I/O: the games that just ended, and who asked to play again.

When a game between people (or a person and the server's AI) ends, its
seats are kept for `keep_s` (at most `most` games, the oldest forgotten
first). A player's `rematch` asks for the same game again with the colours
swapped; the other's accepts it (the AI accepts at once), or declines it
(then either may ask again). The hub makes the new game and seats both
players in it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from csl_game.model.board import PColor
from csl_game.server.clock import TimeControl
from csl_game.server.game import Rejected
from csl_game.server.room import Room

__all__ = ["Ended", "Rematches", "REMATCH_KINDS"]

P = TypeVar("P")
REMATCH_KINDS = ("friend", "open", "ai")
"""The games played again on asking (a ladder's are paired by the ladder,
and a bot answers no offer)."""


@dataclass
class Ended(Generic[P]):
    """A game that ended, as a rematch would play it again."""

    game: str
    kind: str
    seats: list[str]
    names: list[str]
    control: TimeControl | None
    ended: float
    players: list[P | None]
    """Each side's connection when it ended (who is told of a rematch asked for)."""
    asked: set[PColor] = field(default_factory=set)

    def swapped(self) -> tuple[list[str], list[str]]:
        """The rematch's seats and names: the colours swapped."""
        return self.seats[::-1], self.names[::-1]


class Rematches(Generic[P]):
    """The games that ended lately, by id."""

    def __init__(self, keep_s: float = 600.0, most: int = 10_000) -> None:
        self.keep_s = keep_s
        self.most = most
        self._ended: OrderedDict[str, Ended[P]] = OrderedDict()

    def ended(self, room: Room[P], now: float) -> None:
        """`room`'s game ended: it may be played again for a while."""
        if room.kind not in REMATCH_KINDS or room.game.result is None:
            return
        g = room.game
        self._ended[room.id] = Ended(room.id, room.kind, list(room.seats), list(g.names),
                                     g.control, now, list(room.players))
        while len(self._ended) > self.most or (
                self._ended and now - next(iter(self._ended.values())).ended > self.keep_s):
            self._ended.popitem(last=False)

    def ask(self, game: str, identity: str, peer: P, now: float,
            ai_free: bool = True) -> tuple[Ended[P], PColor, bool]:
        """`peer`, who is `identity`, asks to play `game` again: the game, its
        colour in it, and whether both sides now agree (then it is forgotten).

        Raises:
            Rejected: no such game ended lately, `identity` played no side of
                it, or it was against the AI and no AI game is free (`ai_free`).
        """
        found, color = self._found(game, identity, peer, now)
        found.asked.add(color)
        agreed = color.other in found.asked or found.seats[color.other].startswith("ai:")
        if agreed and found.kind == "ai" and not ai_free:
            raise Rejected("the server's AI players are all busy; ask again soon")
        if agreed:
            del self._ended[game]
        return found, color, agreed

    def decline(self, game: str, identity: str, peer: P, now: float) -> tuple[Ended[P], PColor]:
        """`peer`, who is `identity`, declines the other side's ask to play
        `game` again: the game and its colour in it (the ask stands no more;
        either side may ask again).

        Raises:
            Rejected: as `ask`, or the other side did not ask.
        """
        found, color = self._found(game, identity, peer, now)
        if color.other not in found.asked:
            raise Rejected(f"{found.names[color.other]} did not ask for a rematch: there is "
                           "nothing to decline")
        found.asked.discard(color.other)
        return found, color

    def _found(self, game: str, identity: str, peer: P, now: float) -> tuple[Ended[P], PColor]:
        """`game` as it ended, and the colour `identity` (now at `peer`) played in it."""
        found = self._ended.get(game)
        if found is None or now - found.ended > self.keep_s:
            raise Rejected(f"game {game} did not end in the last {self.keep_s / 60:g} "
                           "minutes: make a new game instead")
        if not identity or identity not in found.seats:
            raise Rejected(f"you played no side of game {game}")
        color = PColor(found.seats.index(identity))
        found.players[color] = peer
        return found, color
