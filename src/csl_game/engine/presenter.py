"""The screen policy of a session, shared by the window and the console: which
screen a session's state shows, what it offers, when it moves on by itself.

A `Presenter` reads a session (anything with the `Presented` shape: the
engine's `Session`) and answers for the frontends; it decides, the session
acts. The window (gui/flow.py) asks it every frame; the console's blocking
loops take every default at once.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Protocol

from csl_game.engine.screens import Choice, Mode, Screen, ScreenPolicy
from csl_game.errors import SessionStateError

__all__ = ["SessionState", "Presented", "Presenter"]


class SessionState(Enum):
    """The states of a session."""

    BEGIN = "begin"
    PRE_MATCH = "pre-match"
    IN_MATCH = "in match"
    POST_MATCH = "post-match"
    TIE_BREAK = "tie-break"
    END = "end"


class Presented(Protocol):
    """What the presenter reads of a session, and the steps it takes."""

    state: SessionState
    mode: Mode

    @property
    def is_single(self) -> bool: ...

    @property
    def naming(self) -> bool: ...

    @property
    def waiting(self) -> bool: ...

    def start(self) -> None: ...

    def begin_match(self) -> object: ...

    def next(self) -> None: ...

    def swap(self) -> None: ...


_DEFAULTS = {Screen.PRE_MATCH: Choice.START, Screen.POST_MATCH: Choice.OK,
             Screen.FINAL: Choice.QUIT}


class Presenter:
    """The screens of one session."""

    def __init__(self, session: Presented) -> None:
        self._s = session

    @property
    def screen(self) -> Screen | None:
        """The screen of the current state; None where `settle()` moves on alone.

        A single match shows its pre-match screen before it starts (so colours
        can still be swapped) and no post-match screen (its final screen shows
        the result); a tournament starts at once and shows both between matches.
        """
        s = self._s
        single = s.is_single
        return {SessionState.BEGIN: Screen.PRE_MATCH if single or s.naming else None,
                SessionState.PRE_MATCH: None if single and not s.waiting else Screen.PRE_MATCH,
                SessionState.IN_MATCH: Screen.MATCH,
                SessionState.POST_MATCH: None if single else Screen.POST_MATCH,
                SessionState.TIE_BREAK: Screen.PRE_MATCH,
                SessionState.END: Screen.FINAL}[s.state]

    def settle(self) -> Screen:
        """Take the steps no screen asks about; return the screen to show."""
        s = self._s
        steps: dict[SessionState, Callable[[], object]] = {
            SessionState.BEGIN: s.start, SessionState.PRE_MATCH: s.begin_match,
            SessionState.POST_MATCH: s.next}
        while (screen := self.screen) is None:
            steps[s.state]()
        return screen

    def choices(self) -> tuple[Choice, ...]:
        """What the current screen offers (nothing while a match is played)."""
        s, screen = self._s, self.screen
        if screen is Screen.PRE_MATCH and s.waiting:
            return ()
        if screen is Screen.PRE_MATCH:
            swap = s.state is SessionState.BEGIN and s.mode.asks_who_plays_first
            return (Choice.SWAP, Choice.START) if swap else (Choice.START,)
        if screen is Screen.POST_MATCH:
            return (Choice.OK,)
        if screen is Screen.FINAL and s.is_single:
            return (Choice.PLAY_AGAIN, Choice.PLAY_AGAIN_SWAPPED, Choice.REVIEW, Choice.SETUP,
                    Choice.QUIT)
        if screen is Screen.FINAL:
            return (Choice.QUIT, Choice.PLAY_AGAIN, Choice.SETUP)
        return ()

    @property
    def default_choice(self) -> Choice | None:
        """What a screen that times out (or --auto) chooses."""
        screen = self.screen
        return None if screen is None or self._s.waiting else _DEFAULTS.get(screen)

    def timeout(self, policy: ScreenPolicy) -> float | None:
        """Seconds the current screen stays before its default choice is taken.

        None: it waits for the user. A single match always waits (unless
        `policy.auto`); tournament screens wait as the policy says.
        """
        screen = self.screen
        if screen is None or screen is Screen.MATCH or self._s.waiting:
            return None
        if policy.auto:
            return policy.unblocked_s
        timed = ((screen is Screen.PRE_MATCH and not self._s.is_single
                  and not policy.wait_before_match)
                 or (screen is Screen.POST_MATCH and not policy.wait_after_match))
        return policy.unblocked_s if timed else None

    def choose(self, choice: Choice) -> Screen:
        """Act on START, SWAP or OK; returns the screen to show next.

        Raises:
            SessionStateError: the current screen does not offer `choice`, or
                it is one the frontend acts on (`Choice.leaves_session`).
        """
        s = self._s
        if choice.leaves_session or choice not in self.choices():
            raise SessionStateError(f"'{choice.value}' is not a choice of the session "
                                    f"when it is {s.state.value}")
        if choice is Choice.SWAP:
            s.swap()
        elif choice is Choice.OK:
            s.next()
        elif s.state is SessionState.BEGIN:
            s.start()
        else:
            s.begin_match()
        return self.settle()
