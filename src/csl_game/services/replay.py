"""Replays: a recorded match played again on the board, move by move.

A line of a results file, or the output of ``csl-game match --json``, holds
the settings, the players and every move with its thinking time. `Replay`
reads one, plays its moves on a board and checks that they give the recorded
rows, colours, result and winning run, so every position it shows is the one
the match went through. Both frontends step through a replay with it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from csl_game.engine import HUMAN_THINKER, ForfeitReason, Human, MatchResult, PlayedMove, note_torn
from csl_game.errors import ConfigError, CslError
from csl_game.model.board import Board, Move, PColor, Piece, Pos, PShape, Winner
from csl_game.model.notation import format_move

__all__ = ["load_replay", "Replay", "load_replays", "read_replay_lines", "numbered", "pick_replay"]

_SETTINGS = ("rows", "cols", "win_sequence", "round_pieces", "square_pieces")


@dataclass(frozen=True)
class Replay:
    """A finished match, checked against the board: settings, players, moves, result."""

    settings: tuple[int, int, int, int, int]
    """(rows, cols, win_sequence, round_pieces, square_pieces)."""
    time_limit_ms: int | None
    result: MatchResult
    """Winner, names, winning run, forfeit and every move with its time."""
    index: int | None = None
    """The match's index in its session (from 0); None for a single match."""
    humans: tuple[bool, bool] = (False, False)
    """Whether White, Red was a human player."""

    # ------------------------------------------------------------- reading
    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Replay:
        """The replay of a results line or of `match --json` output.

        Raises:
            ConfigError: a field is missing or malformed, or the moves do not
                give the recorded rows, colours, result or winning run (the
                message names the move).
        """
        try:
            replay = cls(_settings(doc), doc["settings"].get("time_limit_ms"),
                         _result(doc), _index(doc), (_human(doc["white"]), _human(doc["red"])))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ConfigError(f"{_which(doc)} is malformed: {_reason(e)}") from None
        replay.check()
        return replay

    @property
    def moves(self) -> tuple[PlayedMove, ...]:
        return self.result.moves

    @property
    def names(self) -> tuple[str, str]:
        """The players' names, White's first."""
        return self.result.white, self.result.red

    @property
    def players(self) -> str:
        """'Random (White) vs MinimaxD3 (Red)'."""
        return f"{self.result.white} (White) vs {self.result.red} (Red)"

    @property
    def title(self) -> str:
        """'Match 3: Random (White) vs MinimaxD3 (Red)', or without the number."""
        match = f"Match {self.index + 1}: " if self.index is not None else ""
        return match + self.players

    @property
    def notation(self) -> str:
        """The moves in the compact notation: '3r 3s 2r ...'."""
        return " ".join(self.token(i) for i in range(len(self.moves)))

    def token(self, i: int) -> str:
        """Move `i` (from 0) in the notation, e.g. '3r'."""
        move = self.moves[i].move
        return format_move(move.col, move.piece.shape)

    def new_board(self) -> Board:
        return Board(*self.settings)

    def boards(self) -> list[Board]:
        """The board before the first move, then after each move."""
        board = self.new_board()
        out = [board.copy()]
        for played in self.moves:
            board.do_move(played.move.piece.shape, played.move.col)
            out.append(board.copy())
        return out

    # ------------------------------------------------------------- checking
    def check(self) -> None:
        """Play the moves and compare them with the record.

        Raises:
            ConfigError: a move is illegal where it comes, lands elsewhere or
                in another colour than recorded, or the final position does not
                give the recorded result and winning run.
        """
        board = self.new_board()
        for i, played in enumerate(self.moves):
            self._check_move(board, i, played.move)
        self._check_end(board)

    def _check_move(self, board: Board, i: int, move: Move) -> None:
        where = f"{self._which()}, move {i + 1} '{self.token(i)}'"
        if move.piece.color is not board.turn:
            raise ConfigError(f"{where}: recorded for {move.piece.color}, "
                              f"but {board.turn} is to play")
        try:
            row = board.do_move(move.piece.shape, move.col)
        except CslError as e:
            raise ConfigError(f"{where} cannot be played: {e}") from None
        if row != move.row:
            text = "the column is full" if row < 0 else f"it lands in row {row}"
            raise ConfigError(f"{where}: recorded in row {move.row}, but {text}")

    def _check_end(self, board: Board) -> None:
        solution: list[Pos] = []
        winner = board.check_winner(solution)
        result = self.result
        if result.forfeit is not None:
            expected = board.turn.other.winner
            if winner is not Winner.NONE or result.winner is not expected:
                raise ConfigError(f"{self._which()}: {board.turn} to play forfeits, so "
                                  f"{expected} wins; the record says {result.winner} after "
                                  f"a board that gives {winner}")
            return
        if winner is not result.winner or tuple(solution) != result.solution:
            raise ConfigError(f"{self._which()}: the moves give {winner} "
                              f"{_run(solution)}, the record says {result.winner} "
                              f"{_run(result.solution)}")

    def _which(self) -> str:
        return f"match {self.index + 1}" if self.index is not None else "the match"


def _run(solution: Sequence[Pos]) -> str:
    return "with the run " + " ".join(str(p) for p in solution) if solution else "(no run)"


def _which(doc: dict[str, Any]) -> str:
    index = doc.get("match")
    return f"match {index + 1}" if isinstance(index, int) else "the match"


def _reason(e: BaseException) -> str:
    return f"no field {e}" if isinstance(e, KeyError) else str(e)


