"""A session screen's choices as a row of buttons, or a countdown to the default.

`Offer` is what the session's current screen offers; `ChoiceRow` shows it
(the primary choice highlighted, Enter taking Start or OK), counts down a
timed screen and takes the default choice when the time is up. Both the
screens between matches and the result overlay of the match scene use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pygame
from pygame import Rect
from pygame_gui.core import UIContainer
from pygame_gui.core.interfaces import IUIElementInterface
from pygame_gui.elements import UIButton, UILabel

from csl_game.engine import Choice, Screen, ScreenPolicy, Session
from csl_game.gui.keys import SCREEN_KEYS
from csl_game.gui.widgets import Handler, Metrics, button, label

__all__ = ["Offer", "ChoiceRow"]
_COUNTDOWN = {Screen.PRE_MATCH: "Starting in", Screen.POST_MATCH: "Moving on in",
              Screen.FINAL: "Closing in"}

On = Callable[[IUIElementInterface, Handler], Any]


@dataclass(frozen=True)
class Offer:
    """What a session's current screen offers the user."""

    screen: Screen | None
    choices: tuple[Choice, ...]
    default: Choice | None
    """What the screen chooses when its time is up."""
    timeout: float | None
    """Seconds until the default is chosen; None: the screen waits."""
    names: tuple[tuple[Choice, str], ...] = ()
    """Button texts other than the choices' own ('Home' for 'Back to setup')."""

    @classmethod
    def of(cls, session: Session, policy: ScreenPolicy,
           names: Mapping[Choice, str] | None = None) -> Offer:
        """The offer of `session`'s current screen under `policy`, its buttons
        named as `names` says (the choices' own names otherwise)."""
        return cls(session.presenter.screen, session.presenter.choices(), session.presenter.default_choice,
                   session.presenter.timeout(policy), tuple((names or {}).items()))

    def text(self, choice: Choice) -> str:
        """What the button of `choice` says."""
        return dict(self.names).get(choice, choice.value)

    @property
    def primary(self) -> Choice | None:
        """The highlighted choice, which has the focus first: Start or OK, else
        the first that does not quit (Enter must not close the window by surprise)."""
        staying = [c for c in self.choices if c is not Choice.QUIT]
        return next((c for c in self.choices if c in (Choice.START, Choice.OK)),
                    staying[0] if staying else (self.choices[0] if self.choices else None))


class ShowsChoices:
    """What a screen or overlay that shows a `ChoiceRow` tells about it."""

    row: ChoiceRow

    @property
    def choices(self) -> tuple[Choice, ...]:
        return self.row.offer.choices

    @property
    def timeout(self) -> float | None:
        """Seconds until the default choice is taken; None: it waits for the user."""
        return self.row.offer.timeout

    @property
    def buttons(self) -> dict[Choice, UIButton]:
        return self.row.buttons


class ChoiceRow:
    """Buttons for an offer's choices, with a countdown above them when it is timed."""

    def __init__(self, offer: Offer, choose: Callable[[Choice], None]) -> None:
        self.offer = offer
        self.choose = choose
        self.elapsed = 0.0
        """Seconds shown so far (counted by update())."""
        self.buttons: dict[Choice, UIButton] = {}
        self.countdown: UILabel | None = None
        self._timed_out = False

    def height(self, m: Metrics, width: int | None = None) -> int:
        """The height of the buttons, in as many lines as a row at most `width`
        wide needs (and of the countdown above them when timed)."""
        lines = len(self._lines(m, width))
        buttons = lines * (m.row + 6) + (lines - 1) * m.gap
        return buttons + (0 if self.offer.timeout is None else m.gap + m.row)

    def _lines(self, m: Metrics, width: int | None) -> list[list[UIButton]]:
        """The buttons in lines of at most `width` (None: one line)."""
        lines: list[list[UIButton]] = [[]]
        used = 0
        for widget in self.buttons.values():
            w = widget.rect.w
            if lines[-1] and width is not None and used + m.gap + w > width:
                lines.append([])
                used = 0
            used += (m.gap if lines[-1] else 0) + w
            lines[-1].append(widget)
        return lines

    def make(self, root: UIContainer, m: Metrics, on: On) -> int:
        """A button per choice (placed by place()); returns the row's width."""
        self.buttons.clear()
        self.countdown = None
        primary = self.offer.primary
        for choice in self.offer.choices:
            oid = "#primary" if choice is primary else "#button"
            widget = button(Rect(0, 0, -1, m.row + 6), self.offer.text(choice), root, oid)
            widget.set_dimensions((max(m.button_w, widget.rect.w + 2 * m.gap), m.row + 6))
            self.buttons[choice] = on(widget, self._handler(choice))
        if self.offer.timeout is not None:
            self.countdown = label(Rect(0, 0, round(320 * m.scale), m.row),
                                   self._countdown_text(), root, "#countdown")
        return self.width(m)

    def _handler(self, choice: Choice) -> Handler:
        return lambda _event: self.choose(choice)

    def width(self, m: Metrics, limit: int | None = None) -> int:
        """The width of the buttons side by side (in lines at most `limit` wide)."""
        return max((sum(b.rect.w for b in line) + m.gap * (len(line) - 1)
                    for line in self._lines(m, limit)), default=0)

    def place(self, m: Metrics, centerx: int, bottom: int, limit: int | None = None) -> int:
        """Centre the buttons on `centerx`, ending at `bottom`, in lines at most
        `limit` wide (None: one line); returns the top used."""
        lines = self._lines(m, limit)
        y = bottom - len(lines) * (m.row + 6) - (len(lines) - 1) * m.gap
        top = y
        for line in lines:
            total = sum(b.rect.w for b in line) + m.gap * (len(line) - 1)
            x = max(0, min(centerx - total // 2, m.size[0] - total))
            for widget in line:
                widget.set_relative_position((x, y))
                x += widget.rect.w + m.gap
            y += m.row + 6 + m.gap
        y = top
        if self.countdown is None:
            return y
        rect = Rect(self.countdown.relative_rect)
        rect.midbottom = (centerx, y - m.gap)
        self.countdown.set_relative_position(rect.topleft)
        return rect.y

    def handle_event(self, event: pygame.event.Event) -> None:
        """Enter takes the primary choice when it is Start or OK."""
        primary = self.offer.primary
        if (SCREEN_KEYS.binding("go").matches(event)
                and primary in (Choice.START, Choice.OK)):
            self.choose(primary)

    def update(self, dt: float) -> None:
        """Count down a timed offer; take its default once the time is up."""
        timeout, default = self.offer.timeout, self.offer.default
        if timeout is None or default is None or self._timed_out:
            return
        self.elapsed += dt
        if self.elapsed >= timeout:
            self._timed_out = True
            self.choose(default)
        elif self.countdown is not None:
            text = self._countdown_text()
            if text != self.countdown.text:
                self.countdown.set_text(text)

    def _countdown_text(self) -> str:
        assert self.offer.timeout is not None
        left = max(0.0, self.offer.timeout - self.elapsed)
        screen = self.offer.screen
        start = _COUNTDOWN.get(screen, "Moving on in") if screen else "Moving on in"
        return f"{start} {left:.1f} s"
