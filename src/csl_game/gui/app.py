"""The window and its frame loop.

`App.step()` runs one frame (events, the session's one update, the scene's
animations, draw, flip), so tests can post events and step; `App.run()` steps
until the window closes. A frame in which nothing happened (no event, no
animation, no AI thinking: `Scene.busy`) is not drawn, and `run()` then
sleeps in `pygame.event.wait` instead of ticking at 60 frames a second, so
an idle window costs almost no CPU. The app is the scenes' navigator: it
shows the home screen, starts sessions, goes back home or to setup and quits
when a scene asks; it owns the keys that work everywhere (Esc menu, F1 help,
Ctrl+Q, M mute) and the overlays they open.
"""

from __future__ import annotations

import dataclasses
import gc
import sys
import time
from collections.abc import Callable
from typing import TextIO

import pygame
import pygame_gui

from csl_game.engine import (
    Choice,
    RunnerFactory,
    Screen,
    Session,
    ThreadRunner,
    process_runner,
    process_runner_available,
    start_workers_soon,
)
from csl_game.gui.assets import THEMES, load_theme, quick_theming_ids
from csl_game.gui.context import GuiContext
from csl_game.gui.flow import SessionFlow
from csl_game.gui.focus import draw_focus_ring, focus_ring_area
from csl_game.gui.keys import GLOBAL_KEYS
from csl_game.gui.layout import ui_scale
from csl_game.gui.opponents import build_session
from csl_game.gui.panels import MessageLog
from csl_game.gui.pieces import PieceArt
from csl_game.gui.scene import Scene, SceneManager
from csl_game.gui.scenes.home import HomeScene
from csl_game.gui.scenes.menu import HelpOverlay, MenuItem, MenuOverlay, Overlay
from csl_game.gui.scenes.setup import SetupScene
from csl_game.gui.sound import Sound
from csl_game.gui.style import Fonts, TextCache, palette, set_theme, theme_name
from csl_game.gui.window import (
    declare_minimum_size,
    first_size,
    icon,
    minimum_size,
    open_display,
    text_scale,
)
from csl_game.services.narration import terminal_safe
from csl_game.services.presets import LEVELS
from csl_game.services.replay import Replay
from csl_game.services.settings import PlayOptions, level_entry
from csl_game.services.userdata import UserData

__all__ = ["App", "run_gui", "run_replay", "build_session", "default_runner_factory"]

FPS = 60
IDLE_WAIT_MS = 250
"""How long an idle window sleeps before it looks at the session again."""
AWAKE_S = 0.35
"""How long the window goes on drawing after an event (hover fades, a click's press)."""
TITLE = "ColorShapeLinks"
_RESIZE_EVENTS = (pygame.VIDEORESIZE, pygame.WINDOWRESIZED, pygame.WINDOWSIZECHANGED)
_REPAINT_EVENTS = (pygame.VIDEOEXPOSE, pygame.WINDOWEXPOSED, pygame.WINDOWSHOWN,
                   pygame.WINDOWRESTORED, pygame.WINDOWMAXIMIZED) + _RESIZE_EVENTS


def default_runner_factory(options: PlayOptions) -> RunnerFactory:
    """Worker processes, so a search never slows the frame loop; threads with in_process."""
    if options.in_process:
        return ThreadRunner
    if not process_runner_available():
        print("csl-game: process runner unavailable, thinkers run on threads",
              file=sys.stderr, flush=True)
        return ThreadRunner
    return process_runner


