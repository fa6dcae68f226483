"""A thinker league: every thinker against every other, both colours, fixed openings.

``python -m csl_game.engine.league --thinker negamax --thinker "minimax 3" --thinker mcts``
plays every pair ``--games`` times with each colour, each game starting from
one of a fixed list of openings (the first moves are forced, the same for both
colour assignments), and prints the standings (points, W/D/L, score, average
search depth or playouts reached, moves over the time limit) and a pairwise
score matrix. Thinkers report what they reached through ``on_thinking_info``
as ``key=value`` words (``depth=7 nodes=12345``, ``playouts=800``).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NoReturn, TextIO

from csl_game.model.board import Board, PColor, PShape, Winner
from csl_game.thinker.discovery import BUILTIN_PACKAGE, registry
from csl_game.errors import ConfigError, CslError
from csl_game.engine.match import Match, MatchEvent, MatchResult, ThinkingInfo
from csl_game.engine.runners.answer import MoveAnswer
from csl_game.engine.runners.base import (ForfeitReason, InfoCallback, ReadyJob, RunnerFactory,
                                          ThinkerRunner, ThinkJob, ThinkOutcome)
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["main", "build_parser", "Entry", "GameRecord", "Tally", "League",
           "make_openings", "parse_info"]

Opening = tuple[tuple[int, PShape], ...]
_INFO_WORD = re.compile(r"(\w+)=(-?\d+(?:\.\d+)?)")


def parse_info(text: str) -> dict[str, float]:
    """The ``key=number`` words of a thinking-info line."""
    return {k.lower(): float(v) for k, v in _INFO_WORD.findall(text)}


@dataclass(frozen=True)
class Entry:
    """A league player: a thinker with its parameters."""

    thinker: str
    params: str
    prototype: ThinkerPrototype = field(compare=False)
    name: str = ""


@dataclass
class SideStats:
    """What one side of one game did."""

    moves: int = 0
    """Moves the thinker chose (forced opening moves excluded)."""
    over_limit: int = 0
    """Moves that took longer than the time limit (time-out forfeits included)."""
    max_elapsed: float = 0.0
    depths: list[float] = field(default_factory=list)
    playouts: list[float] = field(default_factory=list)
    nps: list[float] = field(default_factory=list)


@dataclass
class GameRecord:
    """One game of the league."""

    white: int
    red: int
    opening: Opening
    result: MatchResult
    stats: tuple[SideStats, SideStats]

    def points_of(self, color: PColor) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss."""
        winner = self.result.winner
        if winner is Winner.DRAW:
            return 0.5
        return 1.0 if winner.color is color else 0.0


# ------------------------------------------------------------------ openings
def make_openings(config: MatchConfig, plies: int, seed: int) -> list[Opening]:
    """Every opening of `plies` moves that leaves the game open, shuffled by `seed`.

    Each forced move uses the mover's own shape (round for White, square for
    Red), so that no opening starts with a shape blunder.
    """
    board = config.new_board()
    found: list[Opening] = []

    def extend(prefix: Opening) -> None:
        if len(prefix) == plies:
            found.append(prefix)
            return
        shape = board.turn.shape
        if not board.piece_count(board.turn, shape):
            shape = shape.other
        for col in range(board.cols):
            if board.is_column_full(col) or not board.piece_count(board.turn, shape):
                continue
            board.do_move(shape, col)
            if board.check_winner() is Winner.NONE:
                extend(prefix + ((col, shape),))
            board.undo_move()

    extend(())
    random.Random(seed).shuffle(found)
    return found or [()]


class _OpeningRunner(ThinkerRunner):
    """Plays the opening's moves for its thinker, then lets the thinker think."""

    def __init__(self, inner: ThinkerRunner, opening: Opening) -> None:
        self._inner = inner
        self._opening = opening
        self.name = inner.name

    def start(self, board: Board) -> ThinkJob:
        n = board.move_count
        if n < len(self._opening):
            col, shape = self._opening[n]
            return ReadyJob(ThinkOutcome(MoveAnswer(col, shape), 0.0))
        return self._inner.start(board)

    def close(self) -> None:
        self._inner.close()


