"""The online protocol: JSON lines over TCP, as typed messages, without I/O.

Every message is one JSON object on one line (UTF-8, at most `MAX_LINE`
bytes with its newline), its kind in ``"type"``. The parsers take the bytes
of one line and give a frozen message or raise `ProtocolError`: they refuse
what they do not know (an unknown type, a missing or an unknown key) and
check every field's type and range (csl_game.online.validators), so nothing
the network sends reaches the game unchecked. docs/online.md describes the messages with a transcript.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from csl_game.engine import (
    UNRECORDED_CLOCK,
    Figures,
    ForfeitReason,
    MatchResult,
    PlayedMove,
    result_to_json,
)
from csl_game.errors import ProtocolError
from csl_game.model.board import Move, PColor, Piece, Pos, PShape, Winner
from csl_game.online.validators import (
    check_keys,
    choice_field,
    int_field,
    json_object,
    list_field,
    ms_field,
    text_field,
)
from csl_game.services.limits import SETTING
from csl_game.thinker.api import MatchConfig

__all__ = ["PROTOCOL_VERSION", "MAX_LINE", "MAX_NAME", "MIN_CODE", "MAX_CODE", "MAX_DETAIL",
           "code_problem", "ProtocolError", "Hello", "MoveMsg", "ForfeitMsg", "Pong", "Welcome",
           "Played", "Paused", "Resumed", "Result", "ErrorMsg", "Ping", "ClientMessage",
           "HostMessage", "encode", "decode_client", "decode_host", "SETTING_KEYS", "config_json",
           "LineReader", "result_from_doc", "result_json", "config_from_doc", "MAX_COL",
           "CLOCK_KEYS"]

PROTOCOL_VERSION = 1
"""The version this program speaks; host and joiner must speak the same."""
MAX_LINE = 64 * 1024
"""Bytes of one line, its newline included."""
MAX_NAME = 40
MIN_CODE = 6
"""Characters a join code has at least (a made-up one has 8)."""
MAX_CODE = 64
MAX_DETAIL = 2000
MAX_COL = 63
"""Columns a move may name at all (boards are at most 40 wide; the judge refuses
columns beyond the board)."""
_MAX_FIGURES = 16
ROLES = ("player", "spectator")
KINDS = ("human", "ai")
SETTING_KEYS = ("rows", "cols", "win_sequence", "round_pieces", "square_pieces",
                "time_limit_ms", "min_move_time_ms")
"""The board and timing settings, as MatchConfig names them."""
_COLORS = {c.name.lower(): c for c in PColor}
_SHAPES = {s.name.lower(): s for s in PShape}
_WINNERS = {w.name.lower(): w for w in Winner}
_REASONS = {r.name.lower(): r for r in ForfeitReason}


# ------------------------------------------------------------------ joiner -> host
@dataclass(frozen=True)
class Hello:
    """The first line of every connection: who comes, and for what."""

    version: int
    role: str
    """'player' (takes the seat) or 'spectator' (watches)."""
    code: str = ""
    """The join code (players only)."""
    name: str = ""
    """The player's display name (players only)."""
    kind: str = "human"
    """'human' (never timed) or 'ai' (held to the time limit)."""
    color: PColor | None = None
    """The colour the joiner asked for, if it did."""
    settings: Mapping[str, int] | None = None
    """The board settings the joiner asked for explicitly, if any: the host
    refuses a joiner whose settings differ from its own."""


@dataclass(frozen=True)
class MoveMsg:
    """The seated player's move for ply `ply` (moves played before it)."""

    ply: int
    col: int
    shape: PShape


@dataclass(frozen=True)
class ForfeitMsg:
    """The seated player lost on its own machine (its thinker failed there)."""

    ply: int
    reason: ForfeitReason
    detail: str = ""


@dataclass(frozen=True)
class Pong:
    """The answer to a Ping: still here."""


# ------------------------------------------------------------------ host -> joiner
@dataclass(frozen=True)
class Welcome:
    """The host took the connection: the game as it stands."""

    version: int
    role: str
    color: PColor | None
    """The seated player's colour (None for a spectator)."""
    config: MatchConfig
    names: tuple[str, str]
    """White's and Red's display names."""
    humans: tuple[bool, bool]
    """Whether White and Red are humans (the others are timed)."""
    moves: tuple[tuple[int, PShape, float], ...]
    """Every move so far: column, shape and the seconds its player took."""
    waiting_for: str = ""
    """The name of the player the game waits for (paused), else ''."""


