"""Policies as thinkers: a function of what an agent sees plays matches.

A policy is a function ``policy(observation, action_mask) -> action`` over
the arrays of `csl_game.rl.observation`, as a learning agent sees them in the
environment. `PolicyThinker` makes one a thinker, so a trained (or a hand
written) policy plays matches, sessions and the league like any thinker.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

from csl_game.model.board import Board
from csl_game.rl.observation import Array, action_mask, move_of, observation
from csl_game.thinker.api import AbstractThinker, CancellationToken, FutureMove

__all__ = ["Policy", "PolicyThinker", "policy_thinker"]

Policy = Callable[[Array, Array], int]
"""``policy(observation, action_mask) -> action``."""


class PolicyThinker(AbstractThinker):
    """A thinker that plays the action its `policy()` chooses.

    Subclass it and define `policy()`, or make the class with
    `policy_thinker()`. The policy is called once a move; an action the mask
    forbids loses the match as an illegal move does.
    """

    @abstractmethod
    def policy(self, observation: Array, action_mask: Array) -> int:
        """The action to take (``2 * column + shape``)."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        fast = board.fast_board()
        action = int(self.policy(observation(fast), action_mask(fast)))
        if action < 0:
            return FutureMove.NO_MOVE
        column, shape = move_of(action)
        return FutureMove(column, shape)


def policy_thinker(policy: Policy, name: str = "") -> type[PolicyThinker]:
    """A thinker class that plays `policy`.

    Assign it to a name at the top level of a thinker file (``GreedyThinker =
    policy_thinker(greedy)``), so that discovery, in every worker process,
    finds it there. It is named `name`, else after the function (``greedy``
    gives ``GreedyThinker``, shown as ``Greedy``).
    """
    class_name = name or "".join(p.title() for p in policy.__name__.split("_")) + "Thinker"
    namespace = {"policy": staticmethod(policy), "__module__": policy.__module__,
                 "__qualname__": class_name, "__doc__": policy.__doc__}
    made: type[PolicyThinker] = type(class_name, (PolicyThinker,), namespace)
    return made
