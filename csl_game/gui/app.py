"""The window and its frame loop.

`App.step()` runs one frame (events, the session's one update, the scene's
animations, draw, flip), so tests can post events and step; `App.run()` steps
until the window closes. The app is the scenes' navigator: it starts
sessions, goes back to setup and quits when a scene asks.
"""

from __future__ import annotations

import gc
import sys
from typing import TextIO

import pygame
import pygame_gui

from csl_game.model.board import PColor, PShape
from csl_game.engine.settings import PlayOptions
from csl_game.gui.assets import load_theme
from csl_game.gui.context import GuiContext
from csl_game.gui.flow import SessionFlow
from csl_game.gui.layout import window_size_for
from csl_game.gui.panels import MessageLog
from csl_game.gui.pieces import PieceArt
from csl_game.gui.scene import SceneManager
from csl_game.gui.scenes.setup import SetupScene
from csl_game.gui.style import Fonts, TextCache
from csl_game.engine.runners.base import InfoCallback, RunnerFactory, ThinkerRunner
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.engine.session import Session
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["App", "run_gui", "build_session", "default_runner_factory"]

FPS = 60
_RESIZE_EVENTS = (pygame.VIDEORESIZE, pygame.WINDOWRESIZED, pygame.WINDOWSIZECHANGED)
_REPAINT_EVENTS = (pygame.VIDEOEXPOSE, pygame.WINDOWEXPOSED, pygame.WINDOWSHOWN,
                   pygame.WINDOWRESTORED, pygame.WINDOWMAXIMIZED) + _RESIZE_EVENTS


def _process_runner(prototype: ThinkerPrototype, info: InfoCallback) -> ThinkerRunner:
    from csl_game.engine.runners.process import ProcessRunner

    return ProcessRunner(prototype, info)


def default_runner_factory(options: PlayOptions) -> RunnerFactory:
    """Worker processes, so a search never slows the frame loop; threads with in_process."""
    if options.in_process:
        return ThreadRunner
    try:
        import csl_game.engine.runners.process  # noqa: F401
    except ImportError:
        print("csl-game: process runner unavailable, thinkers run on threads",
              file=sys.stderr, flush=True)
        return ThreadRunner
    return _process_runner


def build_session(options: PlayOptions, runner_factory: RunnerFactory) -> Session:
    """The session the options describe: humans fill the seats AIs leave empty."""
    return options.new_session(runner_factory)


def _icon() -> pygame.Surface:
    art = PieceArt()
    icon = pygame.Surface((32, 32), pygame.SRCALPHA)
    icon.blit(art.image(PColor.WHITE, PShape.ROUND, 20), (0, 0))
    icon.blit(art.image(PColor.RED, PShape.SQUARE, 20), (12, 12))
    return icon


def _first_size() -> tuple[int, int]:
    """A window size that fits the desktop the window opens on."""
    try:
        desktops = pygame.display.get_desktop_sizes()
    except pygame.error:
        desktops = []
    return window_size_for(desktops[0] if desktops else None)


