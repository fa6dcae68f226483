"""The keys of every screen, one table a screen: the window's one table of keys.

A `KeyTable` says which keys do what on one screen: the screen asks it which
action a key press means (`action()`), the buttons that do the same take
their key names from it (`names()`), and "How to play" (F1) lists every
table (`help_html()`). Keys, buttons and help cannot drift apart: a key is
written down once, here; no other module of the window names a key code
(tests/test_gui_keys.py holds it).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import pygame

__all__ = ["Binding", "KeyTable", "GLOBAL_KEYS", "MATCH_KEYS", "SERVER_KEYS", "WATCH_KEYS",
           "REPLAY_KEYS",
           "TABLE_KEYS", "SCREEN_KEYS", "LIST_KEYS", "HELP_KEYS", "ALL_TABLES", "DIGIT_KEYS",
           "digit_of", "choice_number", "is_shifted"]

Chord = tuple[int, int]
"""A key and the modifier it needs (0: none; a letter then does nothing with Ctrl or Alt)."""

_CTRL = pygame.KMOD_CTRL
_HELD = pygame.KMOD_CTRL | pygame.KMOD_ALT | pygame.KMOD_META

DIGIT_KEYS: dict[int, int] = {getattr(pygame, f"K_{d}"): d for d in range(10)} | {
    getattr(pygame, f"K_KP{d}"): d for d in range(10)}
"""The digit keys (top row and keypad) and their values."""


def digit_of(event: pygame.event.Event) -> int | None:
    """The digit a key press types, if it is one (and no Ctrl or Alt is held)."""
    if event.type != pygame.KEYDOWN or event.mod & _HELD:
        return None
    return DIGIT_KEYS.get(event.key)


def choice_number(event: pygame.event.Event) -> int | None:
    """The choice a digit key picks, counted from 0 (1 is the first), if it is one."""
    digit = digit_of(event)
    return digit - 1 if digit else None


def is_shifted(event: pygame.event.Event) -> bool:
    """Whether Shift was held (Shift+Tab goes back)."""
    return bool(event.mod & pygame.KMOD_SHIFT)


def _text(text: str) -> str:
    """Text for pygame_gui's HTML (quotes as they are)."""
    return html.escape(text, quote=False)


def _plain(*keys: int) -> tuple[Chord, ...]:
    return tuple((k, 0) for k in keys)


@dataclass(frozen=True)
class Binding:
    """Keys that do one thing: the action's name, the keys, how help names them,
    and what the action does (for help)."""

    action: str
    chords: tuple[Chord, ...]
    names: str
    """The keys as people read them: 'U or Ctrl+Z', 'R, twice'."""
    does: str
    """What it does, for help: 'take back your last move'."""
    steps: tuple[int, ...] = ()
    """How far each chord moves, in the chords' order (Up -1, Page Down 8); () for none."""

    def step(self, event: pygame.event.Event) -> int:
        """How far the key pressed moves (0: not one of these keys, or no step)."""
        if not self.matches(event):
            return 0
        return next((step for (key, _), step in zip(self.chords, self.steps)
                     if key == event.key), 0)

    def matches(self, event: pygame.event.Event) -> bool:
        if event.type != pygame.KEYDOWN:
            return False
        for key, mod in self.chords:
            if event.key != key:
                continue
            if mod and event.mod & mod:
                return True
            if not mod and not event.mod & _HELD:
                return True
        return False


@dataclass(frozen=True)
class KeyTable:
    """The keys of one screen, in the order help lists them."""

    title: str
    bindings: tuple[Binding, ...]

    def action(self, event: pygame.event.Event) -> str | None:
        """The action a key press means on this screen, if any."""
        return next((b.action for b in self.bindings if b.matches(event)), None)

    def binding(self, action: str) -> Binding:
        return next(b for b in self.bindings if b.action == action)

    def names(self, action: str) -> str:
        """How help (and a button's label) names the keys of `action`."""
        return self.binding(action).names

    def help_html(self) -> str:
        """The table as a paragraph of "How to play": a title, then 'keys: what' items."""
        items = " \u00b7 ".join(f"<b>{_text(b.names)}</b>: {_text(b.does)}"
                                for b in self.bindings)
        return f"<b>{_text(self.title)}</b><br>{items}"


