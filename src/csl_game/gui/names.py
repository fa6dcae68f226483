"""The names the window gives a session's players: the ones the player chose.

An AI player whose thinker and parameters make a level (services/presets.py,
`level_of`) goes by that level's name, 'Easy', 'Medium' or 'Hard', where the
engine names it after its class ('MinimaxD1', 'NegamaxD3', 'Negamax'); any
other player keeps the engine's name. Where several would share a name they
are numbered ('Easy #1', 'Easy #2'). Only what the window shows changes:
results files, reports and the console keep the engine's names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from csl_game.engine import MatchResult, Session, Standing, in_table_order, unique_names
from csl_game.services.presets import level_of
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["ShownNames", "shown_names"]


def shown_names(players: Sequence[object], names: Sequence[str]) -> tuple[str, ...]:
    """Each player's shown name: its level's, else `names`' (the engine's)."""
    labels = []
    for player, name in zip(players, names):
        lv = (level_of(player.requested_name, player.params)
              if isinstance(player, ThinkerPrototype) else None)
        labels.append(lv.label if lv is not None else name)
    return unique_names(labels)


class ShownNames:
    """How the window names the players of one session (its names may still
    change while the players are set up, so they are read each time)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def all(self) -> tuple[str, ...]:
        """The shown names, by player index."""
        return shown_names(self.session.players, self.session.names)

    def __call__(self, name: str) -> str:
        """The shown name of the player the engine calls `name` (others as they are)."""
        return dict(zip(self.session.names, self.all)).get(name, name)

    def pair(self, pair: tuple[str, str]) -> tuple[str, str]:
        return self(pair[0]), self(pair[1])

    def result(self, result: MatchResult) -> MatchResult:
        """`result` with its players' shown names (for what the window says of it)."""
        return dataclasses.replace(result, white=self(result.white), red=self(result.red))

    def standings(self, table: Sequence[Standing]) -> list[Standing]:
        """`table` with the shown names, players sharing a place listed by them
        (`in_table_order`: as every table of standings lists ties)."""
        return in_table_order(dataclasses.replace(s, name=self(s.name)) for s in table)