@dataclass(frozen=True)
class Played:
    """Move number `ply` (0 first) was played."""

    ply: int
    col: int
    shape: PShape
    elapsed: float


@dataclass(frozen=True)
class Paused:
    """The game waits for `name` to reconnect."""

    name: str


@dataclass(frozen=True)
class Resumed:
    """The game goes on."""


@dataclass(frozen=True)
class Result:
    """The match is over: the host's result, as ``match --json`` prints it."""

    result: MatchResult
    config: MatchConfig
    """The game's settings (a result line holds all but the minimum move time)."""


@dataclass(frozen=True)
class ErrorMsg:
    """Why the host closes this connection (the last line it sends)."""

    message: str


@dataclass(frozen=True)
class Ping:
    """Are you there? (answered with Pong)."""


ClientMessage = Hello | MoveMsg | ForfeitMsg | Pong
HostMessage = Welcome | Played | Paused | Resumed | Result | ErrorMsg | Ping


# ------------------------------------------------------------------ encoding
CLOCK_KEYS = ("clock", "time_margin_ms")
"""Settings of the match clock, sent only when not the defaults (the CPU clock,
no margin), so that a game on the defaults reads as it did before them."""
_CLOCK_DEFAULTS = {"clock": "cpu", "time_margin_ms": 0}


def config_json(config: MatchConfig) -> dict[str, Any]:
    """A match's board and timing settings, by SETTING_KEYS, and its clock
    (CLOCK_KEYS) when it is not the default."""
    doc: dict[str, Any] = {key: getattr(config, key) for key in SETTING_KEYS}
    doc.update((k, getattr(config, k)) for k in CLOCK_KEYS
               if getattr(config, k) != _CLOCK_DEFAULTS[k])
    return doc


def result_json(result: MatchResult, config: MatchConfig) -> dict[str, Any]:
    """A result as the protocol sends it: as `result_to_json` writes it, its
    clock settings only when they are not the defaults."""
    doc = result_to_json(result, config)
    doc["settings"] = {k: v for k, v in doc["settings"].items()
                       if k not in UNRECORDED_CLOCK or v != _CLOCK_DEFAULTS[k]}
    return doc


def _body(msg: ClientMessage | HostMessage) -> dict[str, Any]:
    match msg:
        case Hello():
            doc: dict[str, Any] = {"version": msg.version, "role": msg.role}
            if msg.role == "player":
                doc.update(code=msg.code, name=msg.name, kind=msg.kind)
                if msg.color is not None:
                    doc["color"] = msg.color.name.lower()
                if msg.settings:
                    doc["settings"] = dict(msg.settings)
            return doc
        case MoveMsg() | Played():
            doc = {"ply": msg.ply, "col": msg.col, "shape": msg.shape.name.lower()}
            if isinstance(msg, Played):
                doc["ms"] = round(msg.elapsed * 1000, 3)
            return doc
        case ForfeitMsg():
            return {"ply": msg.ply, "reason": msg.reason.name.lower(), "detail": msg.detail}
        case Welcome():
            return {"version": msg.version, "role": msg.role,
                    "color": None if msg.color is None else msg.color.name.lower(),
                    "settings": config_json(msg.config), "white": msg.names[0],
                    "red": msg.names[1], "humans": list(msg.humans),
                    "moves": [{"col": c, "shape": s.name.lower(), "ms": round(e * 1000, 3)}
                              for c, s, e in msg.moves],
                    "waiting_for": msg.waiting_for}
        case Paused():
            return {"name": msg.name}
        case Result():
            return {"result": result_json(msg.result, msg.config)}
        case ErrorMsg():
            return {"message": msg.message}
    return {}


_TYPES: dict[type, str] = {Hello: "hello", MoveMsg: "move", ForfeitMsg: "forfeit", Pong: "pong",
                           Welcome: "welcome", Played: "played", Paused: "paused",
                           Resumed: "resumed", Result: "result", ErrorMsg: "error",
                           Ping: "ping"}