GLOBAL_KEYS = KeyTable("Everywhere", (
    Binding("menu", _plain(pygame.K_ESCAPE), "Esc",
            "the menu (resume, restart, home, sound, theme, quit); Esc also goes back from "
            "a picker, a list or a replay opened from a tournament"),
    Binding("help", _plain(pygame.K_F1), "F1",
            "how to play (this page: the keys of the screen under it first)"),
    Binding("mute", _plain(pygame.K_m), "M", "sound on or off"),
    Binding("theme", _plain(pygame.K_t), "T", "the next theme (default, high contrast)"),
    Binding("quit", ((pygame.K_q, _CTRL),), "Ctrl+Q", "quit"),
))
"""Keys the window itself takes, on every screen (M and T not while typing)."""

MATCH_KEYS = KeyTable("Playing a match", (
    Binding("left", _plain(pygame.K_LEFT), "Left", "the column on the left"),
    Binding("right", _plain(pygame.K_RIGHT), "Right", "the column on the right"),
    Binding("digit", _plain(*DIGIT_KEYS), "digits",
            "a column by number (two digits for 10 and up, e.g. 1 then 2 for 12)"),
    Binding("drop", _plain(pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE, pygame.K_DOWN),
            "Enter, Space or Down", "drop the piece"),
    Binding("shape", _plain(pygame.K_TAB, pygame.K_s), "Tab or S", "the other shape"),
    Binding("hint", _plain(pygame.K_h), "H",
            "a hint: the strongest AI's move, ringed on the board"),
    Binding("undo", (*_plain(pygame.K_u), (pygame.K_z, _CTRL)), "U or Ctrl+Z",
            "take back your last move (and the AI's reply; an online game takes none back)"),
    Binding("resign", _plain(pygame.K_r), "R, twice", "resign (R once asks, R again resigns)"),
    Binding("analysis", _plain(pygame.K_a), "A",
            "the analysis panel: the evaluation, the best line and every move's value"),
))
"""The keys of a match a human plays."""

_MOVING = tuple(b for b in MATCH_KEYS.bindings if b.action in ("left", "right", "digit", "drop",
                                                              "shape"))
SERVER_KEYS = KeyTable("Playing on a game server", (
    *_MOVING,
    Binding("draw", _plain(pygame.K_d), "D", "offer a draw, or accept the one offered"),
    Binding("takeback", (*_plain(pygame.K_u), (pygame.K_z, _CTRL)), "U or Ctrl+Z",
            "ask to take back your last move (and the reply to it), or accept the "
            "opponent's ask (casual games)"),
    Binding("resign", _plain(pygame.K_r), "R, twice", "resign (R once asks, R again resigns)"),
    Binding("claim", _plain(pygame.K_c), "C",
            "claim the win when the opponent left and the server's countdown ran out"),
    Binding("rematch", _plain(pygame.K_n), "N",
            "after the game: ask for a rematch (the colours swap), or accept the one asked"),
    Binding("decline", _plain(pygame.K_x), "X",
            "decline what the opponent offers or asks: a draw, a takeback, a rematch"),
))
"""The keys of a game on a server (Play online, On a server): a match's, and the
offers the server's protocol has (docs/server.md)."""

WATCH_KEYS = KeyTable("Watching AIs", (
    Binding("pause", _plain(pygame.K_SPACE, pygame.K_p), "Space or P",
            "pause (the move being thought out is still played) or go on"),
    Binding("slower", _plain(pygame.K_MINUS, pygame.K_KP_MINUS, pygame.K_LEFTBRACKET),
            "- or [", "slower: each move stays on the board longer"),
    Binding("faster", _plain(pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS,
                             pygame.K_RIGHTBRACKET), "+ or ]",
            "faster: back to the AIs' own pace, then quicker animations"),
    Binding("analysis", _plain(pygame.K_a), "A",
            "the analysis panel and each side's figures (depth, score, line)"),
))
"""The keys of a match between AIs (the spectator's)."""

REPLAY_KEYS = KeyTable("Replays and game review", (
    Binding("forward", _plain(pygame.K_RIGHT, pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_n),
            "Right, Enter or N", "the next move (the mouse wheel too)"),
    Binding("back", _plain(pygame.K_LEFT, pygame.K_BACKSPACE, pygame.K_b),
            "Left, Backspace or B", "the move before"),
    Binding("start", _plain(pygame.K_HOME, pygame.K_UP), "Home or Up", "the start"),
    Binding("end", _plain(pygame.K_END, pygame.K_DOWN), "End or Down", "the end"),
    Binding("play", _plain(pygame.K_SPACE, pygame.K_p), "Space or P",
            "play the moves one after another, or pause"),
    Binding("review", _plain(pygame.K_v), "V",
            "review the game: every move graded, the better move, each side's accuracy"),
    Binding("mistake", _plain(pygame.K_x), "X",
            "the next inaccuracy, mistake or blunder (after the review)"),
    Binding("analysis", _plain(pygame.K_a), "A", "the analysis panel"),
    Binding("quit", _plain(pygame.K_q), "Q", "close the window of csl-game replay"),
))
"""The keys of a replay."""

