"""Which screen shows a session, and what the user's choices do.

The session (engine) says which `Screen` its state shows and which
`Choice`s that screen offers; `SessionFlow` only maps screens to scenes and
sends the choices back to the session, or to the app for those that leave the
session (play again, back to setup, quit).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from csl_game.engine import narration as messages
from csl_game.gui.scenes.info import FinalScene, PreMatchScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.result import ResultScene
from csl_game.gui.scene import Scene
from csl_game.engine.session import (Choice, PostMatch, PreMatch, Screen, Session, SessionEnded,
                              SessionEvent)

if TYPE_CHECKING:
    from csl_game.gui.app import App

__all__ = ["SessionFlow"]


class SessionFlow:
    """Shows one session, screen after screen, until the user leaves it."""

    def __init__(self, app: App, session: Session) -> None:
        self.app = app
        self.session = session
        self.board: MatchScene | None = None
        """The scene of the current (or last) match, drawn under its result."""
        session.subscribe(self._log)
        self._leave: dict[Choice, Callable[[], None]] = {
            Choice.PLAY_AGAIN: lambda: app.play_session(session.again()),
            Choice.PLAY_AGAIN_SWAPPED: lambda: app.play_session(session.again(swapped=True)),
            Choice.SETUP: app.show_setup,
            Choice.QUIT: app.quit,
        }

    def show(self) -> None:
        """Switch to the scene of the session's current screen."""
        self.app.scenes.switch(self._scene(self.session.settle()))

    def choose(self, choice: Choice) -> None:
        """Act on a choice of the current screen."""
        if choice.leaves_session:
            self._leave[choice]()
            return
        self.session.choose(choice)
        self.show()

    def close(self) -> None:
        """Stop the current match, if any."""
        self.session.abort()

    def _scene(self, screen: Screen) -> Scene:
        if screen is Screen.MATCH:
            self.board = MatchScene(self.app, self.session, on_over=self.show)
            return self.board
        if screen is Screen.PRE_MATCH:
            return PreMatchScene(self.app, self)
        if screen is Screen.FINAL and not self.session.is_single:
            return FinalScene(self.app, self)
        assert self.board is not None, "a result follows a match"
        return ResultScene(self.app, self, self.board)

    def _log(self, event: SessionEvent) -> None:
        if self.session.is_single:
            return
        match event:
            case PreMatch(index=i, white=white, red=red):
                self.app.log.add(messages.pre_match(i, white, red))
            case PostMatch(index=i, record=record, background=True):
                names = self.session.names
                self.app.log.add(messages.background_result(
                    i, names[record.white], names[record.red], record.result))
            case SessionEnded(standings=table):
                for line in messages.session_over(table):
                    self.app.log.add(line)
