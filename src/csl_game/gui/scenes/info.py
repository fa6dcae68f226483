"""The screens between matches: who plays next, and the end of a tournament.

Each shows the session's choices as buttons (the default one highlighted and
also taken with Enter) or, when the session says the screen is timed, moves on
by itself with a countdown. Their results tables open any finished match as a
replay (a click on its row; or Down to the table, Up and Down, Enter).
"""

from __future__ import annotations

from collections.abc import Callable

import pygame
from pygame import Rect
from pygame_gui.core import UIContainer

from csl_game.engine import Choice, Session
from csl_game.gui.context import GuiContext
from csl_game.gui.focus import KeyFocus
from csl_game.gui.keys import TABLE_KEYS, KeyTable
from csl_game.gui.names import ShownNames
from csl_game.gui.scenes.choices import ChoiceRow, Offer, ShowsChoices
from csl_game.gui.style import palette
from csl_game.gui.tables import Table, fixtures_table, results_table, standings_table
from csl_game.gui.widgets import Metrics, WidgetScene, label
from csl_game.model.board import PColor
from csl_game.services import narration as messages
from csl_game.thinker.api import MatchConfig

__all__ = ["ChoiceScene", "PreMatchScene", "FinalScene"]


class ChoiceScene(WidgetScene, ShowsChoices):
    """A screen offering the session's choices, or timing out to the default.

    The session is read, never advanced: the flow advances it each frame and
    replaces the scene when its screen changes.
    """

    shows_results = False
    """Whether the scene lists results, which matches played off screen add to."""

    def __init__(self, ctx: GuiContext, session: Session,
                 choose: Callable[[Choice], None],
                 open_match: Callable[[int], None] | None = None) -> None:
        """`open_match(index)` shows finished match `index` (from 0) again."""
        super().__init__(ctx)
        self.session = session
        self.open_match = open_match
        self.results: Table | None = None
        """The results table shown, whose rows open their matches."""
        self._result_indices: list[int] = []
        """The match (from 0) of each row of the results table."""
        self.names = ShownNames(session)
        """The players as the window names them (the level chosen: 'Easy')."""
        self.row = ChoiceRow(Offer.of(session, ctx.screen_policy, ctx.choice_names), choose)
        self._results = len(session.records)
        self.focus = KeyFocus(ctx.ui, self.layer, self._items)
        """Left, Right and Tab move between the choices; Enter or Space takes one."""
        primary = self.row.offer.primary
        self.focus.key = primary.value if primary is not None else None

    def _items(self) -> list[tuple[str, object]]:
        items: list[tuple[str, object]] = [(c.value, b) for c, b in self.row.buttons.items()]
        if self.results is not None and self.results.visible:
            items.append(("results", self.results))
        return items

    def _results_table(self, rect: Rect, root: UIContainer, m: Metrics,
                       title: str = "Results") -> Table:
        """The results so far, each row opening its match (when matches open here)."""
        session = self.session
        if self.open_match is not None and session.records:
            title += (" \u00b7 click or Enter: replay" if self.focus.key == "results"
                      else " \u00b7 click, or Down and Enter: replay")
        picked = self.picked_match
        records = session.records_in_order()
        self.results = results_table(rect, self.names.all, records, root, m,
                                     self.ctx.text, title, session.config.rows *
                                     session.config.cols, self.open_match)
        self._result_indices = [index for index, _ in records]
        if picked is not None:
            self.pick_match(picked)
        return self.results

    @property
    def picked_match(self) -> int | None:
        """The match (from 0) the results table's keyboard row is on."""
        table = self.results
        if table is None or not table.rows or table.picked >= len(self._result_indices):
            return None
        return self._result_indices[table.picked]

    def pick_match(self, index: int, focus: bool = False) -> None:
        """Put the results table's row on match `index` (from 0), the keyboard
        given to the table if `focus` (back from that match's replay)."""
        table = self.results
        if table is None or index not in self._result_indices:
            return
        table.pick(self._result_indices.index(index))
        if focus and table.visible:
            self.focus.set("results")
        self._changed = True

    def focus_rect(self) -> Rect | None:
        return self.focus.rect()

    @property
    def keys(self) -> KeyTable | None:
        """The results table's keys where it opens matches, else the buttons'."""
        table = self.results
        return TABLE_KEYS if table is not None and table.visible else super().keys

    @property
    def busy(self) -> bool:
        """A countdown runs."""
        return self.timeout is not None

    def show_results(self) -> None:
        """Show the results as they are now (scenes that list them)."""
        self.rebuild()

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.layer.dispatch(event):
            return
        table = self.results
        if table is not None and table.handle_click(event):
            return
        if self.focus.key == "results" and table is not None and table.handle_key(event):
            self._changed = True
            return
        if self._to_table(event):
            return
        if self.focus.handle_key(event):
            return
        self.row.handle_event(event)

    def _to_table(self, event: pygame.event.Event) -> bool:
        """Up or Down on the buttons gives the results table the keyboard (Down
        at its first row, Up at its last), as the table's title says."""
        table = self.results
        if (self.focus.key == "results" or table is None or not table.visible
                or TABLE_KEYS.action(event) not in ("up", "down")):
            return False
        self.focus.set("results")
        table.pick(0 if TABLE_KEYS.action(event) == "down" else len(table.rows) - 1)
        self._changed = True
        return True

    def update(self, dt: float) -> None:
        if self.shows_results and len(self.session.records) != self._results:
            self._results = len(self.session.records)
            self.show_results()
            self._changed = True  # drawn now: no event may come to wake the window
        self.row.update(dt)


