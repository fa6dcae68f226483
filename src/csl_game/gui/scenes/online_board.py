"""The board of an online game, at either end or watched: the match scene's
board, panels and log, driven by a `Table` (gui/online_table.py).

The table is polled once a frame; its events become log lines and
animations as in the match scene, and this window's human moves with the
same mouse and keys (gui/board_input.py: a column's arrow, or the arrows or
a digit and Enter; Tab switches the shape); the keys of what a direct online
game cannot do (take back a move, a hint, resign, the analysis) say so in the
log. A game on a server (gui/server_table.py) has both players' clocks on
their panels, and its tools above the log (gui/server_tools.py: a draw, a
takeback, resign, a claim, a rematch), their keys SERVER_KEYS'; the panel of
a side that offers something or left says so. While the game cannot go on
(a dropped connection, a failure) a notice over the board says why, with its
buttons (Claim the game, Keep waiting, Reconnect, Home); at the end the
result, with Home; a rematch starts the next game on the same board.
"""

from __future__ import annotations

import time

import pygame

from csl_game.engine import (
    BoardUpdated,
    InvalidPlay,
    MatchOver,
    MatchResult,
    MatchStarted,
    MovePerformed,
    NextTurn,
)
from csl_game.gui.animation import VisualBoard
from csl_game.gui.board_input import BoardInput, how_to_play
from csl_game.gui.board_view import BoardView, Pointer
from csl_game.gui.context import GuiContext
from csl_game.gui.controls import HumanControls
from csl_game.gui.game_clocks import draw_clock
from csl_game.gui.keys import GLOBAL_KEYS, MATCH_KEYS, SERVER_KEYS, KeyTable
from csl_game.gui.layout import DROP_HEIGHT, BoardLayout, compute_layout
from csl_game.gui.notice_buttons import NoticeButtons
from csl_game.gui.online_table import Action, Happening, Notice, Table
from csl_game.gui.panels import LogView, PanelState, PlayerPanel, placed_text
from csl_game.gui.scene import Scene
from csl_game.gui.scenes.match_tools import RESIGN_CONFIRM_S
from csl_game.gui.server_tools import ServerSide, ServerTools, server_why
from csl_game.gui.sound import Effect
from csl_game.gui.style import TextRole, palette
from csl_game.gui.widgets import Metrics
from csl_game.model.board import PColor, Pos, PShape, Winner
from csl_game.services import narration as messages
from csl_game.services.replay import Replay

__all__ = ["OnlineBoardScene", "NoticeButtons", "NOT_ONLINE"]

NOT_ONLINE = {
    "undo": "Cannot take back a move: an online game keeps every move played",
    "hint": "No hints in an online game: the game is between its two players",
    "resign": "A game with a friend is not resigned: leave it (Esc, Home), and the other "
              "end may claim it (a game on a server is: R, twice)",
    "analysis": "No analysis in an online game: it shows in a replay of the game",
}
"""What the keys of a match's tools say on an online game's board, which has none of them."""
_NO_TAKE_BACK = "An online game cannot take back a move."
_SERVER_TOOLS = "; ".join(f"{SERVER_KEYS.names(action)}: {does}" for action, does in (
    ("draw", "offer a draw"), ("takeback", "take back"), ("resign", "resign"),
    ("rematch", "a rematch, after the game"), ("decline", "decline the other's offer"))) \
    + " (or the buttons above the log)."


