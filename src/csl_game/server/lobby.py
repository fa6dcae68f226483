"""What the lobby shows of the rooms: open challenges and games being played."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from csl_game.server.room import Room

__all__ = ["lobby_lists"]


def lobby_lists(rooms: Iterable[Room[Any]], most: int = 100) -> dict[str, list[dict[str, Any]]]:
    """The lobby's open challenges and games being played (at most `most` of each)."""
    challenges: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    for room in rooms:
        names = room.game.names
        if room.started and len(games) < most:
            games.append({"game": room.id, "white": names[0], "red": names[1],
                          "ply": room.game.ply, "kind": room.kind,
                          "watchers": len(room.watchers)})
        elif room.kind == "open" and not room.started and len(challenges) < most:
            control = room.game.control
            challenges.append({"game": room.id, "code": room.code, "name": names[0] or names[1],
                               "free": "white" if not room.seats[0] else "red",
                               "clock": None if control is None else control.tc,
                               "rated": room.rated})
    return {"challenges": challenges, "games": games}
