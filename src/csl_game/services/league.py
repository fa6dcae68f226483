"""A thinker league: every thinker against every other, both colours, fixed openings.

A league is a session (csl_game.engine.session) whose fixtures are a complete
round robin per opening: each game starts from one of a fixed list of
openings (the first moves are forced, the same for both colour assignments).
Besides the points, it keeps what each thinker reached, which thinkers report
through ``on_thinking_info`` as ``key=value`` words (``depth=7 nodes=12345``,
``playouts=800``), the moves over the time limit, and the forfeits by reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from csl_game.engine import (
    Adjudicator,
    Fixture,
    ForfeitReason,
    MatchRecord,
    MatchResult,
    Opening,
    Points,
    PostMatch,
    ResultsWriter,
    RunOptions,
    Session,
    SessionEvent,
    SessionOptions,
    parse_figures,
    plus_minus,
    rate_records,
    round_robin,
    standings,
)
from csl_game.errors import ConfigError
from csl_game.model.board import PColor, Winner
from csl_game.model.notation import format_moves
from csl_game.services.forfeits import Forfeits
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Entry", "SideStats", "GameRecord", "League", "Tally", "tally", "make_openings",
           "parse_info", "Opening"]

parse_info = parse_figures
"""The ``key=number`` words of a thinking-info line (csl_game.engine.figures)."""


@dataclass(frozen=True)
class Entry:
    """A league player: a thinker with its parameters."""

    thinker: str
    params: str
    prototype: ThinkerPrototype = field(compare=False)


@dataclass
class SideStats:
    """What one side of one game did."""

    moves: int = 0
    """Moves the thinker chose (forced opening moves excluded)."""
    over_limit: int = 0
    """Moves that took longer than the time limit (time-out forfeits included)."""
    max_elapsed: float = 0.0
    max_wall: float | None = None
    """The slowest move on the wall clock (None where no move's wall time is known)."""
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


def side_stats(result: MatchResult, forced: int, limit: float) -> tuple[SideStats, SideStats]:
    """Each side's moves, time and search figures in one game: the figures each
    chosen move's thinker reported last (`PlayedMove.figures`, as results files
    keep them), so a game read back from a file counts as it did when played."""
    stats = (SideStats(), SideStats())
    for i, played in enumerate(result.moves):
        if i < forced:
            continue
        side = stats[i % 2]
        side.moves += 1
        words = dict(played.figures)
        for key, target in (("depth", side.depths), ("playouts", side.playouts),
                            ("nps", side.nps)):
            if key in words:
                target.append(words[key])
        side.max_elapsed = max(side.max_elapsed, played.elapsed)
        if played.wall is not None:
            side.max_wall = max(side.max_wall or 0.0, played.wall)
        if played.elapsed > limit:
            side.over_limit += 1
    if result.forfeit is ForfeitReason.TIMEOUT:
        loser = stats[len(result.moves) % 2]
        loser.moves += 1
        loser.over_limit += 1
    return stats


class League:
    """Plays the games of a league on the session engine and keeps their records."""

    def __init__(self, entries: Sequence[Entry], config: MatchConfig, games: int,
                 openings: Sequence[Opening], *, in_process: bool = False,
                 workers: int = 1, results: ResultsWriter | None = None,
                 adjudicator: Adjudicator | None = None) -> None:
        """`results`: where each game's record goes as it ends (what `report`
        and `report --ratings` read); `adjudicator`: `SessionOptions.adjudicator`."""
        if len(entries) < 2:
            raise ConfigError("a league needs at least two thinkers")
        if games < 1:
            raise ConfigError(f"a league needs at least one game per pair, got {games}")
        self.entries = list(entries)
        self.config = config
        self.games = games
        self.openings = list(openings)
        self.in_process = in_process
        self.workers = workers
        self.records: list[GameRecord] = []
        self.session = Session([e.prototype for e in self.entries], config,
                               SessionOptions(fixtures=self.fixtures(), adjudicator=adjudicator,
                                              run=RunOptions.of(in_process, workers=workers,
                                                                foreground=False)),
                               results=results)

    @property
    def names(self) -> tuple[str, ...]:
        """The players' display names, numbered where several share one."""
        return self.session.names

    def forfeits(self) -> Forfeits:
        """The forfeits of the games played so far, by reason."""
        return Forfeits.of(record.result for record in self.records)

    def fixtures(self) -> list[Fixture]:
        """Every game: a complete round robin (each pair, both colours) per opening."""
        pairs = round_robin(len(self.entries))
        return [Fixture(w, r, self.openings[g % len(self.openings)])
                for g in range(self.games) for w, r in pairs]

    def play(self, progress: Callable[[int, int, GameRecord], None] | None = None) -> None:
        """Play every game, `workers` at once; `progress` hears of each as it ends,
        with its number (from 1, in the league's order, as results files give it)."""
        total = self.session.total_matches
        limit = self.config.time_limit_ms / 1000

        def on_event(event: SessionEvent) -> None:
            if not isinstance(event, PostMatch):
                return
            rec, opening = event.record, self.session.fixtures[event.index].opening
            stats = side_stats(rec.result, len(opening), limit)
            record = GameRecord(rec.white, rec.red, opening, rec.result, stats)
            self.records.append(record)
            if progress is not None:
                progress(event.index + 1, total, record)

        self.session.subscribe(on_event)
        self.session.run()

    def resume(self, docs: Sequence[dict[str, Any]], source: str) -> int:
        """Take the games of an earlier run of this league (a results file's
        lines) as played, before `play`; how many.

        Raises:
            ConfigError: they were played by another league: other players or
                settings (`Session.resume`), or another opening in a game's
                place (another --seed, --openings-plies or --openings).
        """
        self.session.wait_for_names()
        self.session.resume(docs, source)
        for index, rec in zip(self.session.record_indices, self.session.records):
            opening = self.session.fixtures[index].opening
            played = tuple((m.move.col, m.move.piece.shape)
                           for m in rec.result.moves[:len(opening)])
            if played != opening[:len(played)]:  # a game forfeited early has fewer moves
                raise ConfigError(f"results file {source} was made by another league (game "
                                  f"{index + 1} opened {format_moves(played)} there, "
                                  f"{format_moves(opening)} here: another --seed, "
                                  "--openings-plies or --openings)")
            stats = side_stats(rec.result, len(opening), self.config.time_limit_ms / 1000)
            self.records.append(GameRecord(rec.white, rec.red, opening, rec.result, stats))
        return len(self.records)


@dataclass
class Tally(SideStats):
    """One player's line of the league's standings: its results and, summed
    over its games, what it did (the fields of SideStats)."""

    name: str = ""
    elo: str = "-"
    """Maximum-likelihood Elo ± half its 95 % interval, over the league's games."""
    points: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Share of the available points won: (W + D/2) / games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    def add_stats(self, side: SideStats) -> None:
        """Add one game's figures of this player."""
        self.moves += side.moves
        self.over_limit += side.over_limit
        self.max_elapsed = max(self.max_elapsed, side.max_elapsed)
        if side.max_wall is not None:
            self.max_wall = max(self.max_wall or 0.0, side.max_wall)
        self.depths += side.depths
        self.playouts += side.playouts
        self.nps += side.nps


def tally(league: League, points: Points = Points()
          ) -> tuple[list[Tally], list[list[float | None]]]:
    """Standings (best first) and the pairwise score matrix (row's score against column).

    Points, wins, draws and losses are the session engine's standings.
    """
    n = len(league.entries)
    table = standings(league.names, [MatchRecord(r.white, r.red, r.result)
                                     for r in league.records], points)
    tallies = [Tally(name=league.names[i]) for i in range(n)]
    for s in table:
        t = tallies[s.player]
        t.points, t.wins, t.draws, t.losses = s.points, s.wins, s.draws, s.losses
    records = [MatchRecord(r.white, r.red, r.result) for r in league.records]
    for rating in rate_records([str(i) for i in range(n)], records):
        tallies[int(rating.name)].elo = plus_minus(rating)
    won = [[0.0] * n for _ in range(n)]
    played = [[0] * n for _ in range(n)]
    for rec in league.records:
        for color, me, other in ((PColor.WHITE, rec.white, rec.red),
                                 (PColor.RED, rec.red, rec.white)):
            tallies[me].add_stats(rec.stats[color])
            won[me][other] += rec.points_of(color)
            played[me][other] += 1
    matrix = [[won[a][b] / played[a][b] if played[a][b] else None for b in range(n)]
              for a in range(n)]
    order = sorted(range(n), key=lambda i: (-tallies[i].points, -tallies[i].score))
    return [tallies[i] for i in order], [[matrix[a][b] for b in order] for a in order]
