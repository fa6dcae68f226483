"""An online game as the window's board sees it, whichever end the window is.

The board scene of an online game shows a `Table`: the board, the players,
whose turn it is, the events of the match, and a `Notice` when the game
cannot go on for now (the friend's connection dropped, this end's did, the
game failed). `HostTable` is the hosting end (a `Host` running the ordinary
match; the local player a human or an AI), `JoinedTable` the joining player
or a spectator (a `Joined` following the host's match). Neither holds a rule
of the game: the host's match judges, the joiner's board only follows it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum

from csl_game.engine import Human, MatchEvent, MatchOver, MatchResult, MatchStarted, Player
from csl_game.errors import CslError
from csl_game.model.board import Board, PColor, PShape
from csl_game.online.client import Back, Failed, GoingOn, Joined, Lost, Waiting
from csl_game.online.door import TurnedAway
from csl_game.online.host import (
    ClaimOffered,
    Host,
    PlayerBack,
    PlayerJoined,
    PlayerLeft,
)
from csl_game.online.protocol import Hello
from csl_game.online.records import write_result
from csl_game.thinker.api import MatchConfig

__all__ = ["Action", "Notice", "WaitScreen", "Table", "HostTable", "JoinedTable",
           "settings_text"]

Happening = MatchEvent | str
"""What a table reports: the match's events, and lines for the log."""


class Action(Enum):
    """What the user may do about a notice (each a button)."""

    CLAIM = "Claim the game"
    KEEP_WAITING = "Keep waiting"
    RECONNECT = "Reconnect"
    REVIEW = "Review"
    HOME = "Home"


@dataclass(frozen=True)
class Notice:
    """Shown over the board while the game cannot go on."""

    title: str
    detail: str = ""
    actions: tuple[Action, ...] = ()


@dataclass(frozen=True)
class WaitScreen:
    """What the screen before the game says of an end that tells it itself
    (a server's game: what the server has said so far)."""

    title: str
    lines: tuple[tuple[str, str], ...]
    """(caption, text) shown large: what to give a friend."""
    status: str
    note: str = ""


def settings_text(mc: MatchConfig, ais: bool = True) -> str:
    """The board, the pieces and (`ais`: an AI may play) an AI's time a move."""
    return (f"{mc.rows} x {mc.cols} board, {mc.win_sequence} in a row, {mc.round_pieces} round "
            f"and {mc.square_pieces} square pieces each"
            + (f", AIs {mc.time_limit_ms} ms a move" if ais else ""))


class Table(ABC):
    """One online game from this window's end."""

    local: PColor | None
    """The colour this window plays (None: watching)."""

    @property
    @abstractmethod
    def config(self) -> MatchConfig: ...

    @property
    @abstractmethod
    def board(self) -> Board:
        """The game's position (once the game has begun)."""

    @property
    @abstractmethod
    def ready(self) -> bool:
        """Whether the game has begun: the board can be shown."""

    @abstractmethod
    def poll(self) -> list[Happening]:
        """Serve the network; what happened since the last call (never blocks)."""

    @abstractmethod
    def name(self, color: PColor) -> str: ...

    @abstractmethod
    def is_human(self, color: PColor) -> bool: ...

    @property
    @abstractmethod
    def awaiting_human(self) -> bool:
        """Whether this window's human is to move now."""

    @abstractmethod
    def submit_move(self, col: int, shape: PShape) -> None:
        """This window's human plays (InvalidMoveError when not legal now)."""

    @property
    @abstractmethod
    def notice(self) -> Notice | None: ...

    @abstractmethod
    def act(self, action: Action) -> None:
        """Do what a notice's button says (Home is the window's business)."""

    @property
    @abstractmethod
    def result(self) -> MatchResult | None: ...

    @property
    @abstractmethod
    def failed(self) -> str | None:
        """Why the game cannot go on here, once it cannot."""

    @abstractmethod
    def thinking_time(self) -> float:
        """Seconds the player to move has had (game clock: pauses left out)."""

    @abstractmethod
    def close(self) -> None: ...

    def tick(self, dt: float) -> None:  # noqa: B027 - most ends keep no clock of their own
        """Let `dt` seconds of the window's time pass (for clocks kept here)."""

    @property
    def can_resign(self) -> bool:
        """Whether this window's player may give the game up now (a direct
        game has no resignation in its protocol: leaving it is one)."""
        return False

    def resign(self) -> None:  # noqa: B027 - only a server's game is resigned
        """This window's player gives the game up (where `can_resign`)."""

    opponent = "Your friend"
    """How the other side is named (a friend's window, for a direct game)."""

    def waiting(self) -> WaitScreen | None:
        """What the screen before the game shows now (None: the lines it was given)."""
        return None

    def kind(self, color: PColor) -> str:
        """How the player's panel names who plays: a friend is not just 'Human'."""
        human = self.is_human(color)
        if self.local is None:
            return "Human" if human else "AI"
        if color is self.local:
            return "You" if human else "Your AI"
        return self.opponent if human else f"{self.opponent}'s AI"


