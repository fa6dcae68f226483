"""The joiner's and the spectator's end of an online match: the sockets.

`Joined` drives the joiner's state machine (csl_game.online.joiner.JoinerState,
which holds the rules: its own board, what it checks of the host, when to
reconnect) with a `Link` and the clock (csl_game.online.driver.LinkDriver),
and plays this side's own player (a human's moves through `submit_move()`,
a thinker's through an ordinary runner, in a worker process). `poll()` never
blocks.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from csl_game.engine import (
    Forfeit,
    Human,
    Player,
    RunnerFactory,
    ThinkerRunner,
    ThinkJob,
    judge,
)
from csl_game.errors import InvalidMoveError
from csl_game.model.board import Board, PColor, PShape
from csl_game.online.driver import FromState, Link, LinkDriver
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
from csl_game.online.protocol import Hello, Result
from csl_game.online.wire import Clock
from csl_game.thinker.api import MatchConfig

__all__ = ["Link", "Joined", "OnlineEvent", "Waiting", "GoingOn", "Lost", "Back", "Failed"]


class Joined(LinkDriver[JoinerEvent]):
    """An online match seen from the joining side: a player, or a spectator
    (`player` None). `make_player` makes this side's player once the host's
    settings are known (a Human, or a ThinkerPrototype for them). The rules
    are `state`'s (a JoinerState); this class serves its sockets, its clock
    and its thinker.
    """

    state: JoinerState

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
        link = Link(address, hello, clock)
        super().__init__(JoinerState(hello, clock(), retry_for=retry_for,
                                     connect_timeout=connect_timeout,
                                     idle_timeout=idle_timeout, where=link.shown, rng=rng),
                         link, clock)
        self._player: Player | None = None
        self._runner: ThinkerRunner | None = None
        self._job: ThinkJob | None = None
        self._job_ply = -1

    # ------------------------------------------------------------------ reading
    color: FromState[PColor | None] = FromState(
        "This side's colour (None for a spectator, and until welcomed).")
    config: FromState[MatchConfig | None] = FromState()
    board: FromState[Board | None] = FromState()
    names: FromState[tuple[str, str]] = FromState()
    humans: FromState[tuple[bool, bool]] = FromState()
    paused: FromState[bool] = FromState()
    outcome: FromState[Result | None] = FromState("The host's result, once the match is over.")
    failed: FromState[str | None] = FromState()
    refused: FromState[bool] = FromState(
        "Whether the failure is one a new connection would not mend (a refusal, a "
        "contradiction, a broken protocol).")

    @property
    def awaiting_human(self) -> bool:
        """Whether this side's human is to move now (submit_move() takes it)."""
        return isinstance(self._player, Human) and self.state.awaiting_move

    def name(self, color: PColor) -> str:
        return self.names[color]

    # ------------------------------------------------------------------ driving
    def wait(self, timeout: float) -> None:
        """Block until something may have happened, at most `timeout` seconds."""
        super().wait(min(timeout, 0.02) if self._job is not None else timeout)

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
        super().close()

    # ------------------------------------------------------------------ steps
    def _do(self, step: Step[JoinerEvent], events: list[JoinerEvent], now: float) -> None:
        super()._do(step, events, now)
        if self._player is None and self._make_player is not None and \
                self.state.config is not None:
            self._player = self._make_player(self.state.config)

    def _relink(self) -> Link:
        return Link(self._address, self._hello, self._clock)

    def _send(self, step: Step[JoinerEvent]) -> None:
        for msg in step.send:
            self.link.send(msg)

    def _polled(self) -> None:
        self._play_ai()

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
