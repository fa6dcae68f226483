"""The joiner's and the spectator's end of an online match: the sockets.

`Link` is one connection to a host (a non-blocking connect, the Hello, lines
in decoded, messages out). `Joined` drives the joiner's state machine
(csl_game.online.joiner.JoinerState, which holds the rules: its own board,
what it checks of the host, when to reconnect) with a `Link` and the clock,
and plays this side's own player (a human's moves through `submit_move()`,
a thinker's through an ordinary runner, in a worker process). `poll()` never
blocks.
"""

from __future__ import annotations

import random
import select
import socket
import time
from collections.abc import Callable
from typing import Any

from csl_game.engine import (
    Forfeit,
    Human,
    MatchEvent,
    Player,
    RunnerFactory,
    ThinkerRunner,
    ThinkJob,
    judge,
)
from csl_game.errors import InvalidMoveError, NetworkError
from csl_game.model.board import Board, PColor, PShape
from csl_game.online.joiner import (
    CONNECT_TIMEOUT,
    IDLE_TIMEOUT,
    Back,
    Failed,
    GoingOn,
    JoinerEvent,
    JoinerState,
    Lost,
    OnlineEvent,
    Step,
    Waiting,
)
from csl_game.online.protocol import (
    ClientMessage,
    ErrorMsg,
    Hello,
    ProtocolError,
    Result,
    decode_host,
)
from csl_game.online.wire import Clock, Connection, is_refused
from csl_game.thinker.api import MatchConfig

__all__ = ["Link", "Joined", "OnlineEvent", "Waiting", "GoingOn", "Lost", "Back", "Failed"]