class App:
    """The game window: one frame loop, scenes on top of it; the scenes' navigator."""

    def __init__(self, options: PlayOptions, runner_factory: RunnerFactory | None = None,
                 out: TextIO | None = None) -> None:
        pygame.display.init()  # no pygame.init(): the game has no sound to open
        pygame.font.init()
        pygame.display.set_icon(_icon())
        self.screen = pygame.display.set_mode(options.window_size or _first_size(),
                                              pygame.RESIZABLE)
        pygame.display.set_caption("ColorShapeLinks")
        self.clock = pygame.time.Clock()
        self.ui = pygame_gui.UIManager(self.size, load_theme())
        fonts = Fonts()
        self.ctx = GuiContext(ui=self.ui, fonts=fonts, text=TextCache(fonts), art=PieceArt(),
                              log=MessageLog(out), options=options, size=self.size, nav=self)
        self.running = True
        self.status = 0
        self.scenes = SceneManager()
        self.runner_factory = runner_factory or default_runner_factory(options)
        if self.runner_factory is _process_runner:
            from csl_game.engine.runners.process import start_server_soon

            start_server_soon()
        self.flow: SessionFlow | None = None
        if options.show_setup:
            self.show_setup()
        else:
            self.play(options)
        # What exists now lives as long as the window: keep it out of the
        # collector's full passes, which would otherwise stall frames.
        gc.collect()
        gc.freeze()

    @property
    def size(self) -> tuple[int, int]:
        """The drawable size of the window."""
        return self.screen.get_size()

    @property
    def options(self) -> PlayOptions:
        """The options of the session shown (or last shown)."""
        return self.ctx.options

    @property
    def log(self) -> MessageLog:
        """The message log (also written to standard output)."""
        return self.ctx.log

    # ------------------------------------------------------------- screens
    def show_setup(self) -> None:
        """Leave any session for the setup screen (showing the last options)."""
        self._end_session()
        self.scenes.switch(SetupScene(self.ctx, self.options))

    def play(self, options: PlayOptions) -> None:
        """Play the session `options` describe (and remember them for setup)."""
        self.ctx.options = options
        self.play_session(build_session(options, self.runner_factory))

    def play_session(self, session: Session) -> None:
        """Show `session` from its first screen."""
        self._end_session()
        self.flow = SessionFlow(self.ctx, self.scenes, session)
        self.flow.show()

    def _end_session(self) -> None:
        if self.flow is not None:
            self.scenes.switch(None)
            self.flow.close()
            self.flow = None

    # ------------------------------------------------------------- the loop
    def step(self, dt: float | None = None) -> bool:
        """Run one frame; `dt` (seconds) replaces the clock, for tests.

        Returns whether the app keeps running.
        """
        if dt is None:
            dt = self.clock.tick(FPS) / 1000
        repaint = False
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.quit()
                continue
            repaint = repaint or event.type in _REPAINT_EVENTS
            if event.type in _RESIZE_EVENTS:
                self._resize(event)
            self.ui.process_events(event)
            if self.scenes.current is not None:  # an event may switch screens
                self.scenes.current.handle_event(event)
        if self.running and self.flow is not None:
            self.flow.update()  # the session's one step a frame; may switch screens
        if self.running and self.scenes.current is not None:
            self.scenes.current.update(dt)
        scene = self.scenes.current  # a timed-out screen may have switched too
        if not self.running or scene is None:
            return False
        self.ui.update(dt)
        scene.draw(self.screen)
        self.ui.draw_ui(self.screen)
        rects = scene.dirty_rects()
        if rects is None or repaint:
            pygame.display.flip()
        else:
            pygame.display.update(rects)
        return self.running

    def _resize(self, event: pygame.event.Event) -> None:
        size = event.size if event.type == pygame.VIDEORESIZE else (event.x, event.y)
        if size != self.size:
            # synthetic events and some drivers do not resize the surface themselves
            self.screen = pygame.display.set_mode(size, pygame.RESIZABLE)
        self.ctx.size = self.size
        self.ui.set_window_resolution(self.size)
        if self.scenes.current is not None:
            self.scenes.current.resize(self.size)

    def quit(self, status: int = 0) -> None:
        """Stop after this frame with exit status `status`."""
        self.running = False
        self.status = status

    def run(self) -> int:
        """Step until the window closes; returns the exit status."""
        try:
            while self.step():
                pass
        finally:
            self.close()
        return self.status

    def close(self) -> None:
        """End the scene (stopping any thinking AI) and close the window."""
        self.scenes.close()
        self._end_session()
        gc.unfreeze()
        pygame.quit()


def run_gui(options: PlayOptions) -> int:
    """Open the window, play what `options` describe, return the exit status (0)."""
    return App(options).run()
