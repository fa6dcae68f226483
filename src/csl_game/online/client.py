"""The joiner's and the spectator's end of an online match.

`Link` is one connection to a host (a non-blocking connect, the Hello, lines
in and out, pings answered, a silent host noticed). `Joined` is the match as
the joiner or a spectator sees it: it keeps a board of the host's moves
(each checked on it), turns the host's messages into the same `MatchEvent`s
a local match gives, plays the joiner's own side (a human's moves through
`submit_move()`, a thinker's through an ordinary runner, in a worker
process) and reconnects when the connection drops. `poll()` never blocks.
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from csl_game.engine import (
    Forfeit,
    MatchEvent,
    Player,
    RunnerFactory,
    ThinkerRunner,
    ThinkJob,
)
from csl_game.engine.judge import explain, judge, move_text
from csl_game.engine.match import (
    BoardUpdated,
    Human,
    InvalidPlay,
    MatchOver,
    MatchStarted,
    MovePerformed,
    NextTurn,
)
from csl_game.errors import InvalidMoveError, NetworkError
from csl_game.model.board import Board, Move, PColor, PShape
from csl_game.online.protocol import (
    ErrorMsg,
    ForfeitMsg,
    Hello,
    HostMessage,
    MoveMsg,
    Paused,
    Ping,
    Played,
    Pong,
    ProtocolError,
    Result,
    Resumed,
    Welcome,
    decode_host,
)
from csl_game.online.wire import Clock, Connection, is_refused
from csl_game.thinker.api import MatchConfig

__all__ = ["Link", "Joined", "OnlineEvent", "Waiting", "GoingOn", "Lost", "Back", "Failed"]

CONNECT_TIMEOUT = 10.0
IDLE_TIMEOUT = 30.0
"""Seconds without a line from the host (it pings every 5 s) before it counts as gone."""
RETRY_EVERY = 1.0


@dataclass(frozen=True)
class Waiting:
    """The game is paused: it waits for `name` to reconnect."""

    name: str


@dataclass(frozen=True)
class GoingOn:
    """The paused game goes on."""


@dataclass(frozen=True)
class Lost:
    """This end's connection dropped: it tries to connect again, once a second."""

    why: str


@dataclass(frozen=True)
class Back:
    """Connected again; the game goes on from where it stood."""


@dataclass(frozen=True)
class Failed:
    """The game cannot go on here (the host refused, or never came back)."""

    message: str


OnlineEvent = Waiting | GoingOn | Lost | Back | Failed