def _settings(doc: dict[str, Any]) -> tuple[int, int, int, int, int]:
    given = doc["settings"]
    rows, cols, n, round_pieces, square_pieces = (given[k] for k in _SETTINGS)
    Board(rows, cols, n, round_pieces, square_pieces)  # playable settings, or an error
    return rows, cols, n, round_pieces, square_pieces


def _index(doc: dict[str, Any]) -> int | None:
    index = doc.get("match")
    if index is not None and (type(index) is not int or index < 0):
        raise ValueError(f"match index {index!r} is not a whole number from 0 up")
    return index


def _name(side: object) -> str:
    """A player's name: results files hold a dict, `match --json` the name itself."""
    name = side.get("name") if isinstance(side, dict) else side
    if not isinstance(name, str):
        raise ValueError(f"player {side!r} has no name")
    return name


def _member(enum: Any, value: object, what: str) -> Any:
    """The member of `enum` named `value` in lower case, as results files write them."""
    if not isinstance(value, str) or value.upper() not in enum.__members__:
        raise ValueError(f"unknown {what} {value!r}")
    return enum[value.upper()]


def _human(side: object) -> bool:
    """Results files name a human's thinker 'human'; `match --json` names a human 'Human'."""
    if isinstance(side, dict):
        return side.get("thinker") == HUMAN_THINKER
    return side == Human().name


def _move(m: dict[str, Any]) -> PlayedMove:
    piece = Piece(_member(PColor, m["color"], "colour"), _member(PShape, m["shape"], "shape"))
    if type(m["row"]) is not int or type(m["col"]) is not int:
        raise ValueError(f"move {m} has no whole row and column")
    return PlayedMove(Move(m["row"], m["col"], piece), float(m["ms"]) / 1000)


def _result(doc: dict[str, Any]) -> MatchResult:
    forfeit = doc.get("forfeit")
    return MatchResult(
        _member(Winner, doc["winner"], "winner"), _name(doc["white"]), _name(doc["red"]),
        tuple(Pos(*p) for p in doc.get("solution") or ()),
        _member(ForfeitReason, forfeit, "forfeit reason") if forfeit else None,
        doc.get("detail") or "", tuple(_move(m) for m in doc["moves"]))


def read_replay_lines(path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a results file or `match --json` output, one a line.

    A last line that is not JSON and has no end of line is a torn write and
    is left out; one with its end of line was written whole, and is bad input.

    Raises:
        ConfigError: the file cannot be read, or another line is not a JSON object.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {p}: {getattr(e, 'strerror', None) or e}") from None
    lines = text.splitlines()
    torn = bool(lines) and bool(lines[-1].strip()) and not text.endswith(("\n", "\r"))
    docs: list[dict[str, Any]] = []
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    for position, (number, line) in enumerate(numbered, 1):
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as e:
            if torn and position == len(numbered):
                note_torn(p, len(line))
                break
            raise ConfigError(f"{p}, line {number}: not JSON ({e.msg})") from None
        if not isinstance(doc, dict):
            raise ConfigError(f"{p}, line {number}: not a match result")
        docs.append(doc)
    return docs


def load_replays(path: str | Path) -> list[Replay]:
    """Every match of a results file (or `match --json` output), checked.

    Raises:
        ConfigError: the file cannot be read, holds no match, or a match does
            not replay to its record.
    """
    replays = [Replay.from_json(doc) for doc in read_replay_lines(path)]
    if not replays:
        raise ConfigError(f"{path} holds no finished match")
    return replays


def load_replay(path: str | Path, number: int | None) -> Replay:
    """Match `number` of a results file (as reports count, from 1), or its only
    match, checked; the file's other matches are not (a bad one does not hide
    the one asked for, nor the answer that there is no such match).

    Raises:
        ConfigError: the file cannot be read or holds no match; no such
            match, or several and no number; the match does not replay to its
            record.
    """
    docs = read_replay_lines(path)
    if not docs:
        raise ConfigError(f"{path} holds no finished match")
    by_number: dict[int, dict[str, Any]] = {}
    for i, doc in enumerate(docs, 1):
        index = doc.get("match")
        by_number[index + 1 if type(index) is int and index >= 0 else i] = doc
    numbers = sorted(by_number)
    if number is None and len(numbers) > 1:
        raise ConfigError(f"the file holds {len(numbers)} matches: choose one with "
                          f"--match N ({_ranges(numbers)})")
    if number is not None and number not in by_number:
        raise ConfigError(f"there is no match {number} in the file ({_ranges(numbers)})")
    return Replay.from_json(by_number[numbers[0] if number is None else number])


def numbered(replays: Sequence[Replay]) -> dict[int, Replay]:
    """The replays by the number reports give their match (index + 1), or by
    their place in the file when they have no index; of a match recorded
    twice (a resumed session), the last."""
    return {(r.index + 1 if r.index is not None else i): r for i, r in enumerate(replays, 1)}


def pick_replay(replays: Sequence[Replay], number: int | None) -> Replay:
    """Match `number` (as reports count, from 1), or the only match.

    Raises:
        ConfigError: no such match, or several matches and no number.
    """
    by_number = numbered(replays)
    numbers = sorted(by_number)
    if number is None:
        if len(by_number) == 1:
            return by_number[numbers[0]]
        raise ConfigError(f"the file holds {len(by_number)} matches: choose one with "
                          f"--match N ({_ranges(numbers)})")
    if number not in by_number:
        raise ConfigError(f"there is no match {number} in the file ({_ranges(numbers)})")
    return by_number[number]


def _ranges(numbers: Sequence[int]) -> str:
    """'1 to 12' or '1, 3, 4'."""
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"{numbers[0]} to {numbers[-1]}"
    return ", ".join(map(str, numbers))