def default_runner_factory(in_process: bool) -> RunnerFactory:
    """A worker process per thinker when the process runner exists, else threads."""
    if in_process:
        return ThreadRunner
    try:
        from csl_game.engine.runners.process import ProcessRunner
    except ImportError:
        return ThreadRunner
    return ProcessRunner


# ------------------------------------------------------------------ playing
class League:
    """Plays the games of a league and keeps their records."""

    def __init__(self, entries: Sequence[Entry], config: MatchConfig, games: int,
                 openings: Sequence[Opening], factory: RunnerFactory) -> None:
        self.entries = list(entries)
        self.config = config
        self.games = games
        self.openings = list(openings)
        self.factory = factory
        self.records: list[GameRecord] = []

    def schedule(self) -> list[tuple[int, int, Opening]]:
        """(white, red, opening) of every game: each pair, both colours, `games` openings."""
        out = []
        n = len(self.entries)
        for g in range(self.games):
            opening = self.openings[g % len(self.openings)]
            for a in range(n):
                for b in range(a + 1, n):
                    out += [(a, b, opening), (b, a, opening)]
        return out

    def play(self, progress: Callable[[int, int, GameRecord], None] | None = None) -> None:
        """Play every scheduled game in turn."""
        games = self.schedule()
        for i, (white, red, opening) in enumerate(games):
            record = self.play_game(white, red, opening)
            self.records.append(record)
            if progress is not None:
                progress(i + 1, len(games), record)

    def play_game(self, white: int, red: int, opening: Opening) -> GameRecord:
        """One game, its first moves forced by the opening."""
        def factory(proto: ThinkerPrototype, info: InfoCallback) -> ThinkerRunner:
            return _OpeningRunner(self.factory(proto, info), opening)

        stats = (SideStats(), SideStats())
        match = Match(self.config, self.entries[white].prototype,
                      self.entries[red].prototype, factory)
        match.subscribe(lambda e: _collect_info(e, stats))
        try:
            result = match.run()
        finally:
            match.close()
        _collect_moves(result, len(opening), self.config.time_limit_ms / 1000, stats)
        return GameRecord(white, red, opening, result, stats)


def _collect_info(event: MatchEvent, stats: tuple[SideStats, SideStats]) -> None:
    if not isinstance(event, ThinkingInfo):
        return
    side = stats[event.color]
    words = parse_info(event.text)
    for key, target in (("depth", side.depths), ("playouts", side.playouts),
                        ("nps", side.nps)):
        if key in words:
            target.append(words[key])


def _collect_moves(result: MatchResult, forced: int, limit: float,
                   stats: tuple[SideStats, SideStats]) -> None:
    for i, played in enumerate(result.moves):
        if i < forced:
            continue
        side = stats[i % 2]
        side.moves += 1
        side.max_elapsed = max(side.max_elapsed, played.elapsed)
        if played.elapsed > limit:
            side.over_limit += 1
    if result.forfeit is ForfeitReason.TIMEOUT:
        loser = stats[len(result.moves) % 2]
        loser.moves += 1
        loser.over_limit += 1


# ------------------------------------------------------------------ tables
@dataclass
class Tally:
    """One player's line of the standings."""

    name: str
    points: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    moves: int = 0
    over_limit: int = 0
    max_elapsed: float = 0.0
    depths: list[float] = field(default_factory=list)
    playouts: list[float] = field(default_factory=list)
    nps: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Share of the available points won: (W + D/2) / games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    def add(self, record: GameRecord, color: PColor, points: tuple[int, int, int]) -> None:
        got = record.points_of(color)
        if got == 1.0:
            self.wins += 1
            self.points += points[0]
        elif got == 0.5:
            self.draws += 1
            self.points += points[1]
        else:
            self.losses += 1
            self.points += points[2]
        side = record.stats[color]
        self.moves += side.moves
        self.over_limit += side.over_limit
        self.max_elapsed = max(self.max_elapsed, side.max_elapsed)
        self.depths += side.depths
        self.playouts += side.playouts
        self.nps += side.nps


