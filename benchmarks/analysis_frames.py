"""Does the analysis panel cost the window frames? Frame times with it off and on.

Opens the window (SDL's dummy driver unless DISPLAY is set and --real is
given), plays a few moves of a human game against the sequential AI on the
standard board, then runs the frame loop at its real pace (clock.tick(60))
for SECONDS with the analysis off, and SECONDS with it on (its search in a
worker process, reports arriving every few hundred milliseconds, each one
redrawn), and prints the frame-time percentiles of both and their
difference. Every frame is drawn in both phases (the pointer moves each
frame), so the comparison is of whole frames, not of idle ones.

    python benchmarks/analysis_frames.py [--seconds 10]

Issue 19 asks the p99 with the analysis running to be within 2 ms of the
idle p99.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import pygame  # noqa: E402

from csl_game.gui.app import App  # noqa: E402
from csl_game.gui.scenes.match import MatchScene  # noqa: E402
from csl_game.services.settings import AIEntry, PlayOptions  # noqa: E402
from csl_game.thinker.api import MatchConfig  # noqa: E402


def _percentiles(frames: list[float]) -> dict[str, float]:
    ordered = sorted(frames)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return {"frames": len(frames), "p50_ms": at(0.5), "p99_ms": at(0.99),
            "max_ms": ordered[-1] * 1000, "mean_ms": statistics.fmean(frames) * 1000}


def _run(app: App, scene: MatchScene, seconds: float) -> list[float]:
    """Frame times (s) of the real-paced loop, the pointer moving every frame."""
    times, end = [], time.perf_counter() + seconds
    last = time.perf_counter()
    x0, y = scene.layout.cells.x + 2, scene.layout.cells.y + 2
    i = 0
    while time.perf_counter() < end:
        i += 1
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(x0 + i % 3, y),
                                             rel=(1, 0), buttons=(0, 0, 0)))
        app.step()
        now = time.perf_counter()
        times.append(now - last)
        last = now
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    config = MatchConfig(time_limit_ms=2000, min_move_time_ms=0)
    options = PlayOptions(ais=(AIEntry("sequential"),), match=config, window_size=(1280, 800),
                          last_move_animation_s=0.0, wait_before_match=False)
    app = App(options, out=io.StringIO())
    try:
        deadline = time.monotonic() + 30
        while not isinstance(app.scenes.current, MatchScene) and time.monotonic() < deadline:
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0,
                                                 unicode="", scancode=0))
            app.step()
        scene = app.scenes.current
        assert isinstance(scene, MatchScene) and scene.match is not None
        for col in (3, 3, 2, 4):
            while not scene.input_enabled:
                app.step()
            scene.match.submit_move(col, scene.match.board.turn.shape)
        while not scene.input_enabled:
            app.step()
        idle = _run(app, scene, args.seconds)
        scene._on_key(pygame.K_a)
        assert scene.insight is not None and scene.insight.tool.on
        busy = _run(app, scene, args.seconds)
        tool = scene.insight.tool
        depth = tool.analysis.depth if tool.analysis else 0
        off, on = _percentiles(idle), _percentiles(busy)
        print(f"analysis off: {off['frames']} frames, p50 {off['p50_ms']:.2f} ms, "
              f"p99 {off['p99_ms']:.2f} ms, max {off['max_ms']:.2f} ms")
        print(f"analysis on:  {on['frames']} frames, p50 {on['p50_ms']:.2f} ms, "
              f"p99 {on['p99_ms']:.2f} ms, max {on['max_ms']:.2f} ms "
              f"(reached depth {depth}, {tool.version} panel changes)")
        print(f"p99 on - p99 off: {on['p99_ms'] - off['p99_ms']:+.2f} ms "
              f"(ratio {on['p99_ms'] / off['p99_ms']:.3f})")
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
