"""The documented examples that play AI against AI lose no match on time.

Every ``csl-game`` command of the console blocks of README.md and docs/*.md
that plays AIs against each other is read from the docs, so they cannot
drift apart, and run as a reader would run it, at the time limit it states
(the terminal's 200 ms when it states none): in a folder holding what the
doc gave the reader before that line (its file blocks, the tutorial's
thinker as built by the steps so far, its session files, examples/). No
match may be lost on time ("exceeded the time limit", "ignored the request
to stop thinking"), and each run exits 0 without a traceback. What each verb
is run with besides:

- ``match`` and ``session``: ``--results FILE``, a JSON line per match
  (the command's own output is left as the reader sees it);
- ``league``: ``--games 1`` instead of the documented count (the same time
  limit, a shorter league), its progress lines read for forfeits; still a
  minute or more each, with the window's tournaments of four AIs or more
  (README's with mcts: a league of twelve matches at half a second a move,
  whose mcts thinks its whole half second each move);
- ``sprt``: ``--max-games 2`` (one pair: each player with each colour) and
  ``--results FILE`` (an SPRT plays until its statistics decide, hundreds of
  games);
- ``play`` with two or more AIs (the window): its AIs as a ``session`` in the
  terminal at the window's time limit; the window adds animation, not
  timing (and plays the same runners).

Every example is in the ``long`` tier: together they play some forty
commands at their documented limits, the costliest part of the suite after
the browsers; .ci/run runs them after the README's test command, and a
contributor who changes a documented command runs ``-m long -k
documented_example``.

Commands that cannot run here are skipped with the reason: humans at the
keyboard, online play, ``--resume``, files the docs do not give (README's
``league.txt``), placeholders (``DIR``) and programs not installed (mono, cc).
docs/rl.md needs a trained policy and its extras: tests/test_workbench_docs.py
runs its commands. The guide's and docs/engines.md's runnable blocks
(tests/test_docs.py, tests/test_workbench_docs.py) leave the commands played
here to this file.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from csl_game.engine import ForfeitReason
from csl_game.services.settings import (
    CONSOLE_TIME_LIMIT_MS,
    GUI_TIME_LIMIT_MS,
    level_entry,
    parse_ai_spec,
)
from doc_blocks import ROOT, Block, parse_blocks
from test_docs import STEPS, step_sources

pytestmark = [pytest.mark.slow, pytest.mark.long]

DOCS = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")
                             if p.name != "rl.md"))
PLAYING = ("match", "session", "league", "sprt", "play")
TIME_FORFEITS = {ForfeitReason.TIMEOUT, ForfeitReason.IGNORED_CANCELLATION}
LEAGUE_GAMES = "1"
SPRT_GAMES = "2"
GUIDE = "docs/thinkers.md"


@dataclass
class Example:
    """A documented command, where it is, and what it needs to run."""

    doc: str
    line: int
    words: list[str]
    before: list[list[str]] = field(default_factory=list)
    """The other programs of its block run before it (cc building an engine)."""

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}"


def _command_lines(block: Block) -> list[tuple[int, list[str]]]:
    out = []
    for i, line in enumerate(block.code.splitlines()):
        words = shlex.split(line, comments=True)
        if ">" in words:  # a redirection: the output goes to the test instead
            words = words[:words.index(">")]
        if words:
            out.append((block.line + 1 + i, words))
    return out


def _plays_ai_against_ai(words: list[str]) -> bool:
    verb, args = words[1], words[2:]
    if verb == "match":
        return "-W" in args and "-R" in args
    if verb == "play":
        return args.count("--ai") >= 2
    return True


def _tutorial_step(doc: str, line: int) -> int:
    """The line of the tutorial step the reader is at (0: none, or done)."""
    if doc != GUIDE:
        return 0
    files = {b.target: b.line for b in parse_blocks(GUIDE) if b.kind == "file"}
    before = [s.line for s in STEPS if s.line < line < files[s.target]]
    return before[-1] if before else 0


def _as_played(words: list[str]) -> list[str]:
    """The command with what does not change the play left out and the default
    time limit spelled out: two commands the same here play the same."""
    out, i = [], 0
    while i < len(words):
        if words[i] in ("--results", "--site"):
            i += 2
            continue
        if words[i] not in ("--auto", "--json", "--markdown", "-q", "--quiet"):
            out.append(words[i])
        i += 1
    if "-t" not in out:
        out += ["-t", str(GUI_TIME_LIMIT_MS if words[1] == "play" else CONSOLE_TIME_LIMIT_MS)]
    return out


def collect() -> list[Example]:
    examples: list[Example] = []
    seen: set[tuple[str, ...]] = set()
    for doc in DOCS:
        for block in parse_blocks(doc):
            if block.lang != "console":
                continue
            before: list[list[str]] = []
            for line, words in _command_lines(block):
                if words[0] != "csl-game":
                    before.append(words)
                    continue
                if len(words) < 2 or words[1] not in PLAYING or not _plays_ai_against_ai(words):
                    continue
                # README repeats the docs; the tutorial runs one command at several steps
                key = (_tutorial_step(doc, line), *_as_played(words))
                if key not in seen:
                    seen.add(key)
                    examples.append(Example(doc, line, words, list(before)))
    return examples


EXAMPLES = collect()


# ------------------------------------------------------------ the reader's folder
def _session_file_name(block: Block) -> str | None:
    first = block.code.lstrip().splitlines()[0]
    found = re.match(r"#\s*([\w.-]+\.txt)\b", first)
    return found[1] if found else None


def _reader_folder(example: Example, folder: Path) -> None:
    """What the doc gave its reader before the example's line."""
    shutil.copytree(ROOT / "examples", folder / "examples")
    doc = example.doc
    if doc == "README.md":  # its my_thinker.py is the guide's
        doc, line = GUIDE, 10**9
    else:
        line = example.line
    blocks = [b for b in parse_blocks(doc) if b.line < line]
    for block in blocks:
        if block.kind == "file" and not block.target.startswith("test_"):
            (folder / block.target).write_text(block.code, encoding="utf-8")
        if (block.kind == "session-file" and example.doc == doc
                and (name := _session_file_name(block))):
            (folder / name).write_text(block.code, encoding="utf-8")
    if doc == GUIDE:  # the tutorial's file as the steps so far built it
        for target in {s.target for s in STEPS}:
            built = [src for b, src in step_sources(target) if b.line < line]
            if built and not (folder / target).exists():
                (folder / target).write_text(built[-1], encoding="utf-8")


