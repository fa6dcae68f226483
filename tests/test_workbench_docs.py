"""docs/engines.md and docs/rl.md work: every block runs, in order, as a reader meets it.

Each fenced block has an HTML comment right before it that says what it is:

- ``<!-- file: NAME -->``: a file the reader writes (again, when a later block
  completes it); later blocks see it in the reader's folder.
- ``<!-- run -->``: Python is executed there; a console block's commands are
  run there, one a line (``csl-game`` as ``python -m csl_game``), but for
  those that tests/test_documented_examples.py plays in the same folder
  (exit 0, no traceback, no match lost on time) and whose output no block
  shows.
- ``<!-- run: csharp -->``: the C# host's commands, run where Mono and the
  DLLs of tests/test_csharp_host.py are there (DIR and the DLL names filled in).
- ``<!-- output -->``: lines the previous command prints (numbers and shapes vary).
- ``<!-- transcript -->``: a protocol exchange; csl-game must send exactly its
  lines, and the example engine answer with lines of the same kinds.
- ``<!-- session-file -->`` and ``<!-- setup-file -->``: played and loaded.
- ``<!-- install -->``: names an extra that pyproject.toml declares and that
  is installed here.
- ``<!-- snippet -->``: compiled (it needs code of the reader's own).

The reader's folder starts as a copy of examples/, as a checkout has it.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from csl_game import CancellationToken, MatchConfig, PShape, ThinkerPrototype
from csl_game.services.settings import read_session_engines, read_session_file
from csl_game.services.setup_file import load_config
from csl_game.thinker.engine_thinker import EngineSpec
from doc_blocks import ROOT, Block, parse_blocks

DOCS = ("docs/engines.md", "docs/rl.md")
KINDS = ("file", "run", "output", "transcript", "session-file", "setup-file", "install",
         "snippet")
REPLAY = Path(__file__).resolve().parent / "engines" / "replay_engine.py"


BLOCKS = [b for doc in DOCS for b in parse_blocks(doc)]


class Reader:
    """A reader's folder and what they last saw printed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.last_output = ""
        shutil.copytree(ROOT / "examples", folder / "examples")


@pytest.fixture(scope="module")
def readers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Reader]:
    return {doc: Reader(tmp_path_factory.mktemp(Path(doc).stem)) for doc in DOCS}


@pytest.mark.unit
def test_every_block_says_what_it_is() -> None:
    assert len(BLOCKS) >= 15
    for block in BLOCKS:
        assert block.kind in KINDS, f"{block}: a block without a known marker"


# ------------------------------------------------------------------ running
def run_command(line: str, cwd: Path) -> str:
    argv = shlex.split(line)
    if argv[0] == "csl-game":
        argv = [sys.executable, "-m", "csl_game", *argv[1:]]
    elif shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed here")
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{line}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def run_console(block: Block, reader: Reader, lines: list[str]) -> None:
    outputs = [run_command(line, reader.folder) for line in lines]
    reader.last_output = outputs[0]


def played_elsewhere(block: Block) -> dict[int, str]:
    """The lines of `block` that tests/test_documented_examples.py plays, by
    index, but the first when an output block shows what it prints."""
    from test_documented_examples import EXAMPLES

    lines = {e.line: str(e) for e in EXAMPLES if e.doc == block.doc}
    after = BLOCKS.index(block) + 1
    shown = after < len(BLOCKS) and BLOCKS[after].kind == "output"
    return {i: lines[block.line + 1 + i] for i in range(len(block.code.splitlines()))
            if block.line + 1 + i in lines and not (shown and i == 0)}


