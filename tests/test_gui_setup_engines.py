"""The setup screen and engines: a loaded setup file's engines join the thinkers."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from csl_game.gui.app import App
from csl_game.gui.scenes.setup import SetupScene
from csl_game.services.settings import PlayOptions
from gui_events import DT, click, type_into

ENGINE = Path(__file__).resolve().parent.parent / "examples" / "engines" / "random_engine.py"


def test_loading_a_file_with_engines_lists_them_and_plays_them(tmp_path: Path) -> None:
    path = tmp_path / "engines.toml"
    path.write_text(f'[[engines]]\nname = "pyrandom"\ncommand = '
                    f'{json.dumps(f"{sys.executable} {ENGINE}")}\n'
                    '[[players]]\nthinker = "pyrandom"\nparams = "3"\n', encoding="utf-8")
    app = App(PlayOptions(show_setup=True, in_process=True), out=io.StringIO())
    try:
        app.step(DT)
        scene = app.scenes.current
        assert isinstance(scene, SetupScene) and "pyrandom" not in scene.thinkers
        assert scene.path_entry is not None
        type_into(app, scene.path_entry, str(path))
        click(app, scene.buttons["load"])
        assert scene.message_text == f"Loaded the setup from {path}"
        assert "pyrandom" in scene.thinkers
        assert [p.thinker for p in scene.players] == ["pyrandom"]
        assert scene.check.options is not None  # a valid setup: Start works
        assert scene.mode_label is not None and scene.mode_label.text == "Mode: Human vs AI"
    finally:
        app.close()