class Link:
    """One connection to a host: connect (without blocking), hello, messages."""

    def __init__(self, address: tuple[str, int], hello: Hello, clock: Clock = time.monotonic,
                 idle_timeout: float = IDLE_TIMEOUT,
                 decode: Callable[[bytes], Any] = decode_host) -> None:
        """Start connecting (the host name is looked up here, which may wait);
        `decode` parses the host's lines (a tournament broadcast's has more types).

        Raises:
            NetworkError: the host name is unknown.
        """
        self.address = address
        self._hello = hello
        self._clock = clock
        self._idle = idle_timeout
        self._decode = decode
        self.shown = f"{address[0]}:{address[1]}"
        try:
            family, kind, proto, _, target = socket.getaddrinfo(
                address[0], address[1], type=socket.SOCK_STREAM)[0]
        except (socket.gaierror, UnicodeError) as e:
            raise NetworkError(f"cannot connect to {self.shown}: unknown host "
                               f"({getattr(e, 'strerror', None) or e})") from None
        self._sock = socket.socket(family, kind, proto)
        self._sock.setblocking(False)
        self.started = clock()
        self.conn: Connection | None = None
        self.error: str | None = None
        """Why the link ended, once it did."""
        self.refused = False
        """Whether the host refused (an error line), rather than the network failing."""
        code = self._sock.connect_ex(target)
        if code not in (0, *_IN_PROGRESS):
            self._end(OSError(code, _strerror(code)))

    @property
    def closed(self) -> bool:
        return self.error is not None

    def poll(self) -> list[Any]:
        """The host's messages that arrived, without blocking ([] once closed):
        HostMessages, or what `decode` gives."""
        if self.error is not None:
            return []
        if self.conn is None and not self._connected():
            return []
        assert self.conn is not None
        messages: list[Any] = []
        for line in self.conn.read():
            try:
                msg = self._decode(line)
            except ProtocolError as e:
                self._end(None, f"the host sent what is no message of the protocol: {e}")
                return messages
            if isinstance(msg, Ping):
                self.conn.send(Pong())
            elif isinstance(msg, ErrorMsg):
                self.refused = True
                self._end(None, msg.message)
                return messages
            else:
                messages.append(msg)
        if self.conn.closed:
            self._end(None, "the host closed the connection")
        elif self._clock() - self.conn.heard > self._idle:
            self._end(None, f"no word from the host for {self._idle:g} s")
        return messages

    def send(self, msg: MoveMsg | ForfeitMsg) -> None:
        if self.conn is not None and self.error is None:
            self.conn.send(msg)

    def wait(self, timeout: float) -> None:
        """Block until the host may have news, at most `timeout` seconds."""
        if self.error is not None:
            time.sleep(timeout)
            return
        writing = [self._sock] if self.conn is None or self.conn.pending else []
        try:
            select.select([self._sock], writing, [], timeout)
        except (OSError, ValueError):
            time.sleep(min(timeout, 0.01))

    def close(self) -> None:
        if self.error is None:
            self.error = "closed"
        if self.conn is not None:
            self.conn.flush()
            self.conn.close()
        else:
            self._sock.close()

    def _connected(self) -> bool:
        try:
            _, writable, _ = select.select([], [self._sock], [], 0)
        except (OSError, ValueError) as e:
            self._end(e if isinstance(e, OSError) else None, "the connection failed")
            return False
        if not writable:
            if self._clock() - self.started > CONNECT_TIMEOUT:
                self._end(None, f"no answer within {CONNECT_TIMEOUT:g} s")
            return False
        code = self._sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code:
            self._end(OSError(code, _strerror(code)))
            return False
        self.conn = Connection(self._sock, self.shown, self._clock)
        self.conn.send(self._hello)
        return True

    def _end(self, error: OSError | None, why: str = "") -> None:
        if error is not None:
            why = ("connection refused (is the host listening there?)" if is_refused(error)
                   else error.strerror or str(error))
        self.error = why
        if self.conn is not None:
            self.conn.close()
        else:
            self._sock.close()


_IN_PROGRESS = {getattr(__import__("errno"), n, -1) for n in
                ("EINPROGRESS", "EWOULDBLOCK", "EAGAIN", "WSAEWOULDBLOCK", "EALREADY")}


def _strerror(code: int) -> str:
    import os

    try:
        return os.strerror(code)
    except ValueError:
        return f"error {code}"


