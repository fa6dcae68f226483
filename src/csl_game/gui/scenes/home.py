"""The home screen, the window's first view: one big button per kind of game.

The choices are data: `HOME_CHOICES` is a sequence of `HomeChoice` (a key,
kept as the last choice taken; the button's label; a line saying more; and
what choosing it does to the home screen). One more kind of game is one more
item of that sequence. The buttons show their numbers, which are their
keyboard shortcuts (1 to 9, in order); the arrows or Tab move between them,
Enter or Space chooses, and the next window starts on the choice last taken.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pygame
from pygame import Rect
from pygame_gui.core import UIContainer
from pygame_gui.elements import UIButton, UILabel

from csl_game.gui.context import GuiContext
from csl_game.gui.focus import KeyFocus
from csl_game.gui.keys import choice_number
from csl_game.gui.scenes.board_settings import SettingsScene
from csl_game.gui.scenes.online import OnlineScene
from csl_game.gui.scenes.pickers import ComputerScene, WatchScene
from csl_game.gui.widgets import Metrics, WidgetScene, button, label, set_text
from csl_game.model.board import PColor, PShape
from csl_game.services.quick_games import board_options, two_players_game
from csl_game.services.settings import PlayOptions

__all__ = ["HomeChoice", "HOME_CHOICES", "HomeScene", "HomeLayout", "home_layout",
           "SUBTITLE"]

SUBTITLE = "Four in a row, where shape beats colour"


@dataclass(frozen=True)
class HomeChoice:
    """One big button of the home screen."""

    key: str
    """Names the choice for good: remembered as the last one taken."""
    label: str
    act: Callable[[HomeScene], None]
    """What choosing it does: start a game, or show a screen of its own."""
    hint: str = ""
    """A line under the buttons saying more, while the choice has the focus."""


def _computer(home: HomeScene) -> None:
    home.ctx.nav.show(ComputerScene(home.ctx, home.base))


def _two_players(home: HomeScene) -> None:
    home.ctx.nav.start_game(two_players_game(home.board()))


def _watch(home: HomeScene) -> None:
    home.ctx.nav.show(WatchScene(home.ctx, home.base))


def _online(home: HomeScene) -> None:
    home.ctx.nav.show(OnlineScene(home.ctx, home.base))


def _tournament(home: HomeScene) -> None:
    home.ctx.nav.show_setup()


HOME_CHOICES: tuple[HomeChoice, ...] = (
    HomeChoice("computer", "Play the computer", _computer,
               "Easy, Medium or Hard, and the colour you play"),
    HomeChoice("two_players", "Two players on this computer", _two_players,
               "Take turns at one keyboard and mouse"),
    HomeChoice("watch", "Watch AIs", _watch,
               "Two AIs of your choice play each other"),
    HomeChoice("tournament", "Tournament", _tournament,
               "Any number of AIs; every setting"),
    HomeChoice("online", "Play online", _online,
               "Play a friend on another computer or on a game server, or watch a game"),
)
"""The home screen's choices, top to bottom (their numbers are their shortcuts)."""


@dataclass(frozen=True)
class HomeLayout:
    """Every area of the home screen for one window size."""

    title: Rect
    subtitle: Rect
    choices: tuple[Rect, ...]
    hint: Rect
    settings: Rect
    quit: Rect
    piece: int
    """The size of the pieces beside the title."""

    def buttons(self) -> list[Rect]:
        return [*self.choices, self.settings, self.quit]