class HostTable(Table):
    """The hosting end: the match runs here, and the friend's moves arrive."""

    def __init__(self, host: Host, local: Player, results_file: str = "") -> None:
        self.host = host
        self.local = host.local_color
        self._player = local
        self._results_file = results_file
        self._events: list[Happening] = []
        self._keep_until = 0.0
        """Away time until which the claim is not offered again (Keep waiting)."""
        host.subscribe(self._on_match_event)

    def _on_match_event(self, event: MatchEvent) -> None:
        self._events.append(event)

    @property
    def config(self) -> MatchConfig:
        return self.host.config

    @property
    def board(self) -> Board:
        assert self.host.match is not None, "a player has joined"
        return self.host.match.board

    @property
    def ready(self) -> bool:
        return self.host.match is not None

    def poll(self) -> list[Happening]:
        for event in self.host.poll():
            line = _host_line(event)
            if line:
                self._events.append(line)
        happened, self._events = self._events, []
        for done in list(happened):
            if isinstance(done, MatchOver):
                happened += self._record(done.result)
        return happened

    def _record(self, result: MatchResult) -> list[Happening]:
        if not self._results_file:
            return []
        try:
            write_result(self._results_file, self.host, self._player, result)
        except CslError as e:
            return [f"The result was not written: {e}"]
        return [f"Result written to {self._results_file}"]

    def name(self, color: PColor) -> str:
        names = self.host.names
        return names[color] if names is not None else str(color)

    def is_human(self, color: PColor) -> bool:
        if color is self.local:
            return isinstance(self._player, Human)
        return self.host.seat is not None and not self.host.seat.timed

    @property
    def awaiting_human(self) -> bool:
        match = self.host.match
        return match is not None and match.awaiting_human and not self.host.paused

    def submit_move(self, col: int, shape: PShape) -> None:
        assert self.host.match is not None
        self.host.match.submit_move(col, shape)

    @property
    def notice(self) -> Notice | None:
        host = self.host
        if not host.paused or host.seat is None:
            return None
        name = host.seat.name
        if host.claimable and host.away_for() >= self._keep_until:
            return Notice(f"{name} has not come back",
                          f"Away for {host.away_for():.0f} s: claim the game (a win by "
                          f"{name}'s forfeit), or keep waiting",
                          (Action.CLAIM, Action.KEEP_WAITING))
        return Notice(f"Waiting for {name} to reconnect",
                      "The connection dropped; the game clock is stopped")

    def act(self, action: Action) -> None:
        if action is Action.CLAIM and self.host.claimable:
            self.host.claim()
        elif action is Action.KEEP_WAITING:
            self._keep_until = self.host.away_for() + self.host.limits.reconnect_timeout

    @property
    def result(self) -> MatchResult | None:
        match = self.host.match
        return match.result if match is not None else None

    @property
    def failed(self) -> str | None:
        return None

    def thinking_time(self) -> float:
        match = self.host.match
        return match.thinking_time() if match is not None else 0.0

    def close(self) -> None:
        self.host.close(linger=0.5)


def _host_line(event: object) -> str:
    if isinstance(event, PlayerJoined):
        return f"{event.name} joined, playing {event.color}"
    if isinstance(event, PlayerLeft):
        return f"The connection to {event.name} dropped: waiting for {event.name} to reconnect"
    if isinstance(event, PlayerBack):
        return f"{event.name} is back: the game goes on"
    if isinstance(event, ClaimOffered):
        return (f"{event.name} has been away {event.seconds:.0f} s: you may claim the game, "
                "or keep waiting")
    if isinstance(event, TurnedAway):
        return event.text[0].upper() + event.text[1:]
    return ""


