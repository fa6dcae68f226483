"""The game server's WebSocket protocol: JSON text messages, one strict parser a direction.

A client (a browser, the app, a bot) sends `decode_request` what it wants;
the server answers with messages `decode_event` reads. Each parser refuses an
unknown type, a missing or an unknown key, and checks every field's type and
range with the online protocol's validators (csl_game.online.validators), so
the server and its clients refuse the same things in the same words. A game's
settings and result are written as the online protocol writes them
(`config_json`, `result_json`) and read back with its readers.
docs/server.md lists the messages.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from csl_game.engine import ForfeitReason
from csl_game.errors import ProtocolError
from csl_game.model.board import PColor, PShape
from csl_game.online.protocol import MAX_COL, MAX_DETAIL, MAX_NAME, config_from_doc
from csl_game.online.validators import (
    check_keys,
    choice_field,
    int_field,
    json_object,
    list_field,
    ms_field,
    text_field,
)
from csl_game.server.clock import TimeControl
from csl_game.thinker.api import MatchConfig

__all__ = ["VERSION", "MAX_MESSAGE", "Hello", "BotHello", "Create", "Join", "Watch", "Lobby",
           "Move", "Forfeit", "Resign", "Cancel", "Offer", "Claim", "Pong", "Request", "decode_request",
           "request_text", "encode", "frame",
           "GameState", "decode_event", "game_state", "clock_of", "ID_PATTERN", "is_id", "NAME_PATTERN", "OPPONENTS",
           "new_code", "code_as_made"]

VERSION = 1
MAX_MESSAGE = 4096
"""Bytes of one client message (a move is about 60)."""
MAX_TOKEN = 128
MAX_GAMES = 8
"""Games a bot may ask to play at once."""
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{8,32}")
"""What game ids and join codes look like (the server makes them up)."""
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.+-]{0,39}")
"""A player's name: letters, digits, space and ``_.+-``, starting with a letter or digit."""
OPPONENTS = ("friend", "open", "ai", "bot")
OFFERS = ("draw", "takeback", "rematch")
"""What a player offers or accepts: the other side's same message accepts it,
or with `"decline": true` declines it."""
_SHAPES = {s.name.lower(): s for s in PShape}
_COLORS: dict[str, PColor | None] = {"white": PColor.WHITE, "red": PColor.RED, "random": None}
_REASONS = {r.name.lower(): r for r in ForfeitReason}


def is_id(text: str) -> bool:
    return ID_PATTERN.fullmatch(text) is not None


CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""A join code's characters: Crockford's base 32, without I and L (taken for
1), O (taken for 0) and U."""
_CODE_LENGTH = 12  # 60 bits
_CODE_CHARS = frozenset(CODE_ALPHABET)
_READ_AS = str.maketrans("OIL", "011")


def new_code() -> str:
    """A join code to read out to a friend: 12 characters in groups of 4 ("K7QM-4XDT-9BHP")."""
    return _grouped("".join(secrets.choice(CODE_ALPHABET) for _ in range(_CODE_LENGTH)))


def code_as_made(typed: str) -> str:
    """The join code `typed` stands for: any case, with its dashes or without,
    an O for a 0 and an I or L for a 1 (as Crockford's base 32 reads them).
    Any other text is returned as it is (an older code is taken as typed)."""
    plain = typed.replace("-", "").upper().translate(_READ_AS)
    if len(plain) != _CODE_LENGTH or not _CODE_CHARS.issuperset(plain):
        return typed
    return _grouped(plain)


def _grouped(plain: str) -> str:
    return "-".join(plain[i:i + 4] for i in range(0, len(plain), 4))


# ------------------------------------------------------------------ client -> server
@dataclass(frozen=True)
class Hello:
    """A browser or the app: its display name."""

    name: str


@dataclass(frozen=True)
class BotHello:
    """A bot: its name, its token ('' asks to register, where that is open), and
    how many games it plays at once."""

    name: str
    token: str
    games: int = 1


@dataclass(frozen=True)
class Create:
    """Make a game: against a friend (a code to share), an open challenge, an
    AI level, or a bot of the ladder; with people's clocks or none."""

    opponent: str
    color: PColor | None
    level: str = ""
    clock: TimeControl | None = None
    bot: str = ""
    rated: bool = False
    """Rated (Glicko-2) between signed-in people, who may then take nothing back."""


@dataclass(frozen=True)
class Join:
    """Take the free seat of the game with this join code."""

    code: str


@dataclass(frozen=True)
class Watch:
    game: str


@dataclass(frozen=True)
class Lobby:
    """Send me the lobby, and again as it changes."""


@dataclass(frozen=True)
class Move:
    game: str
    ply: int
    col: int
    shape: PShape


@dataclass(frozen=True)
class Forfeit:
    """The player's thinker failed on its own machine."""

    game: str
    ply: int
    reason: ForfeitReason
    detail: str


@dataclass(frozen=True)
class Resign:
    game: str


@dataclass(frozen=True)
class Cancel:
    """Take back a game of mine nobody joined yet."""

    game: str


@dataclass(frozen=True)
class Offer:
    """Offer a draw, ask to take a move back, or ask for a rematch (the other
    side's same message accepts it; with `decline`, declines it)."""

    what: str
    game: str
    decline: bool = False


@dataclass(frozen=True)
class Claim:
    """Claim the win: the opponent left and its countdown ran out."""

    game: str


@dataclass(frozen=True)
class Pong:
    pass


Request = Hello | BotHello | Create | Join | Watch | Lobby | Move | Forfeit | Resign | Cancel \
    | Offer | Claim | Pong


def _name(doc: Mapping[str, Any], key: str = "name") -> str:
    name = text_field(doc, key, MAX_NAME, False)
    if not NAME_PATTERN.fullmatch(name):
        raise ProtocolError(f"'{key}' must be letters, digits, spaces and _.+- (1 to 40)")
    return name


def _object(text: str | bytes, longest: int) -> dict[str, Any]:
    """A message as a JSON object, read by orjson.

    Raises:
        ProtocolError: longer than `longest` bytes in UTF-8, or no JSON object.
    """
    if len(text) > (longest // 4 if isinstance(text, str) else longest) and \
            len(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")) \
            > longest:  # a text of longest / 4 characters fits in any case
        raise ProtocolError(f"a message longer than {longest} bytes")
    return json_object(text, orjson.loads)


def _id(doc: Mapping[str, Any], key: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not is_id(value):
        raise ProtocolError(f"'{key}' must be 8 to 32 letters, digits, - or _")
    return value


def decode_request(text: str | bytes) -> Request:
    """A client's message.

    Raises:
        ProtocolError: too long, not JSON, an unknown type or key, or a bad field.
    """
    doc = _object(text, MAX_MESSAGE)
    kind = doc.get("type")
    if kind == "move":  # the most frequent, first
        check_keys(doc, ("game", "ply", "col", "shape"))
        return Move(_id(doc, "game"), int_field(doc, "ply", 0, 40 * 40),
                    int_field(doc, "col", 0, MAX_COL), choice_field(doc, "shape", _SHAPES))
    if kind == "hello":
        check_keys(doc, ("version", "name"))
        _version(doc)
        return Hello(_name(doc))
    if kind == "bot":
        check_keys(doc, ("version", "name", "token"), ("games",))
        _version(doc)
        games = int_field(doc, "games", 1, MAX_GAMES) if "games" in doc else 1
        return BotHello(_name(doc), text_field(doc, "token", MAX_TOKEN), games)
    if kind == "create":
        check_keys(doc, ("opponent", "color"), ("level", "clock", "bot", "rated"))
        if not isinstance(doc.get("rated", False), bool):
            raise ProtocolError("'rated' must be true or false")
        level = text_field(doc, "level", 20) if "level" in doc else ""
        opponent = choice_field(doc, "opponent", {o: o for o in OPPONENTS})
        bot = _name(doc, "bot") if "bot" in doc else ""
        if (opponent == "bot") != bool(bot):
            raise ProtocolError("'bot' names the bot to play, with 'opponent': 'bot' only")
        return Create(opponent, choice_field(doc, "color", _COLORS), level,
                      TimeControl.from_doc(doc.get("clock")), bot, doc.get("rated") is True)
    if kind == "join":
        check_keys(doc, ("code",))
        return Join(_id(doc, "code"))
    if kind == "watch":
        check_keys(doc, ("game",))
        return Watch(_id(doc, "game"))
    if kind in ("lobby", "pong"):
        check_keys(doc, ())
        return Lobby() if kind == "lobby" else Pong()
    if kind == "forfeit":
        check_keys(doc, ("game", "ply", "reason", "detail"))
        return Forfeit(_id(doc, "game"), int_field(doc, "ply", 0, 40 * 40),
                       choice_field(doc, "reason", _REASONS),
                       text_field(doc, "detail", MAX_DETAIL, lines=True))
    if kind in OFFERS:
        check_keys(doc, ("game",), ("decline",))
        if not isinstance(doc.get("decline", False), bool):
            raise ProtocolError("'decline' must be true or false")
        return Offer(kind, _id(doc, "game"), doc.get("decline") is True)
    if kind in ("resign", "cancel", "claim"):
        check_keys(doc, ("game",))
        game = _id(doc, "game")
        return Resign(game) if kind == "resign" else Cancel(game) if kind == "cancel" \
            else Claim(game)
    raise ProtocolError(f"an unknown message type {str(kind)[:40]!r}")


def _version(doc: Mapping[str, Any]) -> None:
    if int_field(doc, "version", 0, 2 ** 31) != VERSION:
        raise ProtocolError(f"this server speaks version {VERSION}, not {doc['version']}")


def request_text(request: Request) -> str:
    """A client's game message as it said it: the text `decode_request` reads as `request`."""
    match request:
        case Move(game, ply, col, shape):
            return encode("move", game=game, ply=ply, col=col, shape=shape.name.lower())
        case Forfeit(game, ply, reason, detail):
            return encode("forfeit", game=game, ply=ply, reason=reason.name.lower(),
                          detail=detail)
        case Watch(game) | Resign(game) | Cancel(game):
            return encode(type(request).__name__.lower(), game=game)
        case Join(code):
            return encode("join", code=code)
        case Offer(what, game, decline):
            return encode(what, game=game, **({"decline": True} if decline else {}))
        case Claim(game):
            return encode("claim", game=game)
    raise ValueError(f"{request!r} is no game's message")


_ENCODER = json.JSONEncoder(separators=(",", ":"))


def encode(kind: str, /, **fields: Any) -> str:
    """A message as its JSON text (orjson's: a NaN would be null). A text
    orjson refuses (a lone surrogate, a type it does not know) is written
    by the standard library's encoder instead, or refused by it."""
    doc = {"type": kind, **fields}
    try:
        return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return _ENCODER.encode(doc)


def frame(text: str) -> bytes:
    """`text` as the server's WebSocket text frame (RFC 6455: final, unmasked,
    uncompressed), made once and written as it is to each receiver."""
    data = text.encode("utf-8")
    size = len(data)
    if size < 126:
        return bytes((0x81, size)) + data
    if size < 1 << 16:
        return bytes((0x81, 126)) + size.to_bytes(2, "big") + data
    return bytes((0x81, 127)) + size.to_bytes(8, "big") + data


# ------------------------------------------------------------------ server -> client
@dataclass(frozen=True)
class GameState:
    """A game as the server sends it when a client starts playing or watching it."""

    game: str
    code: str
    color: PColor | None
    """The receiver's colour (None: watching)."""
    white: str
    red: str
    config: MatchConfig
    moves: tuple[tuple[int, PShape, float], ...]
    clock: tuple[int, int] | None = None
    """White's and Red's milliseconds left as it was sent (None: a game without clocks)."""
    control: TimeControl | None = None
    """The game's time control (None: a game without clocks)."""
    kind: str = ""
    """How the game was made: 'friend' or 'open' (between people), 'ai' (the
    server's AI), 'bot' (a person against a ladder bot), 'ladder' (two bots)."""

    @property
    def between_people(self) -> bool:
        """Whether nobody's moves come from a thinker (no AI's time limit applies)."""
        return self.kind in PEOPLE_KINDS


PEOPLE_KINDS = ("friend", "open")
"""The kinds of game two people play (the `create` opponents of that name)."""

_EVENT_KEYS = {
    "welcome": (("name",), ("token", "session")),
    "game": (("game", "code", "color", "white", "red", "settings", "moves", "kind"),
             ("clock", "timecontrol", "rated", "watchers")),
    "turn": (("game", "ply"), ()),
    "played": (("game", "ply", "col", "shape", "ms"), ("clock", "watchers")),
    "result": (("game", "result"), ("clock",)),
    "away": (("game", "color", "seconds"), ("claim",)),
    "offer": (("game", "what", "color"), ()),
    "declined": (("game", "what", "color"), ()),
    "aborted": (("game", "reason"), ()),
    "lobby": (("challenges", "games", "ladder"), ()),
    "error": (("message",), ()),
    "ping": ((), ()),
}


def decode_event(text: str | bytes, longest: int = 1 << 20) -> tuple[str, dict[str, Any]]:
    """A server's message: its type and its fields, every field of a game
    message checked (a lobby's lists only for their shape).

    Raises:
        ProtocolError: not JSON, an unknown type or key, or a bad field.
    """
    doc = _object(text, longest)
    kind = doc.get("type")
    if not isinstance(kind, str) or kind not in _EVENT_KEYS:
        raise ProtocolError(f"an unknown message type {str(kind)[:40]!r}")
    check_keys(doc, *_EVENT_KEYS[kind])
    if "game" in doc:
        _id(doc, "game")
    if "watchers" in doc:
        int_field(doc, "watchers", 0, 2 ** 31)
    if "clock" in doc:
        clock = doc["clock"]
        if not isinstance(clock, dict):
            raise ProtocolError("'clock' must be an object of 'white' and 'red' (ms)")
        check_keys(clock, ("white", "red"))
        int_field(clock, "white", 0, 2 ** 40), int_field(clock, "red", 0, 2 ** 40)
    if kind == "game":
        config_from_doc(doc)
        try:
            TimeControl.from_doc(doc.get("timecontrol"))
        except ProtocolError as e:
            raise ProtocolError(f"'timecontrol': {e}") from None
        for m in list_field(doc, "moves", 40 * 40):
            check_keys(m, ("col", "shape", "ms"))
            int_field(m, "col", 0, MAX_COL), choice_field(m, "shape", _SHAPES), ms_field(m)
        if doc["color"] is not None:
            choice_field(doc, "color", _COLORS)
    elif kind in ("played", "turn"):
        int_field(doc, "ply", 0, 40 * 40)
        if kind == "played":
            int_field(doc, "col", 0, MAX_COL), choice_field(doc, "shape", _SHAPES), ms_field(doc)
    elif kind == "error":
        text_field(doc, "message", MAX_DETAIL)
    elif kind == "away":
        choice_field(doc, "color", _COLORS)
        for key in ("seconds", "claim"):
            if doc.get(key) is not None:
                ms_field(doc, key)
    elif kind in ("offer", "declined"):
        choice_field(doc, "what", {o: o for o in OFFERS}), choice_field(doc, "color", _COLORS)
    elif kind == "aborted":
        text_field(doc, "reason", MAX_DETAIL)
    return kind, doc


def game_state(doc: Mapping[str, Any]) -> GameState:
    """The `GameState` of a 'game' message `decode_event` accepted."""
    config = config_from_doc(doc)
    color = None if doc["color"] is None else _COLORS[doc["color"]]
    moves = tuple((m["col"], _SHAPES[m["shape"]], float(m["ms"]) / 1000) for m in doc["moves"])
    return GameState(doc["game"], doc["code"], color, doc["white"], doc["red"], config, moves,
                     clock_of(doc), TimeControl.from_doc(doc.get("timecontrol")),
                     str(doc["kind"]))


def clock_of(doc: Mapping[str, Any]) -> tuple[int, int] | None:
    """White's and Red's milliseconds left of a `game`, `played` or `result`
    message `decode_event` accepted (None: a game without clocks)."""
    clock = doc.get("clock")
    return None if clock is None else (int(clock["white"]), int(clock["red"]))
