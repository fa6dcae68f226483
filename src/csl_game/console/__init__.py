"""The text frontend: board rendering, event printing and terminal input."""

from csl_game.console.human import ask_human_move
from csl_game.console.render import ConsoleListener, render_board

__all__ = ["ConsoleListener", "render_board", "ask_human_move"]