def run_python(block: Block, reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(reader.folder)
    monkeypatch.syspath_prepend(str(reader.folder))
    for path in reader.folder.glob("*.py"):
        sys.modules.pop(path.stem, None)  # a file may have changed since its last import
    exec(compile(block.code, str(block), "exec"), {"__name__": "__doc_example__"})


def csharp_lines(block: Block, tmp_path: Path) -> list[str]:
    """The C# block's commands, run where Mono is and the reference's sources
    (CSL_REFERENCE_REPO, a clone) or DLLs (CSL_COMMON_DLL, CSL_THINKER_DLL) are,
    as tests/test_csharp_host.py has them; else a skip."""
    missing = [t for t in ("mcs", "mono") if shutil.which(t) is None]
    reference = os.environ.get("CSL_REFERENCE_REPO")
    common, thinker = os.environ.get("CSL_COMMON_DLL"), os.environ.get("CSL_THINKER_DLL")
    if not missing and reference and not common:  # build it as the docs say
        subprocess.run([sys.executable, str(ROOT / "examples/csharp/build_common.py"),
                        str(tmp_path / "built"), "--source", reference],
                       check=True, capture_output=True, timeout=600)
        common = thinker = str(tmp_path / "built" / "ColorShapeLinks.Common.dll")
    if "build_common.py" in block.code:
        missing += [] if reference else ["CSL_REFERENCE_REPO"]
    else:
        missing += [n for n, v in (("CSL_COMMON_DLL", common), ("CSL_THINKER_DLL", thinker))
                    if not v]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (see tests/test_csharp_host.py)")
    if "build_common.py" in block.code:
        code = block.code.replace("python3 examples/csharp/build_common.py DIR",
                                  f"python3 examples/csharp/build_common.py DIR "
                                  f"--source {reference}")
        return code.replace("DIR", str(tmp_path)).splitlines()
    assert common and thinker
    shutil.copy(common, tmp_path / "ColorShapeLinks.Common.dll")
    name = os.environ.get("CSL_THINKER_CLASS",
                          "ColorShapeLinks.Common.AI.Examples.RandomAIThinker")
    code = (block.code.replace("DIR/MyThinker.dll", thinker)
            .replace("My.Namespace.MyThinker", name).replace("DIR", str(tmp_path)))
    return code.splitlines()


def check_output(block: Block, reader: Reader) -> None:
    for line in block.code.splitlines():
        parts = re.split(r"(\d+(?:\.\d+)?|round|square)", line)
        pattern = "".join(r"\d+(?:\.\d+)?" if p[:1].isdigit() else
                          "(?:round|square)" if p in ("round", "square") else re.escape(p)
                          for p in parts)
        assert re.search(pattern, reader.last_output), f"{block}: no line like '{line}'"


def check_install(block: Block) -> None:
    (extra,) = re.findall(r'"\.\[(\w+)\]"', block.code)
    with (ROOT / "pyproject.toml").open("rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    for requirement in map(Requirement, extras[extra]):
        if requirement.marker is None or requirement.marker.evaluate():  # (uvloop: not Windows)
            importlib.metadata.version(requirement.name)


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_block(block: Block, readers: dict[str, Reader], monkeypatch: pytest.MonkeyPatch,
               tmp_path: Path) -> None:
    reader = readers[block.doc]
    kind = block.kind
    if kind == "file":
        (reader.folder / block.target).write_text(block.code, encoding="utf-8")
    elif kind == "run" and block.lang == "python":
        run_python(block, reader, monkeypatch)
    elif kind == "run" and block.target == "csharp":
        run_console(block, reader, csharp_lines(block, tmp_path))
    elif kind == "run":
        lines, elsewhere = block.code.splitlines(), played_elsewhere(block)
        if len(elsewhere) == len(lines):
            pytest.skip(f"test_documented_examples.py plays it ({', '.join(elsewhere.values())})")
        run_console(block, reader, [x for i, x in enumerate(lines) if i not in elsewhere])
    elif kind == "output":
        check_output(block, reader)
    elif kind == "transcript":
        check_transcript(block, reader, tmp_path)
    elif kind == "session-file":
        check_session_file(block, reader)
    elif kind == "setup-file":
        check_setup_file(block, reader, monkeypatch)
    elif kind == "install":
        check_install(block)
    else:
        compile(textwrap.dedent(block.code), str(block), "exec")


# ------------------------------------------------------------ engine blocks
def check_session_file(block: Block, reader: Reader) -> None:
    path = reader.folder / "league.txt"
    path.write_text(block.code, encoding="utf-8")
    assert [EngineSpec.parse(d).name for d in read_session_engines(path)] == ["pyrandom"]
    assert len(read_session_file(path)) == 3
    out = run_command("csl-game session -g league.txt -t 1000 --quiet", reader.folder)
    assert "RandomPy" in out


def check_setup_file(block: Block, reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    path = reader.folder / "setup.toml"
    path.write_text(block.code, encoding="utf-8")
    monkeypatch.chdir(reader.folder)  # the command is relative to where csl-game starts
    options = load_config(path)  # checks that every player's thinker sets up
    assert [ai.thinker for ai in options.ais] == ["pyrandom"]


def transcript(block: Block) -> list[tuple[str, str]]:
    marks = {"> ": "host", "< ": "engine"}
    return [(marks[line[:2]], line[2:]) for line in block.code.splitlines()]


def check_transcript(block: Block, reader: Reader, tmp_path: Path) -> None:
    """csl-game sends the transcript's lines, and the example engine answers like it."""
    script = transcript(block)
    (tmp_path / "script.json").write_text(json.dumps(script), encoding="utf-8")
    done = tmp_path / "done"
    spec = EngineSpec("replay", f"{sys.executable} {REPLAY} {tmp_path / 'script.json'} {done}")
    setup = next(line for who, line in script if line.startswith("setup"))
    numbers = [int(n) for n in setup.split()[1:7]]
    mc = MatchConfig(*numbers[:5], time_limit_ms=numbers[5])
    infos: list[str] = []
    thinker = ThinkerPrototype("replay", setup.split(maxsplit=7)[7], mc,
                               (spec.source,)).create(infos.append)
    answers = [line.split()[1] for who, line in script if line.startswith("move")]
    positions = [line.split()[1:] for who, line in script if line.startswith("position")]
    for moves, answer in zip(positions, answers, strict=True):
        board = mc.new_board()
        for token in moves:
            board.do_move(PShape("rs".index(token[-1])), int(token[:-1]))
        move = thinker.think(board, CancellationToken())
        assert f"{move.column}{'rs'[move.shape]}" == answer
    assert str(thinker) == next(line for who, line in script if line.startswith("csl 1 "))[6:]
    assert infos == [line[5:] for who, line in script if line.startswith("info")]
    thinker.close()  # type: ignore[attr-defined]
    assert done.read_text(encoding="utf-8") == "done"
    example_answers_alike(script, reader)


def example_answers_alike(script: list[tuple[str, str]], reader: Reader) -> None:
    host = "".join(line + "\n" for who, line in script if who == "host")
    proc = subprocess.run([sys.executable, "examples/engines/random_engine.py"],
                          input=host, cwd=reader.folder, capture_output=True, text=True,
                          timeout=60)
    said = proc.stdout.splitlines()
    expected = [line for who, line in script if who == "engine"]
    assert len(said) == len(expected)
    for got, line in zip(said, expected):
        if line.startswith("move"):
            assert re.fullmatch(r"move \d+[rs]", got)
        else:
            assert got == line