def tally(league: League, points: tuple[int, int, int] = (3, 1, 0)
          ) -> tuple[list[Tally], list[list[float | None]]]:
    """Standings (best first) and the pairwise score matrix (row's score against column)."""
    n = len(league.entries)
    tallies = [Tally(e.name) for e in league.entries]
    won = [[0.0] * n for _ in range(n)]
    played = [[0] * n for _ in range(n)]
    for rec in league.records:
        for color, me, other in ((PColor.WHITE, rec.white, rec.red),
                                 (PColor.RED, rec.red, rec.white)):
            tallies[me].add(rec, color, points)
            won[me][other] += rec.points_of(color)
            played[me][other] += 1
    matrix = [[won[a][b] / played[a][b] if played[a][b] else None for b in range(n)]
              for a in range(n)]
    order = sorted(range(n), key=lambda i: (-tallies[i].points, -tallies[i].score))
    return [tallies[i] for i in order], [[matrix[a][b] for b in order] for a in order]


def _mean(values: list[float], digits: int) -> str:
    return f"{sum(values) / len(values):.{digits}f}" if values else "-"


def standings_rows(tallies: list[Tally]) -> list[list[str]]:
    """Header and rows of the standings table."""
    rows = [["#", "Thinker", "Pts", "W", "D", "L", "Score", "Avg depth", "Avg playouts",
             "Avg nps", "Moves", "Over limit", "Max ms"]]
    for i, t in enumerate(tallies):
        rows.append([str(i + 1), t.name, str(t.points), str(t.wins), str(t.draws),
                     str(t.losses), f"{100 * t.score:.1f}%", _mean(t.depths, 2),
                     _mean(t.playouts, 0), _mean(t.nps, 0), str(t.moves),
                     str(t.over_limit), f"{1000 * t.max_elapsed:.0f}"])
    return rows


def matrix_rows(tallies: list[Tally], matrix: list[list[float | None]]) -> list[list[str]]:
    """Header and rows of the pairwise matrix: the row player's score against each column."""
    rows = [["vs", *(t.name for t in tallies)]]
    for t, line in zip(tallies, matrix):
        rows.append([t.name, *("-" if v is None else f"{100 * v:.0f}%" for v in line)])
    return rows


def render(rows: list[list[str]], markdown: bool, name_col: int = 1) -> str:
    """A table as aligned text or as Markdown; the names column is left-aligned."""
    if markdown:
        head, *body = rows
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join("---" if i == name_col else "---:"
                                for i in range(len(head))) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) if i == name_col else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(r, widths))).rstrip()
                     for r in rows)


# ------------------------------------------------------------------ command line
class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ConfigError(message)