class OnlineBoardScene(Scene):
    """The board of an online game; `pending`: what the table said before it showed."""

    def __init__(self, ctx: GuiContext, table: Table, where: str,
                 pending: tuple[Happening, ...] = ()) -> None:
        self.ctx = ctx
        self.table = table
        self.where = where
        """A line above the log: where the game is played ('Hosting on port 5907')."""
        cfg = table.config
        self.visual = VisualBoard(cfg.rows, cfg.cols, ctx.options.last_move_animation_s,
                                  DROP_HEIGHT)
        self.view = BoardView(ctx.art, ctx.text)
        self.panels = (PlayerPanel(ctx.art, ctx.text), PlayerPanel(ctx.art, ctx.text))
        self.log_view = LogView(ctx.text)
        self.layout: BoardLayout = compute_layout(cfg.rows, cfg.cols, ctx.size)
        self.controls = HumanControls(table)
        self.server = table if isinstance(table, ServerSide) else None
        """The table of a game on a server (its clocks, offers and tools), else None."""
        self.tools = None if self.server is None else \
            ServerTools(ctx, self.server, lambda: self._tool("resign"))
        self.input = BoardInput(self.controls, lambda: self.layout, ctx.sound, self._tool,
                                MATCH_KEYS if self.server is None else SERVER_KEYS)
        self.buttons = NoticeButtons(ctx.ui, self.act)
        self.banner: tuple[str, str] | None = None
        """The result (title, why), once the match is over."""
        self._pending = list(pending)
        self._fresh = False
        self._looked: tuple[object, ...] | None = None
        self._resign_armed = -RESIGN_CONFIRM_S - 1.0
        self._moves_shown = 0
        """The moves the visual board shows (a takeback shows fewer)."""

    # ------------------------------------------------------------- lifecycle
    def enter(self) -> None:
        self.view.set_layout(self.layout)
        self._reset_visual()
        self._build_tools()
        happened, self._pending = self._pending, []
        for item in happened:
            self._happened(item)

    def exit(self) -> None:
        self.buttons.close()
        if self.tools is not None:
            self.tools.close()
        self.table.close()

    def resize(self, size: tuple[int, int]) -> None:
        cfg = self.table.config
        self.layout = compute_layout(cfg.rows, cfg.cols, size)
        self.view.set_layout(self.layout)
        self.buttons.close()
        self._build_tools()

    def _build_tools(self) -> None:
        if self.tools is not None:
            self.tools.build(self.layout.toolbar, self.ctx.size)

    def restyle(self, size: tuple[int, int]) -> None:
        self.view.forget()
        for panel in self.panels:
            panel.forget()
        self.log_view.forget()
        self.resize(size)

    def set_widgets_shown(self, shown: bool) -> None:
        self.buttons.layer.show(shown)
        if self.tools is not None:
            self.tools.show(shown)

    def _reset_visual(self) -> None:
        board = self.table.board
        self.visual.reset({Pos(r, c): p for r in range(board.rows) for c in range(board.cols)
                           if (p := board[r, c]) is not None})
        self._moves_shown = board.move_count
        self.controls.refresh()

    # ------------------------------------------------------------- reading
    @property
    def you(self) -> PColor | None:
        """This window's colour when a human plays it."""
        local = self.table.local
        return local if local is not None and self.table.is_human(local) else None

    @property
    def input_enabled(self) -> bool:
        return self.table.awaiting_human and self.visual.idle and self.table.notice is None

    @property
    def shown_notice(self) -> Notice | None:
        """The notice over the board: the table's, or the result once every move is shown."""
        if self.banner is not None:
            result = self.table.result
            actions = ((Action.REVIEW, Action.HOME) if result is not None and result.moves
                       else (Action.HOME,))
            return Notice(*self.banner, actions) if self.visual.idle else None
        return self.table.notice

    @property
    def busy(self) -> bool:
        visual = self.visual
        if not visual.idle or visual.pulsing or 0 < visual.win_progress < 1:
            return True
        table = self.table
        if table.result is not None or not table.ready:
            return False
        return not table.is_human(table.board.turn) and table.notice is None

    def take_changed(self) -> bool:
        controls = self.controls
        look = (self.ctx.log.version, self.visual.version, self.visual.epoch,
                self.input_enabled, controls.column, tuple(controls.selected.values()),
                self.shown_notice, self.input.hover, self._server_look())
        changed, self._looked = look != self._looked, look
        return changed

    # ------------------------------------------------------------- the table's news
    def update(self, dt: float) -> None:
        self.input.update(dt)
        self.table.tick(dt)
        for item in self.table.poll():
            self._happened(item)
        self.visual.update(dt)
        self.controls.enabled = self.input_enabled
        if self.tools is not None:
            self.tools.refresh()
        notice = self.shown_notice
        key = None if notice is None else (notice.title, notice.detail, notice.actions,
                                          self.ctx.size)
        if key != self.buttons.shown_for:
            self._show_buttons(notice)
            self.buttons.shown_for = key

    def _show_buttons(self, notice: Notice | None) -> None:
        if notice is None or not notice.actions:
            self.buttons.close()
            return
        m = Metrics(self.ctx.size)
        box = self.view.banner_rect(self.visual, self.buttons.room(m, notice.actions),
                                    notice.detail)
        self.buttons.show(m, notice.actions, box)

    def act(self, action: Action) -> None:
        if action is Action.HOME:
            self.ctx.nav.show_home()
            return
        if action is Action.REVIEW:
            self._review()
            return
        self.table.act(action)
        self.buttons.shown_for = None

    def _review(self) -> None:
        """The game just played, reviewed move by move, Home on its bar."""
        from csl_game.gui.scenes.replay import ReplayScene  # a replay's screen, when asked

        result, cfg, nav = self.table.result, self.table.config, self.ctx.nav
        if result is None:
            return
        replay = Replay((cfg.rows, cfg.cols, cfg.win_sequence, cfg.round_pieces,
                         cfg.square_pieces), cfg.time_limit_ms, result, None,
                        (self.table.is_human(PColor.WHITE), self.table.is_human(PColor.RED)))
        nav.show(ReplayScene(self.ctx, replay, review=True, after=(("Home", nav.show_home),)))

    def _happened(self, item: Happening) -> None:
        if isinstance(item, str):
            self.ctx.log.add(item)
            return
        match item:
            case MatchStarted(white=white, red=red):
                self.banner = None  # a rematch: the next game on this board
                self.ctx.log.add(messages.match_started(white, red))
                if self.you is not None:
                    self.ctx.log.add(how_to_play(_NO_TAKE_BACK if self.server is None
                                                 else _SERVER_TOOLS))
                self._fresh = True
            case BoardUpdated(board=board) if self._fresh or \
                    board.move_count < self._moves_shown:  # a start, or moves taken back
                self._fresh = False
                self._reset_visual()
            case NextTurn(color=color, name=name, is_human=human):
                self._title(color, name, human)
            case MovePerformed(color=color, name=name, move=move, elapsed=elapsed):
                self.ctx.log.add(placed_text(color, name, move.piece.shape, move.col, elapsed))
                self.visual.push(move)
                self._moves_shown += 1
                self.ctx.sound.play(Effect.DROP)
                self.controls.refresh()
            case InvalidPlay(color=color, name=name, reason=reason, detail=detail):
                self.ctx.sound.play(Effect.INVALID)
                self.ctx.log.add(messages.forfeit(color, name, reason, detail))
            case MatchOver(result=result):
                if result.solution:
                    self.visual.show_win(result.solution)
                board = self.table.board
                self.banner = (messages.result_title(result, self.you), self._why(result))
                self.ctx.log.add(self.banner[1])
                self.ctx.log.add(messages.game_over(result))
                self.ctx.sound.play(Effect.DRAW if result.winner is Winner.DRAW else Effect.WIN)
                self.ctx.nav.set_title(f"Online \u00b7 {self.banner[0]}")

    def _why(self, result: MatchResult) -> str:
        """Why the game ended, in the words of a match, or of a server's game."""
        board = self.table.board
        loser = result.winner.color.other if result.winner.color is not None else None
        said = None if self.server is None else server_why(
            result, board, self.you, self.table.name(loser) if loser is not None else "")
        return said or messages.explain_result(result, board, self.you)

    def _title(self, color: PColor, name: str, human: bool) -> None:
        if human and self.you is color:
            text = "Your turn"
        elif human:
            text = f"{messages.who(color, name)} to play"
        else:
            text = f"{messages.who(color, name)} is thinking"
        self.ctx.nav.set_title(f"Online \u00b7 {text}")

    @property
    def keys(self) -> KeyTable:
        """A player's keys; a spectator's has only the window's own."""
        if self.server is not None:
            return SERVER_KEYS
        return MATCH_KEYS if any(map(self.table.is_human, PColor)) else GLOBAL_KEYS

    # ------------------------------------------------------------- input
    def handle_event(self, event: pygame.event.Event) -> None:
        if self.buttons.handle_event(event):
            return
        if self.tools is not None and self.tools.handle_event(event):
            return
        self.controls.enabled = self.input_enabled
        self.input.handle_event(event)

    def _tool(self, action: str) -> None:
        """A key of a match's tools: a server's game is resigned (R, twice, as
        in a match); an online game has none of the others, and says so."""
        if action == "resign" and self.table.can_resign:
            self._resign()
            return
        why = NOT_ONLINE.get(action)
        if why is not None:
            self.ctx.log.add(why)
            self.ctx.sound.play(Effect.INVALID)

    def _resign(self) -> None:
        """R once asks, R again within RESIGN_CONFIRM_S resigns."""
        now = time.monotonic()
        if now - self._resign_armed > RESIGN_CONFIRM_S:
            self._resign_armed = now
            self.ctx.log.add("Press R (or Resign) again to resign")
            return
        self.table.resign()

    # ------------------------------------------------------------- drawing
    def draw(self, surface: pygame.Surface) -> None:
        lay = self.layout
        self.view.draw(surface, self.visual, self._pointer())
        for color in PColor:
            state = self._panel_state(color)
            self.panels[color].draw(surface, lay.panels[color], state, lay.scale,
                                    self.table.thinking_time())
        self._draw_clocks(surface, lay)
        self.log_view.draw(surface, lay.log, self.ctx.log, lay.scale)
        if self.tools is None:
            self._draw_where(surface, lay)
        notice = self.shown_notice
        if notice is not None:
            room = self.buttons.room(Metrics(self.ctx.size), notice.actions)
            self.view.draw_banner(surface, self.visual, notice.title, notice.detail, room)

    def _draw_clocks(self, surface: pygame.Surface, lay: BoardLayout) -> None:
        """Both sides' clocks of a server game that has them, the side to move's running."""
        server = self.server
        if server is None:
            return
        for color in PColor:
            ms = server.clock_ms(color)
            if ms is not None:
                draw_clock(surface, self.ctx.text, lay.panels[color].status, ms,
                           server.running is color, lay.scale)

    def _server_look(self) -> tuple[object, ...]:
        """What of a server game changes the picture: the clocks to the tenth, the
        tools, a countdown's seconds."""
        server = self.server
        if server is None or self.tools is None:
            return ()
        away = server.away_left()
        return (tuple(None if (ms := server.clock_ms(c)) is None else ms // 100
                      for c in PColor),
                self.tools.looks(), None if away is None else (away[0], int(away[1])))

    def _draw_where(self, surface: pygame.Surface, lay: BoardLayout) -> None:
        bar = lay.toolbar
        text = self.ctx.text.fit(self.where, TextRole.BODY.size(lay.scale), palette().text_dim,
                                 bar.w)
        surface.blit(text, text.get_rect(midleft=bar.midleft))

    def focus_rect(self) -> pygame.Rect | None:
        return self.buttons.focus.rect() if self.buttons.buttons else None

    def _pointer(self) -> Pointer:
        controls = self.controls
        if not controls.enabled:
            return Pointer(playable=(False,) * self.table.config.cols)
        ghost = controls.ghost()
        return Pointer(controls.column, ghost[0] if ghost else None,
                       ghost[1] if ghost else None, controls.playable(), None)

    def _server_status(self, color: PColor) -> str:
        """A server game's word on `color`'s panel: it left (its countdown), or
        it offers something; "" for none."""
        server = self.server
        if server is None or not self.visual.idle:
            return ""
        away = server.away_left()
        if away is not None and away[0] is color:
            return f"Left: {away[1]:.0f} s"
        mine = color is server.local
        for what, (theirs, ours) in _ASKS.items():
            if (server.offered_by_me(what) if mine else server.offered_by_them(what)):
                return ours if mine else theirs
        return ""

    def _panel_state(self, color: PColor) -> PanelState:
        table, controls = self.table, self.controls
        board = table.board
        human = table.is_human(color)
        over = table.result is not None
        to_play = not over and board.turn is color
        enabled = to_play and controls.enabled
        status = self._status(color, to_play, human)
        return PanelState(
            color=color, name=table.name(color), is_human=human,
            counts=(board.piece_count(color, PShape.ROUND),
                    board.piece_count(color, PShape.SQUARE)),
            selected=controls.selected[color] if human and color is table.local else None,
            to_play=to_play, input_enabled=enabled,
            thinking=to_play and not human and table.notice is None, status=status,
            emphasis=status in ("Your turn", "Winner!") or status in _ASKED
            or status.startswith("Left: "),
            hover=self.input.hover if enabled else None, kind=table.kind(color))

    def _status(self, color: PColor, to_play: bool, human: bool) -> str:
        said = self._server_status(color)
        if said:
            return said
        result = self.table.result
        if result is not None:
            if not self.visual.idle:
                return ""
            if result.winner is Winner.DRAW:
                return "Draw"
            return "Winner!" if result.winner.color is color else "Lost"
        if self.table.notice is not None:
            return "Paused"
        if to_play and human:
            if color is self.you:
                return "Your turn"
            return "Their turn" if self.table.local is not None else "To play"
        return "Waiting" if not to_play else ""


_ASKS = {"draw": ("Offers a draw", "Draw offered"),
         "takeback": ("Asks takeback", "Takeback sent"),
         "rematch": ("Asks rematch", "Rematch sent")}
"""A panel's status while its side offers something: (the opponent's, this window's),
short enough to leave the clock its room on the narrowest panel."""
_ASKED = {theirs for theirs, _ in _ASKS.values()}