class App:
    """The game window: one frame loop, scenes on top of it; the scenes' navigator."""

    def __init__(self, options: PlayOptions, runner_factory: RunnerFactory | None = None,
                 out: TextIO | None = None,
                 start: Callable[[GuiContext], Scene] | None = None) -> None:
        """Open the window on the home screen, the setup screen or the options'
        session, or on the scene `start` makes (a replay, say)."""
        open_display()  # the mixer opens only when a sound is played
        pygame.font.init()
        pygame.display.set_icon(icon())
        self.minimum = minimum_size()
        """The smallest size the window takes (every screen is whole in it)."""
        self.screen = pygame.display.set_mode(self._at_least_minimum(
            options.window_size or first_size()), pygame.RESIZABLE)
        self.declared_minimum = declare_minimum_size(self.minimum)
        """Whether the window manager was told the minimum size."""
        self._title = ""
        self.set_title("")
        self.clock = pygame.time.Clock()
        user = UserData()
        prefs = user.preferences()
        set_theme(prefs.theme if prefs.theme in THEMES else "default")
        self._text_scale = text_scale(self.size)
        self.ui = pygame_gui.UIManager(self.size, load_theme(theme_name(), self._text_scale))
        quick_theming_ids(self.ui)
        fonts = Fonts()
        self.ctx = GuiContext(ui=self.ui, fonts=fonts, text=TextCache(fonts), art=PieceArt(),
                              log=MessageLog(out), options=options, size=self.size, nav=self,
                              sound=Sound(prefs.muted), user=user)
        self.running = True
        self.status = 0
        self.scenes = SceneManager()
        self.overlay: Overlay | None = None
        self.frames_drawn = 0
        """Frames drawn and shown so far (idle frames are neither)."""
        self._pending: list[pygame.event.Event] = []
        self._awake_until = 0.0
        self._last_draw = 0.0
        self._was_busy = False
        """Whether the scene was busy at the previous frame."""
        self._shown_scene: Scene | None = None
        self.idle = False
        """Whether the last frame had nothing to draw."""
        self.shown_rects: list[pygame.Rect] | None = None
        """The areas the last drawn frame showed; None for the whole window."""
        self._layered = False
        """Whether the last frame drew a window over its scene."""
        self._ring_area: pygame.Rect | None = None
        """Where the last frame drew the focus ring."""
        self.runner_factory = runner_factory or default_runner_factory(options)
        self.ctx.runner_factory = self.runner_factory
        if self.runner_factory is process_runner:
            start_workers_soon()
        self.flow: SessionFlow | None = None
        self.base = options
        """The options the window was opened with: every game from home starts from them."""
        self.origin = "setup"
        """Where 'Back' from a session goes: 'home' or 'setup'."""
        self.has_home = options.show_home
        """Whether the home screen was shown (the setup screen then has a Home button)."""
        self._at_once = False
        if start is not None:
            self.scenes.switch(start(self.ctx))
        elif options.show_home:
            self.show_home()
        elif options.show_setup:
            self.ctx.options = user.last_setup(options) or options  # the setup last started
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
    def show_home(self) -> None:
        """Leave any session for the home screen."""
        self.has_home = True
        self._set_origin("home")
        self.show(HomeScene(self.ctx, self.base))

    def show_setup(self) -> None:
        """Leave any session for the setup screen: the last setup started when
        coming from home, else the options last played."""
        options = self.options
        if self.origin == "home":
            options = self.ctx.user.last_setup(self.base) or self.base
            if not options.ais:  # a tournament to start from: one AI of each level
                options = dataclasses.replace(options, ais=tuple(
                    level_entry(lv.name) for lv in LEVELS))
            self.ctx.options = options
        self._set_origin("setup")
        self.show(SetupScene(self.ctx, options, self.show_home if self.has_home else None))

    def go_back(self) -> None:
        """Leave the session for the screen it came from (home or setup)."""
        (self.show_home if self.origin == "home" else self.show_setup)()

    def show(self, scene: Scene) -> None:
        """Leave any session for `scene`."""
        self.close_overlay()
        self._end_session()
        self.set_title("")
        self.scenes.switch(scene)

    def _set_origin(self, origin: str) -> None:
        self.origin = origin
        self.ctx.choice_names = {Choice.SETUP: "Home"} if origin == "home" else {}

    def play(self, options: PlayOptions) -> None:
        """Play the session `options` describe (and remember them for setup)."""
        self.ctx.options = options
        self.play_session(build_session(options, self.runner_factory, self.ctx.pacer),
                          at_once=False)

    def start_game(self, options: PlayOptions, swapped: bool = False) -> None:
        """Play the single match `options` describe at once, colours swapped if
        `swapped`; leaving it goes home."""
        self.ctx.options = options
        session = build_session(options, self.runner_factory, self.ctx.pacer)
        if swapped:
            session.swap()
        self._set_origin("home")
        self.play_session(session, at_once=True)

    def play_session(self, session: Session, at_once: bool | None = None) -> None:
        """Show `session` from its first screen; `at_once`: start a single match
        without its pre-match screen (None: as the last session did)."""
        self.close_overlay()
        self._end_session()
        if at_once is not None:
            self._at_once = at_once
        self.ctx.log.clear()  # the last session's lines are not this one's
        self.flow = SessionFlow(self.ctx, self.scenes, session, self._at_once)
        self.flow.show()

    def _end_session(self) -> None:
        if self.flow is not None:
            self.scenes.switch(None)
            self.flow.close()
            self.flow = None

    def set_title(self, text: str) -> None:
        """'ColorShapeLinks — `text`' in the title bar (set only when it changes),
        its controls escaped: the window manager would turn the rest of the title
        round after a name's right-to-left override."""
        title = f"{TITLE} — {terminal_safe(text)}" if text else TITLE
        if title != self._title:
            self._title = title
            pygame.display.set_caption(title)

    @property
    def title(self) -> str:
        return self._title

    # ------------------------------------------------------------- overlays
    def open_menu(self) -> None:
        """The Esc menu over the current screen."""
        items = [MenuItem("Resume", self.close_overlay, "Esc")]
        if self.flow is not None:
            session = self.flow.session
            again = "Restart" if session.presenter.screen is Screen.MATCH else "Play again"
            at_once = True if session.is_single else None  # colours are chosen already
            items.append(MenuItem(again, lambda: self.play_session(session.again(), at_once)))
            if self.origin == "setup":
                items.append(MenuItem("Back to setup", self.show_setup))
        if not isinstance(self.scenes.current, HomeScene):
            items.append(MenuItem("Home", self.show_home))
        muted = self.ctx.sound.muted
        next_theme = THEMES[(THEMES.index(theme_name()) + 1) % len(THEMES)]
        # both say the state now, as a switch's label does; choosing one changes it
        items += [MenuItem("How to play", self.show_help, "F1"),
                  MenuItem(f"Sound: {'off' if muted else 'on'}", self._menu_mute, "M"),
                  MenuItem(f"Theme: {theme_name().replace('-', ' ')}",
                           lambda: self._menu_theme(next_theme), "T"),
                  MenuItem("Quit", self.quit, "Ctrl+Q")]
        self._open(MenuOverlay(self.ui, self.close_overlay, items))

    def show_help(self) -> None:
        """"How to play" over the current screen."""
        scene = self.scenes.current
        self._open(HelpOverlay(self.ui, self.close_overlay,
                               scene.keys if scene is not None else None))

    def _open(self, overlay: Overlay) -> None:
        self.close_overlay()
        self.overlay = overlay
        overlay.build(self.size)  # over the screen, shaded: its widgets stay, out of reach

    def close_overlay(self) -> None:
        """Close the menu or the help, back to the screen under it."""
        if self.overlay is None:
            return
        self.overlay.close()
        self.overlay = None

    def _menu_mute(self) -> None:
        self.toggle_mute()
        self.open_menu()

    def _menu_theme(self, name: str) -> None:
        self.use_theme(name)
        self.open_menu()

    def toggle_mute(self) -> None:
        """Sound on or off, remembered."""
        muted = self.ctx.sound.toggle_mute()
        self.ctx.user.update_preferences(muted=muted)
        self.log.add("Sound off" if muted else "Sound on")

    def use_theme(self, name: str) -> None:
        """Paint with theme `name` from now on, remembered."""
        set_theme(name)
        self.ctx.user.update_preferences(theme=name)
        self._load_ui_theme()
        self.ctx.art.clear()
        if self.scenes.current is not None:
            self.scenes.current.restyle(self.size)

    def _load_ui_theme(self) -> None:
        self.ui.get_theme().load_theme(load_theme(theme_name(), self._text_scale))
        self.ui.rebuild_all_from_changed_theme_data()

    # ------------------------------------------------------------- keys that work everywhere
    def _global_key(self, event: pygame.event.Event) -> bool:
        """The keys of `GLOBAL_KEYS` (Ctrl+Q, F1, Esc, M, T); returns whether the key was used."""
        action = GLOBAL_KEYS.action(event)
        if action == "quit":
            self.quit()
        elif action == "help" and not isinstance(self.overlay, HelpOverlay):
            self.show_help()
        elif action == "menu" and self.overlay is None:
            scene = self.scenes.current
            if scene is None or not scene.escape():  # a picker goes back home
                self.open_menu()
        elif action in ("mute", "theme") and not self._typing():
            if action == "mute":
                self.toggle_mute()
            else:
                self.use_theme(THEMES[(THEMES.index(theme_name()) + 1) % len(THEMES)])
            if isinstance(self.overlay, MenuOverlay):
                self.open_menu()
        else:
            return False
        return True

    def _typing(self) -> bool:
        """Whether a text entry has the keyboard (letters are text then)."""
        from pygame_gui.elements import UITextEntryLine

        return any(isinstance(w, UITextEntryLine) for w in self.ui.get_focus_set() or ())

    # ------------------------------------------------------------- the loop
    def step(self, dt: float | None = None) -> bool:
        """Run one frame; `dt` (seconds) replaces the clock, for tests.

        Returns whether the app keeps running.
        """
        if dt is None:
            dt = self.clock.tick(FPS) / 1000
        events, self._pending = self._pending + pygame.event.get(), []
        repaint = self._handle(events)
        if self.running and self.flow is not None:
            self.flow.update()  # the session's one step a frame; may switch screens
        if self.running and self.scenes.current is not None:
            self.scenes.current.update(dt)
        scene = self.scenes.current  # a timed-out screen may have switched too
        if not self.running or scene is None:
            return False
        self.ui.update(dt)
        if not self._wants_draw(bool(events), scene):
            self.idle = True
            return self.running
        self.idle = False
        self._draw(scene, repaint)
        return self.running

    def _handle(self, events: list[pygame.event.Event]) -> bool:
        """Give each event to the window, the UI, then the overlay or the scene;
        returns whether the whole window must be shown again."""
        repaint = False
        for event in events:
            if event.type == pygame.QUIT:
                self.quit()
                continue
            repaint = repaint or event.type in _REPAINT_EVENTS
            if event.type in _RESIZE_EVENTS:
                self._resize(event)
            if self._global_key(event):
                continue
            self.ui.process_events(event)
            if self.overlay is not None:
                self.overlay.handle_event(event)
            elif self.scenes.current is not None:  # an event may switch screens
                self.scenes.current.handle_event(event)
        return repaint

    def _wants_draw(self, had_events: bool, scene: Scene) -> bool:
        """Whether this frame shows anything new: after an event (and for a
        moment after it), a new or changed screen, a busy one, a text cursor."""
        now = time.monotonic()
        if had_events:
            self._awake_until = now + AWAKE_S
        changed = scene is not self._shown_scene
        self._shown_scene = scene
        changed = scene.take_changed() or changed
        blink = self._typing() and now - self._last_draw >= 0.5  # the text cursor
        # the frame after a busy one too: the update that ends an animation
        # leaves the scene idle, and its last picture must still be drawn
        busy, was_busy = scene.busy, self._was_busy
        self._was_busy = busy
        return changed or blink or now < self._awake_until or busy or was_busy

    def _draw(self, scene: Scene, repaint: bool) -> None:
        self._last_draw = time.monotonic()
        self.frames_drawn += 1
        scene.draw(self.screen)
        if self.overlay is not None:
            self.overlay.draw(self.screen)
        self.ui.draw_ui(self.screen)
        ring = self.overlay.focus.rect() if self.overlay else scene.focus_rect()
        width = max(2, round(2 * ui_scale(self.size)))
        draw_focus_ring(self.screen, ring, palette().focus, width)
        ring_area = focus_ring_area(ring, width) if ring is not None else None
        # A window over the scene (the menu, the help) is shown whole, and so
        # is the frame after it closes: the scene's own areas say nothing of
        # where it was. The focus ring is shown where it is and where it was.
        layered = self.overlay is not None
        rects = scene.dirty_rects()
        if rects is None or repaint or layered or self._layered:
            self.shown_rects = None
            pygame.display.flip()
        else:
            rings = [r for r in (ring_area, self._ring_area) if r is not None]
            self.shown_rects = [*rects, *rings]
            pygame.display.update(self.shown_rects)
        self._layered = layered
        self._ring_area = ring_area

    def _at_least_minimum(self, size: tuple[int, int]) -> tuple[int, int]:
        return max(size[0], self.minimum[0]), max(size[1], self.minimum[1])

    def _resize(self, event: pygame.event.Event) -> None:
        size = event.size if event.type == pygame.VIDEORESIZE else (event.x, event.y)
        size = self._at_least_minimum(size)  # a window manager that took no notice
        if size != self.size:
            # synthetic events and some drivers do not resize the surface themselves
            # (SDL may make the window anew: its minimum size is declared again)
            self.screen = pygame.display.set_mode(size, pygame.RESIZABLE)
            self.declared_minimum = declare_minimum_size(self.minimum)
        self.ctx.size = self.size
        self.ui.set_window_resolution(self.size)
        scale = text_scale(self.size)
        if scale != self._text_scale:
            self._text_scale = scale
            self._load_ui_theme()
        if self.scenes.current is not None:
            self.scenes.current.resize(self.size)
        if self.overlay is not None:
            self.overlay.build(self.size)

    def quit(self, status: int = 0) -> None:
        """Stop after this frame with exit status `status`."""
        self.running = False
        self.status = status

    def run(self) -> int:
        """Step until the window closes; returns the exit status.

        While nothing changes the loop sleeps until an event comes (or
        IDLE_WAIT_MS passes, to let the session collect results).
        """
        try:
            while self.running:
                if not self.idle:
                    self.step()
                    continue
                event = pygame.event.wait(IDLE_WAIT_MS)
                if event.type != pygame.NOEVENT:
                    self._pending.append(event)
                self.step(min(self.clock.tick() / 1000, 0.1))
        finally:
            self.close()
        return self.status

    def close(self) -> None:
        """End the scene (stopping any thinking AI) and close the window."""
        self.close_overlay()
        self.scenes.close()
        self._end_session()
        self.ctx.sound.close()
        gc.unfreeze()
        pygame.quit()


def run_gui(options: PlayOptions) -> int:
    """Open the window, play what `options` describe, return the exit status (0)."""
    return App(options).run()


def run_replay(replay: Replay, auto: bool = False) -> int:
    """Open the window on a replay of `replay`; with `auto`, play the moves
    one after another and close at the end. Returns the exit status (0)."""
    from csl_game.gui.scenes.replay import ReplayScene

    options = PlayOptions(auto=auto)  # the analysis and the review run in worker processes
    return App(options, default_runner_factory(options),
               start=lambda ctx: ReplayScene(ctx, replay, play=auto, quit_at_end=auto)).run()
