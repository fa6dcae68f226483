"""A player on another machine: one more kind of player for the match engine.

A `Remote` stands for a player whose moves arrive from elsewhere (over a
network: `csl_game.online` seats one). The match asks it for a runner, as it
asks the runner factory for a thinker's, and judges what that runner's jobs
bring like any thinker's answer: one judge, one forfeit path. How the moves
travel is not the engine's business.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from csl_game.engine.runners.base import InfoCallback, ThinkerRunner

__all__ = ["Remote"]


class Remote(ABC):
    """A player whose moves come from elsewhere, through the runner it makes."""

    name: str
    """Its display name."""

    @property
    def display_name(self) -> str:
        return self.name

    @abstractmethod
    def runner(self, info: InfoCallback) -> ThinkerRunner:
        """The runner of its moves in one match; `info` takes its thinking info."""
