"""What a human can do in a match besides moving: hint, undo, resign, analysis, the menu;
and what a spectator of AIs can: pause, slower, faster, analysis, the menu.

`MatchTools` shows them as a row of buttons above the log (each also has a
key, which the match scene passes on; the buttons name their keys from the
same table, gui/keys.py) and carries them out through the engine:
`Match.undo()`, `Match.resign()` and a `Hint` thought out by the strongest
built-in thinker in a worker process, never on this thread; pause and speed
through the window's `Pacer` (gui/pacing.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pygame
from pygame import Rect
from pygame_gui.elements import UIButton

from csl_game.engine import Match, Session
from csl_game.errors import Refused
from csl_game.gui.columns import column_number
from csl_game.gui.context import GuiContext
from csl_game.gui.keys import GLOBAL_KEYS, MATCH_KEYS, WATCH_KEYS
from csl_game.gui.layout import toolbar_height
from csl_game.gui.pacing import SPEEDS, speed_text, unpaced
from csl_game.gui.sound import Effect
from csl_game.gui.widgets import Metrics, WidgetLayer, button
from csl_game.model.board import PColor, Piece
from csl_game.services import narration as messages
from csl_game.services.hint import Hint

__all__ = ["MatchTools", "RESIGN_CONFIRM_S"]

RESIGN_CONFIRM_S = 4.0
"""Resign asks to be pressed again within this many seconds."""
_TOOLS = tuple((name, text, MATCH_KEYS.names(name)) for name, text in (
    ("hint", "Hint"), ("undo", "Undo"), ("resign", "Resign"), ("analysis", "Analysis"))) + (
    ("menu", "Menu", GLOBAL_KEYS.names("menu")),)
"""A human's tools: (name, text, the keys that do the same)."""
_WATCH_TOOLS = tuple((name, text, WATCH_KEYS.names(name)) for name, text in (
    ("pause", "Pause"), ("slower", "Slower"), ("faster", "Faster"),
    ("analysis", "Analysis"))) + (("menu", "Menu", GLOBAL_KEYS.names("menu")),)
"""A spectator's tools."""
_SHORT = {"analysis": "Eval", "slower": "\u2212", "faster": "+"}
"""Shorter names, for a row too short for the others."""
_SYMBOLS = {"hint": "?", "undo": "\u21b6", "resign": "\u2691", "analysis": "\u25d1",
            "menu": "\u2630", "pause": "\u23f8", "slower": "\u2212", "faster": "+"}
"""What the buttons show in a row too short even for the short names."""


