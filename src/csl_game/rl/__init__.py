"""ColorShapeLinks for learning agents (needs the extra: ``pip install "csl-game[rl]"``).

``from csl_game.rl import env, raw_env`` gives the game as a PettingZoo AEC
environment on any board (`csl_game.rl.aec`), `SingleAgentEnv` as a
single-agent Gymnasium one against a thinker or a policy (`csl_game.rl.single`); `PolicyThinker` and
`policy_thinker` make a policy function a thinker (`csl_game.rl.policy`).
The environment's modules (PettingZoo, Gymnasium) load only when it is
asked for, so a policy thinker in a worker process needs only NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from csl_game.rl.observation import PLANES, TURN_PLANE, action_mask, action_of, move_of, observation
from csl_game.rl.policy import Policy, PolicyThinker, policy_thinker

if TYPE_CHECKING:
    from csl_game.rl.aec import AGENTS, CslEnv, env, raw_env
    from csl_game.rl.single import SingleAgentEnv

__all__ = ["env", "raw_env", "CslEnv", "AGENTS", "SingleAgentEnv", "PLANES", "TURN_PLANE", "observation",
           "action_mask", "action_of", "move_of", "Policy", "PolicyThinker", "policy_thinker"]

_FROM_AEC = ("env", "raw_env", "CslEnv", "AGENTS")


def __getattr__(name: str) -> Any:
    if name in _FROM_AEC:
        from csl_game.rl import aec

        return getattr(aec, name)
    if name == "SingleAgentEnv":
        from csl_game.rl.single import SingleAgentEnv

        return SingleAgentEnv
    raise AttributeError(f"module 'csl_game.rl' has no attribute '{name}'")
