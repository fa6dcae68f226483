"""Testing a change to a thinker: game pairs until the SPRT decides.

NEW plays BASE in pairs of games, each opening once with each colour; each
finished pair adds to the pentanomial counts, each game to the trinomial
ones, and the generalized SPRT (csl_game.engine.stats) decides H1 (NEW is at
least elo1 stronger), H0 (at most elo0), or nothing before `max_games`.

The games are the engine's session of two players with one fixture per game
(pair p: fixtures 2p and 2p+1, NEW White then Red, from opening p mod the
book's length), played off screen `workers` at once (or on Dask). Results
go to a results file as each game ends; a resumed test takes the games
already there and goes on with the same statistics. The test stops when a
bound is crossed; games still being played then are dropped. Its state also
counts the games forfeited, by reason, over the same games as the results
file (resumed ones too), and those lost on time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from csl_game.engine import (
    MEMORY_LIMIT_MB,
    SETUP_TIME_LIMIT,
    SPRT,
    Adjudicator,
    EloEstimate,
    Fixture,
    Opening,
    Pentanomial,
    PostMatch,
    ResultsWriter,
    RunOptions,
    Session,
    SessionEvent,
    SessionOptions,
    SessionState,
    SetupReport,
    Status,
    Trinomial,
    interval_text,
    logistic_elo,
    normalized_elo,
)
from csl_game.errors import ConfigError
from csl_game.model.board import PColor
from csl_game.services.forfeits import Forfeits
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["SprtState", "SprtRun", "fixtures_for", "opening_state", "test_json"]


def fixtures_for(book: Sequence[Opening], max_games: int, swap: bool = True) -> list[Fixture]:
    """Pairs of games, each opening of `book` in turn with both colours (NEW is
    player 0), or NEW White in both without `swap` (-noswap): at most
    `max_games` games, rounded down to whole pairs."""
    if max_games < 2:
        raise ConfigError(f"--max-games must be at least 2 (one pair), got {max_games}")
    fixtures = []
    for pair in range(max_games // 2):
        opening = book[pair % len(book)] if book else ()
        fixtures += [Fixture(0, 1, opening), Fixture(1, 0, opening) if swap
                     else Fixture(0, 1, opening)]
    return fixtures


@dataclass(frozen=True)
class SprtState:
    """Where a test stands: its counts, estimate, LLR and verdict so far."""

    sprt: SPRT
    trinomial: Trinomial
    pentanomial: Pentanomial
    llr: float
    status: Status
    estimate: EloEstimate
    forfeits: Forfeits = field(default_factory=Forfeits)
    """The games forfeited, by reason (those of the results file, resumed ones too)."""
    tc: str | None = None
    """The game clock, BASE+INC in seconds (`MatchConfig.tc`; None: a limit per move)."""
    adjudicate: bool = False
    """Whether games ended once the analysis proved their result (--adjudicate)."""

    @property
    def result(self) -> str:
        """'H1', 'H0', or 'inconclusive' (so far, or at the end)."""
        return "inconclusive" if self.status == "continue" else self.status

    @property
    def unpaired(self) -> int:
        """Games counted in games/W/D/L whose pair is not complete (so not in
        the pentanomial, the Elo or the LLR): a run stopped between a pair's games."""
        return self.trinomial.games - 2 * self.pentanomial.pairs

    def to_json(self) -> dict[str, Any]:
        """The state as one JSON object. Before the first complete pair there is
        no estimate (the progress line says 'Elo -'): elo, elo_ci95 and los
        are null. `one_point_pair_ratio` is the share of pairs in which NEW
        scored exactly one point (DD, WL or LW; null before a pair), which the
        older key `draw_ratio` also gives once there are pairs (before, it is
        the share of drawn games)."""
        t, s, e, p = self.trinomial, self.sprt, self.estimate, self.pentanomial
        paired = p.pairs > 0
        return {"result": self.result, "llr": round(self.llr, 4), "lower": round(s.lower, 4),
                "upper": round(s.upper, 4), "games": t.games, "wins": t.wins,
                "draws": t.draws, "losses": t.losses, "pairs": p.pairs,
                "pentanomial": list(p.counts), "elo": round(e.elo, 2) if paired else None,
                "elo_ci95": [round(e.ci95[0], 2), round(e.ci95[1], 2)] if paired else None,
                "los": round(e.los, 4) if paired else None,
                "draw_ratio": round(e.draw_ratio, 4),
                "one_point_pair_ratio": round(p.counts[2] / p.pairs, 4) if paired else None,
                "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
                "model": s.model, "tc": self.tc, "adjudicate": self.adjudicate,
                "forfeits": self.forfeits.to_json(), "unpaired": self.unpaired}

    def line(self) -> str:
        """One line of progress: games, W/D/L, pentanomial, Elo with its 95 %
        interval (± half of it, or its two ends where it is lopsided:
        `interval_text`), LLR and bounds; the games lost on time, when some were."""
        t, p, e = self.trinomial, self.pentanomial, self.estimate
        on_time = self.forfeits.on_time
        elo = (f"Elo {interval_text(e.elo, e.ci95, 1)} ({self.sprt.model})  "
               f"LOS {100 * e.los:.1f} %" if p.pairs else f"Elo - ({self.sprt.model})")
        return (f"Games {t.games}: W {t.wins} D {t.draws} L {t.losses}  "
                f"Ptnml {list(p.counts)}  {elo}  LLR {self.llr:+.2f} "
                f"[{self.sprt.lower:+.2f}, {self.sprt.upper:+.2f}]"
                + (f"  ({self.unpaired} game of an unfinished pair: not in the LLR)"
                   if self.unpaired else "")
                + (f"  {on_time} lost on time" if on_time else ""))


