"""Values the option table and the settings share, in a module that imports
nothing: the parser (and so every `--help`) reads them without the engine."""

from __future__ import annotations

__all__ = ["CLOCKS", "CONSOLE_TIME_LIMIT_MS"]

CONSOLE_TIME_LIMIT_MS = 200
"""What an AI may think per move in the terminal's verbs unless told: the
competition's limit, so a match ends in seconds. Humans are never timed."""
CLOCKS = ("cpu", "wall")
"""What a time limit can count (`MatchConfig.clock`): the processor time of
the thinker's processes, or the wall clock."""