def _missing_folder_of_thinkers(words: list[str], folder: Path) -> None:
    """`--thinkers my_thinkers/`: the guide's "both of your files in a folder"."""
    for i, word in enumerate(words[:-1]):
        target = folder / words[i + 1]
        if word == "--thinkers" and words[i + 1].endswith("/") and not target.exists():
            target.mkdir()
            for py in folder.glob("*.py"):
                shutil.copy(py, target / py.name)


# ------------------------------------------------------------------- running
def _option(words: list[str], name: str) -> str | None:
    return words[words.index(name) + 1] if name in words[:-1] else None


def _set(words: list[str], name: str, value: str) -> list[str]:
    if name in words:
        i = words.index(name)
        return [*words[:i + 1], value, *words[i + 2:]]
    return [*words, name, value]


def _skip_reason(example: Example, folder: Path) -> str | None:
    words = example.words
    text = " ".join(words)
    if "--listen" in words or "--connect" in words:
        return "plays online"
    if "--resume" in words or "--config" in words:
        return "continues from a file of an earlier run"
    if re.search(r"\bDIR\b", text):
        return "a placeholder (DIR) for the reader's own folder"
    built = {p for b in example.before for p in _values(b, "-o")}
    for program in [b[0] for b in example.before] + [
            shlex.split(v.partition("=")[2])[0] for v in _values(words, "--engine")]:
        if program.startswith("./") or program in built:
            continue  # built by a program of the block
        if shutil.which(program) is None and not (folder / program).exists():
            return f"{program} is not installed here"
    game_file = _option(words, "-g")
    if game_file and not (folder / game_file).exists():
        return f"{example.doc} does not give {game_file}"
    return None


def _values(words: list[str], name: str) -> list[str]:
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == name]