TABLE_KEYS = KeyTable("A tournament's results", (
    Binding("up", _plain(pygame.K_UP), "Up", "the match above"),
    Binding("down", _plain(pygame.K_DOWN), "Down", "the match below (Down or Up on the "
                                                   "buttons first reaches the table; Tab too)"),
    Binding("page_up", _plain(pygame.K_PAGEUP), "Page Up", "a page of matches up"),
    Binding("page_down", _plain(pygame.K_PAGEDOWN), "Page Down", "a page of matches down"),
    Binding("first", _plain(pygame.K_HOME), "Home", "the first match"),
    Binding("last", _plain(pygame.K_END), "End", "the last match"),
    Binding("open", _plain(pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE),
            "Enter or Space", "replay the match picked (a click on its row too)"),
))
"""The keys of a results table, once it has the focus (Down, Up or Tab from
the buttons reaches it)."""

_ENTER = _plain(pygame.K_RETURN, pygame.K_KP_ENTER)
_ENTER_OR_SPACE = _plain(pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE)

SCREEN_KEYS = KeyTable("Other screens", (
    Binding("next", _plain(pygame.K_TAB), "Tab, Shift+Tab",
            "the next or previous button or field (a ring shows which)"),
    Binding("along", _plain(pygame.K_LEFT, pygame.K_RIGHT), "Left, Right",
            "along a row of buttons", (-1, 1)),
    Binding("between", _plain(pygame.K_UP, pygame.K_DOWN), "Up, Down",
            "between rows of buttons; on a closed list, its option before or after", (-1, 1)),
    Binding("choose", _ENTER_OR_SPACE, "Enter or Space",
            "does what the focused button says; opens a list (its keys: \u201cAn open "
            "list\u201d)"),
    Binding("go", _ENTER, "Enter in a field",
            "goes on: to the next field of the online form, else what the screen is for "
            "(Start, Play, Save)"),
    Binding("digits", _plain(*DIGIT_KEYS), "digits",
            "the home screen's choices and the computer's levels (Easy 1, Medium 2, Hard 3)"),
))
"""How every other screen is worked: its buttons' own shortcuts are on the buttons."""

_LIST_ENDS = 1 << 20
"""A step past either end of any list (Home and End clamp to its ends)."""

LIST_KEYS = KeyTable("An open list", (
    Binding("step", _plain(pygame.K_UP, pygame.K_DOWN), "Up, Down",
            "the option above or below", (-1, 1)),
    Binding("page", _plain(pygame.K_PAGEUP, pygame.K_PAGEDOWN), "Page Up, Page Down",
            "eight options up or down", (-8, 8)),
    Binding("ends", _plain(pygame.K_HOME, pygame.K_END), "Home, End",
            "the first or the last option", (-_LIST_ENDS, _LIST_ENDS)),
    Binding("take", _ENTER_OR_SPACE, "Enter or Space", "take the option picked"),
    Binding("close", _plain(pygame.K_ESCAPE), "Esc", "close the list, taking nothing"),
    Binding("leave", _plain(pygame.K_TAB), "Tab", "close the list and go to the next field"),
))
"""The keys of a drop-down list once it is open (Enter or Space opens it)."""

HELP_KEYS = KeyTable("This page", (
    Binding("up", _plain(pygame.K_UP), "Up", "scroll up"),
    Binding("down", _plain(pygame.K_DOWN), "Down", "scroll down"),
    Binding("page_up", _plain(pygame.K_PAGEUP), "Page Up", "a page up"),
    Binding("page_down", _plain(pygame.K_PAGEDOWN, pygame.K_SPACE), "Page Down or Space",
            "a page down"),
    Binding("top", _plain(pygame.K_HOME), "Home", "the top"),
    Binding("bottom", _plain(pygame.K_END), "End", "the end"),
    Binding("close", _plain(pygame.K_ESCAPE, pygame.K_F1, pygame.K_RETURN, pygame.K_KP_ENTER),
            "Esc, F1 or Enter", "close it"),
))
"""The keys of "How to play" itself."""

ALL_TABLES: Sequence[KeyTable] = (MATCH_KEYS, SERVER_KEYS, WATCH_KEYS, REPLAY_KEYS, TABLE_KEYS,
                                  GLOBAL_KEYS, SCREEN_KEYS, LIST_KEYS, HELP_KEYS)
"""Every screen's keys, in the order "How to play" lists them."""
