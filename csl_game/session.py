"""Sessions: the mode picked by the number of AI players, and tournaments.

A `Session` is a state machine (BEGIN, PRE_MATCH, IN_MATCH, POST_MATCH, END)
over a list of matches. Frontends render its states and call its methods;
the console's blocking `run()` drives the same methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from csl_game.board import PColor, Winner
from csl_game.errors import ConfigError
from csl_game.match import Human, Match, MatchResult, Player
from csl_game.runner import RunnerFactory, ThreadRunner
from csl_game.thinker import MatchConfig

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


def round_robin(n: int, complete: bool = True) -> list[tuple[int, int]]:
    """Pairings (white, red) by the circle method; a dummy sits out odd counts.

    With `complete`, a second leg follows with the colours swapped, so each
    ordered pair plays once: n(n-1) matches.
    """
    ids: list[int | None] = list(range(n))
    if n % 2:
        ids.append(None)
    size = len(ids)
    first_leg: list[tuple[int, int]] = []
    for rnd in range(size - 1):
        for i in range(size // 2):
            a, b = ids[i], ids[size - 1 - i]
            if a is None or b is None:
                continue
            # alternate who is White so nobody is White every round
            first_leg.append((a, b) if (rnd + i) % 2 == 0 else (b, a))
        ids = [ids[0], ids[-1], *ids[1:-1]]
    if not complete:
        return first_leg
    return first_leg + [(r, w) for w, r in first_leg]


@dataclass(frozen=True)
class Points:
    """Points per win, draw and loss."""

    win: int = 3
    draw: int = 1
    loss: int = 0


@dataclass(frozen=True)
class MatchRecord:
    """A finished match of a session, by player index."""

    white: int
    red: int
    result: MatchResult


@dataclass(frozen=True)
class Standing:
    """A row of the standings table."""

    position: int
    """1-based; players with equal points share a position."""
    player: int
    name: str
    points: int
    wins: int
    draws: int
    losses: int

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses


def standings(names: Sequence[str], records: Sequence[MatchRecord],
              points: Points = Points()) -> list[Standing]:
    """Standings sorted by points (descending); equal points share a position."""
    tally = [[0, 0, 0] for _ in names]  # wins, draws, losses
    for rec in records:
        color = rec.result.winner.color
        if color is None:
            tally[rec.white][1] += 1
            tally[rec.red][1] += 1
        else:
            winner, loser = ((rec.white, rec.red) if color is PColor.WHITE
                             else (rec.red, rec.white))
            tally[winner][0] += 1
            tally[loser][2] += 1
    scored = [(w * points.win + d * points.draw + lo * points.loss, i)
              for i, (w, d, lo) in enumerate(tally)]
    scored.sort(key=lambda s: (-s[0], s[1]))
    table: list[Standing] = []
    for rank, (pts, i) in enumerate(scored):
        position = table[-1].position if table and table[-1].points == pts else rank + 1
        table.append(Standing(position, i, names[i], pts, *tally[i]))
    return table


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
    """

    def __init__(self, players: Sequence[Player], config: MatchConfig,
                 points: Points = Points(), runner_factory: RunnerFactory = ThreadRunner,
                 complete: bool = True) -> None:
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
        self.state = SessionState.BEGIN
        self.records: list[MatchRecord] = []
        self.match: Match | None = None
        self._subscribers: list[Callable[[SessionEvent], None]] = []

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
        done = len(self.records)
        return done if self.state in (SessionState.BEGIN, SessionState.PRE_MATCH,
                                      SessionState.IN_MATCH) else done - 1

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
        return Session(players, self.config, self.points, self.runner_factory, self.complete)

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
        return None if screen is None else defaults.get(screen)

    def timeout(self, policy: ScreenPolicy) -> float | None:
        """Seconds the current screen stays before its default choice is taken.

        None: it waits for the user. A single match always waits (unless
        `policy.auto`); tournament screens wait as the policy says.
        """
        screen = self.screen
        if screen is None or screen is Screen.MATCH:
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

    def begin_match(self) -> Match:
        """PRE_MATCH -> IN_MATCH: make the next match (the caller advances it)."""
        self._expect(SessionState.PRE_MATCH)
        white, red = self.pairings[len(self.records)]
        self.match = Match(self.config, self.players[white], self.players[red],
                           self.runner_factory)
        self.match.names = (self.names[white], self.names[red])
        self.state = SessionState.IN_MATCH
        return self.match

    def update(self) -> None:
        """Advance the current match; IN_MATCH -> POST_MATCH when it ends."""
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
        white, red = self.pairings[len(self.records)]
        record = MatchRecord(white, red, result)
        self.records.append(record)
        self.state = SessionState.POST_MATCH
        self._emit(PostMatch(len(self.records) - 1, record))

    def next(self) -> None:
        """POST_MATCH -> PRE_MATCH, or END after the last match."""
        self._expect(SessionState.POST_MATCH)
        self.match = None
        if len(self.records) < self.total_matches:
            self._to_pre_match()
        else:
            self.state = SessionState.END
            self._emit(SessionEnded(tuple(self.standings())))

    def abort(self) -> None:
        """Stop the current match, if any, and release its players."""
        if self.match is not None:
            self.match.close()

    def run(self, on_match: Callable[[Match], MatchResult] | None = None) -> list[Standing]:
        """Play every match, blocking; `on_match` plays one (default: Match.run)."""
        if self.state is SessionState.BEGIN:
            self.start()
        while self.state is not SessionState.END:
            match = self.begin_match()
            result = on_match(match) if on_match else match.run()
            self.end_match(result)
            self.next()
        return self.standings()

    def _to_pre_match(self) -> None:
        self.state = SessionState.PRE_MATCH
        white, red = self.pairings[len(self.records)]
        self._emit(PreMatch(len(self.records), self.names[white], self.names[red]))

    def _expect(self, state: SessionState) -> None:
        if self.state is not state:
            raise ConfigError(f"session is {self.state.value}, expected {state.value}")


def winner_text(result: MatchResult) -> str:
    """'Winner is Red (MinimaxD3)' or "It's a draw"."""
    color = result.winner.color
    if result.winner is Winner.DRAW or color is None:
        return "It's a draw"
    return f"Winner is {color} ({result.winner_name})"
