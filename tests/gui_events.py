"""Real pygame events for GUI tests: clicks at widget centres, keys, typed text.

pygame_gui answers a click with its own event (UI_BUTTON_PRESSED, ...),
posted during one frame and handled in the next, so clicks step two frames.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
from pygame_gui.elements import UIDropDownMenu, UITextEntryLine  # noqa: E402

from csl_game.engine import Choice  # noqa: E402
from csl_game.gui.app import App  # noqa: E402
from csl_game.gui.scenes.match import MatchScene  # noqa: E402
from csl_game.gui.scenes.result import KEY_GUARD_S, ResultOverlay  # noqa: E402
from csl_game.services.settings import PlayOptions  # noqa: E402

DT = 1 / 30


def post(kind: int, **attrs: object) -> None:
    pygame.event.post(pygame.event.Event(kind, **attrs))


def click_at(app: App, pos: tuple[int, int], frames: int = 2) -> None:
    """Move there, press and release the left button; run `frames` frames."""
    post(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0))
    post(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)
    post(pygame.MOUSEBUTTONUP, pos=pos, button=1)
    for _ in range(frames):
        app.step(DT)


def click(app: App, widget: object, frames: int = 2) -> None:
    """Click the centre of a widget (its rect on the screen)."""
    rect: pygame.Rect = widget.rect  # type: ignore[attr-defined]
    assert pygame.Rect(0, 0, *app.size).collidepoint(rect.center), f"{widget} is off screen"
    click_at(app, rect.center, frames)


def key(app: App, code: int, mod: int = 0, frames: int = 1) -> None:
    post(pygame.KEYDOWN, key=code, mod=mod, unicode="", scancode=0)
    post(pygame.KEYUP, key=code, mod=mod, unicode="", scancode=0)
    for _ in range(frames):
        app.step(DT)


def type_into(app: App, entry: UITextEntryLine, text: str) -> None:
    """Focus the entry, select all, delete, then type `text` as TEXTINPUT events."""
    click(app, entry, frames=1)
    key(app, pygame.K_a, pygame.KMOD_CTRL)
    key(app, pygame.K_BACKSPACE)
    for char in text:
        post(pygame.TEXTINPUT, text=char)
    app.step(DT)
    app.step(DT)


def choose_option(app: App, menu: UIDropDownMenu, option: str) -> None:
    """Open a drop-down with a click and click one of its options."""
    click(app, menu, frames=3)
    state = menu.current_state
    items = state.options_selection_list.item_list  # type: ignore[union-attr]
    element = next(item["button_element"] for item in items if item["text"] == option)
    click(app, element, frames=3)


def run_until(app: App, done: object, frames: int = 6000,
              seconds: float | None = None) -> None:
    """Step until `done()` is true; fail after `frames` frames, or, given
    `seconds`, once that much wall-clock time has passed (for waits on
    matches played on threads or in workers, which take real time however
    fast the frames go)."""
    deadline = None if seconds is None else time.monotonic() + seconds
    count = 0
    while not done():  # type: ignore[operator]
        if deadline is None and count >= frames:
            break
        if deadline is not None and time.monotonic() > deadline:
            break
        count += 1
        if not app.step(DT):
            break
        if deadline is not None:
            time.sleep(0.0005)  # let the threads that play the match have the GIL
    assert done(), "the condition was not met in time"  # type: ignore[operator]


class Apps:
    """The windows a test opens; `opened()` closes them all when it ends."""

    def __init__(self) -> None:
        self._apps: list[App] = []

    def open(self, options: PlayOptions, **kw: Any) -> App:
        """A window for `options` (its log to a string), stepped once."""
        kw.setdefault("out", io.StringIO())
        app = App(options, **kw)
        self._apps.append(app)
        app.step(DT)
        return app


@contextmanager
def opened() -> Iterator[Apps]:
    """Apps for one test, closed at its end however it ends."""
    apps = Apps()
    try:
        yield apps
    finally:
        for app in apps._apps:
            app.close()


def current(app: App, kind: type) -> object:
    scene = app.scenes.current
    assert isinstance(scene, kind), f"{type(scene).__name__} is shown, not {kind.__name__}"
    return scene


def result_overlay(app: App) -> ResultOverlay | None:
    """The result over the match scene shown, once its choices are shown."""
    scene = app.scenes.current
    if isinstance(scene, MatchScene) and scene.result is not None and scene.result.shown:
        return scene.result
    return None


def keys_reach_the_result(app: App) -> ResultOverlay:
    """The result shown, once its choices take keys (`KEY_GUARD_S` after they
    appeared: a player reads the result before a key takes a choice)."""
    overlay = shown_result(app)
    assert overlay.shown_at is not None
    time.sleep(max(0.0, overlay.shown_at + KEY_GUARD_S - time.monotonic()))
    return overlay


def shown_result(app: App) -> ResultOverlay:
    overlay = result_overlay(app)
    assert overlay is not None, f"{type(app.scenes.current).__name__} shows no result"
    return overlay


def press(app: App, choice: Choice) -> None:
    """Click a choice's button on the screen shown (or on its result overlay)."""
    scene = app.scenes.current
    offer = result_overlay(app) or scene
    buttons = getattr(offer, "buttons", {})
    assert choice in buttons, f"{type(offer).__name__} offers {list(buttons)}"
    click(app, buttons[choice])


def board_scene(app: App) -> MatchScene:
    return current(app, MatchScene)  # type: ignore[return-value]


def drop(app: App, col: int) -> None:
    """A human's click on a column's arrow, once the board takes input."""
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene)
              and app.scenes.current.input_enabled)
    scene = board_scene(app)
    click_at(app, scene.layout.arrows[col].center, frames=1)


class FastClock:
    """A frame clock whose frames each take 0.1 s of game time and no real time."""

    def tick(self, framerate: int = 0) -> int:
        return 100


class ShownChecker:
    """Steps an app and checks that its dirty rects cover every changed pixel."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.before = app.screen.copy()
        self.partial = 0
        self.board_frames = 0
        """Partial frames that changed something on the board."""
        self.column_frames = 0
        """Of those, the ones that showed no more than two columns' strips of it."""

    def step(self, frames: int = 1) -> None:
        for _ in range(frames):
            self.app.step(DT)
            rects = self.app.shown_rects if not self.app.idle else []
            if rects is not None:
                self.partial += 1
                shown = self.before.copy()
                for rect in rects:
                    shown.blit(self.app.screen, rect, rect)
                assert pygame.image.tobytes(shown, "RGB") == \
                    pygame.image.tobytes(self.app.screen, "RGB"), f"changes outside {rects}"
                self._count_board(rects)
            self.before = self.app.screen.copy()

    def _count_board(self, rects: list[pygame.Rect]) -> None:
        lay = scene(self.app).layout
        region = lay.board_region
        on_board = [r.clip(region) for r in rects if r.colliderect(region)]
        if on_board:
            self.board_frames += 1
            strip = (lay.cell * 3 // 2 + 2) * region.h
            self.column_frames += sum(r.w * r.h for r in on_board) <= 2 * strip


def scene(app: App) -> MatchScene:
    """The board scene: the current one, or the one under the result screen."""
    current = app.scenes.current
    if isinstance(current, MatchScene):
        return current
    assert app.flow is not None and app.flow.board is not None
    return app.flow.board
