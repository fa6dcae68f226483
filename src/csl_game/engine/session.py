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

from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, NamedTuple

from csl_game.engine.match import Human, Match, MatchResult, Player
from csl_game.engine.naming import PlayerSetups, failed_setups_factory
from csl_game.engine.results import (PlayerInfo, ResultsWriter, check_compatible,
                                     record_from_json, record_to_json)
from csl_game.engine.runners.base import SETUP_TIME_LIMIT, RunnerFactory, WorkerStartError
from csl_game.engine.runners.probe import SetupReport
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.engine.scheduler import JobResult, MatchJob, Opening, Scheduler, with_opening
from csl_game.engine.screens import Choice, Mode, Screen, ScreenPolicy, mode_for, mode_text
from csl_game.engine.standings import (MatchRecord, Points, Standing, round_robin, standings,
                                       unique_names, winner_text)
from csl_game.engine.tiebreak import TieBreak, TieBreaker, TieRound, apply_tie_break
from csl_game.errors import ConfigError
from csl_game.model.board import PColor
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Fixture", "Session", "SessionState", "SessionEvent", "SessionStarted", "PreMatch",
           "PostMatch", "TieBreakRound", "SessionEnded", "Mode", "mode_for", "mode_text",
           "Screen", "Choice", "ScreenPolicy", "MatchRecord", "Points", "Standing",
           "round_robin", "standings", "unique_names", "winner_text", "HUMAN_THINKER"]

HUMAN_THINKER = "human"
"""What a results file names as the thinker of a human player."""


class Fixture(NamedTuple):
    """A match of a session, by player index; the opening's moves are forced."""

    white: int
    red: int
    opening: Opening = ()


class SessionState(Enum):
    """The states of a session."""

    BEGIN = "begin"
    PRE_MATCH = "pre-match"
    IN_MATCH = "in match"
    POST_MATCH = "post-match"
    TIE_BREAK = "tie-break"
    END = "end"


@dataclass(frozen=True)
class SessionEvent:
    """Base of all session events."""


@dataclass(frozen=True)
class SessionStarted(SessionEvent):
    mode: Mode
    players: tuple[str, ...]
    total_matches: int


@dataclass(frozen=True)
class PreMatch(SessionEvent):
    index: int
    white: str
    red: str


@dataclass(frozen=True)
class PostMatch(SessionEvent):
    index: int
    record: MatchRecord
    background: bool = False
    """Played off screen (by the scheduler) rather than here."""
    info: tuple[tuple[PColor, str], ...] = ()
    """What the thinkers said while thinking (matches played off screen only)."""


@dataclass(frozen=True)
class TieBreakRound(SessionEvent):
    """A tie-break tournament for first place starts."""

    round: TieRound
    players: tuple[str, ...]


@dataclass(frozen=True)
class SessionEnded(SessionEvent):
    standings: tuple[Standing, ...]
    """Final standings, a tie-break applied."""
    tie_break: TieBreak | None = None


SchedulerFactory = Callable[[int, Executor | None, bool, bool], Scheduler]


def _default_scheduler(slots: int, executor: Executor | None, in_process: bool,
                       watched: bool) -> Scheduler:
    return Scheduler(slots, executor, in_process, watched)


