"""A thinker's name and what it writes reach the terminal as text, never as
the terminal's commands: a thinker whose name, printed output, thinking
information and exception hold escape sequences (clear the screen, retitle
the window, a bell, a carriage return, a C1 CSI, a right-to-left override)
runs through `match`, `session`, `replay`, `report` and `info`, and nothing they
print holds a control character other than newline and tab: each is shown
escaped (\\x1b)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from csl_game.services.narration import terminal_safe

THINKER = '''
from csl_game import AbstractThinker, Board, CancellationToken, FutureMove


class EscapeThinker(AbstractThinker):
    """Terminal escapes in everything it says \x1b]0;even its doc\x07."""

    def __str__(self) -> str:
        return "Evil\\x1b[2J\\x1b]0;pwned\\x07\\u202e"

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        print("out \\x1b[2J\\x1b]0;title\\x07 \\x9b31m\\rhidden")
        self.on_thinking_info("info \\x1b[31mred\\x08")
        if board.move_count >= 2:
            raise RuntimeError("boom \\x1b[2J\\x1bc")
        col = next(c for c in range(board.cols) if not board.is_column_full(c))
        return FutureMove(col, board.turn.shape)
'''
BOARD = ("-r", "4", "-c", "4", "-w", "3", "-t", "2000")
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _run(*args: str) -> str:
    return _run_all(args)


def _run_all(*argvs: tuple[str, ...]) -> str:
    """What these csl-game commands, run all at once, printed (each one's
    standard output and error, in the order given)."""
    procs = [subprocess.Popen([sys.executable, "-m", "csl_game", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for args in argvs]
    text = ""
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        done = (out + err).decode("utf-8")
        assert proc.returncode == 0, done[-2000:]
        text += done
    return text


@pytest.fixture
def thinkers(tmp_path: Path) -> str:
    (tmp_path / "escape_thinkers.py").write_text(THINKER)
    return str(tmp_path)


def _safe(text: str) -> None:
    raw = _RAW.findall(text)
    assert not raw, (raw, text[-2000:])


def test_a_match_prints_its_name_and_output_escaped(thinkers: str) -> None:
    text = _run("match", "-W", "escape", "-R", "sequential", "--thinkers", thinkers, *BOARD)
    _safe(text)
    assert "Evil\\x1b[2J\\x1b]0;pwned\\x07\\u202e (White)" in text  # the name, as text
    assert "out \\x1b[2J\\x1b]0;title\\x07 \\x9b31m\\x0dhidden" in text  # its output
    assert "info \\x1b[31mred\\x08" in text  # its thinking information
    assert "boom \\x1b[2J\\x1bc" in text  # its exception, in the forfeit


def test_a_session_its_replay_and_report_print_the_name_escaped(
        thinkers: str, tmp_path: Path) -> None:
    game = tmp_path / "players.txt"
    game.write_text("escape\nsequential\n")
    results = tmp_path / "r.jsonl"
    text = _run_all(("session", "-g", str(game), "--thinkers", thinkers, "--results",
                     str(results), *BOARD),
                    ("session", "-g", str(game), "--thinkers", thinkers, "--verbose", *BOARD),
                    ("info", "--thinkers", thinkers))
    text += _run_all(("replay", str(results), "--console", "--match", "1"),  # the results in
                     ("replay", str(results), "--list"), ("report", str(results)))
    _safe(text)
    assert text.count("Evil\\x1b[2J") >= 8


@pytest.mark.unit
def test_terminal_safe_keeps_text_and_escapes_controls() -> None:
    assert terminal_safe("tab\there\nnext line, é, 中, ✓") == "tab\there\nnext line, é, 中, ✓"
    assert terminal_safe("\x1b[2J\x07\r\x00\x7f\x9b\u202e\u2028") == \
        "\\x1b[2J\\x07\\x0d\\x00\\x7f\\x9b\\u202e\\u2028"