def _window_as_session(words: list[str], folder: Path) -> list[str]:
    """`play --ai A --ai B ...` as a session of its AIs at the window's limit."""
    lines = []
    for spec in _values(words, "--ai"):
        entry = level_entry(spec) if spec in ("easy", "medium", "hard") else parse_ai_spec(spec)
        lines.append(f"{entry.thinker} {entry.params}".strip())
    (folder / "window_players.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rest, i = [], 2
    while i < len(words):
        if words[i] in ("--ai", "--results", "--site"):
            i += 2
            continue
        if words[i] not in ("--auto",):
            rest.append(words[i])
        i += 1
    session = ["csl-game", "session", "-g", "window_players.txt", *rest]
    return session if "-t" in rest else [*session, "-t", str(GUI_TIME_LIMIT_MS)]


def _run(words: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    argv = [sys.executable, "-m", "csl_game", *words[1:]] if words[0] == "csl-game" else words
    return subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=600,
                          env=env, stdin=subprocess.DEVNULL)


def _time_forfeits_in_results(path: Path) -> tuple[list[str], int, float]:
    """The time forfeits of a results file, its matches and its slowest move (ms)."""
    forfeits, matches, slowest = [], 0, 0.0
    for line in path.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        matches += 1
        slowest = max([slowest, *(float(m.get("ms", 0)) for m in doc.get("moves", []))])
        if doc.get("forfeit") in {r.name.lower() for r in TIME_FORFEITS}:
            forfeits.append(f"{doc.get('white')} vs {doc.get('red')}: {doc.get('forfeit')} "
                            f"{doc.get('detail', '')}")
    return forfeits, matches, slowest


GAME_LINE = re.compile(r"^Game (\d+)/(\d+): .*?: \w+(?: \((?P<why>[^)]*)\))? in \d+ moves$",
                       re.MULTILINE)


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_documented_example_loses_no_match_on_time(example: Example, tmp_path: Path) -> None:
    _reader_folder(example, tmp_path)
    words = list(example.words)
    _missing_folder_of_thinkers(words, tmp_path)
    reason = _skip_reason(example, tmp_path)
    if reason:
        pytest.skip(reason)
    for program in example.before:
        proc = _run(program, tmp_path)
        assert proc.returncode == 0, f"{example}: {shlex.join(program)}\n{proc.stderr}"
    verb = words[1]
    if verb == "play":
        words, verb = _window_as_session(words, tmp_path), "session"
    limit = int(_option(words, "-t") or CONSOLE_TIME_LIMIT_MS)
    results = tmp_path / "checked-results.jsonl"
    if verb in ("match", "session", "sprt"):
        words = _set(words, "--results", results.name)
        if verb == "sprt":
            words = _set(words, "--max-games", SPRT_GAMES)
    elif verb == "league":
        words = _set([w for w in words if w not in ("-q", "--quiet")], "--games", LEAGUE_GAMES)
    proc = _run(words, tmp_path)
    shown = f"{example} ({limit} ms): {shlex.join(words)}"
    assert proc.returncode == 0, f"{shown}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr, f"{shown}\n{proc.stderr[-2000:]}"
    if verb == "league":
        games = list(GAME_LINE.finditer(proc.stderr))
        assert games and len(games) == int(games[0][2]), f"{shown}\n{proc.stderr[-2000:]}"
        lost = [g[0] for g in games if g["why"] in {str(r) for r in TIME_FORFEITS}]
        assert not lost, f"{shown}\n" + "\n".join(lost)
    else:
        forfeits, matches, slowest = _time_forfeits_in_results(tmp_path / results.name)
        assert matches, f"{shown}: no match was played\n{proc.stderr[-2000:]}"
        assert not forfeits, f"{shown}\n" + "\n".join(forfeits)


def test_the_examples_are_found() -> None:
    """The commands the docs show are here: the README's, the tutorial's, the
    guide's tournament, the leagues, the SPRT, the engines."""
    shown = {" ".join(e.words) for e in EXAMPLES}
    assert "csl-game match -W minimax --white-params 4 -R random --json" in shown
    assert "csl-game session -g league.txt --thinkers my_thinkers/" in shown
    assert any(e.doc == GUIDE and "--white-params 4" in " ".join(e.words) for e in EXAMPLES)
    verbs = {e.words[1] for e in EXAMPLES}
    assert verbs == set(PLAYING), verbs
    assert {e.doc for e in EXAMPLES} >= {"README.md", GUIDE, "docs/league.md",
                                         "docs/testing.md", "docs/engines.md"}
