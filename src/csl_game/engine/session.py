"""Sessions: the one engine for every set of matches, in the window, the console and the league.

A `Session` is a state machine (BEGIN, PRE_MATCH, IN_MATCH, POST_MATCH,
TIE_BREAK, END) over a list of fixtures: one match for two players, a
round-robin tournament for more, or any list (the league's, with openings).
With `foreground`, one match at a time is played here, advanced by the
frontend (`update()` every frame, or the blocking `run()`); the other matches
go to a `Scheduler`, up to `workers` at once in all, and are recorded as they
end. Results are written to a results file the moment they are recorded, a
results file of an interrupted session can be resumed, and a tie in first
place can be broken by the competition rules. Frontends render the states
(see csl_game.engine.screens) and call the methods; nothing here blocks
except `run()`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from csl_game.engine.background import Background, FixtureKey, TieKey
from csl_game.engine.events import (
    MatchReplayed,
    PostMatch,
    PreMatch,
    SessionEnded,
    SessionEvent,
    SessionStarted,
    TieBreakRound,
)
from csl_game.engine.match import Human, Match, MatchResult, Player
from csl_game.engine.naming import PlayerSetups, failed_setups_factory, own_pool
from csl_game.engine.options import SessionOptions
from csl_game.engine.outcomes import MAX_REPLAYS, ForfeitReason, first_to_play
from csl_game.engine.presenter import Presenter, SessionState
from csl_game.engine.results import (
    HUMAN_THINKER,
    PlayerInfo,
    ResultsWriter,
    check_compatible,
    record_from_json,
    record_to_json,
)
from csl_game.engine.scheduler import JobResult, MatchJob, Opening, with_opening
from csl_game.engine.scoring import MatchRecord, Standing, standings
from csl_game.engine.screens import mode_for
from csl_game.engine.tiebreak import TieBreak, TieBreaker, TieBreakRounds, TieRound, apply_tie_break
from csl_game.errors import ConfigError, SessionStateError, WorkerStartError
from csl_game.model.board import PColor
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Session"]


class Session:
    """A session of matches between players (humans and AIs).

    Two players play one match, White first in the order given (`swap()`
    before starting changes colours). Three or more (or two with
    `tournament`) play a round-robin tournament, each pair once with each
    colour; `fixtures` gives any other list (all of these are `SessionOptions`).
    With `foreground` (the default), matches are played here one at a time,
    the lowest-numbered free one first, and up to `workers` - 1 others by the
    scheduler (AI players only); without it, the scheduler plays them all,
    `workers` at once. Keep `workers` at most the number of cores, so no
    more thinkers think at once than there are cores.

    The AI players are set up once first, in worker processes (threads of this
    process with `in_process`), to learn their names: until then the session
    is `naming`, its screen a waiting one, and `start()` waits for them. A
    player whose setup failed forfeits each of its matches at once.

    Raises:
        ConfigError: fewer than two players, or bad workers.
        WorkerStartError: no worker process could be started for a setup.
    """

    def __init__(self, players: Sequence[Player], config: MatchConfig,
                 options: SessionOptions = SessionOptions(), *,
                 results: ResultsWriter | None = None) -> None:
        if len(players) < 2:
            raise ConfigError(f"a session needs at least 2 players, got {len(players)}")
        self.players = list(players)
        self.config = config
        self.options = options
        run = options.run
        self.points = options.points
        self.runner_factory = run.runner_factory
        self.workers = run.workers
        self.foreground = run.foreground
        self.competition = options.competition
        self._results = results
        self.mode = mode_for(sum(not isinstance(p, Human) for p in players))
        self._pool = run.pool
        """Warm worker processes: the setup probes' and the finished matches'."""
        if self._pool is None and (own := own_pool(self.players, run.in_process,
                                                   run.executor is not None)) is not None:
            self._pool = own
            weakref.finalize(self, own.close)
        self._setups = PlayerSetups(self.players, in_process=run.in_process,
                                    setup_limit=run.setup_limit, memory_limit_mb=run.memory_limit_mb,
                                    known=run.known_setups, pool=self._pool)
        self.names = self._setups.names()
        """The players' display names; the class-name rule's until their setups answer."""
        self._forfeits = self._setups.forfeits()
        self._resume_docs: tuple[Sequence[dict[str, Any]], str] | None = None
        self.fixtures = list(options.fixtures_for(len(self.players)))
        if not run.foreground and not self._all_ai:
            raise ConfigError("matches with a human player can only be played in the foreground")
        self.state = SessionState.BEGIN
        self.presenter = Presenter(self)
        """The screens of this session, for the frontends."""
        self.records: list[MatchRecord] = []
        """Finished matches in the order they finished."""
        self.record_indices: list[int] = []
        """The fixture index of each of `records`."""
        self.match: Match | None = None
        self.tie_break: TieBreak | None = None
        """How a tie in first place was settled, once it was (competition only)."""
        self.tie_round: TieRound | None = None
        """The tie-break tournament being played, if any."""
        self._subscribers: list[Callable[[SessionEvent], None]] = []
        self._screen_index: int | None = 0 if run.foreground else None
        """The match shown from its pre-match screen to its post-match screen."""
        slots = run.workers - 1 if run.foreground else run.workers
        self._background = Background(slots, run.executor, run.in_process,
                                      run.scheduler_factory, self._pool)
        self._failed: set[int] = set()
        self.replayed: dict[int, int] = {}
        """Matches played again (index: how often): `ForfeitReason.INTERFERED`."""
        self._ties: TieBreakRounds | None = None

    # ------------------------------------------------------------- listening
    def subscribe(self, callback: Callable[[SessionEvent], None]) -> None:
        """Call `callback` with every session event from now on."""
        self._subscribers.append(callback)

    def _emit(self, event: SessionEvent) -> None:
        for callback in self._subscribers:
            callback(event)

    # ------------------------------------------------------------- reading
    @property
    def naming(self) -> bool:
        """Whether the AI players' setups are still being waited for."""
        return self._setups.pending

    def wait_for_names(self) -> None:
        """Block until every player is set up and named (the console's way)."""
        if self._setups.pending:
            self._setups.wait()
            self._names_known()

    def _poll_names(self) -> None:
        if self._setups.pending and self._setups.poll():
            self._names_known()

    def _names_known(self) -> None:
        self.names = self._setups.names()
        self._forfeits = self._setups.forfeits()
        if self._resume_docs is not None:
            docs, source = self._resume_docs
            self._resume_docs = None
            self.resume(docs, source)

    @property
    def _all_ai(self) -> bool:
        return all(isinstance(p, ThinkerPrototype) for p in self.players)

    @property
    def pairings(self) -> list[tuple[int, int]]:
        """(White, Red) player indices of every match."""
        return [(f.white, f.red) for f in self.fixtures]

    @property
    def total_matches(self) -> int:
        return len(self.fixtures)

    @property
    def is_single(self) -> bool:
        """One match (two players), not a tournament."""
        return self.total_matches == 1

    @property
    def current_index(self) -> int:
        """Index of the match about to be played, being played or just played."""
        return self.total_matches - 1 if self._screen_index is None else self._screen_index

    @property
    def next_pairing(self) -> tuple[str, str]:
        """(White, Red) names of the next (or current) match."""
        fixture = self.fixtures[min(self.current_index, self.total_matches - 1)]
        return self.names[fixture.white], self.names[fixture.red]

    @property
    def parallel(self) -> bool:
        """Whether the scheduler plays matches too (AI players only)."""
        return self._all_ai and (not self.foreground or (self.workers > 1
                                                         and not self.is_single))

    @property
    def background_running(self) -> int:
        """How many matches the scheduler is playing."""
        return len(self._background.running)

    @property
    def background_pairings(self) -> list[tuple[str, str]]:
        """(White, Red) names of the matches the scheduler is playing, in match order."""
        return self._background.pairings()

    @property
    def waiting(self) -> bool:
        """No match is left to play here, but the scheduler still plays some."""
        return (self.state is SessionState.TIE_BREAK
                or (self.state is SessionState.BEGIN and self.naming)
                or (self.state is SessionState.PRE_MATCH and self._screen_index is None))

    def records_in_order(self) -> list[tuple[int, MatchRecord]]:
        """(fixture index, record) of the finished matches, in fixture order."""
        return sorted(zip(self.record_indices, self.records), key=lambda r: r[0])

    def standings(self) -> list[Standing]:
        """The standings so far; once a tie-break settled first place, with it applied."""
        table = standings(self.names, self.records, self.points)
        return apply_tie_break(table, self.tie_break)

    def info(self, index: int) -> PlayerInfo:
        """Who player `index` is, as a results file says it."""
        player = self.players[index]
        if isinstance(player, ThinkerPrototype):
            return PlayerInfo(player.requested_name, player.params, self.names[index])
        return PlayerInfo(HUMAN_THINKER, "", self.names[index])

    # ------------------------------------------------------------- changing
    def swap(self) -> None:
        """Swap colours of a two-player session; only before it starts."""
        if self.state is not SessionState.BEGIN or len(self.players) != 2:
            raise SessionStateError("colours can only be swapped before a single match starts")
        self.players.reverse()
        self._setups.reverse()
        self.names = self._setups.names()
        self._forfeits = self._setups.forfeits()

    def resume(self, docs: Sequence[dict[str, Any]], source: str = "the results file") -> set[int]:
        """Take the matches of an earlier run of this session as played; returns
        their indices. Call before the session starts. While the players are
        still being named, the lines are taken once they are (and none now).

        Raises:
            ConfigError: the lines were made by a different session, or the session started.
        """
        if self.state is not SessionState.BEGIN:
            raise SessionStateError("a session can only be resumed before it starts")
        if self.naming:
            self._resume_docs = (docs, source)
            return set()
        expected = {i: (self.info(f.white), self.info(f.red))
                    for i, f in enumerate(self.fixtures)}
        check_compatible(docs, expected, self.config, source)
        index_of = {self.info(i): i for i in range(len(self.players))}
        for doc in docs:
            if doc["match"] not in self.record_indices:
                self.records.append(record_from_json(doc, index_of))
                self.record_indices.append(doc["match"])
        if self.foreground:
            self._screen_index = None  # not taken: it is being chosen again
            self._screen_index = self._free_index()
        return set(self.record_indices)

    def again(self, swapped: bool = False) -> Session:
        """A new session of the same players and settings (no results file).

        Raises:
            ConfigError: `swapped` for more than two players.
        """
        players = list(self.players)
        known = self._setups.reports
        if swapped:
            if len(players) != 2:
                raise ConfigError("only a single match can be played again swapped")
            players.reverse()
            known = None if known is None else known[::-1]
        run = replace(self.options.run, known_setups=None if known is None else tuple(known),
                      pool=None)
        options = replace(self.options, fixtures=None if swapped else tuple(self.fixtures),
                          run=run)
        return Session(players, self.config, options)

    # ------------------------------------------------------------ transitions
    def start(self) -> None:
        """BEGIN -> PRE_MATCH (or straight on to END when a resumed session is complete);
        waits for the players' names first if need be."""
        self._expect(SessionState.BEGIN)
        self.wait_for_names()
        self._emit(SessionStarted(self.mode, self.names, self.total_matches))
        self.state = SessionState.PRE_MATCH
        if self._screen_index is not None:
            self._announce()
        self._fill()
        self._maybe_finish()

    def begin_match(self) -> Match:
        """PRE_MATCH -> IN_MATCH: make the next match (the caller advances it)."""
        self._expect(SessionState.PRE_MATCH)
        if self._screen_index is None:
            raise SessionStateError("no match is left to play here: waiting for the others")
        fixture = self.fixtures[self._screen_index]
        factory = failed_setups_factory(self.runner_factory, self.players, self.names,
                                        self._forfeits)
        self.match = Match(self.config, self.players[fixture.white], self.players[fixture.red],
                           with_opening(factory, fixture.opening),
                           names=(self.names[fixture.white], self.names[fixture.red]),
                           adjudicator=self.options.adjudicator)
        self.state = SessionState.IN_MATCH
        return self.match

    def update(self) -> None:
        """Record the scheduler's finished matches without blocking; advance the
        current match (IN_MATCH -> POST_MATCH when it ends); move on to the
        tie-break or END once nothing is left to wait for."""
        self._poll_names()
        self._collect()
        self._maybe_finish()
        if self.state is not SessionState.IN_MATCH:
            return
        assert self.match is not None
        self.match.update()
        if self.match.is_over:
            assert self.match.result is not None
            self.end_match(self.match.result)

    def wait(self, timeout: float) -> None:
        """Block until a match off screen ends, at most `timeout` seconds."""
        self._background.wait_any(timeout)

    def end_match(self, result: MatchResult) -> None:
        """Record the current match's result: IN_MATCH -> POST_MATCH."""
        self._expect(SessionState.IN_MATCH)
        assert self._screen_index is not None
        self.state = SessionState.POST_MATCH
        self._record(self._screen_index, result)

    def next(self) -> None:
        """POST_MATCH -> PRE_MATCH, or on to waiting, the tie-break or END."""
        self._expect(SessionState.POST_MATCH)
        self.match = None
        self._collect()
        self._screen_index = self._free_index()
        self.state = SessionState.PRE_MATCH
        if self._screen_index is not None:
            self._announce()
        self._maybe_finish()

    def close_match(self) -> None:
        """Stop the current match, if any, and release its players; the
        scheduler's matches go on."""
        if self.match is not None:
            self.match.close()

    def abort(self) -> None:
        """Stop every match, release the players and close the results file."""
        self.close_match()
        self._shutdown()

    def run(self, on_match: Callable[[Match], MatchResult] | None = None) -> list[Standing]:
        """Play every match, blocking; `on_match` plays one here (default: Match.run).

        Returns the final standings.
        """
        try:
            if self.state is SessionState.BEGIN:
                self.start()
            while self.state is not SessionState.END:
                if self.waiting:
                    self._background.wait_any(0.5)
                    self.update()
                    continue
                match = self.begin_match()
                result = on_match(match) if on_match else match.run()
                self.end_match(result)
                self.next()
        finally:
            if self.state is not SessionState.END:
                self.abort()
        return self.standings()

    # ------------------------------------------------------------ internals
    def _announce(self) -> None:
        assert self._screen_index is not None
        fixture = self.fixtures[self._screen_index]
        self._emit(PreMatch(self._screen_index, self.names[fixture.white],
                            self.names[fixture.red]))

    def _record(self, index: int, result: MatchResult, background: bool = False,
                info: tuple[tuple[PColor, str], ...] = ()) -> None:
        fixture = self.fixtures[index]
        if result.forfeit is ForfeitReason.INTERFERED and self.replayed.get(index, 0) < MAX_REPLAYS:
            self.replayed[index] = times = self.replayed.get(index, 0) + 1  # not the loser's doing
            white, red = self.names[fixture.white], self.names[fixture.red]
            return self._emit(MatchReplayed(index, white, red, result.detail, times))
        record = MatchRecord(fixture.white, fixture.red, result)
        self.records.append(record)
        self.record_indices.append(index)
        if self._results is not None:
            self._results.write(record_to_json(index, self.info(fixture.white), self.info(
                fixture.red), result, self.config, book=len(fixture.opening)))
        self._emit(PostMatch(index, record, background, info))

    def _free_index(self, background: bool = False) -> int | None:
        """The lowest match not played, not being played and not kept for the
        screen; for the scheduler, of those not failed there, `first_to_play`'s."""
        running = self._background.indices()
        taken = {*self.record_indices, self._screen_index, *running,
                 *(self._failed if background else ())}
        free = (i for i in range(self.total_matches) if i not in taken)
        return first_to_play(free, running, self.replayed) if background else next(free, None)

    def _expect(self, state: SessionState) -> None:
        if self.state is not state:
            raise SessionStateError(f"session is {self.state.value}, expected {state.value}")

    # ------------------------------------------------------------ the scheduler
    def _job(self, white: int, red: int, config: MatchConfig, opening: Opening = ()) -> MatchJob:
        protos = [self.players[white], self.players[red]]
        paths = tuple(dict.fromkeys(p for proto in protos if isinstance(proto, ThinkerPrototype)
                                    for p in proto.paths))
        run = self.options.run
        return MatchJob(self.info(white), self.info(red), config, paths, run.in_process,
                        opening, (self._forfeits[white], self._forfeits[red]),
                        run.setup_limit, run.memory_limit_mb, self.options.adjudicator,
                        (getattr(protos[0], "network", False), getattr(protos[1], "network", False)))

    def _fill(self) -> None:
        """Give free matches to the scheduler until it has no room."""
        slots = self.workers - 1 if self.foreground else self.workers
        if not self.parallel or slots < 1 or self.state in (SessionState.BEGIN,
                                                           SessionState.END):
            return
        background = self._background
        while background.has_room and (index := self._free_index(background=True)) is not None:
            fixture = self.fixtures[index]
            background.submit(FixtureKey(index), self._job(fixture.white, fixture.red,
                                                           self.config, fixture.opening),
                              (self.names[fixture.white], self.names[fixture.red]))

    def _collect(self) -> None:
        """Record the scheduler's finished matches; hand out free ones."""
        if self._background.scheduler is None:
            return
        for key, outcome in self._background.finished():
            if isinstance(key, TieKey):
                self._tie_finished(key, outcome)
            elif isinstance(outcome, JobResult):
                self._record(key.index, outcome.result, background=True, info=outcome.info)
            elif self.foreground and not isinstance(outcome, WorkerStartError):
                self._failed.add(key.index)  # played here instead
            else:
                self._shutdown()
                raise outcome
        self._fill()
        if self.foreground and self.waiting and self.state is SessionState.PRE_MATCH:
            if (free := self._free_index()) is not None:
                self._screen_index = free
                self._announce()

    def _maybe_finish(self) -> None:
        """Once every match is recorded: the tie-break if one is due, else END."""
        if (self.state is not SessionState.PRE_MATCH or not self.waiting
                or self._background.running):
            return
        if self._free_index() is not None:
            return
        if self.competition and not self.is_single and self._all_ai:
            self._ties = TieBreakRounds(TieBreaker(
                standings(self.names, self.records, self.points), self.records, self.points,
                self.config.time_limit_ms))
            if self._ties.needed:
                self.state = SessionState.TIE_BREAK
                self._next_tie_round()
                return
        self._to_end()

    # ------------------------------------------------------------ the tie-break
    def _next_tie_round(self) -> None:
        """Play the next tie-break tournament on the scheduler, or end when settled."""
        assert self._ties is not None
        tie_round = self.tie_round = self._ties.next_round()
        if tie_round is None:
            self.tie_break = self._ties.result
            self._to_end()
            return
        self._emit(TieBreakRound(tie_round, tuple(self.names[p] for p in tie_round.players)))
        config = replace(self.config, time_limit_ms=tie_round.time_limit_ms)
        for key, w, r in self._ties.matches():
            self._background.submit(key, self._job(w, r, config), (self.names[w], self.names[r]))

    def _tie_finished(self, key: TieKey, outcome: JobResult | BaseException) -> None:
        if not isinstance(outcome, JobResult):
            self._shutdown()
            raise outcome
        assert self._ties is not None
        if self._ties.record(key, outcome.result):
            self._next_tie_round()

    def _to_end(self) -> None:
        self.state = SessionState.END
        self._shutdown()
        self._emit(SessionEnded(tuple(self.standings()), self.tie_break))

    def _shutdown(self) -> None:
        self._setups.close()
        self._background.close()
        if self._pool is not None:
            self._pool.close()
        if self._results is not None:
            self._results.close()
            self._results = None
