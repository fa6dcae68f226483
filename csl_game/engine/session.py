"""Sessions: the mode picked by the number of AI players, and tournaments.

A `Session` is a state machine (BEGIN, PRE_MATCH, IN_MATCH, POST_MATCH, END)
over a list of matches. Frontends render its states and call its methods;
the console's blocking `run()` drives the same methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from csl_game.engine.background import BackgroundMatches
from csl_game.errors import ConfigError
from csl_game.engine.match import Human, Match, MatchResult, Player
from csl_game.engine.runners.base import RunnerFactory
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.engine.standings import (MatchRecord, Points, Standing, round_robin, standings,
                                winner_text)
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Mode", "mode_for", "mode_text", "round_robin", "Points", "SessionState", "Session",
           "MatchRecord", "Standing", "standings", "SessionEvent", "SessionStarted",
           "PreMatch", "PostMatch", "SessionEnded", "winner_text", "unique_names",
           "Screen", "Choice", "ScreenPolicy"]


class Mode(Enum):
    """What kind of session the active AI players make."""

    HUMAN_VS_HUMAN = "human vs human"
    HUMAN_VS_AI = "human vs AI"
    AI_VS_AI = "AI vs AI"
    TOURNAMENT = "tournament"

    @property
    def asks_who_plays_first(self) -> bool:
        return self in (Mode.HUMAN_VS_AI, Mode.AI_VS_AI)


def mode_for(active_ai_players: int) -> Mode:
    """0 -> two humans, 1 -> human vs AI, 2 -> AI vs AI, 3 or more -> tournament."""
    if active_ai_players < 0:
        raise ConfigError(f"the number of AI players cannot be {active_ai_players}")
    return (Mode.HUMAN_VS_HUMAN, Mode.HUMAN_VS_AI, Mode.AI_VS_AI,
            Mode.TOURNAMENT)[min(active_ai_players, 3)]


def mode_text(active_ai_players: int) -> str:
    """'Human vs AI', or 'Tournament of 4 AIs (12 matches)' for 3 or more."""
    mode = mode_for(active_ai_players)
    if mode is not Mode.TOURNAMENT:
        return mode.value[0].upper() + mode.value[1:]
    n = active_ai_players
    return f"Tournament of {n} AIs ({n * (n - 1)} matches)"


class SessionState(Enum):
    BEGIN = "begin"
    PRE_MATCH = "pre-match"
    IN_MATCH = "in match"
    POST_MATCH = "post-match"
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
    """Played off screen while the screen showed another match."""


@dataclass(frozen=True)
class SessionEnded(SessionEvent):
    standings: tuple[Standing, ...]


class Screen(Enum):
    """What a frontend shows for a session's current state."""

    PRE_MATCH = "pre-match"
    """Who plays next; for a single match also who plays first; standings once
    results exist."""
    MATCH = "match"
    POST_MATCH = "post-match"
    """The result of a tournament match over its final board."""
    FINAL = "final"
    """The end: the result of a single match, or a tournament's standings."""


class Choice(Enum):
    """What the user can choose on a screen."""

    START = "Start"
    SWAP = "Swap"
    OK = "OK"
    PLAY_AGAIN = "Play again"
    PLAY_AGAIN_SWAPPED = "Swap and play again"
    SETUP = "Back to setup"
    QUIT = "Quit"

    @property
    def leaves_session(self) -> bool:
        """Whether the frontend acts on it (a new session, setup, quit)."""
        return self in (Choice.PLAY_AGAIN, Choice.PLAY_AGAIN_SWAPPED, Choice.SETUP,
                        Choice.QUIT)


@dataclass(frozen=True)
class ScreenPolicy:
    """Whether the screens between tournament matches wait for a button."""

    wait_before_match: bool = True
    wait_after_match: bool = True
    unblocked_s: float = 1.5
    """How long a screen that does not wait stays."""
    auto: bool = False
    """Nothing waits: every screen takes its default choice after `unblocked_s`."""


def unique_names(players: Sequence[Player]) -> tuple[str, ...]:
    """Display names, numbered where several players share one."""
    names = [p.display_name for p in players]
    out = []
    for i, name in enumerate(names):
        same = [j for j, n in enumerate(names) if n == name]
        out.append(name if len(same) == 1 else f"{name} #{same.index(i) + 1}")
    return tuple(out)


