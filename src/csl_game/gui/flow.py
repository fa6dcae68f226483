"""Which scene shows a session, and what the user's choices do.

`SessionFlow` advances its session once a frame (`update`) and follows the
session's `Screen`: a match scene while a match is played, the result in
that scene's banner once it is over, the screens between matches, the end
of a tournament. Choices go back to the session, or to the navigator for
those that leave the session (play again, back to setup or home, quit). Scenes only
render and turn input into choices or moves; none advances the session.

A finished match of a tournament opens from its results table as a replay
(`open_match`): the session goes on meanwhile (the matches off screen too),
and Close (or Esc) comes back to the screen it was opened from, as the
session has it now. The screens between matches wait while a replay is
shown (their countdowns with them), so nothing is missed.
"""

from __future__ import annotations

from collections.abc import Callable

from csl_game.engine import (
    Choice,
    Human,
    MatchRecord,
    PostMatch,
    PreMatch,
    Screen,
    Session,
    SessionEnded,
    SessionEvent,
    TieBreakRound,
)
from csl_game.gui.broadcasting import WindowBroadcast
from csl_game.gui.context import GuiContext
from csl_game.gui.names import ShownNames
from csl_game.gui.scene import SceneManager
from csl_game.gui.scenes.choices import Offer
from csl_game.gui.scenes.info import ChoiceScene, FinalScene, PreMatchScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.replay import ReplayScene
from csl_game.services import narration as messages
from csl_game.services.replay import Replay

__all__ = ["SessionFlow"]

ScreenKey = tuple[Screen | None, bool, int]


class SessionFlow:
    """Shows one session, screen after screen, until the user leaves it."""

    def __init__(self, ctx: GuiContext, scenes: SceneManager, session: Session,
                 at_once: bool = False) -> None:
        self.ctx = ctx
        self.scenes = scenes
        self.session = session
        self.at_once = at_once
        """Start a single match as soon as its players are set up, without the
        pre-match screen's Start (the home screen has chosen the colours)."""
        self.names = ShownNames(session)
        """The players as the window names them (the level chosen: 'Easy')."""
        self.board: MatchScene | None = None
        """The scene of the current (or last) match, which shows its result."""
        self.detour: ReplayScene | None = None
        """A finished match opened from a results table, shown over the session."""
        self._shown: ScreenKey | None = None
        session.subscribe(self._log)
        self.broadcast = WindowBroadcast(session, ctx.options.listen, ctx.log) \
            if ctx.options.listen else None
        """Spectators' view of the session (``play --listen``), if asked for."""
        nav = ctx.nav
        again = True if session.is_single else None  # who plays first is chosen already
        self._leave: dict[Choice, Callable[[], None]] = {
            Choice.PLAY_AGAIN: lambda: nav.play_session(session.again(), again),
            Choice.PLAY_AGAIN_SWAPPED: lambda: nav.play_session(session.again(swapped=True),
                                                                again),
            Choice.REVIEW: self._review,
            Choice.SETUP: nav.go_back,
            Choice.QUIT: nav.quit,
        }

    def _replay_of(self, record: MatchRecord, index: int | None = None) -> Replay:
        """A finished match of the session as a replay, its players as the window names them."""
        session = self.session
        config = session.config
        humans = tuple(isinstance(session.players[i], Human)
                       for i in (record.white, record.red))
        return Replay((config.rows, config.cols, config.win_sequence, config.round_pieces,
                       config.square_pieces), config.time_limit_ms,
                      self.names.result(record.result), index, (humans[0], humans[1]))

    def open_match(self, index: int) -> None:
        """Show finished match `index` (from 0) again, over the session, until Close."""
        session = self.session
        if index not in session.record_indices:
            return
        record = session.records[session.record_indices.index(index)]
        self.detour = ReplayScene(self.ctx, self._replay_of(record, index),
                                  after=(("Close", self.close_match),), back=self.close_match)
        self.scenes.switch(self.detour)

    def close_match(self) -> None:
        """Back from a match opened again, to the session's screen as it is now."""
        if self.detour is None:
            return
        index = self.detour.replay.index
        self.detour = None
        self.show()
        scene = self.scenes.current
        if index is not None and isinstance(scene, ChoiceScene):
            scene.pick_match(index, focus=True)  # the keyboard where it left

    def _review(self) -> None:
        """The game just played, reviewed move by move (from its replay),
        with Play again and the way back on its bar."""
        session, nav = self.session, self.ctx.nav
        if not session.records:
            return
        replay = self._replay_of(session.records[-1])
        back = self.ctx.choice_names.get(Choice.SETUP, Choice.SETUP.value)
        nav.show(ReplayScene(self.ctx, replay, review=True, after=(
            ("Play again", lambda: nav.play_session(session.again(), at_once=True)),
            (back, nav.go_back))))

    def _key(self) -> ScreenKey:
        """What decides which screen shows the session, and for which match."""
        session = self.session
        return (session.presenter.screen, session.waiting, session.current_index)

    def show(self) -> None:
        """Show the session's current screen (after the steps no screen asks about)."""
        screen = self.session.presenter.settle()
        if (self.at_once and screen is Screen.PRE_MATCH and self.session.is_single
                and Choice.START in self.session.presenter.choices()):
            screen = self.session.presenter.choose(Choice.START)
        self._shown = self._key()
        if screen is Screen.MATCH:
            if self.broadcast is not None:
                self.broadcast.follow(self.session.match)
            self.board = MatchScene(self.ctx, self.session)
            self.scenes.switch(self.board)
        elif screen is Screen.PRE_MATCH:
            self.scenes.switch(PreMatchScene(self.ctx, self.session, self.choose,
                                             self.open_match))
        elif screen is Screen.FINAL and not self.session.is_single:
            self.scenes.switch(FinalScene(self.ctx, self.session, self.choose,
                                          self.open_match))
        else:
            self._show_result()

    def _show_result(self) -> None:
        """The choices after a match, over that match's board."""
        board = self.board
        assert board is not None and self.scenes.current is board, "a result follows a match"
        board.show_result(Offer.of(self.session, self.ctx.screen_policy, self.ctx.choice_names),
                          self.choose)

    def update(self) -> None:
        """Advance the session (once a frame); show its new screen if it moved on
        (once back, when a finished match is shown again)."""
        self.session.update()
        if self.detour is None and self._key() != self._shown:
            self.show()
        if self.broadcast is not None:
            self.broadcast.poll()

    def choose(self, choice: Choice) -> None:
        """Act on a choice of the current screen."""
        if choice.leaves_session:
            self._leave[choice]()
            return
        self.session.presenter.choose(choice)
        self.show()

    def close(self) -> None:
        """Stop the current match and any played off screen, and the broadcast."""
        self.session.abort()
        if self.broadcast is not None:
            self.broadcast.close()

    def _log(self, event: SessionEvent) -> None:
        if self.session.is_single:
            return
        log, n = self.ctx.log, self.names
        match event:
            case PreMatch(index=i, white=white, red=red):
                log.add(messages.pre_match(i, n(white), n(red)))
            case PostMatch(index=i, record=record, background=True):
                names = n.all
                log.add(messages.background_result(
                    i, names[record.white], names[record.red], n.result(record.result)))
            case TieBreakRound(round=tie_round, players=players):
                log.add(messages.tie_break_round(tie_round, [n(p) for p in players]))
            case SessionEnded(standings=table, tie_break=tb):
                for line in messages.session_over(n.standings(table)):
                    log.add(line)
                if tb is not None:
                    log.add(messages.tie_break_summary(tb, n.all))
