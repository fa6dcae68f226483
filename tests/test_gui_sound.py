"""Sound effects: made by the project's script, shipped as assets, silent without audio."""

from __future__ import annotations

import runpy
from pathlib import Path

import pygame
import pytest

from csl_game.gui.assets import asset_path
from csl_game.gui.sound import Effect, Sound

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_sounds_are_what_the_script_makes(tmp_path: Path) -> None:
    script = runpy.run_path(str(ROOT / "assets" / "make_sounds.py"))
    script["main"](tmp_path)
    for effect in Effect:
        made = (tmp_path / f"{effect.value}.wav").read_bytes()
        assert made == asset_path("sounds", f"{effect.value}.wav").read_bytes(), effect


def test_every_effect_plays_on_the_dummy_audio_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    sound = Sound()
    try:
        for effect in Effect:
            sound.play(effect)
            pygame.time.wait(5)
        assert sound.available and sound.played == sound.asked == list(Effect)
    finally:
        sound.close()


def test_a_mixer_that_cannot_open_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise pygame.error("no audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", refuse)
    sound = Sound()
    sound.play(Effect.DROP)
    assert not sound.available and sound.asked == [Effect.DROP] and sound.played == []


def test_muted_plays_nothing() -> None:
    sound = Sound(muted=True)
    sound.play(Effect.WIN)
    assert sound.asked == sound.played == []
    assert sound.toggle_mute() is False