class Joined:
    """An online match seen from the joining side: a player, or a spectator
    (`player` None). `make_player` makes this side's player once the host's
    settings are known (a Human, or a ThinkerPrototype for them).
    """

    def __init__(self, address: tuple[str, int], hello: Hello,
                 make_player: Callable[[MatchConfig], Player] | None = None,
                 runner_factory: RunnerFactory | None = None, retry_for: float = 120.0,
                 clock: Clock = time.monotonic) -> None:
        self._address = address
        self._hello = hello
        self._make_player = make_player
        self._factory = runner_factory
        self._retry_for = retry_for
        self._clock = clock
        self.link = Link(address, hello, clock)
        self.color: PColor | None = None
        """This side's colour (None for a spectator, and until welcomed)."""
        self.config: MatchConfig | None = None
        self.board: Board | None = None
        self.names: tuple[str, str] = ("White", "Red")
        self.humans = (True, True)
        self.outcome: Result | None = None
        """The host's result, once the match is over."""
        self.failed: str | None = None
        self.paused = False
        self._player: Player | None = None
        self._runner: ThinkerRunner | None = None
        self._job: ThinkJob | None = None
        self._lost_at: float | None = None
        self._sent_ply = -1

    # ------------------------------------------------------------------ reading
    @property
    def finished(self) -> bool:
        """Whether nothing more will happen: the result came, or the game failed."""
        return self.outcome is not None or self.failed is not None

    @property
    def awaiting_human(self) -> bool:
        """Whether this side's human is to move now (submit_move() takes it)."""
        return self._my_turn() and isinstance(self._player, Human) and \
            self._sent_ply != self._ply()

    def name(self, color: PColor) -> str:
        return self.names[color]

    # ------------------------------------------------------------------ driving
    def poll(self) -> list[MatchEvent | OnlineEvent]:
        """What happened since the last call, without blocking."""
        if self.finished:
            return []
        events: list[MatchEvent | OnlineEvent] = []
        if self._lost_at is not None:
            self._retry(events)
            return events
        for msg in self.link.poll():
            events += self._apply(msg)
            if self.finished:
                return events
        if self.link.closed:
            self._drop(events)
        else:
            self._play_ai()
        return events

    def wait(self, timeout: float) -> None:
        """Block until something may have happened, at most `timeout` seconds."""
        if self._job is not None:
            timeout = min(timeout, 0.02)
        self.link.wait(timeout)

    def submit_move(self, col: int, shape: PShape) -> None:
        """This side's human plays (sent to the host, which judges it).

        Raises:
            InvalidMoveError: not this human's turn, or the move is not legal.
        """
        if not self.awaiting_human:
            raise InvalidMoveError("it is not your turn")
        assert self.board is not None
        problem = self.board.move_problem(shape, col)
        if problem is not None:
            raise InvalidMoveError(f"cannot play {move_text(col, shape)}: "
                                   f"{explain(problem, self.board)}", problem)
        self._sent_ply = self._ply()
        self.link.send(MoveMsg(self._ply(), col, PShape(shape)))

    def close(self) -> None:
        """Stop thinking, release this side's thinker and close the connection."""
        self._cancel()
        if self._runner is not None:
            self._runner.close()
            self._runner = None
        self.link.close()

    # ------------------------------------------------------------------ messages
    def _apply(self, msg: HostMessage) -> list[MatchEvent | OnlineEvent]:
        try:
            if isinstance(msg, Welcome):
                return self._welcome(msg)
            if self.board is None:
                raise ProtocolError("a message before the welcome")
            if isinstance(msg, Played):
                return self._played(msg)
            if isinstance(msg, Result):
                return self._result(msg)
        except ProtocolError as e:
            self.failed = f"the host sent a wrong message: {e}"
            return [Failed(self.failed)]
        if isinstance(msg, Paused):
            self.paused = True
            return [Waiting(msg.name)]
        if isinstance(msg, Resumed):
            self.paused = False
            return [GoingOn()]
        return []

    def _welcome(self, msg: Welcome) -> list[MatchEvent | OnlineEvent]:
        events: list[MatchEvent | OnlineEvent] = []
        if self.board is None:
            self.config, self.names, self.humans = msg.config, msg.names, msg.humans
            self.color = msg.color
            self.board = msg.config.new_board()
            if self._make_player is not None:
                self._player = self._make_player(msg.config)
            events += [MatchStarted(msg.config, *msg.names)]
            for ply, (col, shape, _) in enumerate(msg.moves):
                self._put(ply, col, shape)
            events.append(BoardUpdated(self.board.copy()))
            events += self._next_turn()
        else:
            if msg.config != self.config or msg.names != self.names:
                raise ProtocolError("the host's game is not the one joined before")
            events.append(Back())
            for ply in range(self.board.move_count, len(msg.moves)):
                col, shape, elapsed = msg.moves[ply]
                events += self._played(Played(ply, col, shape, elapsed))
        self.paused = bool(msg.waiting_for)
        if self.paused:
            events.append(Waiting(msg.waiting_for))
        return events

    def _put(self, ply: int, col: int, shape: PShape) -> Move:
        assert self.board is not None
        if ply != self.board.move_count:
            raise ProtocolError(f"move {ply} came when move {self.board.move_count} was due")
        problem = self.board.move_problem(shape, col)
        if problem is not None:
            raise ProtocolError(f"an illegal move {move_text(col, shape)}: {problem}")
        row = self.board.do_move(shape, col)
        piece = self.board[row, col]
        assert piece is not None
        return Move(row, col, piece)

    def _played(self, msg: Played) -> list[MatchEvent | OnlineEvent]:
        assert self.board is not None
        color = self.board.turn
        move = self._put(msg.ply, msg.col, msg.shape)
        self._cancel()
        events: list[MatchEvent | OnlineEvent] = [
            MovePerformed(color, self.names[color], move, msg.elapsed),
            BoardUpdated(self.board.copy())]
        return events + self._next_turn()

    def _next_turn(self) -> list[MatchEvent | OnlineEvent]:
        assert self.board is not None
        if self.board.check_winner().name != "NONE":
            return []
        color = self.board.turn
        return [NextTurn(color, self.names[color], self.humans[color])]

    def _result(self, msg: Result) -> list[MatchEvent | OnlineEvent]:
        self._cancel()
        result = msg.result
        self.outcome = msg
        events: list[MatchEvent | OnlineEvent] = []
        if result.forfeit is not None:
            color = result.winner.color
            loser = PColor.WHITE if color is PColor.RED else PColor.RED
            events.append(InvalidPlay(loser, self.names[loser], result.forfeit, result.detail))
        return [*events, MatchOver(result)]

    # ------------------------------------------------------------------ own side
    def _ply(self) -> int:
        return -1 if self.board is None else self.board.move_count

    def _my_turn(self) -> bool:
        return (self.board is not None and self.color is not None and not self.finished
                and self.board.turn is self.color and not self.link.closed
                and self._lost_at is None and self.board.check_winner().name == "NONE")

    def _play_ai(self) -> None:
        if isinstance(self._player, Human) or self._player is None or not self._my_turn():
            return
        assert self.board is not None
        if self._job is None:
            if self._sent_ply == self._ply():
                return
            if self._runner is None:
                factory = self._factory
                if factory is None:
                    from csl_game.engine import ThreadRunner
                    factory = ThreadRunner
                self._runner = factory(self._player, lambda _text: None)  # type: ignore[arg-type]
            self._job = self._runner.start(self.board)
        outcome = self._job.poll()
        if outcome is None:
            return
        self._job = None
        self._sent_ply = self._ply()
        verdict = judge(outcome, self.board)
        if isinstance(verdict, Forfeit):
            self.link.send(ForfeitMsg(self._ply(), verdict.reason, verdict.detail[:1900]))
        else:
            self.link.send(MoveMsg(self._ply(), verdict.column, verdict.shape))

    def _cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None

    # ------------------------------------------------------------------ reconnecting
    def _drop(self, events: list[MatchEvent | OnlineEvent]) -> None:
        why = self.link.error or "the connection dropped"
        self._cancel()
        if self.board is None:  # never welcomed: nothing to come back to
            self.failed = f"cannot join {self.link.shown}: {why}"
            events.append(Failed(self.failed))
            return
        self._lost_at = self._clock()
        self._sent_ply = -1  # a move sent may not have arrived: the host's welcome says
        events.append(Lost(why))
        self.link = Link(self._address, self._hello, self._clock)

    def _retry(self, events: list[MatchEvent | OnlineEvent]) -> None:
        assert self._lost_at is not None
        for msg in self.link.poll():
            if isinstance(msg, Welcome):
                self._lost_at = None
                events += self._apply(msg)
                return
        if not self.link.closed:
            return
        if self.link.refused or self._clock() - self._lost_at > self._retry_for:
            self.failed = (f"cannot rejoin {self.link.shown}: {self.link.error}"
                           if self.link.refused else
                           f"the host did not come back within {self._retry_for:g} s")
            events.append(Failed(self.failed))
            return
        if self._clock() - self.link.started >= RETRY_EVERY:  # at most once a RETRY_EVERY
            self.link = Link(self._address, self._hello, self._clock)
