"""Long commands say how far they are: a rich bar on a terminal (standard
error), nothing under -q or where standard error is not a terminal, so a
pipe or a file gets only the answer."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

BAR = "\u2501"
"""What rich draws a bar with."""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.unit
def test_a_bar_is_drawn_on_a_terminal_only() -> None:
    from csl_game.console.progress import WorkProgress

    for out, quiet, shown in ((_Terminal(), False, True), (_Terminal(), True, False),
                              (io.StringIO(), False, False)):
        with WorkProgress("reviewing", 4, quiet, out,
                          amount="{task.completed:.0f}/{task.total:.0f} positions") as bar:
            bar.update(2, "depth\x1b[2J 5")
        assert bar.shown is shown
        text = out.getvalue()
        assert (BAR in text and "reviewing" in text and "2/4 positions" in text) is shown, text
        assert "\x1b[2J" not in text and (not shown or "depth\\x1b[2J 5" in text)
        assert text or not shown


def _stderrs(*runs: tuple[list[str], bool]) -> list[str]:
    """`_stderr` of each (argv, terminal), the verbs run at the same time."""
    with ThreadPoolExecutor(len(runs)) as pool:
        return list(pool.map(lambda run: _stderr(*run), runs))


def _stderr(argv: list[str], terminal: bool) -> str:
    """What a verb writes to standard error: a terminal's (a pty's), or a pipe's."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}
    command = [sys.executable, "-m", "csl_game", *argv]
    if not terminal:
        return subprocess.run(command, env=env, timeout=120, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, check=True).stderr
    leader, follower = pty.openpty()
    with subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=follower) as proc:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the verb ended, and its end of the pty with it
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=120) == 0
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_openings_shows_a_bar_on_a_terminal_only(tmp_path: Path) -> None:
    """A book takes minutes (the README's: 79 s without a word): on a terminal a
    bar says how many openings are found, of how many drawn; under -q, or into
    a pipe, only the line that ends it."""
    books = [tmp_path / f"book{i}.txt" for i in range(3)]
    argv = ["openings", "--plies", "2", "--count", "2", "--depth", "3", "--band", "0.5"]
    shown, *quiet = _stderrs((argv + ["-o", str(books[0])], True),
                             (argv + ["-o", str(books[1]), "-q"], True),
                             (argv + ["-o", str(books[2])], False))
    assert "openings" in shown and "2/2" in shown and BAR in shown, shown
    assert re.search(r"\d+ openings? drawn", shown) and f"wrote 2 openings to {books[0]}" in shown
    for book, said in zip(books[1:], quiet):
        assert said.strip() == f"wrote 2 openings to {book}", said


def test_analyse_shows_the_time_spent_on_a_terminal_only() -> None:
    argv = ["analyse", "3r", "3s", "-r", "4", "-c", "5", "-w", "3", "-t", "300"]
    shown, quiet, piped = _stderrs((argv, True), (argv + ["-q"], True), (argv, False))
    assert "analysing" in shown and BAR in shown and "/0.3 s" in shown, shown
    assert quiet == "" and piped == ""


def test_a_review_shows_the_positions_done_on_a_terminal_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from csl_game.cli import main

    assert main(["match", "--json", "--in-process", "-W", "sequential", "-R", "sequential",
                 "-r", "4", "-c", "5", "-w", "3"]) == 0
    match = tmp_path / "match.json"
    match.write_text(capsys.readouterr().out, encoding="utf-8")
    argv = ["replay", str(match), "--review", "--review-time", "50"]
    shown, quiet, piped = _stderrs((argv, True), (argv + ["-q"], True), (argv, False))
    assert "reviewing" in shown and BAR in shown and re.search(r"\d+/\d+ positions", shown)
    assert quiet == "" and piped == ""
