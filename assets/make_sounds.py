"""Makes the game's sound effects (assets/sounds/*.wav) from nothing but arithmetic.

Run it from anywhere to write them again: ``python assets/make_sounds.py``.
Each effect is a few decaying partials with a short attack, 22,050 Hz,
16-bit mono, so the files stay small and the same on every run.
"""

from __future__ import annotations

import math
import struct
import wave
from collections.abc import Callable, Sequence
from pathlib import Path

RATE = 22_050
Voice = tuple[float, float, float, float]
"""(start s, frequency Hz, length s, loudness 0..1)."""


def _tone(t: float, freq: float, length: float, attack: float = 0.004) -> float:
    """A decaying tone with a soft attack, a little second harmonic for body."""
    if t < 0 or t > length:
        return 0.0
    envelope = min(1.0, t / attack) * math.exp(-5.0 * t / length)
    wave_ = math.sin(2 * math.pi * freq * t) + 0.25 * math.sin(4 * math.pi * freq * t)
    return envelope * wave_


def _knock(t: float) -> float:
    """The thud of a piece landing: a falling pitch, quickly damped."""
    if t < 0 or t > 0.12:
        return 0.0
    freq = 180 - 500 * t
    return math.exp(-40 * t) * math.sin(2 * math.pi * freq * t)


def render(voices: Sequence[Voice], seconds: float,
           extra: Callable[[float], float] | None = None) -> bytes:
    """The voices mixed, normalised to 70 % of full scale, as 16-bit samples."""
    samples = []
    for i in range(int(seconds * RATE)):
        t = i / RATE
        value = sum(loud * _tone(t - start, freq, length)
                    for start, freq, length, loud in voices)
        samples.append(value + (extra(t) if extra else 0.0))
    peak = max(1e-9, max(abs(s) for s in samples))
    return b"".join(struct.pack("<h", round(s / peak * 0.7 * 32767)) for s in samples)


SOUNDS: dict[str, tuple[Sequence[Voice], float, Callable[[float], float] | None]] = {
    "drop": ([(0.0, 330.0, 0.09, 0.25)], 0.14, _knock),
    "win": ([(0.00, 523.3, 0.25, 1.0), (0.12, 659.3, 0.25, 1.0), (0.24, 784.0, 0.25, 1.0),
             (0.36, 1046.5, 0.6, 1.0)], 1.0, None),
    "draw": ([(0.0, 440.0, 0.35, 1.0), (0.18, 440.0, 0.45, 0.8)], 0.7, None),
    "invalid": ([(0.0, 155.6, 0.18, 1.0), (0.0, 164.8, 0.18, 1.0)], 0.2, None),
}


def main(folder: Path = Path(__file__).resolve().parent / "sounds") -> None:
    folder.mkdir(exist_ok=True)
    for name, (voices, seconds, extra) in SOUNDS.items():
        with wave.open(str(folder / f"{name}.wav"), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(render(voices, seconds, extra))


if __name__ == "__main__":
    main()
