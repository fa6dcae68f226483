"""The screen before an online game begins: the host waits for its friend
(showing, large, the address and the join code to give them, with Copy
where the system has a clipboard), a joiner or spectator waits for the
host's welcome, a player on a server for an opponent (the server, and the
code a friend may join its challenge with once the server tells it).
Cancel (or Esc) goes back. Once the game begins, the online board shows it
(gui/scenes/online_board.py); a joiner the host turned away goes back to
the online picker, which says why.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame
from pygame import Rect
from pygame_gui.core import UIContainer

from csl_game.gui.context import GuiContext
from csl_game.gui.focus import KeyFocus
from csl_game.gui.online_table import Happening, HostTable, Table
from csl_game.gui.scenes.online_board import OnlineBoardScene
from csl_game.gui.scenes.tourney_board import TourneyBoardScene
from csl_game.gui.style import TextRole, palette
from csl_game.gui.tourney_table import WatchTable
from csl_game.gui.widgets import Metrics, WidgetScene, button, label
from csl_game.online.host import Host
from csl_game.services.addresses import lan_address

__all__ = ["OnlineWaitScene", "invitation", "clipboard_available"]


def invitation(host: Host) -> list[tuple[str, str]]:
    """(caption, text) to show the host: the address and code to give a friend."""
    where = host.bound_host
    if where:
        shown = f"[{where}]" if ":" in where else where
        return [("Address", f"{shown}:{host.port}"), ("Join code", host.code)]
    return [("Address", f"{lan_address()}:{host.port}"), ("Join code", host.code)]


def clipboard_available() -> bool:
    """Whether text can be put on the system's clipboard from here."""
    scrap = getattr(pygame, "scrap", None)
    return scrap is not None and hasattr(scrap, "put_text") and \
        pygame.display.get_driver() != "dummy"


class OnlineWaitScene(WidgetScene):
    """Waiting for the game to begin: the friend to join, or the host to answer."""

    def __init__(self, ctx: GuiContext, back: Callable[[str], None], table: Table, where: str,
                 lines: list[tuple[str, str]]) -> None:
        """`back(why)` shows the online picker again (`why`: "" when cancelled)."""
        super().__init__(ctx)
        self.back = back
        self.table = table
        self.where = where
        self.lines = lines
        self.screen = table.waiting()
        """What the table says of itself (a server's game), else None."""
        self.hosting = isinstance(table, HostTable)
        self.values: list[Rect] = []
        """Where the large texts (address, code) are drawn."""
        self.buttons: dict[str, object] = {}
        self.focus = KeyFocus(ctx.ui, self.layer, lambda: list(self.buttons.items()))
        self.focus.key = None
        """Copy once built, if there is one: Enter never cancels by surprise (Tab
        reaches Cancel, and Esc cancels)."""
        self._happened: list[Happening] = []
        self._handed = False
        self._status: Rect | None = None

    # ------------------------------------------------------------- widgets
    def build(self, root: UIContainer, m: Metrics) -> None:
        if self.screen is not None:
            self.lines = list(self.screen.lines)
        w, h = m.size
        width = min(w - 2 * m.margin, round(760 * m.scale))
        big = self._big_size(m)
        title_h, small = round(m.title * 1.3), m.row + 6
        block = m.row + big + big // 3
        total = title_h + len(self.lines) * block + 2 * m.row + 2 * m.gap + small
        x, y = (w - width) // 2, max(m.margin, (h - total) // 2)
        title = "Waiting for your friend" if self.hosting else \
            self.screen.title if self.screen is not None else f"{self.lines[0][0]}\u2026"
        label(Rect(x, y, width, title_h), title, root, "#home_title")
        y += title_h
        self.values = []
        for caption, _ in self.lines:
            label(Rect(x, y, width, m.row), caption, root, "#subtitle")
            self.values.append(Rect(x, y + m.row, width, big + big // 4))
            y += block
        self._status = Rect(x, y, width, m.row)
        note = self.where if self.screen is None else self.screen.note
        if isinstance(self.table, HostTable):
            host = self.table.host
            note = "Spectators need only the address."
            if not host.bound_host:
                note = f"On this computer: 127.0.0.1:{host.port}. {note}"
        label(Rect(x, y + m.row, width, m.row), note, root, "#dim")
        y += 2 * m.row + 2 * m.gap
        half = min(round(200 * m.scale), (width - m.gap) // 2)
        self.buttons = {}
        if clipboard_available() and (self.hosting or len(self.lines) > 1):
            self.buttons["copy"] = self.on(button(Rect(x, y, half, small), "Copy", root),
                                           lambda _e: self.copy())
        cancel_x = x + width - half if "copy" in self.buttons else x + (width - half) // 2
        self.buttons["cancel"] = self.on(
            button(Rect(cancel_x, y, half, small), "Cancel (Esc)", root),
            lambda _e: self.cancel())
        if self.focus.key is None and "copy" in self.buttons:
            self.focus.key = "copy"

    @staticmethod
    def _big_size(m: Metrics) -> int:
        return round(TextRole.BANNER.size(m.scale) * 1.5)

    def focus_rect(self) -> Rect | None:
        return self.focus.rect()

    # ------------------------------------------------------------- acting
    def copy(self) -> None:
        """The address and code on the clipboard, as one line to send a friend."""
        text = "  ".join(f"{caption}: {value}" for caption, value in self.lines)
        try:
            pygame.scrap.put_text(text)
        except (pygame.error, AttributeError, OSError) as e:
            self.ctx.log.add(f"Could not copy: {e}")
            return
        self.ctx.log.add(f"Copied: {text}")

    def cancel(self) -> None:
        self.back("")

    def escape(self) -> bool:
        self.cancel()
        return True

    def exit(self) -> None:
        super().exit()
        if not self._handed:
            self.table.close()

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.layer.dispatch(event):
            return
        if self.focus.handle_key(event):
            self._changed = True

    # ------------------------------------------------------------- waiting
    @property
    def busy(self) -> bool:
        return False

    def update(self, dt: float) -> None:
        for item in self.table.poll():
            if isinstance(item, str):
                self.ctx.log.add(item)
            else:
                self._happened.append(item)
        screen = self.table.waiting()
        if screen != self.screen:  # the server told more (its code): shown as it is now
            self.screen = screen
            self.rebuild()
        if self.table.ready:
            self._handed = True
            table, pending = self.table, tuple(self._happened)
            if isinstance(table, WatchTable) and table.is_tournament:
                self.ctx.nav.show(TourneyBoardScene(self.ctx, table, self.where, pending))
            else:
                self.ctx.nav.show(OnlineBoardScene(self.ctx, table, self.where, pending))
        elif self.table.failed is not None:
            self.back(self.table.failed)

    def draw(self, surface: pygame.Surface) -> None:
        super().draw(surface)
        m = self.metrics
        pal = palette()
        for rect, (_, value) in zip(self.values, self.lines):
            text = self.ctx.text.fit(value, self._big_size(m), pal.highlight, rect.w, bold=True)
            surface.blit(text, text.get_rect(center=rect.center))
        if self._status is not None:
            status = ("Waiting for your friend to join (Esc cancels)\u2026" if self.hosting
                      else self.screen.status if self.screen is not None
                      else "Waiting for the host\u2026")
            text = self.ctx.text.fit(status, TextRole.BODY.size(m.scale), pal.text,
                                     self._status.w)
            surface.blit(text, text.get_rect(center=self._status.center))


