"""Screens of the window as scenes, switched by a small manager."""

from __future__ import annotations

import pygame

from csl_game.gui.keys import KeyTable

__all__ = ["Scene", "SceneManager"]


class Scene:
    """One screen: builds what it needs on enter, releases it on exit."""

    def enter(self) -> None:
        """Called when the scene becomes the current one."""

    def exit(self) -> None:
        """Called when the scene stops being current (or the window closes)."""

    def handle_event(self, event: pygame.event.Event) -> None:
        """React to one pygame event."""

    def escape(self) -> bool:
        """Esc was pressed: act on it (a picker goes back) and return True, or
        return False to let the window open its menu."""
        return False

    def resize(self, size: tuple[int, int]) -> None:
        """The window's drawable size changed."""

    def update(self, dt: float) -> None:
        """Advance by `dt` seconds; never blocks."""

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the whole screen."""

    @property
    def busy(self) -> bool:
        """Whether the screen changes by itself now (an animation, a countdown,
        an AI thinking): the window then draws every frame. When no scene is
        busy and no event comes, the window neither draws nor spins."""
        return False

    def take_changed(self) -> bool:
        """Whether the screen changed since the last call (rebuilt, new results)."""
        return False

    @property
    def keys(self) -> KeyTable | None:
        """The keys of this screen, which "How to play" (F1) shows first."""
        return None

    def focus_rect(self) -> pygame.Rect | None:
        """Where the keyboard focus is, for the window to ring it."""
        return None

    def set_widgets_shown(self, shown: bool) -> None:
        """Hide (or show again) the scene's widgets, while a window covers it."""

    def restyle(self, size: tuple[int, int]) -> None:
        """The theme changed: paint everything anew."""
        self.resize(size)

    def dirty_rects(self) -> list[pygame.Rect] | None:
        """The screen areas the last draw() changed, or None for all of it.

        The frame loop shows only these areas, which spares a real display
        (and an X server) from copying an unchanged window every frame.
        """
        return None


class SceneManager:
    """Holds the current scene and switches between scenes."""

    def __init__(self) -> None:
        self.current: Scene | None = None

    def switch(self, scene: Scene | None) -> None:
        """Exit the current scene, then enter `scene` (None: no scene)."""
        if self.current is not None:
            self.current.exit()
        self.current = scene
        if scene is not None:
            scene.enter()

    def close(self) -> None:
        """Exit the current scene for good."""
        self.switch(None)
