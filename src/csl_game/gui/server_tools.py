"""What a player can do in a game on a server besides moving: offer or accept a
draw, ask for or accept a takeback, decline the opponent's offer or ask,
resign, claim the win over an opponent who left, and after the game ask for
or accept (or decline) a rematch.

`ServerTools` shows them as a row of buttons above the log, as a match's tools
(gui/scenes/match_tools.py): each has its key in the window's one table
(gui/keys.py, SERVER_KEYS), which the buttons name. An offer of the opponent
turns its button into the one that accepts it (lit), with Decline beside it;
a button for what cannot be done now is greyed, and its key says why in the
log. The table (gui/server_table.py) sends the protocol's messages; nothing
here judges.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import pygame
from pygame import Rect
from pygame_gui.elements import UIButton

from csl_game.engine import ForfeitReason, MatchResult
from csl_game.gui.context import GuiContext
from csl_game.gui.keys import SERVER_KEYS
from csl_game.gui.layout import toolbar_height
from csl_game.gui.sound import Effect
from csl_game.gui.widgets import Metrics, WidgetLayer, button
from csl_game.model.board import Board, PColor, Winner
from csl_game.services import narration

__all__ = ["ServerSide", "ServerTools", "TOOL_NAMES", "server_why"]

TOOL_NAMES = ("draw", "takeback", "decline", "resign", "claim", "rematch")
"""The tools, in their order on the bar (and their actions in SERVER_KEYS)."""


@runtime_checkable
class ServerSide(Protocol):
    """What the tools read and do of a server game's table (ServerTable)."""

    local: PColor | None
    rated: bool
    declined: set[str]
    """This side's offers the opponent declined since the last move."""

    @property
    def playing(self) -> bool: ...

    @property
    def result(self) -> MatchResult | None: ...

    def can_offer(self, what: str) -> bool: ...

    def offered_by_them(self, what: str) -> bool: ...

    def offered_by_me(self, what: str) -> bool: ...

    def offer(self, what: str) -> None: ...

    def declinable(self) -> tuple[str, ...]:
        """What the opponent offers or asks now that may be declined."""

    def decline(self) -> None: ...

    @property
    def can_claim(self) -> bool: ...

    def claim(self) -> None: ...

    def away_left(self) -> tuple[PColor, float, float] | None:
        """The side that left, its seconds to come back, and the seconds before
        the win may be claimed (None: nobody is away)."""

    def clock_ms(self, color: PColor) -> int | None: ...

    @property
    def running(self) -> PColor | None: ...

    def name(self, color: PColor) -> str: ...


Look = tuple[str, str, str, bool]
"""A button as shown: (tool, label, style, enabled)."""
_SHORT = {"Accept draw": "Accept", "Accept takeback": "Accept", "Accept rematch": "Accept",
          "Draw offered": "Offered", "Takeback asked": "Asked", "Rematch asked": "Asked",
          "Offer draw": "Draw", "Claim the win": "Claim", "Decline draw": "Decline",
          "Decline takeback": "Decline", "Decline rematch": "Decline", "Decline both": "Decline"}
"""Shorter labels, for a narrow bar (the panel and the log say what is offered)."""


