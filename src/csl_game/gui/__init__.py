"""The pygame frontend: a window with scenes over the match and session engine."""

import os
import warnings

# pygame greets the terminal on import unless told not to: the window's own
# messages (and a missing display's) are the only ones the player reads.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# pygame_gui warns on standard error when a label's text is larger than the
# label; the window's labels shorten their text to fit (widgets.set_text), and a
# label rebuilt as the window is resized may warn on its way out.
warnings.filterwarnings("ignore", message="Label Rect is too small", category=UserWarning)

from csl_game.gui.app import App, run_gui, run_replay  # noqa: E402

__all__ = ["App", "run_gui", "run_replay"]