class Link:
    """One connection to a host: connect (without blocking), hello, messages."""

    def __init__(self, address: tuple[str, int], hello: Hello, clock: Clock = time.monotonic,
                 idle_timeout: float | None = None,
                 decode: Callable[[bytes], Any] = decode_host) -> None:
        """Start connecting (the host name is looked up here, which may wait);
        `decode` parses the host's lines (a tournament broadcast's has more
        types); `idle_timeout`, when given, ends a link the host said nothing
        on for that long (the state machines keep their own time otherwise).

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
        self.broken = False
        """Whether the host sent a line that is no message (`error` says what)."""
        code = self._sock.connect_ex(target)
        if code not in (0, *_IN_PROGRESS):
            self._end(OSError(code, _strerror(code)))

    @property
    def closed(self) -> bool:
        return self.error is not None

    def poll(self) -> list[Any]:
        """The host's messages that arrived, without blocking ([] once closed):
        HostMessages (pings and the error line included: the caller answers),
        or what `decode` gives. An error line ends the link (`refused`), as
        does a line that is no message (`broken`)."""
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
                self.broken = True
                self._end(None, str(e))
                return messages
            messages.append(msg)
            if isinstance(msg, ErrorMsg):
                self.refused = True
                self._end(None, msg.message)
                return messages
        if self.conn.closed:
            self._end(None, "the host closed the connection")
        elif self._idle is not None and self._clock() - self.conn.heard > self._idle:
            self._end(None, f"no word from the host for {self._idle:g} s")
        return messages

    def send(self, msg: ClientMessage) -> None:
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
    settings are known (a Human, or a ThinkerPrototype for them). The rules
    are `state`'s (a JoinerState); this class serves its sockets, its clock
    and its thinker.
    """

    def __init__(self, address: tuple[str, int], hello: Hello,
                 make_player: Callable[[MatchConfig], Player] | None = None,
                 runner_factory: RunnerFactory | None = None, retry_for: float = 120.0,
                 clock: Clock = time.monotonic, *, connect_timeout: float = CONNECT_TIMEOUT,
                 idle_timeout: float = IDLE_TIMEOUT, rng: random.Random | None = None) -> None:
        """Start connecting.

        Raises:
            NetworkError: the host name is unknown.
        """
        self._address = address
        self._hello = hello
        self._make_player = make_player
        self._factory = runner_factory
        self._clock = clock
        self.link = Link(address, hello, clock)
        self.state = JoinerState(hello, clock(), retry_for=retry_for,
                                 connect_timeout=connect_timeout, idle_timeout=idle_timeout,
                                 where=self.link.shown, rng=rng)
        self._player: Player | None = None
        self._runner: ThinkerRunner | None = None
        self._job: ThinkJob | None = None
        self._job_ply = -1

    # ------------------------------------------------------------------ reading
    @property
    def color(self) -> PColor | None:
        """This side's colour (None for a spectator, and until welcomed)."""
        return self.state.color

    @property
    def config(self) -> MatchConfig | None:
        return self.state.config

    @property
    def board(self) -> Board | None:
        return self.state.board

    @property
    def names(self) -> tuple[str, str]:
        return self.state.names

    @property
    def humans(self) -> tuple[bool, bool]:
        return self.state.humans

    @property
    def paused(self) -> bool:
        return self.state.paused

    @property
    def outcome(self) -> Result | None:
        """The host's result, once the match is over."""
        return self.state.outcome

    @property
    def failed(self) -> str | None:
        return self.state.failed

    @property
    def refused(self) -> bool:
        """Whether the failure is one a new connection would not mend (a
        refusal, a contradiction, a broken protocol)."""
        return self.state.refused

    @property
    def finished(self) -> bool:
        """Whether nothing more will happen: the result came, or the game failed."""
        return self.state.finished

    @property
    def awaiting_human(self) -> bool:
        """Whether this side's human is to move now (submit_move() takes it)."""
        return isinstance(self._player, Human) and self.state.awaiting_move

    def name(self, color: PColor) -> str:
        return self.names[color]

    # ------------------------------------------------------------------ driving
    def poll(self) -> list[MatchEvent | OnlineEvent]:
        """What happened since the last call, without blocking."""
        events: list[MatchEvent | OnlineEvent] = []
        if self.finished:
            return events
        now = self._clock()
        link = self.link
        for msg in link.poll():
            self._do(self.state.receive(msg, now), events, now)
            if self.finished or self.link is not link:
                break
        if self.link is link and link.closed and not self.finished:
            self._do(self.state.malformed(link.error or "", now) if link.broken
                     else self.state.lost(link.error or "the connection dropped", now),
                     events, now)
        self._do(self.state.tick(now), events, now)
        self._play_ai()
        return events

    def wait(self, timeout: float) -> None:
        """Block until something may have happened, at most `timeout` seconds."""
        if self._job is not None:
            timeout = min(timeout, 0.02)
        deadline = self.state.next_deadline()
        if deadline is not None:
            timeout = max(0.0, min(timeout, deadline - self._clock()))
        self.link.wait(timeout)

    def submit_move(self, col: int, shape: PShape) -> None:
        """This side's human plays (checked, then sent to the host, which judges it).

        Raises:
            InvalidMoveError: not this human's turn, or the move is not legal.
        """
        if not self.awaiting_human:
            raise InvalidMoveError("it is not your turn")
        self._send(self.state.move(col, shape))

    def close(self) -> None:
        """Stop thinking, release this side's thinker and close the connection."""
        self._cancel()
        if self._runner is not None:
            self._runner.close()
            self._runner = None
        self.link.close()

    # ------------------------------------------------------------------ steps
    def _do(self, step: Step[JoinerEvent], events: list[MatchEvent | OnlineEvent],
            now: float) -> None:
        self._send(step)
        events += step.events
        if self._player is None and self._make_player is not None and \
                self.state.config is not None:
            self._player = self._make_player(self.state.config)
        if step.hangup or step.connect:
            self.link.close()
        if step.connect:
            try:
                self.link = Link(self._address, self._hello, self._clock)
            except NetworkError as e:  # the name lookup failed this time: a failed try
                self._do(self.state.lost(str(e), now), events, now)

    def _send(self, step: Step[JoinerEvent]) -> None:
        for msg in step.send:
            self.link.send(msg)

    # ------------------------------------------------------------------ own side
    def _play_ai(self) -> None:
        state = self.state
        if self._job is not None and (not state.awaiting_move or state.ply != self._job_ply):
            self._cancel()  # the game moved on, or the connection went
        if isinstance(self._player, Human) or self._player is None or not state.awaiting_move:
            return
        board = state.board
        assert board is not None
        if self._job is None:
            if self._runner is None:
                factory = self._factory
                if factory is None:
                    from csl_game.engine import ThreadRunner
                    factory = ThreadRunner
                self._runner = factory(self._player, lambda _text: None)  # type: ignore[arg-type]
            self._job, self._job_ply = self._runner.start(board), board.move_count
        outcome = self._job.poll()
        if outcome is None:
            return
        self._job = None
        verdict = judge(outcome, board)
        if isinstance(verdict, Forfeit):
            self._send(state.forfeit(verdict.reason, verdict.detail))
        else:
            self._send(state.move(verdict.column, verdict.shape))

    def _cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None
