"""Sound effects: made by the project's script, shipped as assets, silent without audio."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pygame
import pytest

from csl_game.gui.assets import asset_path
from csl_game.gui.sound import Effect, Sound

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.unit
def test_the_shipped_sounds_are_what_the_script_makes(tmp_path: Path) -> None:
    script = runpy.run_path(str(ROOT / "assets" / "make_sounds.py"))
    script["main"](tmp_path)
    for effect in Effect:
        made = (tmp_path / f"{effect.value}.wav").read_bytes()
        assert made == asset_path("sounds", f"{effect.value}.wav").read_bytes(), effect


@pytest.mark.unit
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


@pytest.mark.unit
def test_a_mixer_that_cannot_open_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise pygame.error("no audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", refuse)
    sound = Sound()
    sound.play(Effect.DROP)
    assert not sound.available and sound.asked == [Effect.DROP] and sound.played == []


@pytest.mark.unit
def test_muted_plays_nothing() -> None:
    sound = Sound(muted=True)
    sound.play(Effect.WIN)
    assert sound.asked == sound.played == []
    assert sound.toggle_mute() is False


@pytest.mark.unit
def test_a_mixer_without_a_sound_card_says_nothing_on_standard_error(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """ALSA writes its eight lines on file descriptor 2 from C, where no sound card is:
    the mixer opens with it silenced."""
    def alsa(*args: object, **kwargs: object) -> None:
        for _ in range(8):
            os.write(2, b"ALSA lib confmisc.c:855:(parse_card) cannot find card '0'\n")
        raise pygame.error("ALSA: Couldn't open audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", alsa)
    sys.stderr.write("before\n")
    sound = Sound()
    sound.play(Effect.DROP)
    sys.stderr.write("after\n")
    assert not sound.available
    assert capfd.readouterr().err == "before\nafter\n", "standard error is back, and quiet"


# not in the unit tier: a real process, that opens this machine's audio
def test_the_real_mixer_on_this_machine_says_nothing(tmp_path: Path) -> None:
    """Whatever audio this machine has (none: ALSA's lines), a drop prints nothing."""
    env = {k: v for k, v in os.environ.items() if k != "SDL_AUDIODRIVER"}
    code = ("from csl_game.gui.sound import Effect, Sound\n"
            "s = Sound(); s.play(Effect.DROP); s.close()\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout == ""
