"""The games the home screen starts at once: against the computer, two humans,
two AIs watched. Each is a single match on the remembered board (the
settings last started or saved), with the home's players in place of the
remembered ones; nothing of a tournament (results file, web site) comes
along.
"""

from __future__ import annotations

import dataclasses

from csl_game.services.presets import LEVELS, level
from csl_game.services.settings import AIEntry, PlayOptions

__all__ = ["board_options", "computer_game", "two_players_game", "watch_game", "ai_of",
           "COLOURS"]

COLOURS = ("white", "red")
"""The colours a human may play against the computer (White moves first)."""


def board_options(base: PlayOptions, remembered: PlayOptions | None) -> PlayOptions:
    """`base` (the command line's options) on the remembered board, with its
    time limits and animation; no players, no tournament settings."""
    source = remembered or base
    return dataclasses.replace(base, ais=(), match=source.match,
                               unknown_track=source.unknown_track,
                               last_move_animation_s=source.last_move_animation_s,
                               show_setup=False, show_home=False, results_file="",
                               resume=False, site_folder="", workers=1)


def computer_game(board: PlayOptions, level_name: str) -> PlayOptions:
    """A human against the AI of level `level_name` on `board`'s board (the
    human plays White; the window swaps colours for Red).

    Raises:
        ConfigError: no level has that name.
    """
    lv = level(level_name)
    return dataclasses.replace(board, ais=(AIEntry(lv.thinker, lv.params),))


def two_players_game(board: PlayOptions) -> PlayOptions:
    """Two humans at one keyboard and mouse."""
    return dataclasses.replace(board, ais=())


def ai_of(label: str, thinkers: dict[str, str]) -> AIEntry:
    """The AI a picker's label names: a level's label ('Hard') or a thinker's
    label (a key of `thinkers`: label -> fully qualified name)."""
    for lv in LEVELS:
        if lv.label == label:
            return AIEntry(lv.thinker, lv.params)
    return AIEntry(thinkers.get(label, label))


def watch_game(board: PlayOptions, white: AIEntry, red: AIEntry) -> PlayOptions:
    """`white` against `red`, nobody at the keyboard."""
    return dataclasses.replace(board, ais=(white, red))
