"""The joiner's end of an online match as a state machine, without I/O.

`JoinerState` is fed what the host says, decoded (`receive(msg, now)`), what
became of the connection (`lost()`, `malformed()`), the clock (`tick(now)`)
and this side's own moves (`move()`, `forfeit()`). Each call returns a
`Step`: the messages to send on the connection, whether to hang it up or open
a new one, and the events for the frontend (the `MatchEvent`s a local match
gives, and the `OnlineEvent`s below). Sockets, threads and thinkers are the
driver's business (csl_game.online.client.Joined); everything here can be
tested with made-up messages and a made-up clock.

It keeps its own board and trusts nothing the host says that this board
contradicts (csl_game.online.verify): every move must be the one due and
legal here, and a move of this side's seat the move this side sent; a
reconnect's welcome must extend the game as it stood; a result must agree
with the board. A contradiction ends the game here, as does a line that is
no message. A dropped connection is tried again (at once, then after 1, 2,
4, 8, 8 ... s, each ±25 %), within `retry_for` seconds of the loss; a
welcome alone does not end the loss, the game going on does (a move, or the
host heard from for `ALIVE_S` after the welcome). docs/online.md describes
the rules and the threat model.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum
from typing import Generic, TypeVar

from csl_game.engine import (
    BoardUpdated,
    ForfeitReason,
    InvalidPlay,
    MatchEvent,
    MatchOver,
    MatchStarted,
    MovePerformed,
    NextTurn,
    explain,
    move_text,
)
from csl_game.errors import InvalidMoveError, ProtocolError
from csl_game.model.board import Board, PColor, PShape, Winner
from csl_game.online.protocol import (
    ClientMessage,
    ErrorMsg,
    ForfeitMsg,
    Hello,
    HostMessage,
    MoveMsg,
    Paused,
    Ping,
    Played,
    Pong,
    Result,
    Resumed,
    Welcome,
)
from csl_game.online.verify import (
    Contradiction,
    check_ending,
    check_loser,
    check_names_and_settings,
    check_same_game,
    check_welcome,
    put_move,
)
from csl_game.thinker.api import MatchConfig

__all__ = ["JoinerState", "Phase", "Step", "OnlineEvent", "JoinerEvent", "Waiting", "GoingOn",
           "Lost", "Back", "Failed", "CONNECT_TIMEOUT", "IDLE_TIMEOUT", "ALIVE_S", "backoff",
           "is_definitive"]

CONNECT_TIMEOUT = 10.0
"""Seconds a connection has to be welcomed (the first, and each reconnect)."""
IDLE_TIMEOUT = 30.0
"""Seconds without a line from the host (it pings every 5 s) before it counts as gone."""
ALIVE_S = 10.0
"""After a reconnect's welcome, the host heard from this long later ends the
loss (twice the host's ping interval); silence this long, before that, is a
loss again."""
BACKOFF_CAP = 8.0
JITTER = 0.25
DEFINITIVE = ("wrong join code", "speaks protocol version", "board settings differ",
              "the host plays ", "the game is over", "this is a tournament broadcast")
"""What the host's refusals that another try cannot change say (a wrong code
or version, other settings or colour asked for, a game that ended meanwhile,
a broadcast asked for a seat); any other refusal (the seat still taken by
the lost connection, too many connections) is tried again within the window."""


# ---------------------------------------------------------------------- events
@dataclass(frozen=True)
class Waiting:
    """The game is paused: it waits for `name` to reconnect."""

    name: str


@dataclass(frozen=True)
class GoingOn:
    """The paused game goes on."""


@dataclass(frozen=True)
class Lost:
    """This end's connection dropped: it tries to connect again (at once, then
    backing off), within the reconnect time-out."""

    why: str


@dataclass(frozen=True)
class Back:
    """Connected again; the game goes on from where it stood."""


@dataclass(frozen=True)
class Failed:
    """The game cannot go on here (the host refused, contradicted the game,
    broke the protocol, or never came back)."""

    message: str


OnlineEvent = Waiting | GoingOn | Lost | Back | Failed
JoinerEvent = MatchEvent | OnlineEvent


class Phase(Enum):
    JOINING = "joining"
    """The first connection, waiting for its welcome."""
    PLAYING = "playing"
    """Welcomed on the connection open now."""
    AWAY = "away"
    """The connection was lost: waiting to try again."""
    REJOINING = "rejoining"
    """A new connection after a loss, waiting for its welcome."""
    OVER = "over"
    """The host's result came."""
    FAILED = "failed"


E = TypeVar("E")