class Session:
    """A session of one or more matches between players.

    Two players (any mix of humans and AIs) play one match, White first in
    the order given; call `swap()` before starting to change colours. Three
    or more play a round-robin tournament, each pair once with each colour.

    With `workers` > 1, a tournament of AIs plays up to `workers` - 1 other
    matches in the background (`tournament.play_job`, their thinkers in worker
    processes, or threads with `in_process`) while one match is played in the
    foreground; `update()` records them as they finish. The foreground plays
    the lowest-numbered match nobody has taken. Keep `workers` at most the
    number of cores, so no more thinkers think at once than there are cores.
    """

    def __init__(self, players: Sequence[Player], config: MatchConfig,
                 points: Points = Points(), runner_factory: RunnerFactory = ThreadRunner,
                 complete: bool = True, workers: int = 1, in_process: bool = False) -> None:
        if len(players) < 2:
            raise ConfigError(f"a session needs at least 2 players, got {len(players)}")
        self.players = list(players)
        self.config = config
        self.points = points
        self.runner_factory = runner_factory
        self.complete = complete
        self.mode = mode_for(sum(not isinstance(p, Human) for p in players))
        self.names = unique_names(self.players)
        self.pairings = (round_robin(len(players), complete) if len(players) > 2
                         else [(0, 1)])
        if workers < 1:
            raise ConfigError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.in_process = in_process
        self.state = SessionState.BEGIN
        self.records: list[MatchRecord] = []
        """Finished matches in the order they finished."""
        self.record_indices: list[int] = []
        """The pairing index of each of `records`."""
        self.match: Match | None = None
        self._subscribers: list[Callable[[SessionEvent], None]] = []
        self._screen_index: int | None = 0
        """The match shown from its pre-match screen to its post-match screen."""
        self._background: BackgroundMatches | None = None

    def subscribe(self, callback: Callable[[SessionEvent], None]) -> None:
        self._subscribers.append(callback)

    def _emit(self, event: SessionEvent) -> None:
        for callback in self._subscribers:
            callback(event)

    @property
    def total_matches(self) -> int:
        return len(self.pairings)

    @property
    def current_index(self) -> int:
        """Index of the match about to be played, being played or just played."""
        return self.total_matches - 1 if self._screen_index is None else self._screen_index

    @property
    def parallel(self) -> bool:
        """Whether matches are played in the background too (an AI tournament)."""
        return (self.workers > 1 and self.mode is Mode.TOURNAMENT
                and all(isinstance(p, ThinkerPrototype) for p in self.players))

    @property
    def background_running(self) -> int:
        """How many matches are being played in the background."""
        return 0 if self._background is None else len(self._background.running)

    @property
    def background_pairings(self) -> list[tuple[str, str]]:
        """(White, Red) names of the matches being played in the background."""
        running = sorted(self._background.running) if self._background is not None else []
        return [(self.names[self.pairings[i][0]], self.names[self.pairings[i][1]])
                for i in running]

    @property
    def waiting(self) -> bool:
        """No match is left for the foreground, but background matches still run."""
        return self.state is SessionState.PRE_MATCH and self._screen_index is None

    def records_in_order(self) -> list[tuple[int, MatchRecord]]:
        """(pairing index, record) of the finished matches, in pairing order."""
        return sorted(zip(self.record_indices, self.records), key=lambda r: r[0])

    def _free_index(self, background: bool = False) -> int | None:
        """The lowest match not played, not being played and not kept for the screen;
        for the `background`, not one that failed there either."""
        bg = self._background
        taken = {*self.record_indices, self._screen_index, *(bg.running if bg else ()),
                 *(bg.failed if bg and background else ())}
        return next((i for i in range(self.total_matches) if i not in taken), None)

    @property
    def next_pairing(self) -> tuple[str, str]:
        """(White, Red) names of the next (or current) match."""
        white, red = self.pairings[min(self.current_index, self.total_matches - 1)]
        return self.names[white], self.names[red]

    def swap(self) -> None:
        """Swap colours of a two-player session; only before it starts."""
        if self.state is not SessionState.BEGIN or len(self.players) != 2:
            raise ConfigError("colours can only be swapped before a single match starts")
        self.players.reverse()
        self.names = tuple(reversed(self.names))

    def standings(self) -> list[Standing]:
        return standings(self.names, self.records, self.points)

    def again(self, swapped: bool = False) -> Session:
        """A new session of the same players and settings, colours as last played.

        Raises:
            ConfigError: `swapped` for more than two players.
        """
        players = list(self.players)
        if swapped:
            if len(players) != 2:
                raise ConfigError("only a single match can be played again swapped")
            players.reverse()
        return Session(players, self.config, self.points, self.runner_factory, self.complete,
                       self.workers, self.in_process)

    # ------------------------------------------------------------ screens
    @property
    def is_single(self) -> bool:
        """One match (two players), not a tournament."""
        return self.total_matches == 1

    @property
    def screen(self) -> Screen | None:
        """The screen of the current state; None where `settle()` moves on alone.

        A single match shows its pre-match screen before it starts (so colours
        can still be swapped) and no post-match screen (its final screen shows
        the result); a tournament starts at once and shows both between matches.
        """
        single = self.is_single
        return {SessionState.BEGIN: Screen.PRE_MATCH if single else None,
                SessionState.PRE_MATCH: None if single else Screen.PRE_MATCH,
                SessionState.IN_MATCH: Screen.MATCH,
                SessionState.POST_MATCH: None if single else Screen.POST_MATCH,
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
        """BEGIN -> PRE_MATCH."""
        self._expect(SessionState.BEGIN)
        self._emit(SessionStarted(self.mode, self.names, self.total_matches))
        self._to_pre_match()
        self._fill_background()

    def begin_match(self) -> Match:
        """PRE_MATCH -> IN_MATCH: make the next match (the caller advances it)."""
        self._expect(SessionState.PRE_MATCH)
        if self._screen_index is None:
            raise ConfigError("no match is left to play: waiting for the background")
        white, red = self.pairings[self._screen_index]
        self.match = Match(self.config, self.players[white], self.players[red],
                           self.runner_factory)
        self.match.names = (self.names[white], self.names[red])
        self.state = SessionState.IN_MATCH
        return self.match

    def update(self) -> None:
        """Record finished background matches without blocking; advance the
        current match (IN_MATCH -> POST_MATCH when it ends); END once nothing
        is left to wait for."""
        self._collect()
        if self.waiting and not self.background_running:
            self._to_end()
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
        """POST_MATCH -> PRE_MATCH, or END after the last match."""
        self._expect(SessionState.POST_MATCH)
        self.match = None
        self._collect()
        self._screen_index = self._free_index()
        if self._screen_index is not None:
            self._to_pre_match()
        elif self.background_running:
            self.state = SessionState.PRE_MATCH  # waiting for the background
        else:
            self._to_end()

    def close_match(self) -> None:
        """Stop the current match, if any, and release its players; matches
        played in the background go on."""
        if self.match is not None:
            self.match.close()

    def abort(self) -> None:
        """Stop the current match and the background ones, and release their players."""
        self.close_match()
        self._shutdown()

    def run(self, on_match: Callable[[Match], MatchResult] | None = None) -> list[Standing]:
        """Play every match, blocking; `on_match` plays one (default: Match.run)."""
        if self.state is SessionState.BEGIN:
            self.start()
        while self.state is not SessionState.END:
            if self.waiting:
                assert self._background is not None
                self._background.wait_any()
                self.update()
                continue
            match = self.begin_match()
            result = on_match(match) if on_match else match.run()
            self.end_match(result)
            self.next()
        return self.standings()

    def _to_pre_match(self) -> None:
        self.state = SessionState.PRE_MATCH
        assert self._screen_index is not None
        white, red = self.pairings[self._screen_index]
        self._emit(PreMatch(self._screen_index, self.names[white], self.names[red]))

    def _to_end(self) -> None:
        self.state = SessionState.END
        self._shutdown()
        self._emit(SessionEnded(tuple(self.standings())))

    def _record(self, index: int, result: MatchResult, background: bool = False) -> None:
        white, red = self.pairings[index]
        record = MatchRecord(white, red, result)
        self.records.append(record)
        self.record_indices.append(index)
        self._emit(PostMatch(index, record, background))

    # ------------------------------------------------------------ background
    def _fill_background(self) -> None:
        """Give free matches to the background until `workers` - 1 run there."""
        if not self.parallel:
            return
        if self._background is None:
            self._background = BackgroundMatches(
                self.players, self.names, self.config,  # type: ignore[arg-type]
                self.workers - 1, self.in_process)
        while self._background.has_room and (index := self._free_index(True)) is not None:
            self._background.submit(index, *self.pairings[index])

    def _collect(self) -> None:
        """Record the background matches that finished; hand out free ones."""
        if self._background is None:
            return
        for index, result in self._background.finished():
            if result is not None:  # a failed one is free again: the screen plays it
                self._record(index, result, background=True)
        if self.state not in (SessionState.BEGIN, SessionState.END):
            self._fill_background()
        if self.waiting and (free := self._free_index()) is not None:
            self._screen_index = free
            self._to_pre_match()

    def _shutdown(self) -> None:
        if self._background is not None:
            self._background.close()

    def _expect(self, state: SessionState) -> None:
        if self.state is not state:
            raise ConfigError(f"session is {self.state.value}, expected {state.value}")