class ServerTools:
    """The buttons of a server game above the log, and what they and their keys do."""

    def __init__(self, ctx: GuiContext, table: ServerSide, resign: Callable[[], None]) -> None:
        self.ctx, self.table, self.resign = ctx, table, resign
        self.layer = WidgetLayer(ctx.ui)
        self.buttons: dict[str, UIButton] = {}
        self._rect: Rect | None = None
        self._size: tuple[int, int] = (0, 0)
        self._shown: tuple[Look, ...] | None = None

    # ------------------------------------------------------------- what is shown
    def looks(self) -> tuple[Look, ...]:
        """The buttons the game has now, each with its label, style and state."""
        t = self.table
        if t.result is not None:
            return (self._offer_look("rematch", "Rematch", "Accept rematch", "Rematch asked"),
                    *self._decline_look())
        if not t.playing:
            return ()
        shown = [self._offer_look("draw", "Offer draw", "Accept draw", "Draw offered")]
        if not t.rated:
            shown.append(self._offer_look("takeback", "Take back", "Accept takeback",
                                          "Takeback asked"))
        beside = max((i + 1 for i, look in enumerate(shown) if look[0] in t.declinable()),
                     default=len(shown))  # right after the Accept it declines
        shown[beside:beside] = self._decline_look()
        shown.append(("resign", "Resign", "#tool", True))
        away = t.away_left()
        if away is not None and away[0] is not t.local:
            wait = "Claim the win" if t.can_claim else f"Claim in {max(1, round(away[2]))} s"
            shown.append(("claim", wait, "#primary" if t.can_claim else "#tool", t.can_claim))
        return tuple(shown)

    def _decline_look(self) -> tuple[Look, ...]:
        """Decline, beside Accept, while the opponent offers or asks something."""
        what = self.table.declinable()
        if not what:
            return ()
        return (("decline", f"Decline {what[0] if len(what) == 1 else 'both'}", "#tool", True),)

    def _offer_look(self, what: str, offer: str, accept: str, asked: str) -> Look:
        t = self.table
        if t.offered_by_them(what):
            return (what, accept, "#primary", t.can_offer(what))
        if t.offered_by_me(what):
            return (what, asked, "#tool", False)
        return (what, offer, "#tool", t.can_offer(what))

    # ------------------------------------------------------------- widgets
    def build(self, rect: Rect, size: tuple[int, int]) -> None:
        """The buttons in `rect` (the toolbar): one row, or two where it is two rows tall."""
        self._rect, self._size = rect, size
        self._shown = None
        self.refresh()

    def refresh(self) -> None:
        """Show the buttons as the game stands (made anew only when they change)."""
        looks = self.looks()
        if looks == self._shown or self._rect is None:
            return
        self._shown = looks
        root = self.layer.open(self._size)
        self.buttons = {}
        if not looks:
            return
        m = Metrics(self._size)
        row_h = toolbar_height(m.scale)
        rows = [looks] if self._rect.h < 2 * row_h or len(looks) < 3 else \
            [looks[:(len(looks) + 1) // 2], looks[(len(looks) + 1) // 2:]]
        for i, row in enumerate(rows):
            y = self._rect.y if i == 0 else self._rect.bottom - row_h
            self._build_row(root, m, Rect(self._rect.x, y, self._rect.w, row_h), row)

    def _build_row(self, root: object, m: Metrics, rect: Rect, looks: tuple[Look, ...]) -> None:
        """`looks` side by side across `rect`, each label with its key where there is room."""
        gap = max(4, m.gap // 2)
        width = (rect.w - gap * (len(looks) - 1)) // len(looks)
        for i, (name, label, style, enabled) in enumerate(looks):
            keys = SERVER_KEYS.names(name)
            widget = button(Rect(rect.x + i * (width + gap), rect.y, width, rect.h), "", root,
                            style)
            font, room = widget.font, width - m.gap - 6
            short = label if label.startswith("Claim in") else _SHORT.get(label, label)
            shown = next((text for text in (f"{label} ({keys.split(',')[0].split(' or ')[0]})",
                                            label, short)
                          if font is None or font.size(text)[0] <= room), short)
            widget.set_text(shown)
            widget.set_tooltip(f"{label}: {keys}")
            if not enabled:
                widget.disable()
            self.buttons[name] = self.layer.on(widget, self._handler(name))

    def _handler(self, name: str) -> Callable[[pygame.event.Event], None]:
        return lambda _event: self.act(name)

    def show(self, shown: bool) -> None:
        self.layer.show(shown)

    def close(self) -> None:
        self.layer.close()
        self.buttons = {}
        self._shown = None

    # ------------------------------------------------------------- acting
    def handle_event(self, event: pygame.event.Event) -> bool:
        """A click on a button, or a tool's key; returns whether it was one."""
        if self.layer.dispatch(event):
            return True
        action = SERVER_KEYS.action(event)
        if action in TOOL_NAMES:
            self.act(action)
            return True
        return False

    def act(self, name: str) -> None:
        """Do what the tool `name` does, or say why it cannot be done now."""
        t = self.table
        if name == "resign":
            self.resign()
        elif name == "claim" and t.can_claim:
            t.claim()
        elif name in ("draw", "takeback", "rematch") and t.can_offer(name):
            t.offer(name)
        elif name == "decline" and t.declinable():
            t.decline()
        else:
            self.ctx.log.add(self.why_not(name))
            self.ctx.sound.play(Effect.INVALID)
        self.refresh()

    def why_not(self, name: str) -> str:
        """Why the tool `name` cannot be used now."""
        t = self.table
        if name == "decline":
            return "Your opponent offers nothing to decline"
        if name == "rematch":
            return ("You asked for a rematch: waiting for the answer" if t.offered_by_me(name)
                    else "A rematch is asked for once the game is over")
        if not t.playing:
            return "The game is not being played: nothing to offer or claim"
        if name == "claim":
            away = t.away_left()
            if away is None or away[0] is t.local:
                return "Your opponent is here: there is no win to claim"
            return f"{t.name(away[0])} may come back for {away[2]:.0f} s more before you may claim"
        if t.offered_by_me(name):
            return f"You asked already: waiting for {t.name(_other(t.local))}'s answer"
        if name in t.declined:
            return f"{t.name(_other(t.local))} declined it: ask again after the next move"
        if name == "takeback":
            return ("A rated game takes no move back" if t.rated
                    else "You have no move to take back yet")
        return "A draw cannot be offered now"


def server_why(result: MatchResult, board: Board, you: PColor | None, name: str) -> str | None:
    """Why a server game ended, where the words of a match do not fit (None:
    they do): a draw agreed, a flag on the people's clocks, a win claimed over
    a player who left (`name`: the loser's name)."""
    if result.winner is Winner.DRAW and result.forfeit is None \
            and board.check_winner() is Winner.NONE:
        return "The players agreed a draw"
    if result.forfeit is ForfeitReason.DISCONNECTED and "claimed the win" in result.detail:
        loser = result.winner.color.other if result.winner.color is not None else None
        if loser is not None and loser is not you:
            return f"{narration.who(loser, name)} left the game, and you claimed the win"
        return None
    if result.forfeit is not ForfeitReason.TIMEOUT:
        return None
    if result.winner is Winner.DRAW:  # the flag of a side whose opponent could no longer win
        return result.detail[:1].upper() + result.detail[1:]
    loser = result.winner.color.other if result.winner.color is not None else None
    if loser is None:
        return None
    whose = "Your" if loser is you else f"{narration.who(loser, name)}'s"
    return f"{whose} clock ran out"


def _other(color: PColor | None) -> PColor:
    return PColor.WHITE if color is None else color.other