@dataclass
class Step(Generic[E]):
    """What the driver does after a call: send `send` on the connection open
    now; close it (`hangup`); open a new one and say hello on it (`connect`,
    after closing the old one); hand `events` to the frontend."""

    send: list[ClientMessage] = field(default_factory=list)
    events: list[E] = field(default_factory=list)
    connect: bool = False
    hangup: bool = False

    def then(self, other: Step[E]) -> Step[E]:
        """This step followed by `other`."""
        self.send += other.send
        self.events += other.events
        self.connect = self.connect or other.connect
        self.hangup = self.hangup or other.hangup
        return self


def backoff(failures: int, rng: random.Random) -> float:
    """Seconds before the next try after `failures` tries without progress:
    0 (at once) after the loss itself, then 1, 2, 4, 8, 8 ..., each ±25 %."""
    if failures <= 0:
        return 0.0
    return min(BACKOFF_CAP, 2.0 ** (failures - 1)) * rng.uniform(1 - JITTER, 1 + JITTER)


def is_definitive(message: str) -> bool:
    """Whether the host's refusal is one another try cannot change."""
    text = message.lower()
    return any(words in text for words in DEFINITIVE)


class JoinerState:
    """An online match seen from the joining side, a player (`hello.role`
    'player') or a spectator, as a state machine without I/O."""

    def __init__(self, hello: Hello, now: float, *, retry_for: float = 120.0,
                 connect_timeout: float = CONNECT_TIMEOUT, idle_timeout: float = IDLE_TIMEOUT,
                 where: str = "the host", rng: random.Random | None = None) -> None:
        """The first connection is being opened now (the driver opens it)."""
        self.hello = hello
        self.where = where
        self.retry_for = retry_for
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self._rng = rng or random.Random()
        self.phase = Phase.JOINING
        self.color: PColor | None = None
        """This side's colour (None for a spectator, and until welcomed)."""
        self.config: MatchConfig | None = None
        self.board: Board | None = None
        self.names: tuple[str, str] = ("White", "Red")
        self.humans = (True, True)
        self.paused = False
        self.outcome: Result | None = None
        """The host's result, once the match is over."""
        self.failed: str | None = None
        self.refused = False
        """Whether the failure is one a new connection would not mend: a
        refusal, a contradiction or a broken protocol."""
        self.attempts = 1
        """Connections opened so far."""
        self._opened = now
        """When the connection open now was opened."""
        self._heard = now
        self._welcomed = now
        self._lost_at: float | None = None
        """When the loss not over yet began (kept through reconnects without progress)."""
        self._failures = 0
        self._next_at = now
        self._last_why = ""
        self._asked = -1
        """The ply this side sent a move for on the connection open now."""
        self._sent: dict[int, set[tuple[int, PShape]]] = {}
        """Every move this side sent, by ply (a move resent after a reconnect adds one)."""
        self._forfeits: dict[int, ForfeitReason] = {}

    # ------------------------------------------------------------------ reading
    @property
    def finished(self) -> bool:
        return self.phase in (Phase.OVER, Phase.FAILED)

    @property
    def ply(self) -> int:
        """Moves played (-1 until welcomed)."""
        return -1 if self.board is None else self.board.move_count

    @property
    def recovering(self) -> bool:
        """Whether a loss is not over yet (the window runs)."""
        return self._lost_at is not None

    @property
    def awaiting_move(self) -> bool:
        """Whether this side is to move now and has not sent its move on this connection."""
        board = self.board
        return (self.phase is Phase.PLAYING and self.color is not None and board is not None
                and board.turn is self.color and board.check_winner() is Winner.NONE
                and self._asked != board.move_count)

    # ------------------------------------------------------------------ inputs
    def receive(self, msg: HostMessage, now: float) -> Step[JoinerEvent]:
        """A message the host sent on the connection open now."""
        if self.phase not in (Phase.JOINING, Phase.PLAYING, Phase.REJOINING):
            return Step()
        self._heard = now
        try:
            step = self._receive(msg, now)
        except Contradiction as e:
            return self._fail(f"the host contradicted the game: {e}", refused=True)
        except ProtocolError as e:
            return self._fail(f"the host broke the protocol: {e}", refused=True)
        if self._lost_at is not None and self.phase is Phase.PLAYING and \
                now - self._welcomed >= ALIVE_S:
            self._recovered()
        return step

    def lost(self, why: str, now: float) -> Step[JoinerEvent]:
        """The connection open now ended (closed, reset, never connected)."""
        if self.phase is Phase.JOINING:
            return self._fail(f"cannot join {self.where}: {why}")
        if self.phase in (Phase.PLAYING, Phase.REJOINING):
            return self._lose(why, now)
        return Step()

    def malformed(self, problem: str, now: float) -> Step[JoinerEvent]:
        """The host sent a line that is no message of the protocol."""
        if self.phase not in (Phase.JOINING, Phase.PLAYING, Phase.REJOINING):
            return Step()
        return self._fail(f"the host sent what is no message of the protocol: {problem}",
                          refused=True)

    def tick(self, now: float) -> Step[JoinerEvent]:
        """Time passed: welcomes and lines overdue, the next try, the window's end."""
        if self.phase is Phase.JOINING and now - self._opened >= self.connect_timeout:
            return self._fail(f"cannot join {self.where}: no welcome within "
                              f"{self.connect_timeout:g} s")
        if self.phase is Phase.REJOINING and now >= self._welcome_due():
            return self._lose(f"no welcome within {now - self._opened:.0f} s", now,
                              hangup=True)
        if self.phase is Phase.PLAYING:
            silence = ALIVE_S if self._lost_at is not None else self.idle_timeout
            silence = min(silence, self.idle_timeout)
            if now - self._heard > silence:
                return self._lose(f"no word from the host for {silence:g} s", now, hangup=True)
        if self.phase is Phase.AWAY:
            assert self._lost_at is not None
            if now >= self._lost_at + self.retry_for:
                return self._gave_up()
            if now >= self._next_at:
                self.phase, self._opened, self._heard = Phase.REJOINING, now, now
                self.attempts += 1
                return Step(connect=True)
        return Step()

    def move(self, col: int, shape: PShape) -> Step[JoinerEvent]:
        """This side plays (checked here; the host judges it).

        Raises:
            InvalidMoveError: not this side's turn now, or the move is not legal.
        """
        if not self.awaiting_move:
            raise InvalidMoveError("it is not your turn")
        board = self.board
        assert board is not None
        problem = board.move_problem(shape, col)
        if problem is not None:
            raise InvalidMoveError(f"cannot play {move_text(col, shape)}: "
                                   f"{explain(problem, board)}", problem)
        ply = board.move_count
        self._asked = ply
        self._sent.setdefault(ply, set()).add((col, PShape(shape)))
        return Step(send=[MoveMsg(ply, col, PShape(shape))])

    def forfeit(self, reason: ForfeitReason, detail: str) -> Step[JoinerEvent]:
        """This side lost on this machine (its thinker failed here).

        Raises:
            InvalidMoveError: not this side's turn now.
        """
        if not self.awaiting_move:
            raise InvalidMoveError("it is not your turn")
        assert self.board is not None
        ply = self.board.move_count
        self._asked = ply
        self._forfeits[ply] = reason
        return Step(send=[ForfeitMsg(ply, reason, detail[:1900])])

    def next_deadline(self) -> float | None:
        """When tick() will next have something to do without any input, if ever."""
        if self.phase is Phase.JOINING:
            return self._opened + self.connect_timeout
        if self.phase is Phase.REJOINING:
            return self._welcome_due()
        if self.phase is Phase.AWAY:
            assert self._lost_at is not None
            return min(self._next_at, self._lost_at + self.retry_for)
        if self.phase is Phase.PLAYING:
            return self._heard + (ALIVE_S if self._lost_at is not None else self.idle_timeout)
        return None

    # ------------------------------------------------------------------ messages
    def _receive(self, msg: HostMessage, now: float) -> Step[JoinerEvent]:
        if isinstance(msg, Ping):
            return Step(send=[Pong()])
        if isinstance(msg, ErrorMsg):
            return self._refusal(msg.message, now)
        if isinstance(msg, Welcome):
            if self.phase is Phase.PLAYING:
                raise ProtocolError("a second welcome on one connection")
            return self._welcome(msg, now)
        if self.phase is not Phase.PLAYING:
            raise ProtocolError(f"a '{type(msg).__name__.lower()}' message before the welcome")
        if isinstance(msg, Played):
            step = Step(events=self._played(msg))
            self._recovered()
            return step
        if isinstance(msg, Result):
            return self._result(msg)
        if isinstance(msg, Paused):
            self.paused = True
            return Step(events=[Waiting(msg.name)])
        if isinstance(msg, Resumed):
            self.paused = False
            return Step(events=[GoingOn()])
        raise ProtocolError(f"a '{type(msg).__name__.lower()}' message")

    def _refusal(self, message: str, now: float) -> Step[JoinerEvent]:
        """The host's error line: it closes the connection after it."""
        if self.phase is Phase.JOINING:
            return self._fail(f"cannot join {self.where}: {message}", refused=True)
        if is_definitive(message):
            return self._fail(f"cannot rejoin {self.where}: {message}", refused=True)
        return self._lose(f"the host refused: {message}", now, hangup=True)

    def _welcome(self, msg: Welcome, now: float) -> Step[JoinerEvent]:
        check_welcome(self.hello, msg)
        events: list[JoinerEvent] = []
        if self.board is None:
            self.config, self.names, self.humans = msg.config, msg.names, msg.humans
            self.color = msg.color
            self.board = msg.config.new_board()
            events.append(MatchStarted(msg.config, *msg.names))
            for ply, (col, shape, _) in enumerate(msg.moves):
                put_move(self.board, ply, col, shape)
            events.append(BoardUpdated(self.board.copy()))
            events += self._next_turn()
        else:
            check_same_game(msg, self.board, self.config, self.names, self.humans, self.color)
            events.append(Back())
            for ply in range(self.board.move_count, len(msg.moves)):
                col, shape, elapsed = msg.moves[ply]
                events += self._played(Played(ply, col, shape, elapsed))
        self.phase, self._welcomed, self._asked = Phase.PLAYING, now, -1
        self.paused = bool(msg.waiting_for)
        if self.paused:
            events.append(Waiting(msg.waiting_for))
        return Step(events=events)

    def _played(self, msg: Played) -> list[JoinerEvent]:
        board = self.board
        assert board is not None
        color = board.turn
        if msg.ply == board.move_count and color is self.color:
            sent = self._sent.get(msg.ply, set())
            if (msg.col, msg.shape) not in sent:
                what = move_text(msg.col, msg.shape)
                raise Contradiction(
                    f"move {msg.ply + 1}, your side's ({color}), is {what}, which you never sent"
                    if not sent else f"move {msg.ply + 1}, your side's ({color}), is {what}, "
                    f"not the {' or '.join(move_text(c, s) for c, s in sorted(sent))} you sent")
        move = put_move(board, msg.ply, msg.col, msg.shape)
        return [MovePerformed(color, self.names[color], move, msg.elapsed),
                BoardUpdated(board.copy()), *self._next_turn()]

    def _next_turn(self) -> list[JoinerEvent]:
        assert self.board is not None
        if self.board.check_winner() is not Winner.NONE:
            return []
        color = self.board.turn
        return [NextTurn(color, self.names[color], self.humans[color])]

    def _result(self, msg: Result) -> Step[JoinerEvent]:
        board, config = self.board, self.config
        assert board is not None and config is not None
        result = msg.result
        check_names_and_settings(result, msg.config, self.names, config)
        loser = check_ending(board, result)
        if loser is not None:
            check_loser(board, loser, result.forfeit, result.resigned, self.color, self.humans,
                        self._forfeits)
        self.phase, self.outcome, self._lost_at = Phase.OVER, msg, None
        events: list[JoinerEvent] = []
        if result.forfeit is not None:
            assert loser is not None
            events.append(InvalidPlay(loser, self.names[loser], result.forfeit, result.detail))
        # hung up: nothing more comes, and the host learns the result arrived
        return Step(events=[*events, MatchOver(result)], hangup=True)

    # ------------------------------------------------------------------ losses
    def _welcome_due(self) -> float:
        due = self._opened + self.connect_timeout
        if self._lost_at is not None:
            due = min(due, self._lost_at + self.retry_for)
        return due

    def _lose(self, why: str, now: float, hangup: bool = False) -> Step[JoinerEvent]:
        """The connection open now is gone: try again later, or give up."""
        step: Step[JoinerEvent] = Step(hangup=hangup)
        if self.phase is Phase.PLAYING:
            step.events.append(Lost(why))
            if self._lost_at is None:
                self._lost_at, self._failures = now, 0
            else:
                self._failures += 1  # welcomed again, but the game did not go on
        else:
            self._failures += 1
        self._last_why = why
        self.phase = Phase.AWAY
        assert self._lost_at is not None
        if now >= self._lost_at + self.retry_for:
            return step.then(self._gave_up())
        self._next_at = now + backoff(self._failures, self._rng)
        return step.then(self.tick(now))

    def _recovered(self) -> None:
        self._lost_at, self._failures = None, 0

    def _gave_up(self) -> Step[JoinerEvent]:
        return self._fail(f"the host did not come back within {self.retry_for:g} s "
                          f"({self._last_why})")

    def _fail(self, message: str, refused: bool = False) -> Step[JoinerEvent]:
        self.phase, self.failed, self.refused = Phase.FAILED, message, refused
        return Step(events=[Failed(message)], hangup=True)
