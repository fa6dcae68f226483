"""The pygame frontend: a window with scenes over the match and session engine."""

from csl_game.gui.app import App, run_gui, run_replay

__all__ = ["App", "run_gui", "run_replay"]