def encode(msg: ClientMessage | HostMessage) -> bytes:
    """One line: the message as a JSON object and a newline (ASCII only)."""
    doc: dict[str, Any] = {"type": _TYPES[type(msg)], **_body(msg)}
    return json.dumps(doc, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


# ------------------------------------------------------------------ decoding
class LineReader:
    """Bytes in, complete lines out, none longer than `max_line` (sans I/O)."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """The lines `data` completes, without their newlines.

        Raises:
            ProtocolError: a line longer than `max_line` (the rest is not read).
        """
        self._buffer += data
        lines = []
        while (end := self._buffer.find(b"\n")) >= 0:
            if end + 1 > self.max_line:
                break
            lines.append(bytes(self._buffer[:end]))
            del self._buffer[:end + 1]
        if len(self._buffer) >= self.max_line:
            self._buffer.clear()
            raise ProtocolError(f"a line longer than {self.max_line} bytes")
        return lines


def code_problem(code: str) -> str | None:
    """What is wrong with `code` as a join code a host is given (None: nothing):
    MIN_CODE to MAX_CODE printable characters, no spaces."""
    if MIN_CODE <= len(code) <= MAX_CODE and code.isprintable() and " " not in code:
        return None
    return f"{MIN_CODE} to {MAX_CODE} characters, no spaces"


def _settings(doc: Mapping[str, Any], key: str, whole: tuple[str, ...] = ()
              ) -> dict[str, Any]:
    """The settings object `doc[key]`: some of SETTING_KEYS, or exactly `whole`,
    and the clock's (CLOCK_KEYS) if given."""
    given = doc.get(key)
    board = set(given) - set(CLOCK_KEYS) if isinstance(given, dict) else set()
    if not isinstance(given, dict) or (whole and board != set(whole)):
        raise ProtocolError(f"'{key}' must be an object of {', '.join(whole or SETTING_KEYS)}")
    unknown = sorted(board - set(SETTING_KEYS))
    if unknown:
        raise ProtocolError(f"'{key}' has an unknown setting {unknown[0][:40]!r}")
    values: dict[str, Any] = {k: int_field(given, k, 0, int(SETTING[k].high)) for k in board}
    if "clock" in given:
        values["clock"] = choice_field(given, "clock", {"cpu": "cpu", "wall": "wall"})
    if "time_margin_ms" in given:
        values["time_margin_ms"] = int_field(given, "time_margin_ms", 0,
                                        int(SETTING["time_margin_ms"].high))
    return values


def config_from_doc(doc: Mapping[str, Any], keys: tuple[str, ...] = SETTING_KEYS) -> MatchConfig:
    """The game settings of a message (its "settings": exactly `keys`, and the
    clock's if given), every value checked.

    Raises:
        ProtocolError: a setting missing, unknown or out of range, or a game nobody can play.
    """
    values: dict[str, Any] = _settings(doc, "settings", keys)
    try:
        return MatchConfig(**values)
    except ValueError as e:
        raise ProtocolError(f"'settings' make no playable game: {e}") from None


def decode_client(line: bytes) -> ClientMessage:
    """A line a joiner or spectator sent, as its message.

    Raises:
        ProtocolError: the line is no message a client may send, or a field is bad.
    """
    doc = json_object(line)
    kind = doc.get("type")
    if kind == "hello":
        return _hello(doc)
    if kind == "move":
        check_keys(doc, ("ply", "col", "shape"))
        return MoveMsg(int_field(doc, "ply", 0, 40 * 40), int_field(doc, "col", 0, MAX_COL),
                       choice_field(doc, "shape", _SHAPES))
    if kind == "forfeit":
        check_keys(doc, ("ply", "reason", "detail"))
        return ForfeitMsg(int_field(doc, "ply", 0, 40 * 40), choice_field(doc, "reason", _REASONS),
                          text_field(doc, "detail", MAX_DETAIL, lines=True))
    if kind == "pong":
        check_keys(doc, ())
        return Pong()
    raise ProtocolError(f"an unknown message type {str(kind)[:40]!r}")


def _hello(doc: Mapping[str, Any]) -> Hello:
    version = int_field(doc, "version", 0, 2 ** 31)
    role = choice_field(doc, "role", {r: r for r in ROLES})
    if role == "spectator":
        check_keys(doc, ("version", "role"))
        return Hello(version, role)
    check_keys(doc, ("version", "role", "code", "name", "kind"), ("color", "settings"))
    color = choice_field(doc, "color", _COLORS) if "color" in doc else None
    settings = _settings(doc, "settings") if "settings" in doc else None
    return Hello(version, role, text_field(doc, "code", MAX_CODE), text_field(doc, "name", MAX_NAME, False),
                 choice_field(doc, "kind", {k: k for k in KINDS}), color, settings)


def decode_host(line: bytes) -> HostMessage:
    """A line the host sent, as its message.

    Raises:
        ProtocolError: the line is no message a host may send, or a field is bad.
    """
    doc = json_object(line)
    kind = doc.get("type")
    if kind == "welcome":
        return _welcome(doc)
    if kind == "played":
        check_keys(doc, ("ply", "col", "shape", "ms"))
        return Played(int_field(doc, "ply", 0, 40 * 40), int_field(doc, "col", 0, MAX_COL),
                      choice_field(doc, "shape", _SHAPES), ms_field(doc))
    if kind == "paused":
        check_keys(doc, ("name",))
        return Paused(text_field(doc, "name", MAX_NAME, False))
    if kind == "result":
        check_keys(doc, ("result",))
        return Result(*result_from_doc(doc["result"]))
    if kind == "error":
        check_keys(doc, ("message",))
        return ErrorMsg(text_field(doc, "message", MAX_DETAIL))
    if kind in ("ping", "resumed"):
        check_keys(doc, ())
        return Ping() if kind == "ping" else Resumed()
    raise ProtocolError(f"an unknown message type {str(kind)[:40]!r}")


def _welcome(doc: Mapping[str, Any]) -> Welcome:
    check_keys(doc, ("version", "role", "color", "settings", "white", "red", "humans", "moves",
                "waiting_for"))
    role = choice_field(doc, "role", {r: r for r in ROLES})
    color = None if doc["color"] is None else choice_field(doc, "color", _COLORS)
    humans = doc["humans"]
    if not (isinstance(humans, list) and len(humans) == 2 and all(type(h) is bool
                                                                  for h in humans)):
        raise ProtocolError("'humans' must be two true or false values")
    moves = list_field(doc, "moves", 40 * 40)
    for m in moves:
        check_keys(m, ("col", "shape", "ms"))
    return Welcome(int_field(doc, "version", 0, 2 ** 31), role, color, config_from_doc(doc),
                   (text_field(doc, "white", MAX_NAME, False), text_field(doc, "red", MAX_NAME, False)),
                   (humans[0], humans[1]),
                   tuple((int_field(m, "col", 0, MAX_COL), choice_field(m, "shape", _SHAPES), ms_field(m))
                         for m in moves),
                   text_field(doc, "waiting_for", MAX_NAME))


def result_from_doc(doc: object) -> tuple[MatchResult, MatchConfig]:
    """A result as `result_to_json` wrote it, and its settings, every field checked.

    Raises:
        ProtocolError: a field is missing, unknown, of the wrong type or out of range.
    """
    if not isinstance(doc, dict):
        raise ProtocolError("'result' must be an object")
    check_keys(doc, ("white", "red", "winner", "winner_name", "solution", "forfeit", "detail",
                "moves", "settings"), ("resigned",))
    config = config_from_doc(doc, SETTING_KEYS[:-1])  # a result line has no minimum move time
    solution = doc["solution"]
    if not isinstance(solution, list) or len(solution) > 40 or not all(
            isinstance(p, list) and len(p) == 2 and all(type(v) is int and 0 <= v < 40
                                                        for v in p) for p in solution):
        raise ProtocolError("'solution' must be a list of [row, col] cells")
    forfeit = None if doc["forfeit"] is None else choice_field(doc, "forfeit", _REASONS)
    if "resigned" in doc and doc["resigned"] is not True:
        raise ProtocolError("'resigned' is true when present")
    moves = []
    for m in list_field(doc, "moves", 40 * 40):
        check_keys(m, ("row", "col", "color", "shape", "ms"), ("figures",))
        piece = Piece(choice_field(m, "color", _COLORS), choice_field(m, "shape", _SHAPES))
        move = Move(int_field(m, "row", 0, 39), int_field(m, "col", 0, 39), piece)
        moves.append(PlayedMove(move, ms_field(m), _figures(m.get("figures", {}))))
    return MatchResult(choice_field(doc, "winner", _WINNERS), text_field(doc, "white", MAX_NAME, False),
                       text_field(doc, "red", MAX_NAME, False), tuple(Pos(*p) for p in solution),
                       forfeit, text_field(doc, "detail", MAX_DETAIL, lines=True), tuple(moves),
                       "resigned" in doc), config


def _figures(given: object) -> Figures:
    if not isinstance(given, dict) or len(given) > _MAX_FIGURES or not all(
            isinstance(k, str) and len(k) <= MAX_NAME and k.isprintable() and
            type(v) in (int, float) and math.isfinite(v) for k, v in given.items()):
        raise ProtocolError("'figures' must be an object of at most 16 named numbers")
    return tuple(given.items())  # as given: an int stays an int, as the host printed it
