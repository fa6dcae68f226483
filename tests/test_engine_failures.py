"""An engine that fails to start costs its matches with a message that names it,
its command and what went wrong; only an engine refusing its settings is bad
input (exit 2), as docs/engines.md says."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from csl_game.cli import main

pytestmark = pytest.mark.timing

BAD = Path(__file__).resolve().parent / "engines" / "misbehaving_engine.py"


def _engine(mode: str) -> str:
    return f"{sys.executable} {BAD} {mode}"


FAILURES = [  # command, words in the forfeit's detail
    ("/no/such/engine", "cannot start `/no/such/engine`: No such file or directory"),
    (_engine("quit-early"), "ended before it was set up: its process exited with code 0"),
    (_engine("version"), "speaks protocol version 2; this csl-game speaks 1"),
    (_engine("silent"), "did not answer `csl 1` within 4 s"),
]


@pytest.mark.parametrize("command, words", FAILURES, ids=["missing", "exits", "version", "silent"])
def test_an_engine_that_fails_to_start_forfeits_with_its_reason(
        command: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["match", "--engine", f"eng={command}", "-W", "eng", "-R", "random",
                 "-t", "100", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert (result["winner"], result["forfeit"]) == ("red", "setup")
    assert result["detail"].startswith(f"engine 'eng' (`{command}`)") or \
        result["detail"].startswith(f"engine 'eng' cannot start `{command}`")
    assert words in result["detail"]
    assert "does not accept" not in err


def test_a_session_goes_on_without_an_engine_that_cannot_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "game.txt"
    game.write_text("ghost\nrandom 1\nsequential\n")
    results = tmp_path / "r.jsonl"
    code = main(["session", "-g", str(game), "--engine", "ghost=/no/such/engine",
                 "-r", "4", "-c", "4", "-w", "3", "-t", "100", "--results", str(results)])
    assert code == 0, capsys.readouterr().err
    docs = [json.loads(line) for line in results.read_text().splitlines()]
    ghost = [d for d in docs if "ghost" in (d["white"]["thinker"], d["red"]["thinker"])]
    assert len(docs) == 6 and len(ghost) == 4
    assert all(d["forfeit"] == "setup" and "cannot start" in d["detail"] for d in ghost)
    assert "(setup)" in capsys.readouterr().out


def test_an_engine_refusing_its_settings_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["match", "--engine", f"eng={_engine('refuse')}", "-W", "eng",
                 "--white-params", "xyz",
                 "-R", "random", "-t", "100"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "eng does not accept 'xyz'" in err and "cannot use parameters xyz" in err