def board_summary(config: MatchConfig) -> str:
    """'6 x 7 board · 4 in a row · 10 round + 11 square pieces each · AI time 500 ms'."""
    return (f"{config.rows} \u00d7 {config.cols} board \u00b7 {config.win_sequence} in a row "
            f"\u00b7 {config.round_pieces} round + {config.square_pieces} square pieces each "
            f"\u00b7 AI time limit {config.time_limit_ms} ms")


class PreMatchScene(ChoiceScene):
    """Who plays next (White vs Red), standings and results so far; or, once
    only background matches are left, which ones the tournament waits for."""

    shows_results = True

    def build(self, root: UIContainer, m: Metrics) -> None:
        w, h = m.size
        session = self.session
        tables = not session.is_single  # results so far, or the matches to play
        inner = w - 2 * m.margin
        self.row.make(root, m, self.on)
        card_h = round(96 * m.scale)
        block = m.title + m.row + m.gap + card_h + 2 * m.gap + self.row.height(m)
        top = m.margin if tables else max(m.margin, (h - block) // 2)
        label(Rect(m.margin, top, inner, m.title), self._title(), root, "#title")
        label(Rect(m.margin, top + m.title, inner, m.row), board_summary(session.config),
              root, "#dim")
        cards = Rect(m.margin, top + m.title + m.row + m.gap, inner, card_h)
        if session.waiting:
            self._waiting(root, m, cards)
        else:
            self._matchup(root, m, cards)
        if not tables:
            self.row.place(m, w // 2, cards.bottom + 2 * m.gap + self.row.height(m))
            return
        bottom = self.row.place(m, w // 2, h - m.margin)
        area = Rect(m.margin, cards.bottom + 2 * m.gap, inner, 0)
        area.h = bottom - m.gap - area.y
        self._tables(root, m, area)

    def _title(self) -> str:
        session = self.session
        if session.tie_round is not None:
            return "Tie-break for first place"
        if session.naming:
            return "Setting up the AI players"
        if session.waiting:
            return "Waiting for the last matches"
        if Choice.SWAP in self.choices:
            return "Who plays first?"
        if session.is_single:
            return session.mode.value[0].upper() + session.mode.value[1:]
        return f"Match {session.current_index + 1} of {session.total_matches}"

    def _matchup(self, root: UIContainer, m: Metrics, rect: Rect) -> None:
        """A card per player: its piece, its colour, its name in that colour."""
        vs_w = round(64 * m.scale)
        card_w = min(round(440 * m.scale), (rect.w - vs_w) // 2)
        icon = rect.h - 2 * m.gap
        white, red = self.names.pair(self.session.next_pairing)
        self.cards: list[tuple[PColor, Rect]] = []
        for color, name, x in ((PColor.WHITE, white, rect.centerx - vs_w // 2 - card_w),
                               (PColor.RED, red, rect.centerx + vs_w // 2)):
            card = Rect(x, rect.y, card_w, rect.h)
            self.cards.append((color, card))
            text_x = card.x + 3 * m.gap + icon
            text = Rect(text_x, card.y + m.gap, card.right - m.gap - text_x, card.h - 2 * m.gap)
            first = " \u00b7 moves first" if color is PColor.WHITE else ""
            label(Rect(text.x, text.y, text.w, text.h // 3), f"{color}{first}", root,
                  "#card_caption")
            key = "white" if color is PColor.WHITE else "red"
            label(Rect(text.x, text.y + text.h // 3, text.w, text.h * 2 // 3), name, root,
                  f"#{key}_name")
        label(Rect(rect.centerx - vs_w // 2, rect.y, vs_w, rect.h), "vs", root, "#vs")

    def _waiting(self, root: UIContainer, m: Metrics, rect: Rect) -> None:
        """The matches still played off screen, in place of the match-up cards."""
        self.cards = []
        playing = [self.names.pair(p) for p in self.session.background_pairings]
        count = f"{len(playing)} match{'es' if len(playing) != 1 else ''}"
        tie_round = self.session.tie_round
        what = (f"{str(tie_round).capitalize()}: {count} playing" if tie_round is not None
                else f"{count} still playing off screen")
        if self.session.naming:
            what = "Getting the AI players ready, each in its own process\u2026"
        label(Rect(rect.x, rect.y, rect.w, m.row), what, root, "#subtitle")
        names = " \u00b7 ".join(f"{white} vs {red}" for white, red in playing)
        label(Rect(rect.x, rect.y + m.row, rect.w, m.row), names, root, "#dim")

    def _tables(self, root: UIContainer, m: Metrics, area: Rect) -> None:
        session = self.session
        if not session.records:
            self.results = None
            self._shown_tables = (root, m, area, [fixtures_table(
                area, self.names.all, session.pairings, root, m, self.ctx.text,
                f"The {session.total_matches} matches of the tournament")])
            return
        left_w = (area.w - m.gap * 2) * 2 // 5
        text = self.ctx.text
        right = Rect(area.x + left_w + 2 * m.gap, area.y, area.w - left_w - 2 * m.gap, area.h)
        self._shown_tables = (root, m, area, [
            standings_table(Rect(area.x, area.y, left_w, area.h),
                            self.names.standings(session.standings()), root, m, text),
            self._results_table(right, root, m, f"Results ({len(session.records)} of "
                                                f"{session.total_matches})")])

    def show_results(self) -> None:
        """New tables in the place of the old ones: building the whole screen
        again would drop frames each time a match ends off screen."""
        shown = getattr(self, "_shown_tables", None)
        if shown is None or self.session.waiting:  # no tables yet, or a count to update
            self.rebuild()
            return
        root, m, area, tables = shown
        for table in tables:
            table.panel.kill()
        self._tables(root, m, area)

    def draw(self, surface: pygame.Surface) -> None:
        super().draw(surface)
        pal = palette()
        s = self.metrics.scale
        for color, card in getattr(self, "cards", []):
            radius = round(12 * s)
            pygame.draw.rect(surface, pal.panel, card, border_radius=radius)
            pygame.draw.rect(surface, pal.panel_turn if color is PColor.WHITE else pal.panel_edge,
                             card, max(1, round(2 * s)), border_radius=radius)
            size = card.h - 2 * self.metrics.gap
            image = self.ctx.art.image(color, color.shape, size)
            surface.blit(image, image.get_rect(midleft=(card.x + self.metrics.gap * 3 // 2,
                                                        card.centery)))


class FinalScene(ChoiceScene):
    """The end of a tournament: who won, standings and every result (the
    results have the focus first: every match opens from there)."""

    def __init__(self, ctx: GuiContext, session: Session,
                 choose: Callable[[Choice], None],
                 open_match: Callable[[int], None] | None = None) -> None:
        super().__init__(ctx, session, choose, open_match)
        if open_match is not None and session.records:
            self.focus.key = "results"

    def build(self, root: UIContainer, m: Metrics) -> None:
        w, h = m.size
        inner = w - 2 * m.margin
        label(Rect(m.margin, m.margin, inner, m.title), "Tournament over", root, "#title")
        y = m.margin + m.title
        label(Rect(m.margin, y, inner, m.row), self._winner_line(), root, "#subtitle")
        tb = self.session.tie_break
        if tb is not None:
            y += m.row
            label(Rect(m.margin, y, inner, m.row),
                  messages.tie_break_summary(tb, self.names.all), root, "#dim")
        self.row.make(root, m, self.on)
        bottom = self.row.place(m, w // 2, h - m.margin)
        area = Rect(m.margin, y + m.row + m.gap * 2, inner, 0)
        area.h = bottom - m.gap - area.y
        left_w = (area.w - m.gap * 2) * 2 // 5
        session = self.session
        standings_table(Rect(area.x, area.y, left_w, area.h),
                        self.names.standings(session.standings()), root, m, self.ctx.text,
                        "Final standings")
        right = Rect(area.x + left_w + 2 * m.gap, area.y, area.w - left_w - 2 * m.gap, area.h)
        self._results_table(right, root, m)

    def _winner_line(self) -> str:
        table = self.names.standings(self.session.standings())
        leaders = [s.name for s in table if s.position == 1]
        if len(leaders) == 1:
            return f"Winner: {leaders[0]} with {table[0].points} points"
        return f"Tied first with {table[0].points} points: {', '.join(leaders)}"
