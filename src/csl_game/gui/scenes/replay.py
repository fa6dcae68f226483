"""The replay scene: a recorded match, stepped through on the board.

The board, the player panels and the log are the match scene's (the same
board view, animations and layout), for the window less a control bar at
the bottom. The user steps forward (the piece falls) and back, jumps to the
start or the end, or plays the moves one after another, with the buttons of
the bar, the keyboard (arrows, Home, End, Space) or the mouse wheel. The
panels show whose turn it is and how long the move shown took; the log lists
the moves so far, the one shown last.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence

import pygame
from pygame import Rect
from pygame_gui.elements import UIButton, UILabel

from csl_game.engine import ThreadRunner, winner_text
from csl_game.gui.animation import VisualBoard
from csl_game.gui.board_view import BoardView, Pointer
from csl_game.gui.columns import shown_move
from csl_game.gui.context import GuiContext
from csl_game.gui.insight import split_for_panel
from csl_game.gui.keys import REPLAY_KEYS, KeyTable
from csl_game.gui.layout import DROP_HEIGHT, BoardLayout, compute_layout
from csl_game.gui.panels import LogView, MessageLog, PanelState, PlayerPanel
from csl_game.gui.review_view import GRADE_WORDS, ReviewPanel, ReviewTool, draw_better
from csl_game.gui.scene import Scene
from csl_game.gui.scenes.insight_panel import BoardInsight
from csl_game.gui.style import backdrop
from csl_game.gui.widgets import Handler, Metrics, WidgetLayer, button, label, set_text
from csl_game.model.board import Board, PColor, Pos, PShape, Winner
from csl_game.services import narration as messages
from csl_game.services.replay import Replay
from csl_game.thinker.api import MatchConfig

__all__ = ["ReplayScene", "PLAY_INTERVAL_S", "KEYS_HINT", "duration"]

PLAY_INTERVAL_S = 0.6
"""While playing, the pause between one piece landing and the next move."""
END_PAUSE_S = 1.5
"""With quit_at_end, how long the end stays on screen."""
KEYS_HINT = "Keys: Left/Right step, Home/End, Space plays, V review, X next mistake, A analysis"
"""The keys, shown beside the caption where the bar has room (REPLAY_KEYS in short)."""
_SHORT = {"start": "\u00ab", "back": "\u2039", "play": "\u25b6", "forward": "\u203a",
          "end": "\u00bb"}
"""The stepping buttons in a short bar: their arrows alone."""
_NAMES = {"start": "Start", "back": "Back", "play": "Play or pause", "forward": "Next",
          "end": "End", "review": "Review"}


class ReplayScene(Scene):
    """Shows a recorded match one position at a time; the user moves through it."""

    def __init__(self, ctx: GuiContext, replay: Replay, play: bool = False,
                 quit_at_end: bool = False, review: bool = False,
                 after: Sequence[tuple[str, Callable[[], None]]] = (),
                 back: Callable[[], None] | None = None) -> None:
        """`play` starts playing the moves at once; `quit_at_end` closes the
        window once the last one has been shown for a moment; `review` starts
        the game review at once; `after` adds buttons (text, action) to the bar
        (what to do next, after a game just played); `back` is what Esc does
        (a match opened from a tournament's results goes back to them)."""
        self.on_escape = back
        self.ctx = ctx
        self.replay = replay
        self.boards: list[Board] = replay.boards()
        self.step = 0
        """Moves shown: 0 is the empty board, len(replay.moves) the end."""
        self.playing = play
        self.quit_at_end = quit_at_end
        self.view = BoardView(ctx.art, ctx.text)
        self.panels = (PlayerPanel(ctx.art, ctx.text), PlayerPanel(ctx.art, ctx.text))
        self.log = MessageLog(io.StringIO())
        """The moves so far (shown in the log area; not printed)."""
        self.log_view = LogView(ctx.text)
        self.layer = WidgetLayer(ctx.ui)
        self.buttons: dict[str, UIButton] = {}
        self.caption: UILabel | None = None
        self.visual = self._visual_at(0)
        self.layout, self.bar = self._layouts(ctx.size)
        self._wait = 0.0
        self._bar_back: pygame.Surface | None = None
        self._drawn: object = None
        self._dirty: list[Rect] | None = None
        factory = ctx.runner_factory or ThreadRunner
        self.insight = BoardInsight(MatchConfig(*replay.settings), factory, ctx.art, ctx.text,
                                    spectating=False)
        self.review = ReviewTool(replay, factory)
        self.review_panel = ReviewPanel(ctx.text)
        self.after = tuple(after)
        self.note = ""
        """A word on the last key pressed (X found no mistake), in the caption until a step."""
        if review:
            self.review.start()

    @property
    def keys(self) -> KeyTable:
        return REPLAY_KEYS

    @property
    def last(self) -> int:
        """The last step: every move played."""
        return len(self.replay.moves)

    # ------------------------------------------------------------- lifecycle
    def enter(self) -> None:
        self.resize(self.ctx.size)
        self._show_log()

    def exit(self) -> None:
        self.layer.close()
        self.insight.close()
        self.review.close()

    def escape(self) -> bool:
        """Esc goes back where the replay was opened from, if it says where; else
        the window's menu opens."""
        if self.on_escape is None:
            return False
        self.on_escape()
        return True

    def resize(self, size: tuple[int, int]) -> None:
        self.layout, self.bar = self._layouts(size)
        self.view.set_layout(self.layout)
        self._build_bar(size)
        self._bar_back = None
        self._drawn = None

    def _layouts(self, size: tuple[int, int]) -> tuple[BoardLayout, Rect]:
        """The match scene's layout above a control bar that spans the bottom."""
        m = Metrics(size)
        bar_h = m.row + 6 + 2 * m.gap
        rows, cols = self.replay.settings[:2]
        layout = compute_layout(rows, cols, (size[0], max(1, size[1] - bar_h)))
        return layout, Rect(0, size[1] - bar_h, size[0], bar_h)

    def _build_bar(self, size: tuple[int, int]) -> None:
        """The bar's buttons, each as wide as its text; the stepping buttons go
        by their arrows alone (their names in tooltips) when the bar is short."""
        m = Metrics(size)
        root = self.layer.open(size)
        texts = {"start": "\u00ab Start", "back": "\u2039 Back", "play": "Play",
                 "forward": "Next \u203a", "end": "End \u00bb", "review": "Review",
                 **{f"after{i}": text for i, (text, _) in enumerate(self.after)}}
        actions = {"start": self.to_start, "back": self.back, "play": self.toggle_play,
                   "forward": self.forward, "end": self.to_end, "review": self.start_review,
                   **{f"after{i}": act for i, (_, act) in enumerate(self.after)}}
        keys = {name: REPLAY_KEYS.names(name) for name in
                ("start", "back", "play", "forward", "end", "review")}
        probe = button(Rect(0, 0, m.button_w, m.row), "", root)
        font = probe.font
        probe.kill()

        def need(text: str) -> int:
            wide = "Pause" if text == "Play" else text  # the same button reads Pause
            return (font.size(wide)[0] if font is not None else 8 * len(wide)) + 2 * m.gap + 8

        caption_min = round(200 * m.scale)
        room = size[0] - 2 * m.margin - caption_min
        widths = {name: need(text) for name, text in texts.items()}
        if sum(widths.values()) + m.gap * len(texts) > room:
            texts.update(_SHORT)
            widths.update({name: need(text) for name, text in _SHORT.items()})
        x, y = m.margin, self.bar.y + m.gap
        for name, text in texts.items():
            widget = button(Rect(x, y, widths[name], m.row + 6), text, root)
            if name in keys:
                widget.set_tooltip(f"{_NAMES[name]}: {keys[name]}")
            self.buttons[name] = self.layer.on(widget, _handler(actions[name]))
            x += widths[name] + m.gap
        self.caption = label(Rect(x, y, max(8, size[0] - x - m.margin), m.row + 6), "",
                             root, "#text")
        self._refresh_bar()

    # ------------------------------------------------------------- moving
    def go(self, step: int) -> None:
        """Show the position after `step` moves: one step forward animates
        the move, anything else shows the position at once."""
        step = max(0, min(step, self.last))
        if step == self.step:
            return
        if step == self.step + 1:
            self.visual.push(self.replay.moves[self.step].move)
        else:
            self.visual = self._visual_at(step)
        self.step = step
        self.note = ""
        if step == self.last and self.replay.result.solution:
            self.visual.show_win(self.replay.result.solution)
        self._wait = 0.0
        self._show_log()
        self._refresh_bar()

    def _visual_at(self, step: int) -> VisualBoard:
        """A visual board showing the position after `step` moves, nothing moving."""
        rows, cols = self.replay.settings[:2]
        visual = VisualBoard(rows, cols, self.ctx.options.last_move_animation_s, DROP_HEIGHT)
        for played in self.replay.moves[:step]:
            move = played.move
            visual.landed[Pos(move.row, move.col)] = move.piece
            visual.column_versions[move.col] += 1
            visual.last = move
        visual.version = step + 1
        visual.pulse_elapsed = math.inf
        return visual

    def forward(self) -> None:
        self.go(self.step + 1)

    def start_review(self) -> None:
        """Review the game (once): every move graded as the analysis comes."""
        self.review.start()
        self._show_log()
        self._refresh_bar()

    def next_mistake(self) -> None:
        """Jump to the next move graded an inaccuracy, a mistake or a blunder,
        or say why not (the review starts first if it has not)."""
        if not self.review.started:
            self.start_review()
            self.note = "Reviewing the game: X again goes to its first mistake"
        elif (step := self.review.next_mistake(self.step)) is not None:
            self.playing = False
            self.go(step)
            return
        elif self.review.job is not None:
            self.note = "No mistake after this move yet: the review goes on"
        elif self.review.next_mistake(0) is None:
            self.note = "No inaccuracy, mistake or blunder in this game"
        else:
            self.note = (f"No more mistakes after move {self.step} "
                         "(Home, then X: the first one again)")
        self._refresh_bar()

    def back(self) -> None:
        self.playing = False
        self.go(self.step - 1)

    def to_start(self) -> None:
        self.playing = False
        self.go(0)

    def to_end(self) -> None:
        self.playing = False
        self.go(self.last)

    def toggle_play(self) -> None:
        """Play the moves one after another from here (from the start at the end), or pause."""
        self.playing = not self.playing
        self._wait = PLAY_INTERVAL_S if self.playing else 0.0
        if self.playing and self.step == self.last:
            self.go(0)  # which shows the empty board for a moment first
        self._refresh_bar()

    # ------------------------------------------------------------- input
    def handle_event(self, event: pygame.event.Event) -> None:
        if self.layer.dispatch(event):
            return
        if event.type == pygame.KEYDOWN:
            self._on_key(event)
        elif event.type == pygame.MOUSEWHEEL and event.y:
            if event.y > 0:
                self.back()
            else:
                self.forward()

    def _on_key(self, event: pygame.event.Event) -> None:
        """The keys of REPLAY_KEYS (Esc opens the window's menu, as on every screen)."""
        action = REPLAY_KEYS.action(event)
        acts: dict[str, Callable[[], None]] = {
            "forward": self.forward, "back": self.back, "start": self.to_start,
            "end": self.to_end, "play": self.toggle_play, "review": self.start_review,
            "mistake": self.next_mistake, "analysis": self.insight.toggle}
        if self.on_escape is None and not self.after:  # a replay window of its own
            acts["quit"] = self.ctx.nav.quit
        if action in acts:
            acts[action]()

    # ------------------------------------------------------------- advancing
    def update(self, dt: float) -> None:
        """Animate; while playing, the next move once the last has landed."""
        self.visual.update(dt)
        reviewed = self.review.version
        self.review.update()
        if self.review.version != reviewed:
            self._show_log()
            self._refresh_bar()
        board = self.boards[self.step]
        self.insight.follow(board if self.visual.idle and not self._finished(board) else None)
        if not self.visual.idle:
            return
        self._wait += dt
        if self.playing and self.step < self.last and self._wait >= PLAY_INTERVAL_S:
            self.forward()
        elif self.playing and self.step == self.last:
            self.playing = False
            self._refresh_bar()
        elif self.quit_at_end and self.step == self.last and self._wait >= END_PAUSE_S:
            self.ctx.nav.quit()

    @staticmethod
    def _finished(board: Board) -> bool:
        return board.check_winner() is not Winner.NONE

    # ------------------------------------------------------------- texts
    def _show_log(self) -> None:
        replay = self.replay
        lines = [replay.title]
        for i in range(self.step):
            played = replay.moves[i]
            color = played.move.piece.color
            line = f"{i + 1}. {color}: {shown_move(replay.token(i))} in {duration(played.elapsed)}"
            reviewed = self.review.move(i + 1)
            if reviewed is not None:
                line += f" \u00b7 {GRADE_WORDS[reviewed.grade]}"
                if reviewed.grade != "best":
                    line += f" (best {shown_move(reviewed.best.move)})"
            lines.append(line)
        if self.step == self.last:
            lines.append(self._ending())
        self.log.lines = lines
        self.log.version += 1

    def _ending(self) -> str:
        result = self.replay.result
        loser = result.winner.color.other if result.winner.color is not None else None
        if result.forfeit is not None and loser is not None:
            return (messages.forfeit(loser, self.replay.names[loser], result.forfeit,
                                     result.detail) + ". " + messages.game_over(result))
        return messages.game_over(result)

    def caption_text(self) -> str:
        """'Move 5 of 23: White 3r in 12.5 ms', or the start."""
        if self.step == 0:
            return f"Start: {self.last} moves to replay"
        played = self.replay.moves[self.step - 1]
        return (f"Move {self.step} of {self.last}: {played.move.piece.color} "
                f"{shown_move(self.replay.token(self.step - 1))} in {duration(played.elapsed)}")

    def _refresh_bar(self) -> None:
        caption = self.caption
        if caption is not None:
            text, font = self.caption_text(), caption.font
            room = caption.relative_rect.w - 2 * int(caption.text_horiz_alignment_padding) - 8
            hint = f"{text}  \u00b7  {self.note or KEYS_HINT}"
            fits = font is not None and font.size(hint)[0] <= room
            set_text(caption, hint if fits else self.note or text)
        play = self.buttons.get("play")
        if play is not None:
            short = play.text in ("\u25b6", "\u275a\u275a")
            wanted = (("\u275a\u275a" if self.playing else "\u25b6") if short
                      else ("Pause" if self.playing else "Play"))
            if play.text != wanted:
                play.set_text(wanted)
        for name, enabled in (("start", self.step > 0), ("back", self.step > 0),
                              ("forward", self.step < self.last),
                              ("end", self.step < self.last),
                              ("review", not self.review.started and self.last > 0)):
            widget = self.buttons.get(name)
            if widget is not None and widget.is_enabled != enabled:
                widget.enable() if enabled else widget.disable()

    def _banner(self) -> tuple[str, str] | None:
        """The result over the final position, once it is shown."""
        if self.step != self.last or not self.visual.idle:
            return None
        result = self.replay.result
        color = result.winner.color
        if result.winner is Winner.DRAW or color is None:
            how = "Nobody made a line"
        elif result.forfeit is not None:
            how = f"{self.replay.names[color.other]} {result.forfeit}"
        else:
            how = f"{len(result.solution)} in a row"
        return winner_text(result), how

    # ------------------------------------------------------------- drawing
    def _panel_state(self, color: PColor) -> PanelState:
        board, step = self.boards[self.step], self.step
        over = step == self.last and self.visual.idle
        mover = self.replay.moves[step - 1] if step else None
        if over:
            status = self._result_status(color)
        elif mover is not None and mover.move.piece.color is color:
            status = f"Played {shown_move(self.replay.token(step - 1))} in {duration(mover.elapsed)}"
        else:
            status = "To play" if board.turn is color and step < self.last else ""
        return PanelState(
            color=color, name=self.replay.names[color], is_human=self.replay.humans[color],
            counts=(board.piece_count(color, PShape.ROUND),
                    board.piece_count(color, PShape.SQUARE)),
            to_play=board.turn is color and step < self.last, status=status,
            emphasis=status == "Winner!")

    def _result_status(self, color: PColor) -> str:
        winner = self.replay.result.winner
        if winner is Winner.DRAW:
            return "Draw"
        if winner.color is color:
            return "Winner!"
        return "Forfeited" if self.replay.result.forfeit is not None else "Lost"

    def _pointer(self) -> Pointer:
        """The arrow of the last move's column lit; no column is playable."""
        last = self.visual.last
        cols = self.replay.settings[1]
        if last is None or self.step == 0:
            return Pointer(playable=(False,) * cols)
        return Pointer(column=last.col, playable=tuple(c == last.col for c in range(cols)))

    def draw(self, surface: pygame.Surface) -> None:
        lay = self.layout
        pointer, banner = self._pointer(), self._banner()
        states = [self._panel_state(color) for color in PColor]
        better = self.review.better(self.step, self.boards) if self.visual.idle else None
        key = (lay, BoardView.signature(self.visual, pointer, banner), states,
               self.log.version, self.insight.version, self.review.version, better)
        self.view.draw(surface, self.visual, pointer)
        if self.visual.idle:
            # The review's better move is for the position before the move shown,
            # the analysis's line for the one after: only one of them at a time.
            self.insight.draw_board(surface, lay, line=better is None)
            draw_better(surface, lay, self.ctx.art, better)
        for color in PColor:
            self.panels[color].draw(surface, lay.panels[color], states[color], lay.scale)
        self._draw_panels(surface, lay)
        if banner is not None:
            self.view.draw_banner(surface, self.visual, *banner)
        self._draw_bar(surface)
        # The bar's widgets are drawn after the scene and change on hover.
        self._dirty = [self.bar] if key == self._drawn else None
        self._drawn = key

    def _draw_panels(self, surface: pygame.Surface, lay: BoardLayout) -> None:
        """The log; the review and the analysis take its area when shown (the
        review beside the log, the analysis in the log's place with both)."""
        names = self.replay.names
        if not self.review.started:
            if self.insight.shown:
                self.insight.draw_panel(surface, lay, names, self.step)
            self.log_view.draw(surface, self.insight.log_rect(lay), self.log, lay.scale)
            return
        panel, log = self._review_areas(lay)
        self.review_panel.draw(surface, panel, lay.scale, self.review, self.step, names)
        if self.insight.shown:
            self.insight.panel.draw(surface, log, lay.scale, self.insight.tool, None, names,
                                    self.step)
        else:
            self.log_view.draw(surface, log, self.log, lay.scale)

    @staticmethod
    def _review_areas(lay: BoardLayout) -> tuple[Rect, Rect]:
        """(review, log): the log's area and the toolbar's above it (a replay has
        no toolbar), the review taking two thirds of a tall sidebar's."""
        area = lay.log.union(lay.toolbar)
        if area.w >= 2 * area.h:
            return split_for_panel(area, lay.scale)
        gap = round(8 * lay.scale)
        height = area.h * 2 // 3
        return Rect(area.x, area.y, area.w, height), \
            Rect(area.x, area.y + height + gap, area.w, area.h - height - gap)

    def _draw_bar(self, surface: pygame.Surface) -> None:
        if self._bar_back is None or self._bar_back.get_size() != self.bar.size:
            full = backdrop(surface.get_size())
            self._bar_back = full.subsurface(self.bar).copy()
        surface.blit(self._bar_back, self.bar)

    def dirty_rects(self) -> list[Rect] | None:
        return self._dirty

    @property
    def busy(self) -> bool:
        """A piece falling, the last one's pulse or the win line being drawn,
        and the moves played one after another (or the end's pause before
        closing): drawn every frame, with no event to wake the window."""
        visual = self.visual
        return (not visual.idle or visual.pulsing or 0 < visual.win_progress < 1
                or self.playing or (self.quit_at_end and self.step == self.last))

    def take_changed(self) -> bool:
        """The review and the analysis change the screen without an event."""
        look = (self.review.version, self.insight.version, self.step)
        changed, self._looked = look != getattr(self, "_looked", None), look
        return changed


def duration(seconds: float) -> str:
    """A thinking time as people read it: '12.5 ms' under a second, else '1.234 s'."""
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.3f} s"


def _handler(action: Callable[[], None]) -> Handler:
    return lambda _event: action()
