"""The engine protocol's words: the lines csl-game sends and the lines it reads.

An engine is any executable that talks this line protocol over its standard
input and output (docs/engines.md describes it for engine authors). This
module only turns values into lines and lines into typed messages; running
the executable is `csl_game.thinker.engine_thinker`'s job.

csl-game -> engine: ``csl 1``, ``setup R C W O S T [PARAMS]``,
``position [MOVE ...]``, ``go MS``, ``stop``, ``quit``.
engine -> csl-game: ``csl 1 [NAME]``, ``ready [NAME]``, ``info TEXT``,
``move MOVE`` or ``move none``, ``error TEXT``.

A move is written as its column and a letter for its shape: ``3r`` drops a
round piece into column 3, ``0s`` a square one into column 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from csl_game.errors import EngineProtocolError, NotationError
from csl_game.model.notation import format_move, parse_move
from csl_game.model.values import PShape
from csl_game.thinker.api import FutureMove, MatchConfig

__all__ = ["VERSION", "EngineProtocolError", "hello",
           "setup", "position", "go", "STOP", "QUIT", "EngineMessage", "Hello", "Ready",
           "Info", "Answer", "Failed", "parse_line"]

VERSION = 1
"""The protocol version this csl-game speaks."""
STOP = "stop"
QUIT = "quit"

_MAX_SHOWN = 60  # characters of a bad line quoted in an error




def shown(text: str) -> str:
    """`text` cut to a length fit for an error message."""
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "..."


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------- csl-game -> engine
def hello() -> str:
    """The first line: the protocol version csl-game speaks."""
    return f"csl {VERSION}"


def setup(config: MatchConfig, params: str) -> str:
    """The match settings and the thinker's parameters (on one line)."""
    numbers = (config.rows, config.cols, config.win_sequence, config.round_pieces,
               config.square_pieces, config.time_limit_ms)
    return " ".join(["setup", *map(str, numbers), _one_line(params)]).rstrip()


def position(moves: Iterable[tuple[int, PShape]]) -> str:
    """The moves played so far, from the empty board, as (column, shape) pairs."""
    return " ".join(["position", *(format_move(col, shape) for col, shape in moves)])


def go(milliseconds: int) -> str:
    """Think about the last position, with this much time left for the move."""
    return f"go {max(0, milliseconds)}"


# ------------------------------------------------------------- engine -> csl-game
@dataclass(frozen=True)
class EngineMessage:
    """Base of the lines an engine sends."""


@dataclass(frozen=True)
class Hello(EngineMessage):
    """``csl VERSION [NAME]``: the engine's answer to the handshake."""

    version: int
    name: str


@dataclass(frozen=True)
class Ready(EngineMessage):
    """``ready [NAME]``: set up for the match; the name may now say more (``MinimaxD4``)."""

    name: str


@dataclass(frozen=True)
class Info(EngineMessage):
    """``info TEXT``: thinking information, shown in the message log."""

    text: str


@dataclass(frozen=True)
class Answer(EngineMessage):
    """``move 3r`` or ``move none``: the engine's move (not judged yet)."""

    move: FutureMove


@dataclass(frozen=True)
class Failed(EngineMessage):
    """``error TEXT``: the engine cannot go on (bad parameters, an internal error)."""

    text: str


def parse_line(line: str) -> EngineMessage:
    """The message a line from an engine holds.

    Raises:
        EngineProtocolError: the line is not a message of the protocol.
    """
    word, _, rest = line.strip().partition(" ")
    rest = rest.strip()
    if word == "info":
        return Info(rest)
    if word == "move":
        return _answer(rest)
    if word == "error":
        return Failed(rest or "(no reason given)")
    if word == "ready":
        return Ready(rest)
    if word == "csl":
        version, _, name = rest.partition(" ")
        if version.isdigit():
            return Hello(int(version), name.strip())
    raise EngineProtocolError(
        f"sent '{shown(line.strip())}', which is not a line of the engine protocol "
        "(an engine writes only info, move, error, ready and csl lines on its standard "
        "output; debugging output goes to standard error)")


def _answer(token: str) -> Answer:
    if token == "none":
        return Answer(FutureMove.NO_MOVE)
    try:
        column, shape = parse_move(token)
    except NotationError:
        raise EngineProtocolError(
            f"answered 'move {shown(token)}': '{shown(token)}' is not a move (a column "
            "number, then r for round or s for square, e.g. 3r)") from None
    return Answer(FutureMove(column, shape))
