"""A bot's saved tokens with many bots of one owner starting at once: real
processes, so not in the unit tier (tests/test_server_units.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_bots_of_one_owner_registering_at_once_keep_every_token(tmp_path: Path) -> None:
    """Eight processes save a token each into one owner's file at the same moment:
    all eight are there (the file is read, added to and replaced under a lock)."""
    home = tmp_path / "home"
    code = ("import sys; from csl_game.server import bot; "
            "bot._save_token('http://127.0.0.1:9', 'Bot' + sys.argv[1], 'token' + sys.argv[1])")
    env = {**os.environ, "CSL_GAME_HOME": str(home)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i)], env=env) for i in range(8)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    saved = json.loads((home / "server-tokens.json").read_text(encoding="utf-8"))
    assert sorted(saved.values()) == sorted(f"token{i}" for i in range(8))
    assert not (home / "server-tokens.json.lock").exists()
    assert [p.name for p in home.iterdir()] == ["server-tokens.json"]