def home_layout(size: tuple[int, int], count: int) -> HomeLayout:
    """A centred column: title, the `count` choices, a hint line, Settings and Quit.

    The choice buttons shrink (never below a row of the other screens) when
    many of them share a small window.
    """
    m = Metrics(size)
    w, h = size
    width = min(w - 2 * m.margin, round(560 * m.scale))
    title_h, small = round(m.title * 1.5), m.row + 6
    fixed = title_h + m.row + 2 * m.gap + m.row + 2 * m.gap + small
    spacing = m.gap + m.gap // 2
    room = (h - 2 * m.margin - fixed - (count - 1) * spacing) // max(1, count)
    big = max(m.row, min(round(60 * m.scale), room))
    total = fixed + count * big + (count - 1) * spacing
    x, y = (w - width) // 2, max(m.margin, (h - total) // 2)
    title = Rect(x, y, width, title_h)
    subtitle = Rect(x, title.bottom, width, m.row)
    y = subtitle.bottom + 2 * m.gap
    choices = tuple(Rect(x, y + i * (big + spacing), width, big) for i in range(count))
    hint = Rect(x, y + count * (big + spacing) - spacing + m.gap // 2, width, m.row)
    half = (width - m.gap) // 2
    settings = Rect(x, hint.bottom + 2 * m.gap, half, small)
    quit_ = Rect(x + width - half, settings.y, half, small)
    return HomeLayout(title, subtitle, choices, hint, settings, quit_, round(title_h * 0.55))


class HomeScene(WidgetScene):
    """What to play: a column of choices, then Settings and Quit."""

    def __init__(self, ctx: GuiContext, base: PlayOptions,
                 choices: Sequence[HomeChoice] = HOME_CHOICES) -> None:
        super().__init__(ctx)
        self.base = base
        """The command line's options, which every game from here starts from."""
        self.choices = tuple(choices)
        self.buttons: dict[str, UIButton] = {}
        self.hint: UILabel | None = None
        self.lay: HomeLayout | None = None
        self.pieces: tuple[Rect, Rect] | None = None
        self.focus = KeyFocus(ctx.ui, self.layer, self._focusables, arrows="vertical")
        last = ctx.user.preferences().home_choice
        keys = [c.key for c in self.choices]
        self.focus.key = last if last in keys else keys[0]

    def board(self) -> PlayOptions:
        """The options of a game from here: the remembered board, no players yet."""
        return board_options(self.base, self.ctx.user.last_setup(self.base))

    # ------------------------------------------------------------- widgets
    def build(self, root: UIContainer, m: Metrics) -> None:
        lay = self.lay = home_layout(m.size, len(self.choices))
        title = label(lay.title, "ColorShapeLinks", root, "#home_title")
        self.pieces = self._pieces(lay, title.font.size(title.text)[0] if title.font else 0, m)
        label(lay.subtitle, SUBTITLE, root, "#subtitle")
        self.buttons = {}
        for number, (choice, rect) in enumerate(zip(self.choices, lay.choices), 1):
            widget = button(rect, f"{number}    {choice.label}", root, "#home_choice")
            self.buttons[choice.key] = self.on(widget, self._handler(choice))
        self.hint = label(lay.hint, "", root, "#dim")
        self.buttons["settings"] = self.on(button(lay.settings, "Settings", root),
                                           lambda _e: self.open_settings())
        self.buttons["quit"] = self.on(button(lay.quit, "Quit", root),
                                       lambda _e: self.ctx.nav.quit())
        self._show_hint()

    @staticmethod
    def _pieces(lay: HomeLayout, text_w: int, m: Metrics) -> tuple[Rect, Rect]:
        """A white round piece left of the title's text, a red square one right of it."""
        left, right = Rect(0, 0, lay.piece, lay.piece), Rect(0, 0, lay.piece, lay.piece)
        left.midright = (lay.title.centerx - text_w // 2 - 2 * m.gap, lay.title.centery)
        right.midleft = (lay.title.centerx + text_w // 2 + 2 * m.gap, lay.title.centery)
        return left, right

    def _handler(self, choice: HomeChoice) -> Callable[[pygame.event.Event], None]:
        return lambda _event: self.choose(choice)

    def _focusables(self) -> list[tuple[str, UIButton]]:
        return list(self.buttons.items())

    def focus_rect(self) -> Rect | None:
        return self.focus.rect()

    def _show_hint(self) -> None:
        hints = {c.key: c.hint for c in self.choices}
        hints["settings"] = "The board, the AIs' time limit and the animation"
        if self.hint is not None:
            set_text(self.hint, hints.get(self.focus.key or "", ""))

    def draw(self, surface: pygame.Surface) -> None:
        super().draw(surface)
        if self.pieces is not None:
            left, right = self.pieces
            art = self.ctx.art
            surface.blit(art.image(PColor.WHITE, PShape.ROUND, left.w), left)
            surface.blit(art.image(PColor.RED, PShape.SQUARE, right.w), right)

    # ------------------------------------------------------------- choosing
    def choose(self, choice: HomeChoice) -> None:
        """Take `choice` (and remember it for the next window)."""
        self.focus.key = choice.key
        self.ctx.user.update_preferences(home_choice=choice.key)
        choice.act(self)

    def open_settings(self) -> None:
        self.focus.key = "settings"
        self.ctx.nav.show(SettingsScene(self.ctx, self.base))

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.layer.dispatch(event):
            return
        index = choice_number(event)
        if index is not None:
            if index < len(self.choices):
                self.choose(self.choices[index])
            return
        if self.focus.handle_key(event):
            self._show_hint()
            self._changed = True