class Session:
    """A session of matches between players (humans and AIs).

    Two players play one match, White first in the order given (`swap()`
    before starting changes colours). Three or more (or two with
    `tournament`) play a round-robin tournament, each pair once with each
    colour; `fixtures` gives any other list. With `foreground` (the default), matches are played here one at a
    time, the lowest-numbered free one first, and up to `workers` - 1 others
    by the scheduler (AI players only); without it, the scheduler plays them
    all, `workers` at once. Keep `workers` at most the number of cores, so no
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
                 points: Points = Points(), runner_factory: RunnerFactory = ThreadRunner, *,
                 complete: bool = True, workers: int = 1, in_process: bool = False,
                 foreground: bool = True, results: ResultsWriter | None = None,
                 competition: bool = False, executor: Executor | None = None,
                 fixtures: Sequence[Fixture] | None = None, tournament: bool | None = None,
                 scheduler_factory: SchedulerFactory = _default_scheduler,
                 setup_limit: float = SETUP_TIME_LIMIT,
                 known_setups: Sequence[SetupReport | None] | None = None) -> None:
        if len(players) < 2:
            raise ConfigError(f"a session needs at least 2 players, got {len(players)}")
        if workers < 1:
            raise ConfigError(f"workers must be at least 1, got {workers}")
        self.players = list(players)
        self.config = config
        self.points = points
        self.runner_factory = runner_factory
        self.complete = complete
        self.workers = workers
        self.in_process = in_process
        self.foreground = foreground
        self.competition = competition
        self.executor = executor
        self._results = results
        self._scheduler_factory = scheduler_factory
        self.mode = mode_for(sum(not isinstance(p, Human) for p in players))
        self.setup_limit = setup_limit
        self._setups = PlayerSetups(self.players, in_process=in_process, setup_limit=setup_limit,
                                    known=known_setups)
        self.names = self._setups.names()
        """The players' display names; the class-name rule's until their setups answer."""
        self._forfeits = self._setups.forfeits()
        self._resume_docs: tuple[Sequence[dict[str, Any]], str] | None = None
        if tournament is None:
            tournament = len(players) > 2
        if fixtures is not None:
            self.fixtures = list(fixtures)
        elif tournament:
            self.fixtures = [Fixture(w, r) for w, r in round_robin(len(players), complete)]
        else:
            self.fixtures = [Fixture(0, 1)]
        if not foreground and not self._all_ai:
            raise ConfigError("matches with a human player can only be played in the foreground")
        self.state = SessionState.BEGIN
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
        self._screen_index: int | None = 0 if foreground else None
        """The match shown from its pre-match screen to its post-match screen."""
        self._scheduler: Scheduler | None = None
        self._running: dict[Hashable, tuple[str, str]] = {}
        """Names (White, Red) of the scheduler's matches, by key."""
        self._failed: set[int] = set()
        self._breaker: TieBreaker | None = None
        self._tie_records: list[MatchRecord] = []
        self._tie_left = 0

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
        return len(self._running)

    @property
    def background_pairings(self) -> list[tuple[str, str]]:
        """(White, Red) names of the matches the scheduler is playing, in order."""
        return [self._running[k] for k in sorted(self._running, key=repr)]

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
            raise ConfigError("colours can only be swapped before a single match starts")
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
            raise ConfigError("a session can only be resumed before it starts")
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
        known = None if self._setups.reports is None else list(self._setups.reports)
        if swapped:
            if len(players) != 2:
                raise ConfigError("only a single match can be played again swapped")
            players.reverse()
            known = None if known is None else known[::-1]
        return Session(players, self.config, self.points, self.runner_factory,
                       complete=self.complete, workers=self.workers,
                       in_process=self.in_process, foreground=self.foreground,
                       competition=self.competition, executor=self.executor,
                       fixtures=None if swapped else self.fixtures,
                       scheduler_factory=self._scheduler_factory,
                       setup_limit=self.setup_limit, known_setups=known)

    # ------------------------------------------------------------ screens
    @property
    def screen(self) -> Screen | None:
        """The screen of the current state; None where `settle()` moves on alone.

        A single match shows its pre-match screen before it starts (so colours
        can still be swapped) and no post-match screen (its final screen shows
        the result); a tournament starts at once and shows both between matches.
        """
        single = self.is_single
        return {SessionState.BEGIN: Screen.PRE_MATCH if single or self.naming else None,
                SessionState.PRE_MATCH: None if single and not self.waiting else Screen.PRE_MATCH,
                SessionState.IN_MATCH: Screen.MATCH,
                SessionState.POST_MATCH: None if single else Screen.POST_MATCH,
                SessionState.TIE_BREAK: Screen.PRE_MATCH,
                SessionState.END: Screen.FINAL}[self.state]

    def settle(self) -> Screen:
        """Take the steps no screen asks about; return the screen to show."""
        steps = {SessionState.BEGIN: self.start, SessionState.PRE_MATCH: self.begin_match,
                 SessionState.POST_MATCH: self.next}
        while (screen := self.screen) is None:
            steps[self.state]()
        return screen

    def choices(self) -> tuple[Choice, ...]:
        """What the current screen offers (nothing while a match is played)."""
        screen = self.screen
        if screen is Screen.PRE_MATCH and self.waiting:
            return ()
        if screen is Screen.PRE_MATCH:
            swap = self.state is SessionState.BEGIN and self.mode.asks_who_plays_first
            return (Choice.SWAP, Choice.START) if swap else (Choice.START,)
        if screen is Screen.POST_MATCH:
            return (Choice.OK,)
        if screen is Screen.FINAL and self.is_single:
            return (Choice.PLAY_AGAIN, Choice.PLAY_AGAIN_SWAPPED, Choice.SETUP, Choice.QUIT)
        if screen is Screen.FINAL:
            return (Choice.QUIT, Choice.PLAY_AGAIN, Choice.SETUP)
        return ()

    @property
    def default_choice(self) -> Choice | None:
        """What a screen that times out (or --auto) chooses."""
        defaults = {Screen.PRE_MATCH: Choice.START, Screen.POST_MATCH: Choice.OK,
                    Screen.FINAL: Choice.QUIT}
        screen = self.screen
        return None if screen is None or self.waiting else defaults.get(screen)

    def timeout(self, policy: ScreenPolicy) -> float | None:
        """Seconds the current screen stays before its default choice is taken.

        None: it waits for the user. A single match always waits (unless
        `policy.auto`); tournament screens wait as the policy says.
        """
        screen = self.screen
        if screen is None or screen is Screen.MATCH or self.waiting:
            return None
        if policy.auto:
            return policy.unblocked_s
        timed = ((screen is Screen.PRE_MATCH and not self.is_single
                  and not policy.wait_before_match)
                 or (screen is Screen.POST_MATCH and not policy.wait_after_match))
        return policy.unblocked_s if timed else None

    def choose(self, choice: Choice) -> Screen:
        """Act on START, SWAP or OK; returns the screen to show next.

        Raises:
            ConfigError: the current screen does not offer `choice`, or it is
                one the frontend acts on (`Choice.leaves_session`).
        """
        if choice.leaves_session or choice not in self.choices():
            raise ConfigError(f"'{choice.value}' is not a choice of the session "
                              f"when it is {self.state.value}")
        if choice is Choice.SWAP:
            self.swap()
        elif choice is Choice.OK:
            self.next()
        elif self.state is SessionState.BEGIN:
            self.start()
        else:
            self.begin_match()
        return self.settle()

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
            raise ConfigError("no match is left to play here: waiting for the others")
        fixture = self.fixtures[self._screen_index]
        factory = failed_setups_factory(self.runner_factory, self.players, self.names,
                                        self._forfeits)
        self.match = Match(self.config, self.players[fixture.white], self.players[fixture.red],
                           with_opening(factory, fixture.opening),
                           names=(self.names[fixture.white], self.names[fixture.red]))
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
                    assert self._scheduler is not None
                    self._scheduler.wait_any(0.5)
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
        record = MatchRecord(fixture.white, fixture.red, result)
        self.records.append(record)
        self.record_indices.append(index)
        if self._results is not None:
            self._results.write(record_to_json(index, self.info(fixture.white),
                                               self.info(fixture.red), result, self.config))
        self._emit(PostMatch(index, record, background, info))

    def _free_index(self, background: bool = False) -> int | None:
        """The lowest match not played, not being played and not kept for the
        screen; for the scheduler, not one that failed there either."""
        taken = {*self.record_indices, self._screen_index, *self._running,
                 *(self._failed if background else ())}
        return next((i for i in range(self.total_matches) if i not in taken), None)

    def _expect(self, state: SessionState) -> None:
        if self.state is not state:
            raise ConfigError(f"session is {self.state.value}, expected {state.value}")

    # ------------------------------------------------------------ the scheduler
    def _slots(self) -> int:
        return self.workers - 1 if self.foreground else self.workers

    def _ensure_scheduler(self) -> Scheduler:
        if self._scheduler is None:
            self._scheduler = self._scheduler_factory(
                max(1, self._slots()), self.executor, self.in_process, False)
        return self._scheduler

    def _job(self, white: int, red: int, config: MatchConfig, opening: Opening = ()) -> MatchJob:
        protos = [self.players[white], self.players[red]]
        paths = tuple(dict.fromkeys(p for proto in protos if isinstance(proto, ThinkerPrototype)
                                    for p in proto.paths))
        return MatchJob(self.info(white), self.info(red), config, paths, self.in_process,
                        opening, (self._forfeits[white], self._forfeits[red]), self.setup_limit)

    def _fill(self) -> None:
        """Give free matches to the scheduler until it has no room."""
        if not self.parallel or self._slots() < 1 or self.state in (SessionState.BEGIN,
                                                                      SessionState.END):
            return
        scheduler = self._ensure_scheduler()
        while scheduler.has_room and (index := self._free_index(background=True)) is not None:
            fixture = self.fixtures[index]
            scheduler.submit(index, self._job(fixture.white, fixture.red, self.config,
                                              fixture.opening))
            self._running[index] = (self.names[fixture.white], self.names[fixture.red])

    def _collect(self) -> None:
        """Record the scheduler's finished matches; hand out free ones."""
        if self._scheduler is None:
            return
        for key, outcome in self._scheduler.finished():
            self._running.pop(key, None)
            if not isinstance(key, int):
                self._tie_finished(key, outcome)
            elif isinstance(outcome, JobResult):
                self._record(key, outcome.result, background=True, info=outcome.info)
            elif self.foreground and not isinstance(outcome, WorkerStartError):
                self._failed.add(key)  # played here instead
            else:
                self._shutdown()
                raise outcome
        self._fill()
        if self.foreground and self.waiting and self.state is SessionState.PRE_MATCH:
            free = self._free_index()
            if free is not None:
                self._screen_index = free
                self._announce()

    def _maybe_finish(self) -> None:
        """Once every match is recorded: the tie-break if one is due, else END."""
        if self.state is not SessionState.PRE_MATCH or not self.waiting or self._running:
            return
        if self._free_index() is not None:
            return
        if self.competition and not self.is_single and self._all_ai:
            self._breaker = TieBreaker(standings(self.names, self.records, self.points),
                                       self.records, self.points, self.config.time_limit_ms)
            if self._breaker.needed:
                self.state = SessionState.TIE_BREAK
                self._next_tie_round()
                return
        self._to_end()

    # ------------------------------------------------------------ the tie-break
    def _next_tie_round(self) -> None:
        assert self._breaker is not None
        tie_round = self._breaker.next_round()
        self.tie_round = tie_round
        if tie_round is None:
            self.tie_break = self._breaker.result
            self._to_end()
            return
        self._emit(TieBreakRound(tie_round, tuple(self.names[p] for p in tie_round.players)))
        config = replace(self.config, time_limit_ms=tie_round.time_limit_ms)
        scheduler = self._ensure_scheduler()
        players = tie_round.players
        self._tie_records = []
        pairs = round_robin(len(players))
        self._tie_left = len(pairs)
        for i, (w, r) in enumerate(pairs):
            key = ("tie-break", tie_round.stage, tie_round.number, i)
            scheduler.submit(key, self._job(players[w], players[r], config))
            self._running[key] = (self.names[players[w]], self.names[players[r]])

    def _tie_finished(self, key: Hashable, outcome: JobResult | BaseException) -> None:
        if not isinstance(outcome, JobResult):
            self._shutdown()
            raise outcome
        job_white, job_red = self._tie_pair(key)
        self._tie_records.append(MatchRecord(job_white, job_red, outcome.result))
        self._tie_left -= 1
        if self._tie_left == 0:
            assert self._breaker is not None
            self._breaker.record(self._tie_records)
            self._next_tie_round()

    def _tie_pair(self, key: Hashable) -> tuple[int, int]:
        assert self.tie_round is not None and isinstance(key, tuple)
        players = self.tie_round.players
        w, r = round_robin(len(players))[key[-1]]
        return players[w], players[r]

    def _to_end(self) -> None:
        self.state = SessionState.END
        self._shutdown()
        self._emit(SessionEnded(tuple(self.standings()), self.tie_break))

    def _shutdown(self) -> None:
        self._setups.close()
        if self._scheduler is not None:
            self._scheduler.close()
        self._running.clear()
        if self._results is not None:
            self._results.close()
            self._results = None
