"""The pygame frontend: a window with scenes over the match and session engine."""

import os

# pygame greets the terminal on import unless told not to: the window's own
# messages (and a missing display's) are the only ones the player reads.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from csl_game.gui.app import App, run_gui, run_replay  # noqa: E402

__all__ = ["App", "run_gui", "run_replay"]