def build_parser() -> argparse.ArgumentParser:
    """The league's argument parser."""
    p = _Parser(prog="csl-game league",
                description="Play every thinker against every other, both colours, "
                            "from fixed openings, and print the standings.")
    p.add_argument("--thinker", action="append", default=[], metavar='"THINKER [PARAMS]"',
                   help="a player (repeatable; default: every built-in thinker)")
    p.add_argument("--time-limit", "-t", type=int, default=200, metavar="MS",
                   help="time limit per move in ms (default 200)")
    p.add_argument("-r", "--rows", type=int, default=6)
    p.add_argument("-c", "--cols", type=int, default=7)
    p.add_argument("-w", "--win-sequence", type=int, default=4)
    p.add_argument("-o", "--round-pieces", type=int, default=None,
                   help="round pieces per player (default rows x cols / 4, rounded down)")
    p.add_argument("-s", "--square-pieces", type=int, default=None,
                   help="square pieces per player (default rows x cols / 4, rounded up)")
    p.add_argument("--games", "-g", type=int, default=2, metavar="N",
                   help="games per pair and colour, each from another opening (default 2)")
    p.add_argument("--opening-plies", type=int, default=2, choices=(0, 1, 2),
                   help="forced opening moves per game (default 2)")
    p.add_argument("--seed", type=int, default=1, help="shuffles the openings (default 1)")
    p.add_argument("--points", type=int, nargs=3, default=(3, 1, 0),
                   metavar=("WIN", "DRAW", "LOSS"), help="points per result (default 3 1 0)")
    p.add_argument("--thinkers", action="append", default=[], metavar="PATH",
                   help="also look for thinkers in this .py file or folder")
    p.add_argument("--in-process", action="store_true",
                   help="run thinkers on threads of this process, not worker processes")
    p.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    p.add_argument("--quiet", "-q", action="store_true", help="no line per game")
    return p


def _config(args: argparse.Namespace) -> MatchConfig:
    cells = args.rows * args.cols
    rounds = cells // 4 if args.round_pieces is None else args.round_pieces
    squares = -(-cells // 4) if args.square_pieces is None else args.square_pieces
    return MatchConfig(rows=args.rows, cols=args.cols, win_sequence=args.win_sequence,
                       round_pieces=rounds, square_pieces=squares,
                       time_limit_ms=args.time_limit)


def _entries(specs: Sequence[str], config: MatchConfig, paths: tuple[str, ...]) -> list[Entry]:
    if not specs:
        reg = registry(paths)
        specs = sorted(reg.short_name(f) for f in reg.classes if f.startswith(BUILTIN_PACKAGE + "."))
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for spec in specs:
        thinker, _, params = spec.strip().partition(" ")
        proto = ThinkerPrototype(thinker, params.strip(), config, paths)
        name = proto.display_name
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}#{seen[name]}"
        entries.append(Entry(thinker, params.strip(), proto, name))
    if len(entries) < 2:
        raise ConfigError("a league needs at least two thinkers")
    return entries


def _progress(out: TextIO, league: League) -> Callable[[int, int, GameRecord], None]:
    def report(i: int, total: int, rec: GameRecord) -> None:
        res = rec.result
        white, red = league.entries[rec.white].name, league.entries[rec.red].name
        how = f" ({res.forfeit})" if res.forfeit else ""
        opening = " ".join(f"{c}{'os'[int(s)]}" for c, s in rec.opening)
        print(f"[{i}/{total}] {white} vs {red} [{opening}]: {res.winner}{how} "
              f"in {len(res.moves)} moves", file=out, flush=True)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Run a league from the command line; 0 when done, 2 for bad usage, 1 otherwise."""
    try:
        args = build_parser().parse_args(argv)
        if args.games < 1:
            raise ConfigError(f"--games must be at least 1, got {args.games}")
        config = _config(args)
        paths = tuple(args.thinkers)
        entries = _entries(args.thinker, config, paths)
        openings = make_openings(config, args.opening_plies, args.seed)
        league = League(entries, config, args.games, openings,
                        default_runner_factory(args.in_process))
        started = time.perf_counter()
        league.play(None if args.quiet else _progress(sys.stderr, league))
    except CslError as e:
        print(f"league: error: {e}", file=sys.stderr)
        return 2
    tallies, matrix = tally(league, tuple(args.points))
    print(f"League: {config.rows}x{config.cols}, {config.win_sequence} in a row, "
          f"{config.round_pieces}+{config.square_pieces} pieces, "
          f"{config.time_limit_ms} ms per move, {len(league.records)} games "
          f"({time.perf_counter() - started:.0f} s)\n")
    print(render(standings_rows(tallies), args.markdown) + "\n")
    print(render(matrix_rows(tallies, matrix), args.markdown, name_col=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