class JoinedTable(Table):
    """The joining player's end, or a spectator's: the host's match, followed."""

    def __init__(self, address: tuple[str, int], hello: Hello, retry_for: float = 120.0,
                 make: type[Joined] = Joined) -> None:
        """Start connecting (the host's name is looked up here).

        Raises:
            NetworkError: the host's name is unknown.
        """
        self.address = address
        self._hello = hello
        self._retry_for = retry_for
        self._make = make
        self.joined = self._connect()
        self.local: PColor | None = None
        self._notice: Notice | None = None
        self._turn = -1
        self._spent = 0.0

    def _connect(self) -> Joined:
        player = (lambda _mc: Human()) if self._hello.role == "player" else None
        return self._make(self.address, self._hello, player, retry_for=self._retry_for)

    @property
    def shown(self) -> str:
        host, port = self.address
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    @property
    def config(self) -> MatchConfig:
        assert self.joined.config is not None, "the host has welcomed us"
        return self.joined.config

    @property
    def board(self) -> Board:
        assert self.joined.board is not None, "the host has welcomed us"
        return self.joined.board

    @property
    def ready(self) -> bool:
        return self.joined.board is not None

    def poll(self) -> list[Happening]:
        happened: list[Happening] = []
        for event in self.joined.poll():
            if isinstance(event, MatchEvent):
                if isinstance(event, MatchStarted):
                    self.local, self._notice = self.joined.color, None
                    mine = (f"; you play {self.local}" if self.local is not None
                            else " (watching)")
                    happened.append(f"The host's game: {settings_text(event.config)}{mine}")
                happened.append(event)
                continue
            line = self._online(event)
            if line:
                happened.append(line)
        return happened

    def _online(self, event: Waiting | GoingOn | Lost | Back | Failed) -> str:
        if isinstance(event, Waiting):
            self._notice = Notice(f"Waiting for {event.name} to reconnect",
                                  "The connection dropped; the game clock is stopped")
            return f"The game is paused: waiting for {event.name} to reconnect"
        if isinstance(event, GoingOn | Back):
            self._notice = None
            return "The game goes on" if isinstance(event, GoingOn) else "Connected again"
        if isinstance(event, Lost):
            self._notice = Notice("Connection lost \u2014 reconnecting\u2026",
                                  f"{event.why}; trying again for a while",
                                  (Action.RECONNECT, Action.HOME))
            return f"Connection lost ({event.why}): reconnecting..."
        actions = (Action.RECONNECT, Action.HOME) if not self.joined.refused \
            else (Action.HOME,)
        self._notice = Notice("The game cannot go on", event.message, actions)
        return event.message

    def name(self, color: PColor) -> str:
        return self.joined.names[color]

    def is_human(self, color: PColor) -> bool:
        return self.joined.humans[color]

    @property
    def awaiting_human(self) -> bool:
        return self.joined.awaiting_human and not self.joined.paused

    def submit_move(self, col: int, shape: PShape) -> None:
        self.joined.submit_move(col, shape)

    @property
    def notice(self) -> Notice | None:
        return self._notice if self.result is None else None

    def act(self, action: Action) -> None:
        if action is Action.RECONNECT:
            self.reconnect()

    def reconnect(self) -> None:
        """Start again from a new connection: the host sends the whole game."""
        self.joined.close()
        self.joined = self._connect()
        self._notice = Notice(f"Connecting to {self.shown}\u2026", "", (Action.HOME,))

    @property
    def result(self) -> MatchResult | None:
        outcome = self.joined.outcome
        return outcome.result if outcome is not None else None

    @property
    def failed(self) -> str | None:
        return self.joined.failed

    def tick(self, dt: float) -> None:
        turn = self.joined.board.move_count if self.joined.board is not None else -1
        if turn != self._turn:
            self._turn, self._spent = turn, 0.0
        elif not self.joined.paused and self._notice is None:
            self._spent += dt

    def thinking_time(self) -> float:
        return self._spent

    def close(self) -> None:
        self.joined.close()