def test_json(sprt: SPRT, adjudicate: bool = False, swap: bool = True,
              rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """The test's hypotheses, error rates, adjudication (proven games ended
    early or played out: not to be mixed in one test) and whether a pair's
    colours are swapped (--no-swap), as each results line records them."""
    return {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
            "model": sprt.model, "adjudicate": adjudicate, "swap": swap,
            "draw": (rules or {}).get("draw"), "resign": (rules or {}).get("resign")}


_UNRECORDED = {"adjudicate": False, "swap": True, "draw": None, "resign": None}
"""What a results line made before the key was recorded stands for."""


def _test_text(key: str, value: Any) -> str:
    if key == "adjudicate":
        return "--adjudicate" if value else "no --adjudicate"
    if key == "swap":
        return "colours swapped" if value else "--no-swap"
    if key in ("draw", "resign"):
        return f"--{key} {value}" if value else f"no --{key}"
    return f"{key} {value}"


def opening_state(sprt: SPRT, config: MatchConfig, adjudicate: bool = False) -> SprtState:
    """The state of a test before its first game (what an interruption while it
    is set up reports)."""
    return _state(sprt, {}, Forfeits(), config, adjudicate)


def _state(sprt: SPRT, points: dict[int, float], forfeits: Forfeits, config: MatchConfig,
           adjudicate: bool) -> SprtState:
    """The counts, estimate and verdict of NEW's `points` by game (fixture index)."""
    tri, penta = Trinomial(), Pentanomial()
    for index in sorted(points):
        tri = tri.add(points[index])
        if index % 2 == 1 and index - 1 in points:
            penta = penta.add(points[index - 1] + points[index])
    counts = penta if penta.pairs else tri
    llr = sprt.llr(counts)
    estimate = (logistic_elo if sprt.model == "logistic" else normalized_elo)(counts)
    return SprtState(sprt, tri, penta, llr, sprt.status(llr, penta.games), estimate, forfeits,
                     config.tc or None, adjudicate)


class SprtRun:
    """One test of NEW against BASE (`pool`: warm workers, `SessionOptions.pool`;
    `adjudicator`: `SessionOptions.adjudicator`)."""

    def __init__(self, new: ThinkerPrototype, base: ThinkerPrototype, config: MatchConfig,
                 sprt: SPRT, book: Sequence[Opening], max_games: int, *, workers: int = 1,
                 in_process: bool = False, executor: Executor | None = None,
                 results: ResultsWriter | None = None,
                 setup_limit: float = SETUP_TIME_LIMIT, memory_limit_mb: int = MEMORY_LIMIT_MB,
                 known_setups: Sequence[SetupReport | None] | None = None,
                 pool: Any = None, adjudicator: Adjudicator | None = None,
                 swap: bool = True) -> None:
        self.sprt = sprt
        self.config = config
        self.adjudicate = adjudicator is not None and getattr(adjudicator, "exact", True)
        """Whether the exact prover ends proven games (--adjudicate)."""
        self.rules: dict[str, Any] = getattr(adjudicator, "rules", {})
        """The scores' rules (--draw, --resign), as results lines record them."""
        self.swap = swap
        self._points: dict[int, float] = {}
        """NEW's points in each finished game, by fixture index."""
        run = RunOptions.of(in_process, setup_limit, memory_limit_mb, workers=workers,
                            foreground=False, executor=executor, known_setups=known_setups,
                            pool=pool)
        options = SessionOptions(fixtures=fixtures_for(book, max_games, swap),
                                 adjudicator=adjudicator,
                                 run=run)
        self.session = Session([new, base], config, options, results=results)
        self.session.subscribe(self._on_event)
        self._listeners: list[Callable[[SprtState], None]] = []

    def resume(self, docs: Sequence[dict[str, Any]], source: str) -> int:
        """Take the games of an earlier run of the same test; how many.

        Raises:
            ConfigError: they were played by another test (players, openings,
                board, clock, the test's bounds or its adjudication: changing
                them after seeing the data would void the test's error rates).
        """
        mine = test_json(self.sprt, self.adjudicate, self.swap, self.rules)
        for doc in docs:
            given = doc.get("sprt")
            if not isinstance(given, dict):
                continue
            theirs = {**_UNRECORDED, **given}
            changed = [k for k in mine if theirs.get(k) != mine[k]]
            if changed:
                was = ", ".join(_test_text(k, theirs.get(k)) for k in changed)
                now = ", ".join(_test_text(k, mine[k]) for k in changed)
                raise ConfigError(f"{source} holds games of another test ({was}; this run: "
                                  f"{now}): an SPRT's bounds, adjudication and colours are fixed "
                                  "before its games; start a new results file for the new test")
        self.session.wait_for_names()
        self.session.resume(docs, source)
        for index, record in zip(self.session.record_indices, self.session.records):
            self._points[index] = self._new_points(index, record.result.winner.color)
        return len(self._points)

    def on_progress(self, listener: Callable[[SprtState], None]) -> None:
        self._listeners.append(listener)

    def _new_points(self, index: int, winner: PColor | None) -> float:
        new_color = PColor.WHITE if self.session.fixtures[index].white == 0 else PColor.RED
        return 0.5 if winner is None else 1.0 if winner is new_color else 0.0

    def _on_event(self, event: SessionEvent) -> None:
        if isinstance(event, PostMatch):
            self._points[event.index] = self._new_points(event.index,
                                                         event.record.result.winner.color)
            state = self.state()
            for listener in self._listeners:
                listener(state)

    def state(self) -> SprtState:
        """The counts, estimate and verdict of the games so far."""
        forfeits = Forfeits.of(record.result for record in self.session.records)
        return _state(self.sprt, self._points, forfeits, self.config, self.adjudicate)

    def run(self) -> SprtState:
        """Play pairs until a bound is crossed or every game is played."""
        session = self.session
        try:
            if session.state is SessionState.BEGIN:
                session.start()
            while session.state is not SessionState.END and self.state().status == "continue":
                session.wait(0.25)
                session.update()
        finally:
            session.abort()
        return self.state()
