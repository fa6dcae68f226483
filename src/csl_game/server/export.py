"""A finished game of the server as PGN: the results file's PGN (`report
--format pgn`, csl_game.services.report), made from the game's stored row.

Each side is named as it played; the date is the day the game ended (UTC);
a game with people's clocks has its TimeControl (``300+3``), one between
people without a clock PGN's ``-`` (none), one with a bot or the AI its time
limit a move, as the report writes it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from csl_game.errors import ProtocolError
from csl_game.server.clock import TimeControl
from csl_game.server.store import GameRow
from csl_game.services.report import load_report

__all__ = ["game_pgn", "EVENT"]

EVENT = "csl-game server"
"""The PGN's Event tag."""


def game_pgn(row: GameRow) -> str | None:
    """`row`'s game as PGN, or None while it is not finished."""
    if row.state != "over" or row.result is None:
        return None
    seats = row.settings.get("seats")
    kinds = [seat.split(":", 1)[0] for seat in seats] if isinstance(seats, list) and \
        len(seats) == 2 and all(isinstance(s, str) for s in seats) else ["", ""]
    settings: dict[str, Any] = dict(row.result.get("settings") or {})
    try:
        control = TimeControl.from_doc(row.settings.get("timecontrol"))
    except ProtocolError:
        control = None
    if control is not None:
        settings["tc"] = control.tc
    elif kinds == ["web", "web"]:
        settings["tc"] = "-"  # people without a clock: PGN's "no time control"
    doc: dict[str, Any] = {
        **row.result, "match": 0, "settings": settings,
        "white": {"thinker": kinds[0], "params": "", "name": str(row.result.get("white"))},
        "red": {"thinker": kinds[1], "params": "", "name": str(row.result.get("red"))}}
    if row.ended is not None:
        doc["ended"] = datetime.fromtimestamp(row.ended, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return load_report([doc]).pgn(EVENT)
