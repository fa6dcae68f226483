"""Difficulty levels: named presets of the built-in thinkers.

A level is a thinker and its parameters, defined here once: the setup screen
offers the levels by name, the command line takes them (``--ai hard`` or
``--level hard``), and a player's (thinker, parameters) pair names its level
back (`level_of`), so scores are kept per level. Easy looks one move ahead
(it takes a win it sees but blocks nothing); Medium searches three moves
deep with the strong engine's tactics; Hard searches as deep as the time
limit allows.
"""

from __future__ import annotations

from dataclasses import dataclass

from csl_game.errors import ConfigError

__all__ = ["Level", "LEVELS", "NEW_OPPONENT", "level", "level_of", "opponent_label",
           "STRONGEST_THINKER"]

STRONGEST_THINKER = "negamax"
"""The strongest built-in thinker: Hard plays it, and hints ask it."""


@dataclass(frozen=True)
class Level:
    """A difficulty level: which thinker plays it, with which parameters."""

    name: str
    thinker: str
    params: str
    description: str

    @property
    def label(self) -> str:
        """How menus show it: 'Hard'."""
        return self.name.capitalize()


LEVELS: tuple[Level, ...] = (
    Level("easy", "minimax", "1",
          "Looks one move ahead: takes a win it sees, blocks nothing."),
    Level("medium", "negamax", "depth=3",
          "Searches three moves ahead and knows the tactics; beatable with a plan."),
    Level("hard", STRONGEST_THINKER, "",
          "The strongest built-in AI, searching as deep as the time limit allows."),
)


NEW_OPPONENT = "medium"
"""The level a newly added AI player starts at: a game worth playing at once,
and a fair yardstick in a tournament being put together."""


def level(name: str) -> Level:
    """The level called `name` (any case).

    Raises:
        ConfigError: no level has that name.
    """
    wanted = name.strip().lower()
    for lv in LEVELS:
        if lv.name == wanted:
            return lv
    known = ", ".join(lv.name for lv in LEVELS)
    raise ConfigError(f"unknown level '{name}' (choose from {known})")


def level_of(thinker: str, params: str) -> Level | None:
    """The level a thinker name (short, any case) and its parameters make, if any."""
    name, given = thinker.strip().lower(), " ".join(params.split())
    return next((lv for lv in LEVELS if lv.thinker == name and lv.params == given), None)


def opponent_label(thinker: str, params: str) -> str:
    """How scores name an AI opponent: its level ('Hard'), else 'negamax depth=5'."""
    lv = level_of(thinker, params)
    if lv is not None:
        return lv.label
    return " ".join([thinker.strip(), *params.split()])
