"""Seconds from opening the window to its first frame, with a remembered setup
of four AIs: three that take 1.5 s each to set up and one whose thinker is
gone (issue "The house in order", defect (a)).

Run it under each checkout's own environment, one after the other::

    SDL_VIDEODRIVER=dummy python benchmarks/first_frame.py

A checkout that probes the remembered players before the window opens takes
4.5 s or more; one that opens at once, a fraction of a second.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

SLOW = '''\
import time

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove


class SlowSetupThinker(AbstractThinker):
    def setup(self, params: str) -> None:
        time.sleep(1.5)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(0, board.turn.shape)
'''


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, folder = Path(tmp) / "home", Path(tmp) / "thinkers"
        home.mkdir()
        folder.mkdir()
        (folder / "slow_thinkers.py").write_text(SLOW, encoding="utf-8")
        (home / "last-setup.toml").write_text("".join(
            f'[[players]]\nthinker = "{name}"\nparams = "{params}"\n'
            for name, params in (("slowsetup", "1"), ("slowsetup", "2"), ("slowsetup", "3"),
                                 ("gone", ""))), encoding="utf-8")
        os.environ["CSL_GAME_HOME"] = str(home)
        try:
            from csl_game.services.settings import PlayOptions
        except ImportError:  # before the services package
            from csl_game.engine.settings import PlayOptions  # type: ignore[no-redef]
        from csl_game.gui.app import App

        started = time.perf_counter()
        app = App(PlayOptions(show_setup=True, window_size=(1024, 700),
                              thinker_paths=(str(folder),)))
        app.step(1 / 60)
        first = time.perf_counter() - started
        rows = len(getattr(app.scenes.current, "players", []))
        app.close()
    print(f"first frame after {first:.3f} s; the setup screen shows {rows} remembered AIs")


if __name__ == "__main__":
    sys.exit(main())
