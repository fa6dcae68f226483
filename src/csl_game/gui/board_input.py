"""Mouse and keys on a board: how a human moves, alike in every board scene.

`BoardInput` turns the events over a board into `HumanControls` calls: a
press and release on one column's arrow (or its cells) drops the selected
shape there, on a shape toggle of the player to move selects it, the
pointer's column is in focus; the keys of a `KeyTable` (gui/keys.py) pick a
column (the arrows, a digit or two), drop (Enter) and switch the shape (Tab).
The keys of the tools (hint, undo, resign, analysis; a spectator's pause and
speed) go to the scene, which says what they do there: the match scene's
buttons carry them out, an online game says which it cannot do. The match
scene and an online game's board both take their input from here.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame

from csl_game.gui.controls import HumanControls
from csl_game.gui.keys import DIGIT_KEYS, MATCH_KEYS, KeyTable
from csl_game.gui.layout import BoardLayout
from csl_game.gui.sound import Effect, Sound
from csl_game.model.board import PShape

__all__ = ["BoardInput", "Target", "DIGIT_PAIR_S", "TOOL_ACTIONS", "how_to_play"]

DIGIT_PAIR_S = 1.0
"""On boards of 10 columns or more, a second digit within this many seconds
makes a two-digit column number (1 then 2: column 12, counted from 1)."""
TOOL_ACTIONS = ("hint", "undo", "resign", "analysis", "pause", "slower", "faster")
"""The actions of gui/keys.py's tables that a scene's tools carry out."""

Target = tuple[str, int]
"""What the pointer is on: ("column", column) or ("shape", int(PShape))."""


def how_to_play(note: str = "") -> str:
    """The log's first words to a human player; `note` says what this game does not allow."""
    text = ("To play, click a column's arrow, or pick a column with the arrow or "
            "digit keys and press Enter; Tab switches the shape. F1: how to play.")
    return f"{text} {note}" if note else text


class BoardInput:
    """A board's mouse and keys, turned into a human's choices and moves.

    `controls` holds the choices (their `enabled` says whether a human may
    act now); `layout()` gives the board's rectangles as drawn now; `tool`
    does a tool's action ("hint", "undo", ...: TOOL_ACTIONS) when its key is
    pressed; `keys` is the screen's key table (a spectator's has no columns).
    """

    def __init__(self, controls: HumanControls, layout: Callable[[], BoardLayout],
                 sound: Sound, tool: Callable[[str], None],
                 keys: KeyTable = MATCH_KEYS) -> None:
        self.controls = controls
        self.layout = layout
        self.sound = sound
        self.tool = tool
        self.keys = keys
        self.hover: PShape | None = None
        """The shape toggle under the pointer, if any (drawn lit while it may be chosen)."""
        self._pressed: Target | None = None
        self._clock = 0.0
        self._first_digit: tuple[int, float] | None = None

    def update(self, dt: float) -> None:
        """Let `dt` seconds pass (a second digit counts only soon after the first)."""
        self._clock += dt

    # ------------------------------------------------------------- events
    def handle_event(self, event: pygame.event.Event) -> bool:
        """Act on a mouse or key event; returns whether it was the board's."""
        if event.type == pygame.MOUSEMOTION:
            target = self.target_at(event.pos)
            self.controls.focus(target[1] if target and target[0] == "column" else None)
            self.hover = PShape(target[1]) if target and target[0] == "shape" else None
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self._pressed = self.target_at(event.pos)
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            target, pressed, self._pressed = self.target_at(event.pos), self._pressed, None
            if target is None or target != pressed:  # a drag off its target: let go
                return False
            self.activate(target)
        elif event.type == pygame.KEYDOWN:
            return self.key(event)
        else:
            return False
        return True

    def target_at(self, pos: tuple[int, int]) -> Target | None:
        """The column, or the shape toggle of the player to move, at `pos`."""
        layout = self.layout()
        col = layout.column_at(pos)
        if col is not None:
            return ("column", col)
        shape = layout.panels[self.controls.color].toggle_at(pos)
        return None if shape is None else ("shape", int(shape))

    def activate(self, target: Target) -> None:
        """A click on `target`: drop into the column, or select the shape."""
        kind, value = target
        if kind == "column":
            self.controls.focus(value)
            self.drop(value)
        else:
            self.controls.select(PShape(value))

    def drop(self, col: int | None = None) -> bool:
        """Drop the selected shape; a refused drop on a human's turn sounds so."""
        if self.controls.drop(col):
            return True
        if self.controls.enabled:
            self.sound.play(Effect.INVALID)
        return False

    def key(self, event: pygame.event.Event) -> bool:
        """Act on a key press by the table `keys`; returns whether it means anything."""
        action = self.keys.action(event)
        controls = self.controls
        if action == "left":
            controls.step(-1)
        elif action == "right":
            controls.step(+1)
        elif action == "digit":
            self.digit(DIGIT_KEYS[event.key])
        elif action == "shape":
            controls.toggle_shape()
        elif action == "drop":
            self.drop()
        elif action in TOOL_ACTIONS:
            self.tool(action)
        else:
            return False
        return True

    def digit(self, digit: int) -> None:
        """A column by its number as players count (from 1): one digit, or two
        typed in a row on boards of 10 columns or more (1 then 0: the tenth)."""
        cols = self.controls.match.board.cols
        first, self._first_digit = self._first_digit, None
        if first is not None and self._clock - first[1] <= DIGIT_PAIR_S:
            number = first[0] * 10 + digit
            if number <= cols:
                self.controls.focus(number - 1)
                return
        if 0 < digit <= cols:
            self.controls.focus(digit - 1)
        if 0 < digit and digit * 10 <= cols:
            self._first_digit = (digit, self._clock)
