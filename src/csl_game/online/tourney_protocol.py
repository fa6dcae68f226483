"""The tournament broadcast's messages: a session followed by spectators, without I/O.

A tournament played with ``--listen`` (``csl-game session`` or the window's
``play``) is broadcast to spectators only, over the same JSON lines as a
hosted match (csl_game.online.protocol): a spectator says ``hello`` (role
spectator) and is answered ``tournament`` instead of ``welcome``, then the
standings so far and the match being played from its current position;
``played`` and ``ping`` are the match protocol's own. One strict parser
(`decode_watch`) takes every line a broadcast or a match host may send, so
``csl-game watch`` learns from the first answer which it follows.
docs/online.md describes the messages with a transcript.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from csl_game.engine import MatchResult, Standing
from csl_game.model.board import PShape
from csl_game.online.protocol import (
    MAX_COL,
    MAX_NAME,
    HostMessage,
    ProtocolError,
    config_from_doc,
    config_json,
    decode_host,
    result_from_doc,
    result_json,
)
from csl_game.online.validators import (
    check_keys,
    choice_field,
    int_field,
    json_object,
    list_field,
    ms_field,
    text_field,
)
from csl_game.thinker.api import MatchConfig

__all__ = ["Tournament", "StandingsMsg", "MatchMsg", "Finished", "TourneyMessage",
           "WatchMessage", "encode_tourney", "decode_watch", "MAX_PLAYERS", "MAX_MATCHES"]

MAX_PLAYERS = 256
"""Players a broadcast may name."""
MAX_MATCHES = 100_000
"""Matches a broadcast may announce (fixtures; a tie-break's are not counted)."""
_MAX_POINTS = 10 ** 9
_SHAPES = {s.name.lower(): s for s in PShape}


@dataclass(frozen=True)
class Tournament:
    """The answer to a spectator's hello: the session being broadcast."""

    players: tuple[str, ...]
    """Display names, in the session's order."""
    matches: int
    """How many matches the session plays (its fixtures)."""
    config: MatchConfig


@dataclass(frozen=True)
class StandingsMsg:
    """The standings after `played` matches; `final` once the session ended
    (a tie-break for first place applied)."""

    played: int
    final: bool
    rows: tuple[Standing, ...]


@dataclass(frozen=True)
class MatchMsg:
    """Match `index` (0 first) is being played: its players, settings and the
    moves played so far (column, shape, seconds); ``played`` lines follow."""

    index: int
    white: str
    red: str
    config: MatchConfig
    moves: tuple[tuple[int, PShape, float], ...] = ()


@dataclass(frozen=True)
class Finished:
    """Match `index` ended (on screen, or played off screen at the same time)."""

    index: int
    result: MatchResult
    config: MatchConfig


TourneyMessage = Tournament | StandingsMsg | MatchMsg | Finished
WatchMessage = TourneyMessage | HostMessage


def _row_json(row: Standing) -> dict[str, Any]:
    return {"position": row.position, "player": row.player, "name": row.name,
            "points": row.points, "wins": row.wins, "draws": row.draws, "losses": row.losses}


def _body(msg: TourneyMessage) -> dict[str, Any]:
    match msg:
        case Tournament():
            return {"type": "tournament", "players": list(msg.players), "matches": msg.matches,
                    "settings": config_json(msg.config)}
        case StandingsMsg():
            return {"type": "standings", "played": msg.played, "final": msg.final,
                    "rows": [_row_json(r) for r in msg.rows]}
        case MatchMsg():
            return {"type": "match", "index": msg.index, "white": msg.white, "red": msg.red,
                    "settings": config_json(msg.config),
                    "moves": [{"col": c, "shape": s.name.lower(), "ms": round(e * 1000, 3)}
                              for c, s, e in msg.moves]}
        case Finished():
            return {"type": "finished", "index": msg.index,
                    "result": result_json(msg.result, msg.config)}


def encode_tourney(msg: TourneyMessage) -> bytes:
    """One line: the message as a JSON object and a newline (ASCII only)."""
    return json.dumps(_body(msg), separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


def decode_watch(line: bytes) -> WatchMessage:
    """A line a tournament broadcast or a match host sent, as its message.

    Raises:
        ProtocolError: the line is no message either may send, or a field is bad.
    """
    doc = json_object(line)
    kind = doc.get("type")
    if kind == "tournament":
        check_keys(doc, ("players", "matches", "settings"))
        names = doc["players"]
        if not isinstance(names, list) or not 2 <= len(names) <= MAX_PLAYERS:
            raise ProtocolError(f"'players' must be a list of 2 to {MAX_PLAYERS} names")
        players = tuple(text_field({"name": n}, "name", MAX_NAME, False) for n in names)
        return Tournament(players, int_field(doc, "matches", 1, MAX_MATCHES), config_from_doc(doc))
    if kind == "standings":
        check_keys(doc, ("played", "final", "rows"))
        if type(doc["final"]) is not bool:
            raise ProtocolError("'final' must be true or false")
        rows = tuple(_standing(r) for r in list_field(doc, "rows", MAX_PLAYERS))
        return StandingsMsg(int_field(doc, "played", 0, 10 * MAX_MATCHES), doc["final"], rows)
    if kind == "match":
        check_keys(doc, ("index", "white", "red", "settings", "moves"))
        moves = list_field(doc, "moves", 40 * 40)
        for m in moves:
            check_keys(m, ("col", "shape", "ms"))
        return MatchMsg(int_field(doc, "index", 0, MAX_MATCHES), text_field(doc, "white", MAX_NAME, False),
                        text_field(doc, "red", MAX_NAME, False), config_from_doc(doc),
                        tuple((int_field(m, "col", 0, MAX_COL), choice_field(m, "shape", _SHAPES),
                               ms_field(m)) for m in moves))
    if kind == "finished":
        check_keys(doc, ("index", "result"))
        return Finished(int_field(doc, "index", 0, MAX_MATCHES), *result_from_doc(doc["result"]))
    return decode_host(line)


def _standing(doc: Mapping[str, Any]) -> Standing:
    check_keys(doc, ("position", "player", "name", "points", "wins", "draws", "losses"))
    return Standing(int_field(doc, "position", 1, MAX_PLAYERS), int_field(doc, "player", 0, MAX_PLAYERS - 1),
                    text_field(doc, "name", MAX_NAME, False),
                    int_field(doc, "points", -_MAX_POINTS, _MAX_POINTS),
                    *(int_field(doc, k, 0, 10 * MAX_MATCHES) for k in ("wins", "draws", "losses")))