class MatchTools:
    """The hint, undo, resign, analysis and menu buttons of a match, and what they do."""

    def __init__(self, ctx: GuiContext, session: Session, match: Match,
                 on_undo: Callable[[int], None], on_analysis: Callable[[], None]) -> None:
        self.ctx, self.session, self.match = ctx, session, match
        self.on_undo = on_undo
        self.on_analysis = on_analysis
        self.layer = WidgetLayer(ctx.ui)
        self.buttons: dict[str, UIButton] = {}
        self.hint: Hint | None = None
        self.hinted: tuple[int, int, Piece] | None = None
        """The hint shown: (column, landing row, piece)."""
        self._resign_armed = -RESIGN_CONFIRM_S - 1
        self._clock = 0.0
        self._states: dict[str, bool] = {}
        self._labels: dict[str, tuple[str, str]] = {}

    @property
    def has_human(self) -> bool:
        return any(self.match.is_human(c) for c in PColor)

    # ------------------------------------------------------------- widgets
    def build(self, rect: Rect, size: tuple[int, int]) -> None:
        """The buttons in `rect`: one row, or two where `rect` is two rows
        tall (a narrow sidebar), the first three tools above the others."""
        root = self.layer.open(size)
        m = Metrics(size)
        tools = _TOOLS if self.has_human else _WATCH_TOOLS
        self.buttons, self._states, self._labels = {}, {}, {}
        row_h = toolbar_height(m.scale)
        if rect.h < 2 * row_h:
            self._build_row(root, m, rect, tools)
            return
        top = Rect(rect.x, rect.y, rect.w, row_h)
        self._build_row(root, m, top, tools[:3])
        self._build_row(root, m, top.move(0, rect.h - row_h), tools[3:])

    def _build_row(self, root: object, m: Metrics, rect: Rect,
                   tools: tuple[tuple[str, str, str], ...]) -> None:
        """`tools` in `rect`, right-aligned, each as wide as its text needs
        (with its key when there is room), shrunk alike when the row is
        short; a long name gives way to its short form first."""
        gap = max(4, m.gap // 2)
        pad = m.gap + 6
        even = (rect.w - gap * (len(tools) - 1)) // len(tools)
        probe = button(Rect(0, 0, even, rect.h), "", root, "#tool")
        font = probe.font
        probe.kill()

        def need(label: str) -> int:
            return (font.size(label)[0] if font is not None else 8 * len(label)) + pad

        room = rect.w - gap * (len(tools) - 1)
        labels = [self._text(name, text) for name, text, _ in tools]
        if sum(map(need, labels)) > room:
            labels = [_SHORT.get(name, text) for name, text, _ in tools]
        if sum(map(need, labels)) > room:  # a narrow sidebar: symbols, named by tooltips
            labels = [_SYMBOLS[name] for name, _, _ in tools]
        full = [f"{label} ({keys})" for label, (_, _, keys) in zip(labels, tools, strict=True)]
        if sum(map(need, full)) <= room:
            labels = full
        widths = [need(label) for label in labels]
        spare = room - sum(widths)
        if spare < 0 or self.has_human:  # a full row: share out what is left
            widths = [w + spare // len(widths) for w in widths]
        x = rect.right - sum(widths) - gap * (len(tools) - 1)
        for (name, text, keys), label, width in zip(tools, labels, widths, strict=True):
            widget = button(Rect(x, rect.y, width, rect.h), label, root, "#tool")
            widget.set_tooltip(f"{text}: {keys}")
            self.buttons[name] = self.layer.on(widget, self._handler(name))
            x += width + gap
        self._labels.update({name: (label, self._text(name, text)) for (name, text, _), label
                             in zip(tools, labels, strict=True)})
        """Each button's label and the word of it that may change (Pause, Go on)."""

    def _text(self, name: str, text: str) -> str:
        """A button's text now: Pause reads Go on while paused."""
        if name == "pause" and self.ctx.pacer.paused:
            return "Go on"
        return text

    def _relabel(self) -> None:
        """Pause and Go on swap on the pause button (its key kept)."""
        widget, shown = self.buttons.get("pause"), self._labels.get("pause")
        if widget is None or shown is None:
            return
        label, word = shown
        now = self._text("pause", "Pause")
        wanted = label.replace(word, now, 1) if word in label else label
        if wanted != widget.text:
            widget.set_text(wanted)
        self._labels["pause"] = (wanted, now)

    def _handler(self, name: str) -> Callable[[pygame.event.Event], None]:
        return lambda _event: self.act(name)

    def show(self, shown: bool) -> None:
        self.layer.show(shown)

    def close(self) -> None:
        self.cancel_hint()
        self.layer.close()

    def refresh(self, human_to_play: bool) -> None:
        """Enable what can be done now (only what changed is touched)."""
        over = self.match.is_over
        pacer = self.ctx.pacer
        wanted = {"hint": human_to_play and self.hint is None,
                  "undo": self.match.undo_problem() is None,
                  "resign": not over and self.has_human, "analysis": True, "menu": True,
                  "pause": not over, "slower": not over and pacer.speed > min(SPEEDS),
                  "faster": not over and pacer.speed < max(SPEEDS)}
        self._relabel()
        for name, widget in self.buttons.items():
            if self._states.get(name) != wanted[name]:
                (widget.enable if wanted[name] else widget.disable)()
                self._states[name] = wanted[name]

    # ------------------------------------------------------------- acting
    def act(self, name: str) -> None:
        """Do what the tool `name` does (a click or its key)."""
        {"hint": self.ask_hint, "undo": self.undo, "resign": self.resign,
         "analysis": self.on_analysis, "menu": self.ctx.nav.open_menu,
         "pause": self.pause, "slower": lambda: self.pace(-1),
         "faster": lambda: self.pace(1)}[name]()

    # ------------------------------------------------------------- watching
    def pause(self) -> None:
        """Pause the AIs between two moves, or go on."""
        if self.has_human or self.match.is_over:
            return
        paused = self.ctx.pacer.toggle_pause()
        self.ctx.log.add("Paused: the move being thought out is still played "
                         f"({WATCH_KEYS.names('pause')} goes on)" if paused else "Going on")

    def pace(self, step: int) -> None:
        """One speed faster (`step` 1) or slower (-1)."""
        pacer = self.ctx.pacer
        if self.has_human or self.match.is_over:
            return
        before = pacer.speed
        speed = pacer.faster(step)
        if speed == before:
            return
        how = (f"each move stays {pacer.stay_s:g} s longer" if speed < 1
               else "the AIs' own pace" if speed == 1 else "pieces fall faster")
        self.ctx.log.add(f"Speed {speed_text(speed)}: {how}")

    def ask_hint(self) -> None:
        match = self.match
        if not match.awaiting_human or self.hint is not None:
            return
        self.hinted = None
        self.ctx.log.add("Asking the strongest AI for a hint...")
        self.hint = Hint(match.board, self.session.config, unpaced(self.session.runner_factory))

    def undo(self) -> None:
        self.cancel_hint()
        try:
            count = self.match.undo()
        except Refused as e:
            self.ctx.log.add(str(e).capitalize())
            self.ctx.sound.play(Effect.INVALID)
            return
        self.ctx.log.add(messages.undo_text(count))
        self.on_undo(count)

    def resign(self) -> None:
        if self.match.is_over or not self.has_human:
            return
        if self._clock - self._resign_armed > RESIGN_CONFIRM_S:
            self._resign_armed = self._clock
            self.ctx.log.add("Press R (or Resign) again to resign")
            return
        self.cancel_hint()
        color = self.match.board.turn if self.match.is_human(self.match.board.turn) else \
            self.match.board.turn.other
        self.match.resign(color)

    def cancel_hint(self) -> None:
        if self.hint is not None:
            self.hint.close()
            self.hint = None
        self.hinted = None

    def update(self, dt: float) -> bool:
        """Follow the hint being thought out; returns whether one is."""
        self._clock += dt
        hint = self.hint
        if hint is None or not hint.poll():
            return hint is not None
        self.hint = None
        move = hint.move
        if move is None or hint.board.move_count != self.match.board.move_count:
            self.ctx.log.add(hint.problem or "The hint came too late")
            return False
        board = self.match.board
        self.hinted = (move.column, board.column_height(move.column),
                       Piece(board.turn, move.shape))
        self.ctx.log.add(messages.hint_text(move.shape, column_number(move.column)))
        return False
