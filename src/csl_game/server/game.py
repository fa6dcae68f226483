"""One game on the server, without I/O: its board, its clock and how it ends.

`ServerGame` is fed moves (`play`), forfeits and the clock (`expired`); each
move is judged by the engine's judge (`csl_game.engine.judge`) on the
server's own board, as a thinker's answer is, so a remote player can do no
more than a local thinker could. A timed player (a bot, an AI) has the time
limit plus a grace for the network on the server's wall clock, from the
moment its turn was sent; people only by the game's clocks, if it has them
(csl_game.server.clock: a flag loses, or draws when the other could no
longer win).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from csl_game.engine import (
    Forfeit,
    ForfeitReason,
    MatchResult,
    MoveAnswer,
    PlayedMove,
    ThinkOutcome,
    judge,
)
from csl_game.model.board import Board, PColor, Pos, PShape, Winner
from csl_game.server.clock import TimeControl, clock_doc, clock_left, could_still_win
from csl_game.thinker.api import MatchConfig

__all__ = ["ServerGame", "Rejected", "SHAPES", "COLORS", "public_detail"]

SHAPES = {s.name.lower(): s for s in PShape}
COLORS = {c.name.lower(): c for c in PColor}
_WINS = {PColor.WHITE: Winner.WHITE, PColor.RED: Winner.RED}


_PATH = re.compile(r"""(?<![^\s'"(=])(?:[A-Za-z]:)?(?:[\\/][^\s\\/'"<>:]+)+[\\/]?""")
"""A file path (POSIX or Windows) in a message."""


def public_detail(detail: str, longest: int = 200) -> str:
    """What a player says of its own failure, as the server publishes it: the
    last line of a traceback (the exception itself), each file path cut to its
    file's name, at most `longest` characters; the rest stays on its machine."""
    lines = [line.strip() for line in detail.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    last = _PATH.sub(lambda m: m.group(0).rstrip("\\/").replace("\\", "/").rsplit("/", 1)[-1],
                     last)
    return last[:longest]


class Rejected(ValueError):
    """A move that is not this player's to make now (not its turn, a stale ply,
    the game over): it is refused without costing the game."""


@dataclass
class ServerGame:
    """A game's state on the server."""

    id: str
    config: MatchConfig
    names: list[str]
    """White's and Red's names ('' for a seat nobody took yet)."""
    timed: tuple[bool, bool]
    """Whether White and Red are held to the time limit (bots and AIs)."""
    grace_s: float = 1.0
    """Seconds past the time limit a timed player's move may arrive (the network)."""
    board: Board = field(init=False)
    moves: list[tuple[int, PShape, float]] = field(default_factory=list)
    turn_started: float | None = None
    """When the player to move was told (None: the clock is stopped)."""
    result: MatchResult | None = None
    control: TimeControl | None = None
    """People's clocks (csl_game.server.clock), or None: no clock."""

    def __post_init__(self) -> None:
        self.board = self.config.new_board()
        for col, shape, _ in self.moves:
            self.board.do_move(shape, col)

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def to_move(self) -> PColor:
        return self.board.turn

    def start_clock(self, now: float) -> None:
        """The player to move was told it is its turn."""
        self.turn_started = now

    def limit_s(self) -> float:
        return (self.config.time_limit_ms + self.config.time_margin_ms) / 1000 + self.grace_s

    def play(self, color: PColor, ply: int, col: int, shape: PShape, now: float) -> bool:
        """Play `color`'s move; True when it ended the game (won, drawn, or
        forfeited because the judge refused it or it came too late).

        Raises:
            Rejected: the game is over, or it is not `color`'s move `ply`.
        """
        if self.result is not None:
            raise Rejected("the game is over")
        if color is not self.board.turn or ply != self.ply:
            raise Rejected(f"it is not {color.name.lower()}'s move {ply} (the game is at "
                           f"move {self.ply}, {self.board.turn.name.lower()} to play)")
        if self.flagged(now):
            return True
        elapsed = 0.0 if self.turn_started is None else max(0.0, now - self.turn_started)
        if self.timed[color] and elapsed > self.limit_s():
            self.forfeit(color, ForfeitReason.TIMEOUT,
                         f"its move came after {elapsed * 1000:.0f} ms "
                         f"(limit {self.config.time_limit_ms} ms)")
            return True
        judged = judge(ThinkOutcome(MoveAnswer(col, int(shape)), elapsed), self.board)
        if isinstance(judged, Forfeit):
            self.forfeit(color, judged.reason, judged.detail)
            return True
        self.board.do_move(judged.shape, judged.column)
        self.moves.append((judged.column, judged.shape, elapsed))
        self.turn_started = now
        solution: list[Pos] = []
        winner = self.board.check_winner(solution)
        if winner is not Winner.NONE:
            self.result = self._result(winner, tuple(solution))
            return True
        return False

    def expired(self, now: float) -> bool:
        """Whether the timed player to move ran out of time (then it forfeits)."""
        color = self.board.turn
        if self.result is not None or self.turn_started is None or not self.timed[color]:
            return False
        if now - self.turn_started <= self.limit_s():
            return False
        self.forfeit(color, ForfeitReason.TIMEOUT,
                     f"no move within {self.config.time_limit_ms} ms")
        return True

    def left(self, now: float) -> tuple[float, float]:
        """White's and Red's seconds left on a game with clocks."""
        assert self.control is not None
        return clock_left(self.control, [s for _, _, s in self.moves], self.turn_started, now)

    def clock_doc(self, now: float) -> dict[str, Any]:
        """The clocks as the protocol sends them: {"clock": {"white": MS, "red": MS}},
        or {} for a game without."""
        return {} if self.control is None else {"clock": clock_doc(self.left(now))}

    def flag_at(self) -> float | None:
        """When the side to move runs out of time (None: no clock running)."""
        if self.control is None or self.turn_started is None or self.result is not None:
            return None
        return self.turn_started + self.left(self.turn_started)[self.to_move]

    def flagged(self, now: float) -> bool:
        """Whether the side to move ran out of time (then the game ended): it
        loses, or draws when its opponent could no longer win."""
        flag = self.flag_at()
        if flag is None or now < flag:
            return False
        color = self.to_move
        if could_still_win(self.board, color.other):
            self.forfeit(color, ForfeitReason.TIMEOUT, "its clock ran out")
        else:
            self.result = self._result(Winner.DRAW, (), ForfeitReason.TIMEOUT,
                                       f"{color.name.title()}'s clock ran out, and "
                                       f"{color.other.name.title()} could no longer win")
        return True

    def take_back(self, plies: int, now: float) -> None:
        """The last `plies` moves are taken back (both players agreed)."""
        for _ in range(plies):
            self.moves.pop()
            self.board.undo_move()
        self.turn_started = now

    def agree_draw(self) -> None:
        if self.result is None:
            self.result = self._result(Winner.DRAW, (), None, "the players agreed a draw")

    def forfeit(self, color: PColor, reason: ForfeitReason | None, detail: str = "",
                resigned: bool = False) -> None:
        """`color` loses off the board (a forfeit, or resigning with no reason)."""
        if self.result is None:
            self.result = self._result(_WINS[color.other], (), reason, detail, resigned)

    def _result(self, winner: Winner, solution: tuple[Pos, ...],
                reason: ForfeitReason | None = None, detail: str = "",
                resigned: bool = False) -> MatchResult:
        played = tuple(PlayedMove(move, elapsed) for move, (_, _, elapsed)
                       in zip(self.board.history, self.moves, strict=True))
        return MatchResult(winner, self.names[0], self.names[1], solution, reason, detail,
                           played, resigned)

    def moves_json(self) -> list[dict[str, Any]]:
        return [{"col": c, "shape": s.name.lower(), "ms": round(e * 1000, 3)}
                for c, s, e in self.moves]

    @staticmethod
    def moves_from_json(doc: list[dict[str, Any]]) -> list[tuple[int, PShape, float]]:
        return [(int(m["col"]), SHAPES[m["shape"]], float(m["ms"]) / 1000) for m in doc]
