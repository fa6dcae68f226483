"""The board scene: shows the session's current match, and its result.

The flow advances the session every frame (never blocking: AI players think
in their runners); this scene turns the match's events into log messages and
animations, and mouse and keyboard input into human moves. Once the match is
over the flow hands it the choices that follow (`show_result`), which it
shows in the result banner when every move has been shown.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pygame

from csl_game.engine import (
    Choice,
    InvalidPlay,
    Match,
    MatchEvent,
    MatchOver,
    MatchResult,
    MatchStarted,
    MovePerformed,
    MovesTakenBack,
    NextTurn,
    Resigned,
    Session,
    SessionState,
    ThinkingInfo,
)
from csl_game.gui.animation import VisualBoard
from csl_game.gui.board_input import BoardInput, how_to_play
from csl_game.gui.board_view import BoardView, Pointer
from csl_game.gui.context import GuiContext
from csl_game.gui.controls import HumanControls
from csl_game.gui.keys import MATCH_KEYS, WATCH_KEYS, KeyTable
from csl_game.gui.layout import DROP_HEIGHT, BoardLayout, compute_layout
from csl_game.gui.names import ShownNames
from csl_game.gui.pacing import speed_text, unpaced
from csl_game.gui.panels import LogView, PanelState, PlayerPanel, TurnClock, placed_text
from csl_game.gui.scene import Scene
from csl_game.gui.scenes.choices import Offer
from csl_game.gui.scenes.insight_panel import BoardInsight
from csl_game.gui.scenes.match_tools import MatchTools
from csl_game.gui.scenes.result import ResultOverlay
from csl_game.gui.sound import Effect
from csl_game.model.board import PColor, Pos, PShape, Winner
from csl_game.services import narration as messages
from csl_game.services.presets import opponent_label
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["MatchScene"]


class MatchScene(Scene):
    """Shows the board, the players and the log while a session plays its match,
    then the result with the choices that follow."""

    def __init__(self, ctx: GuiContext, session: Session) -> None:
        self.ctx = ctx
        self.session = session
        self.names = ShownNames(session)
        """The players as the window names them (the level chosen: 'Easy')."""
        cfg = session.config
        self.visual = VisualBoard(cfg.rows, cfg.cols, ctx.options.last_move_animation_s,
                                  DROP_HEIGHT)
        self.view = BoardView(ctx.art, ctx.text)
        self.panels = (PlayerPanel(ctx.art, ctx.text), PlayerPanel(ctx.art, ctx.text))
        self.log_view = LogView(ctx.text)
        self.layout: BoardLayout = compute_layout(cfg.rows, cfg.cols, ctx.size)
        self.match: Match | None = None
        self.turn_clock = TurnClock()
        """The time of the turn being played: the panel's clock, the log's time."""
        self.controls: HumanControls | None = None
        self.input: BoardInput | None = None
        """The board's mouse and keys (made with the match)."""
        self.result: ResultOverlay | None = None
        """The choices after the match, once the flow has handed them over."""
        self._banner: tuple[str, str] | None = None
        self._last_drawn: tuple[BoardLayout, list[tuple[pygame.Rect, object]]] | None = None
        self._dirty: list[pygame.Rect] | None = None
        self.tools: MatchTools | None = None
        self.insight: BoardInsight | None = None
        """The analysis and the spectator's figures (made with the match)."""
        self.score_note = ""
        """The human's record against this AI, shown with the result."""

    # ------------------------------------------------------------- lifecycle
    def enter(self) -> None:
        self.view.set_layout(self.layout)
        self._start_match()

    def exit(self) -> None:
        self.ctx.pacer.watch(False)
        if self.result is not None:
            self.result.close()
        if self.tools is not None:
            self.tools.close()
        if self.insight is not None:
            self.insight.close()
        self.session.close_match()

    def resize(self, size: tuple[int, int]) -> None:
        cfg = self.session.config
        self.layout = compute_layout(cfg.rows, cfg.cols, size)
        self.view.set_layout(self.layout)
        if self.tools is not None:
            self.tools.build(self.layout.toolbar, size)
        if self.result is not None and self.result.shown:
            self._show_result(self.result, size)

    def restyle(self, size: tuple[int, int]) -> None:
        self.view.forget()
        for panel in self.panels:
            panel.forget()
        self.log_view.forget()
        if self.insight is not None:
            self.insight.forget()
        self._last_drawn = None
        self.resize(size)

    def set_widgets_shown(self, shown: bool) -> None:
        if self.tools is not None:
            self.tools.show(shown)
        if self.result is not None:
            self.result.layer.show(shown)

    def _look(self) -> tuple[object, ...]:
        """What the screen shows that can change without an event or an animation."""
        controls, tools, result = self.controls, self.tools, self.result
        return (self.ctx.log.version, self.visual.version, self.visual.epoch,
                tools.hinted if tools else None, result.shown if result else None,
                self.input_enabled, controls.column if controls else None,
                tuple(controls.selected.values()) if controls else None, self._banner,
                self.insight.version if self.insight else None)

    def take_changed(self) -> bool:
        look = self._look()
        changed, self._looked = look != getattr(self, "_looked", None), look
        return changed

    @property
    def busy(self) -> bool:
        """Animations, an AI thinking, a hint coming, a countdown: draw every frame."""
        match, visual = self.match, self.visual
        if not visual.idle or visual.pulsing or 0 < visual.win_progress < 1:
            return True
        if match is not None and not match.is_over and not match.awaiting_human:
            return True
        if self.tools is not None and self.tools.hint is not None:
            return True
        return self.result is not None and (not self.result.shown
                                            or self.result.timeout is not None)

    def _start_match(self) -> None:
        self.match = self.session.match
        assert self.match is not None, "the session is playing a match"
        self.controls = HumanControls(self.match)
        self.input = BoardInput(self.controls, lambda: self.layout, self.ctx.sound, self._tool,
                                self.keys)
        self.match.subscribe(self._on_match_event)
        if self.insight is not None:
            self.insight.close()
        spectating = not any(map(self.match.is_human, PColor))
        self.insight = BoardInsight(self.session.config, unpaced(self.session.runner_factory),
                                    self.ctx.art, self.ctx.text, spectating=spectating)
        self.ctx.pacer.watch(spectating)
        self.tools = MatchTools(self.ctx, self.session, self.match, self._undone,
                                self.insight.toggle)
        self.tools.build(self.layout.toolbar, self.ctx.size)

    @property
    def you(self) -> PColor | None:
        """The colour of the one human player, when exactly one plays."""
        match = self.match
        humans = [c for c in PColor if match is not None and match.is_human(c)]
        return humans[0] if len(humans) == 1 else None

    def _undone(self, count: int) -> None:
        match = self.match
        assert match is not None
        board = match.board
        self.visual.reset({Pos(r, c): p for r in range(board.rows) for c in range(board.cols)
                           if (p := board[r, c]) is not None})
        if self.controls is not None:
            self.controls.refresh()
        if self.insight is not None and self.insight.spectator is not None:
            self.insight.spectator.forget_after(board.move_count)

    @property
    def input_enabled(self) -> bool:
        """Whether a human may play now: their turn, and the board shows every move."""
        match = self.match
        return (match is not None and match.awaiting_human and self.visual.idle
                and self.session.state is SessionState.IN_MATCH)

    # ------------------------------------------------------------- engine events
    def _say(self, text: str) -> None:
        self.ctx.log.add(text)

    def _on_match_event(self, event: MatchEvent) -> None:
        n = self.names
        match event:
            case MatchStarted(white=white, red=red):
                self._say(messages.match_started(n(white), n(red)))
                if self.match is not None and any(map(self.match.is_human, PColor)):
                    self._say(how_to_play())
            case NextTurn(color=color, name=name, is_human=human):
                self.turn_clock.reset()
                if not human:
                    self.ctx.log.add(messages.thinking(color, n(name)),
                                     shown=not self.insight or not self.insight.spectator)
                self._title(color, n(name), human)
            case MovePerformed(color=color, name=name, move=move, elapsed=elapsed):
                seen = self.turn_clock.told(elapsed)  # the panel's clock, on the wall
                cpu = self.session.config.clock == "cpu" and not self.match_is_human(color)
                self._say(placed_text(color, n(name), move.piece.shape, move.col,
                                      elapsed if cpu else seen, seen if cpu else None))
                self.visual.push(move)
                self.ctx.sound.play(Effect.DROP)
                if self.tools is not None:
                    self.tools.cancel_hint()
                if self.controls is not None:
                    self.controls.refresh()
            case MovesTakenBack():
                pass  # the tools that took them back reset the board shown
            case Resigned(color=color, name=name):
                self._say(f"{messages.who(color, n(name))} resigned")
            case InvalidPlay(color=color, name=name, reason=reason, detail=detail):
                self.ctx.sound.play(Effect.INVALID)
                self._say(messages.forfeit(color, n(name), reason, detail))
                rest = detail.splitlines()[1:]
                if rest:  # a traceback: for the thinker's author, not the log
                    print("\n".join(rest), file=sys.stderr, flush=True)
            case ThinkingInfo(color=color, name=name, text=text):
                self._thought(color, n(name), text)
            case MatchOver(result=result):
                result = n.result(result)
                if result.solution:
                    self.visual.show_win(result.solution)
                self._banner = self._result_banner(result)
                self._say(self._banner[1])
                self._keep_score(result)
                self._say(messages.game_over(result))
                if not messages.counts_for_scores(result):
                    self.ctx.sound.play(Effect.INVALID)  # no game was played: no fanfare
                else:
                    self.ctx.sound.play(Effect.DRAW if result.winner is Winner.DRAW
                                        else Effect.WIN)
                self.ctx.nav.set_title(self._match_title(result.winner.name.capitalize()
                                                         if result.winner.color is None
                                                         else self._banner[0]))

    def _thought(self, color: PColor, name: str, text: str) -> None:
        """A thinker's line while it thinks: the spectator's figures and standard
        output when AIs play each other; nowhere when it plays a human (an AI
        keeps its plan to itself: neither the log nor the terminal hands it to
        the player; `csl-game match` and watching AIs show a thinker's lines)."""
        spectator = self.insight.spectator if self.insight else None
        if spectator is None or self.match is None:
            return
        spectator.info(color, text, self.match.board.move_count + 1)
        self.ctx.log.add(messages.thinking_info(color, name, text), shown=False)

    def _result_banner(self, result: MatchResult) -> tuple[str, str]:
        """("You lose", why) or ("Red (MinimaxD3) wins", why): why in plain words
        from the engine; in a tournament it starts with which match it was."""
        assert self.match is not None
        why = messages.explain_result(result, self.match.board, self.you)
        session = self.session
        if not session.is_single:
            why = f"Match {session.current_index + 1} of {session.total_matches} \u00b7 {why}"
        return messages.result_title(result, self.you), why

    def _opponent(self) -> str | None:
        """How scores name the AI a human plays, if one does."""
        you, match = self.you, self.match
        if you is None or match is None:
            return None
        players = self.session.players
        index = [i for i, p in enumerate(players) if isinstance(p, ThinkerPrototype)]
        if len(index) != 1:
            return None
        ai = players[index[0]]
        assert isinstance(ai, ThinkerPrototype)
        return opponent_label(ai.requested_name, ai.params)

    def _keep_score(self, result: MatchResult) -> None:
        opponent, you = self._opponent(), self.you
        if opponent is None or you is None:
            return
        if not messages.counts_for_scores(result):
            self.score_note = f"Not counted in your record against {opponent}"
            self._say(self.score_note)
            return
        color = result.winner.color
        score = self.ctx.user.record(opponent, None if color is None else color is you)
        self.score_note = f"You against {opponent}: {score}"
        self._say(self.score_note)

    def _match_title(self, text: str) -> str:
        session = self.session
        if session.is_single:
            return text
        return f"Match {session.current_index + 1} of {session.total_matches} \u00b7 {text}"

    def _title(self, color: PColor, name: str, human: bool) -> None:
        if human and self.you is color:
            text = "Your turn"
        elif human:
            text = f"{messages.who(color, name)} to play"
        else:
            text = f"{messages.who(color, name)} is thinking"
        self.ctx.nav.set_title(self._match_title(text))

    # ------------------------------------------------------------- input
    def handle_event(self, event: pygame.event.Event) -> None:
        if self.result is not None and self.result.handle_event(event):
            return
        if self.tools is not None and self.tools.layer.dispatch(event):
            return
        if self.controls is None or self.input is None:
            return
        self.controls.enabled = self.input_enabled
        self.input.handle_event(event)

    def _tool(self, action: str) -> None:
        """A tool's key (H, U or Ctrl+Z, R, A; Space, -, +): the tools carry it out."""
        if self.tools is not None:
            self.tools.act(action)

    @property
    def keys(self) -> KeyTable:
        """This match's keys: a human's, or a spectator's when only AIs play."""
        match = self.match
        humans = match is not None and any(map(match.is_human, PColor))
        return MATCH_KEYS if humans or match is None else WATCH_KEYS

    # ------------------------------------------------------------- the result
    def show_result(self, offer: Offer, choose: Callable[[Choice], None]) -> None:
        """Offer the choices that follow the match, in the result banner once
        every move is shown; `choose` takes the one the user picks."""
        if self.result is not None:
            self.result.close()
        self.result = ResultOverlay(self.ctx.ui, offer, choose, self.score_note)

    def _show_result(self, result: ResultOverlay, size: tuple[int, int]) -> None:
        subtitle = self._banner[1] if self._banner is not None else ""
        result.show(size, lambda room: self.view.banner_rect(self.visual, room, subtitle),
                    self.layout.area.w)

    @property
    def banner_room(self) -> tuple[int, int]:
        """Room (width, height) the result banner leaves free below its text."""
        return self.result.room if self.result is not None else (0, 0)

    # ------------------------------------------------------------- advancing
    def update(self, dt: float) -> None:
        """Animate; show the result's choices once every move is shown."""
        if self.input is not None:
            self.input.update(dt)
        pacer = self.ctx.pacer
        self.visual.update(dt * pacer.animation_speed)
        pacer.shown(self.visual.idle)
        if self.controls is not None:
            self.controls.enabled = self.input_enabled
        if self.tools is not None:
            self.tools.update(dt)
            self.tools.refresh(self.input_enabled)
        if self.insight is not None and self.match is not None:
            idle = self.visual.idle and not self.match.is_over
            self.insight.follow(self.match.board if idle else None)
        result = self.result
        if result is None or not self.visual.idle:
            return
        if result.shown:
            result.update(dt)
        else:
            self._show_result(result, self.ctx.size)

    # ------------------------------------------------------------- drawing
    def draw(self, surface: pygame.Surface) -> None:
        lay = self.layout
        pointer = self._pointer()
        states = [self._panel_state(color) for color in PColor]
        clocks = [self._thinking_time(color) for color in PColor]
        self.view.draw(surface, self.visual, pointer)
        insight = self.insight
        if insight is not None and self.visual.idle:
            insight.draw_board(surface, lay)
        for color in PColor:
            self.panels[color].draw(surface, lay.panels[color], states[color], lay.scale,
                                    clocks[color])
        log = insight.log_rect(lay) if insight is not None else lay.log
        self.log_view.draw(surface, log, self.ctx.log, lay.scale)
        panel = None
        if insight is not None and self.match is not None:
            names = (self.names(self.match.name(PColor.WHITE)),
                     self.names(self.match.name(PColor.RED)))
            panel = insight.draw_panel(surface, lay, names, self.match.board.move_count)
        banner = self._banner if self.visual.idle else None
        if banner is not None:
            self.view.draw_banner(surface, self.visual, *banner, room=self.banner_room)
        self._track_changes([
            *((rect, (sig, self.banner_room))
              for rect, sig in self.view.regions(self.visual, pointer, banner)),
            *((lay.panels[c].rect, (states[c], PlayerPanel.clock_key(clocks[c])
                                    if states[c].thinking else None)) for c in PColor),
            (log, (id(self.ctx.log), self.ctx.log.version)),
            *(((panel, insight.version),) if panel is not None and insight else ()),
            (lay.board_region, insight.version if insight and insight.tool.on else None)])
        box = self.result.box if self.result is not None else None
        if box is not None and self._dirty is not None:
            self._dirty.append(box)  # its widgets, drawn later, change on hover and count down
        if self._dirty is not None:
            self._dirty.append(lay.toolbar)  # buttons: hover and enabled states

    def _track_changes(self, regions: list[tuple[pygame.Rect, object]]) -> None:
        """Note which regions look different from the last frame."""
        last = self._last_drawn
        if last is None or last[0] != self.layout:
            self._dirty = None
        elif [rect for rect, _ in last[1]] != [rect for rect, _ in regions]:
            # regions split or merged (a result appeared): show all of both
            self._dirty = [rect for rect, _ in last[1]] + [rect for rect, _ in regions]
        else:
            self._dirty = [rect for (rect, sig), (_, old) in zip(regions, last[1], strict=True)
                           if sig != old]
        self._last_drawn = (self.layout, regions)

    def dirty_rects(self) -> list[pygame.Rect] | None:
        return self._dirty

    def focus_rect(self) -> pygame.Rect | None:
        return self.result.focus.rect() if self.result is not None and self.result.shown \
            else None

    def _pointer(self) -> Pointer:
        controls = self.controls
        if controls is None or not controls.enabled:
            return Pointer(playable=(False,) * self.session.config.cols)
        ghost = controls.ghost()
        hint = self.tools.hinted if self.tools is not None else None
        return Pointer(controls.column, ghost[0] if ghost else None,
                       ghost[1] if ghost else None, controls.playable(), hint)

    def match_is_human(self, color: PColor) -> bool:
        return self.match is not None and self.match.is_human(color)

    def _thinking_time(self, color: PColor) -> float:
        match = self.match
        if match is None or match.is_over or match.board.turn is not color:
            return 0.0
        if self.held:  # a turn held by the pacer has not begun thinking
            return 0.0
        return self.turn_clock.shown(self.ctx.pacer.thinking_for(match.thinking_time()))

    @property
    def held(self) -> bool:
        """Whether the AI to move waits for the pacer (paused, or a slow speed)."""
        match, pacer = self.match, self.ctx.pacer
        return (pacer.waiting and match is not None and not match.is_over
                and not match.awaiting_human)

    def _panel_state(self, color: PColor) -> PanelState:
        match, controls = self.match, self.controls
        assert match is not None and controls is not None
        board = match.board
        human = match.is_human(color)
        to_play = not match.is_over and board.turn is color
        thinking = to_play and not human and not self.held
        enabled = to_play and controls.enabled
        status = self._status(color, to_play, human)
        return PanelState(
            color=color, name=self.names(match.name(color)), is_human=human,
            counts=(board.piece_count(color, PShape.ROUND),
                    board.piece_count(color, PShape.SQUARE)),
            selected=controls.selected[color] if human else None,
            to_play=to_play, input_enabled=enabled, thinking=thinking,
            status=status, emphasis=status in ("Your turn", "Winner!"),
            hover=self.input.hover if enabled and self.input else None)

    def _status(self, color: PColor, to_play: bool, human: bool) -> str:
        match = self.match
        assert match is not None
        if match.result is not None:
            if not self.visual.idle:
                return ""
            winner = match.result.winner
            if winner is Winner.DRAW:
                return "Draw"
            if not messages.counts_for_scores(match.result):  # no game was played
                return "" if winner.color is color else "Failed to start"
            return "Winner!" if winner.color is color else "Lost"
        if to_play and human:
            return "Your turn"
        if to_play and self.held:
            return "Paused" if self.ctx.pacer.paused else "Next move in a moment"
        pacer = self.ctx.pacer
        if not to_play and pacer.watching and pacer.speed != 1:  # the speed, always in view
            return f"Waiting \u00b7 speed {speed_text(pacer.speed)}"
        return "Waiting" if not to_play else ""
