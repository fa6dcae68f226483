"""A bot's saved tokens with many bots of one owner starting at once: real
processes, so not in the unit tier (tests/test_server_units.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SAVE = ("from csl_game.server import bot\n"
        "def save(i):\n"
        "    bot._save_token('http://127.0.0.1:9', f'Bot{i}', f'token{i}')\n")

FORKED = SAVE + """
import os, sys
go, ready = os.pipe()
children = []
for i in range(8):
    pid = os.fork()
    if pid == 0:
        os.close(ready)
        os.read(go, 1)  # end of file for all eight at once: the parent closed the pipe
        try:
            save(i)
        except BaseException:
            os._exit(1)
        os._exit(0)
    children.append(pid)
os.close(ready)
sys.exit(max(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0 for pid in children))
"""
"""Eight processes forked from one that loaded the bot's module once (loading
it eight times over is what took the time), each released by the same event
(their pipe's end) to save its token."""


def test_bots_of_one_owner_registering_at_once_keep_every_token(tmp_path: Path) -> None:
    """Eight processes save a token each into one owner's file at the same moment:
    all eight are there (the file is read, added to and replaced under a lock)."""
    home = tmp_path / "home"
    env = {**os.environ, "CSL_GAME_HOME": str(home)}
    if hasattr(os, "fork"):
        procs = [subprocess.Popen([sys.executable, "-c", FORKED], env=env)]
    else:  # no fork (Windows): eight interpreters, each loading the module
        procs = [subprocess.Popen([sys.executable, "-c", SAVE + f"save({i})\n"], env=env)
                 for i in range(8)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    saved = json.loads((home / "server-tokens.json").read_text(encoding="utf-8"))
    assert sorted(saved.values()) == sorted(f"token{i}" for i in range(8))
    assert not (home / "server-tokens.json.lock").exists()
    assert [p.name for p in home.iterdir()] == ["server-tokens.json"]
