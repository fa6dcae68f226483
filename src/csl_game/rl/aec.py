"""The game as a PettingZoo AEC environment, on any board a `MatchConfig` sets.

Made as PettingZoo's classic board games are (``connect_four_v3`` is the
model): `raw_env` is the game itself, and `env` wraps it so that an illegal
action ends the game with -1 for the player who took it and 0 for the other,
an action outside the action space fails an assertion, and calls out of
order are refused.

Agents: ``player_0`` plays White (and moves first), ``player_1`` plays Red.
Observations, actions and the action mask are those of
`csl_game.rl.observation`. Rewards: +1 to the winner and -1 to the loser when
the game ends (a player may lose on its own move: shape beats colour), 0 to
both for a draw and on every other step. Games always end, so nothing is
ever truncated except by the illegal-move wrapper.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from csl_game.console.render import LEGEND, render_board
from csl_game.errors import ConfigError, InvalidMoveError
from csl_game.model.board import Winner
from csl_game.rl.observation import PLANES, action_mask, move_of, observation
from csl_game.thinker.api import MatchConfig

__all__ = ["CslEnv", "raw_env", "env", "AGENTS"]

AGENTS = ("player_0", "player_1")
"""The agents, White's first."""
RENDER_MODES = ["human", "ansi"]
_REWARDS = {Winner.WHITE: (1, -1), Winner.RED: (-1, 1), Winner.DRAW: (0, 0)}


class CslEnv(AECEnv):  # pettingzoo has no type information: AECEnv is Any here
    """ColorShapeLinks for two learning agents, PettingZoo's AEC way."""

    metadata = {"render_modes": RENDER_MODES, "name": "color_shape_links_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, config: MatchConfig | None = None, render_mode: str | None = None
                 ) -> None:
        """An environment for boards of `config` (default: the standard 6x7 board).

        Raises:
            ConfigError: an unknown render mode.
        """
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(f"render_mode must be one of {', '.join(RENDER_MODES)}, "
                              f"got {render_mode!r}")
        self.config = config or MatchConfig()
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        rows, cols = self.config.rows, self.config.cols
        self.action_spaces = {a: spaces.Discrete(2 * cols) for a in AGENTS}
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, 1, (rows, cols, PLANES), np.int8),
            "action_mask": spaces.Box(0, 1, (2 * cols,), np.int8)}) for a in AGENTS}
        self.board = self.config.new_board()
        """The position (read it; play through `step()`)."""
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (the game has no chance in it: `seed` changes nothing)."""
        self.board = self.config.new_board()
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[0]

    def observe(self, agent: str) -> dict[str, Any]:
        """The planes, and the action mask (all 0s unless `agent` is to move)."""
        fast = self.board.fast_board()
        mask = action_mask(fast)
        if agent != self.agent_selection:
            mask[:] = 0
        return {"observation": observation(fast), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play the selected agent's action (None once its game is over).

        Raises:
            InvalidMoveError: the action is not a legal move (the wrapped
                `env()` ends the game instead, as PettingZoo does).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise InvalidMoveError(f"{agent} is to move, but the action is None")
        column, shape = move_of(action)
        problem = self.board.move_problem(shape, column)
        if problem is not None:
            raise InvalidMoveError(f"{agent} cannot take action {action} ({shape} at column "
                                   f"{column}): {problem}", problem)
        self.board.do_move(shape, column)
        self.rewards = dict.fromkeys(AGENTS, 0)
        winner = self.board.check_winner()
        if winner is not Winner.NONE:
            self.rewards = dict(zip(AGENTS, _REWARDS[winner]))
            self.terminations = dict.fromkeys(AGENTS, True)
        self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The board as text ("ansi"), or printed ("human")."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        text = render_board(self.board) + "\n" + "   ".join(LEGEND)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the environment holds no window or process."""


def raw_env(config: MatchConfig | None = None, render_mode: str | None = None) -> CslEnv:
    """The game, unwrapped: an illegal action raises InvalidMoveError.

    Raises:
        ConfigError: an unknown render mode.
    """
    return CslEnv(config, render_mode)


def env(config: MatchConfig | None = None, render_mode: str | None = None) -> AECEnv:
    """The game wrapped as PettingZoo's board games are: an illegal action ends the
    game, -1 for the player who took it.

    Raises:
        ConfigError: an unknown render mode.
    """
    game: AECEnv = wrappers.TerminateIllegalWrapper(raw_env(config, render_mode),
                                                    illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)
