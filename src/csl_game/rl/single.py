"""The game as a single-agent Gymnasium environment: one learner against a fixed
opponent, for the libraries that train one agent (Stable-Baselines3 and its
``MaskablePPO``, CleanRL, hand-written loops).

The opponent is a thinker (any name the command line takes, ``"minimax 2"``,
run here on this process's thread) or a policy function of
`csl_game.rl.policy`. The learner plays White, Red, or each in turn from one
game to the next (``seat="alternate"``). Observations, actions and the mask
are those of `csl_game.rl.observation` and of the PettingZoo environment:
the observation is the ``(rows, cols, 5)`` planes; the mask of legal actions
is in ``info["action_mask"]`` and from `action_masks()` (the method
sb3-contrib's ``MaskablePPO`` calls). Rewards: +1 when the learner wins, -1
when it loses (on its own move too: shape beats colour), 0 for a draw and on
every other step. An illegal action ends the game with -1, as in the
PettingZoo environment; an opponent's illegal move, or its giving up, ends
it with +1 (the opponent forfeits, as in a match), and ``info["forfeit"]``
says so.
"""

from __future__ import annotations

import random
from typing import Any, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from csl_game.console.render import LEGEND, render_board
from csl_game.errors import ConfigError
from csl_game.model.board import Board, PColor, Winner
from csl_game.rl.observation import PLANES, Array, action_mask, move_of, observation
from csl_game.rl.policy import Policy
from csl_game.thinker.api import AbstractThinker, CancellationToken, FutureMove, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["SingleAgentEnv", "Seat"]

Seat = Literal["white", "red", "alternate"]
BoolArray = npt.NDArray[np.bool_]
_SEATS = ("white", "red", "alternate")


class SingleAgentEnv(gymnasium.Env[Array, np.int64]):
    """One learning agent against `opponent` on boards of `config`."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, config: MatchConfig | None = None, opponent: str | Policy = "random",
                 seat: Seat = "alternate", render_mode: str | None = None,
                 thinkers: tuple[str, ...] = ()) -> None:
        """Raises:
            ConfigError: an unknown seat or render mode.
            ThinkerError: the opponent names no thinker (`thinkers`: paths to
                look in besides the built-in ones), or refuses its parameters.
        """
        if seat not in _SEATS:
            raise ConfigError(f"seat must be one of {', '.join(_SEATS)}, got {seat!r}")
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.config = config or MatchConfig()
        self.seat, self.render_mode = seat, render_mode
        rows, cols = self.config.rows, self.config.cols
        self.observation_space = spaces.Box(0, 1, (rows, cols, PLANES), np.int8)
        self.action_space = spaces.Discrete(2 * cols)
        self._policy: Policy | None = None
        self._prototype: ThinkerPrototype | None = None
        if isinstance(opponent, str):
            name, _, params = opponent.strip().partition(" ")
            self._prototype = ThinkerPrototype(name, params.strip(), self.config, thinkers)
        else:
            self._policy = opponent
        self._thinker: AbstractThinker | None = None
        self._games = 0
        self._seeded = False
        self.board: Board = self.config.new_board()
        """The position (read it; play through `step()`)."""
        self.learner = PColor.WHITE
        """The learner's colour in this game."""

    # ------------------------------------------------------------ the Env API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Array, dict[str, Any]]:
        """A new game; when the learner plays Red, the opponent has moved first.
        `seed` seeds the action space's sampling and starts the seats' alternation
        again (the game has no chance in it); from then on each game's opponent
        thinker has its own generators seeded from this environment's."""
        super().reset(seed=seed)
        if seed is not None:  # a seeded start is the same start: White first again
            self.action_space.seed(seed)
            self._games = 0
            self._seeded = True
        self.board = self.config.new_board()
        if self.seat == "alternate":
            self.learner = (PColor.WHITE, PColor.RED)[self._games % 2]
        else:
            self.learner = PColor.WHITE if self.seat == "white" else PColor.RED
        self._games += 1
        if self._prototype is not None:
            self._thinker = self._prototype.create()  # a fresh thinker a game, as a match has
            self._seed_opponent(self._thinker)
        info: dict[str, Any] = {}
        if self.learner is PColor.RED:
            self._opponent_moves(info)
        return self._observation(), {**info, "action_mask": self.action_masks()}

    def step(self, action: np.int64 | int) -> tuple[Array, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponent's answer."""
        column, shape = move_of(int(action))
        info: dict[str, Any] = {}
        if self.board.move_problem(shape, column) is not None:
            info["illegal"] = True
            return self._end(-1.0, info)
        self.board.do_move(shape, column)
        if (winner := self.board.check_winner()) is not Winner.NONE:
            return self._end(self._reward(winner), info)
        reward = self._opponent_moves(info)
        if reward is not None:
            return self._end(reward, info)
        return self._observation(), 0.0, False, False, {**info,
                                                         "action_mask": self.action_masks()}

    def action_masks(self) -> BoolArray:
        """The legal actions now, as booleans (what ``MaskablePPO`` asks for)."""
        return action_mask(self.board.fast_board()).astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        return render_board(self.board) + "\n" + "   ".join(LEGEND)

    def close(self) -> None:
        self._thinker = None

    # ------------------------------------------------------------ internals
    def _seed_opponent(self, thinker: AbstractThinker) -> None:
        """Seed the random generators the opponent thinker holds (`random.Random`
        attributes, such as the random and MCTS thinkers' own) from this
        environment's generator, so a seeded run plays the same games every time."""
        if self._seeded:
            for value in vars(thinker).values():
                if isinstance(value, random.Random):
                    value.seed(int(self.np_random.integers(2 ** 63)))

    def _observation(self) -> Array:
        return observation(self.board.fast_board())

    def _reward(self, winner: Winner) -> float:
        if winner is Winner.DRAW:
            return 0.0
        return 1.0 if winner is self.learner.winner else -1.0

    def _end(self, reward: float, info: dict[str, Any]
             ) -> tuple[Array, float, bool, bool, dict[str, Any]]:
        mask = np.zeros(2 * self.config.cols, dtype=np.bool_)
        return self._observation(), reward, True, False, {**info, "action_mask": mask}

    def _opponent_moves(self, info: dict[str, Any]) -> float | None:
        """Play the opponent's move; the learner's reward if that ended the game."""
        column, shape = self._opponent_move()
        if column < 0 or self.board.move_problem(shape, column) is not None:
            info["forfeit"] = "the opponent gave no legal move"
            return 1.0
        self.board.do_move(shape, column)
        winner = self.board.check_winner()
        return None if winner is Winner.NONE else self._reward(winner)

    def _opponent_move(self) -> tuple[int, Any]:
        if self._policy is not None:
            fast = self.board.fast_board()
            action = int(self._policy(observation(fast), action_mask(fast)))
            return move_of(action) if action >= 0 else (-1, None)
        assert self._thinker is not None
        move = self._thinker.think(self.board.copy(), CancellationToken())
        if move == FutureMove.NO_MOVE:
            return -1, None
        return move.column, move.shape

