"""The thinker guide's code works: every code block of docs/thinkers.md is exercised.

Each ```python block carries an HTML comment right before it that says what it is:

- ``<!-- file: NAME.py -->``: a complete module. Thinker modules are loaded
  through discovery and play whole games against the random thinker; test
  modules (``test_*.py``) are run with pytest next to the other files.
- ``<!-- step: NAME.py -->``: a step of a tutorial that builds NAME.py. The
  first step is a whole module; each later one holds methods that replace the
  class's methods of the same name or are added to the class, as a reader
  would paste them. After every step the module is a thinker that runs, and
  the last step gives exactly the file block NAME.py.
- ``<!-- run -->``: a self-contained example, executed.
- ``<!-- snippet -->``: a fragment of a thinker's method, run as the body of
  one (with ``self`` a set-up thinker, ``board`` and a cancelled ``ct``).

A Python block without one of these markers fails the suite. A ```console
block marked ``<!-- console: run -->`` has its ``csl-game`` commands run, in
the folder of the tutorial step it follows (or of every file block), and each
must exit 0; the others (installing, the window, long sessions) are not run.
A command that plays AI against AI is run once, by
tests/test_documented_examples.py in the same folder: as written, exit 0, no
traceback, and no match lost on time.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import csl_game
from csl_game import (
    AbstractThinker,
    Board,
    CancellationToken,
    FutureMove,
    MatchConfig,
    PColor,
    PShape,
    ThinkerError,
    ThinkerPrototype,
    Winner,
)
from csl_game.engine import ForfeitReason
from csl_game.services.settings import read_session_file
from csl_game.thinker.discovery import ENTRY_POINT_GROUP, registry
from csl_game.thinkers import minimax as builtin_minimax
from doc_blocks import Block, parse_blocks

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "thinkers.md"

KINDS = ("file", "step", "run", "snippet")


TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = parse_blocks("docs/thinkers.md")
PYTHON = [b for b in BLOCKS if b.lang in ("python", "py", "python3")]
FILES = {b.target: b for b in PYTHON if b.kind == "file"}
THINKER_FILES = sorted(n for n in FILES if not n.startswith("test_"))
TEST_FILES = sorted(n for n in FILES if n.startswith("test_"))
SNIPPETS = [b for b in PYTHON if b.kind == "snippet"]
RUNNABLE = [b for b in PYTHON if b.kind == "run"]
STEPS = [b for b in PYTHON if b.kind == "step"]
CONSOLE_RUNS = [b for b in BLOCKS if b.lang == "console" and b.marker == "console: run"]


def blocks_of(lang: str, kind: str) -> list[Block]:
    return [b for b in BLOCKS if b.lang == lang and b.kind == kind]


@pytest.fixture(scope="module")
def doc_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding every file block of the guide."""
    folder = tmp_path_factory.mktemp("doc_files")
    for name, block in FILES.items():
        (folder / name).write_text(block.code, encoding="utf-8")
    return folder


def thinker_classes(path: Path) -> list[str]:
    """Fully qualified names of the thinkers defined in a guide file."""
    reg = registry((str(path),))
    return sorted(fqn for fqn in reg.classes if fqn.startswith(path.stem + "."))


def play(white: AbstractThinker, red: AbstractThinker, board: Board) -> Iterator[Board]:
    """Play to the end, yielding the board before each move; every move must be legal."""
    players = {PColor.WHITE: white, PColor.RED: red}
    while board.check_winner() == Winner.NONE:
        yield board
        thinker = players[board.turn]
        move = thinker.think(board.copy(), CancellationToken())
        problem = board.move_problem(move.shape, move.column)
        assert problem is None, f"{thinker} {problem}: {move} after {board.history}"
        board.do_move(PShape(move.shape), move.column)


# ------------------------------------------------------------------ the blocks
@pytest.mark.unit
def test_every_python_block_says_what_it_is() -> None:
    assert len(PYTHON) >= 10
    for block in PYTHON:
        assert block.kind in KINDS, f"{block}: python block without a known marker"
        if block.kind == "file":
            assert re.fullmatch(r"\w+\.py", block.target), f"{block}: bad file name"
        if block.kind == "step":
            assert block.target in FILES, f"{block}: no file block {block.target}"
            assert block.line < FILES[block.target].line, f"{block}: after its file block"
        if block.kind in ("run", "snippet"):
            assert not block.target, f"{block}: {block.kind} blocks name no file"
    names = [b.target for b in PYTHON if b.kind == "file"]
    assert len(names) == len(set(names)), "two file blocks share a name"
    assert THINKER_FILES and TEST_FILES and len(STEPS) >= 4 and CONSOLE_RUNS


def _compile(block: Block) -> None:
    try:
        compile(block.code, str(block), "exec")
    except SyntaxError:  # a method body: 'return' and friends need a function
        compile("def _snippet():\n" + textwrap.indent(block.code, "    "), str(block), "exec")


@pytest.mark.unit
@pytest.mark.parametrize("block", PYTHON, ids=str)
def test_every_python_block_compiles(block: Block) -> None:
    _compile(block)


@pytest.mark.unit
@pytest.mark.parametrize("block", RUNNABLE, ids=str)
def test_examples_run(block: Block) -> None:
    exec(compile(block.code, str(block), "exec"), {"__name__": "__doc_example__"})


@pytest.mark.unit
@pytest.mark.parametrize("block", SNIPPETS, ids=str)
def test_snippets_run_as_a_method_body(block: Block) -> None:
    # Only the public API is in scope, as in a thinker that imports it: a name
    # the snippet uses without importing it fails here.
    namespace = {name: getattr(csl_game, name) for name in csl_game.__all__}
    body = textwrap.indent(block.code, "    ")
    exec(compile(f"def snippet(self, board, ct):\n{body}", str(block), "exec"), namespace)
    ct = CancellationToken()
    ct.cancel()
    thinker = ThinkerPrototype("random", "", MatchConfig()).create()
    result = namespace["snippet"](thinker, MatchConfig().new_board(), ct)
    assert result in (None, FutureMove.NO_MOVE), f"{block}: a cancelled snippet returned {result}"


# ------------------------------------------------------------ the tutorial steps
def apply_step(source: str | None, block: Block) -> str:
    """The module after a reader applies `block` to `source` (None before the first step)."""
    if source is None:
        assert any(isinstance(n, ast.ClassDef) for n in ast.parse(block.code).body), (
            f"{block}: the first step is a whole module with its class")
        return block.code
    module = ast.parse(source)
    (cls,) = [n for n in module.body if isinstance(n, ast.ClassDef)]
    for node in ast.parse(block.code).body:
        assert isinstance(node, ast.FunctionDef), f"{block}: a step holds methods only"
        same = [i for i, n in enumerate(cls.body)
                if isinstance(n, ast.FunctionDef) and n.name == node.name]
        if same:
            cls.body[same[0]] = node
        else:
            cls.body.append(node)
    return ast.unparse(module)


def step_sources(target: str) -> list[tuple[Block, str]]:
    """Every step of the tutorial building `target`, with the module after it."""
    out: list[tuple[Block, str]] = []
    source: str | None = None
    for block in (b for b in STEPS if b.target == target):
        source = apply_step(source, block)
        out.append((block, source))
    return out


@pytest.fixture(scope="module")
def step_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """A folder per tutorial step (by the step block's line) holding its file as built."""
    dirs = {}
    for target in sorted({b.target for b in STEPS}):
        for block, source in step_sources(target):
            folder = tmp_path_factory.mktemp(f"step_{block.line}")
            (folder / target).write_text(source, encoding="utf-8")
            dirs[block.line] = folder
    return dirs


@pytest.mark.unit
@pytest.mark.parametrize("target", sorted({b.target for b in STEPS}))
def test_the_steps_build_the_complete_file(target: str) -> None:
    *_, (last, built) = step_sources(target)
    assert ast.dump(ast.parse(built)) == ast.dump(ast.parse(FILES[target].code)), (
        f"{last}: the steps of {target} do not add up to its complete file")


@pytest.mark.parametrize("block", STEPS, ids=str)
def test_every_step_is_a_thinker_that_runs(step_dirs: dict[int, Path], block: Block) -> None:
    path = step_dirs[block.line] / block.target
    (fqn,) = thinker_classes(path)
    mc = MatchConfig(time_limit_ms=3_600_000)
    mine = ThinkerPrototype(fqn, "", mc, (str(path),)).create()
    heuristic = getattr(mine, "heuristic", None)
    if heuristic is not None:
        assert heuristic(mc.new_board(), PColor.WHITE) == 0.0
    move = mine.think(mc.new_board(), CancellationToken())
    if move == FutureMove.NO_MOVE:
        return  # the skeleton: it loses, by design
    rnd = ThinkerPrototype("random", "5", mc).create()
    board = mc.new_board()
    for _ in play(mine, rnd, board):
        pass
    assert board.check_winner() != Winner.NONE


# ------------------------------------------------------------ the console blocks
def _console_folder(block: Block, doc_dir: Path, step_dirs: dict[int, Path]) -> Path:
    """Where a reader is when they run `block`: in the tutorial step before it,
    while the complete file is still to come; else among all the file blocks."""
    before = [s for s in STEPS if s.line < block.line and FILES[s.target].line > block.line]
    return step_dirs[before[-1].line] if before else doc_dir


def _run_as_documented_example(block: Block) -> dict[int, str]:
    """The lines of `block` that tests/test_documented_examples.py runs (with
    the same checks and more), by line number: not run again here."""
    from test_documented_examples import EXAMPLES  # it imports this module

    return {e.line: str(e) for e in EXAMPLES if e.doc == block.doc}


@pytest.mark.parametrize("block", CONSOLE_RUNS, ids=str)
def test_console_commands_run(block: Block, doc_dir: Path,
                              step_dirs: dict[int, Path]) -> None:
    folder = _console_folder(block, doc_dir, step_dirs)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    elsewhere = _run_as_documented_example(block)
    lines = block.code.splitlines()
    if all(block.line + 1 + i in elsewhere and " > " not in line
           for i, line in enumerate(lines)):
        shown = ", ".join(elsewhere[block.line + 1 + i] for i in range(len(lines)))
        pytest.skip(f"test_documented_examples.py runs it ({shown}): exit 0, no "
                    "traceback, no match lost on time")
    for line in lines:
        command, _, into = line.partition(" > ")
        words = shlex.split(command)
        assert words[:1] == ["csl-game"], f"{block}: not a csl-game command: {line}"
        proc = subprocess.run([sys.executable, "-m", "csl_game", *words[1:]], cwd=folder,
                              capture_output=True, text=True, timeout=300, env=env,
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, f"{block}: {line}\n{proc.stdout[-2000:]}{proc.stderr}"
        assert "Traceback" not in proc.stderr, f"{block}: {line}\n{proc.stderr}"
        if into:
            (folder / into.strip()).write_text(proc.stdout, encoding="utf-8")


@pytest.mark.unit
def test_wheel_names_carry_the_version() -> None:
    names = re.findall(r"csl_game-([\w.]+)-py3-none-any\.whl", TEXT)
    assert names and set(names) == {csl_game.__version__}


# ---------------------------------------------------------------- the thinkers
@pytest.mark.parametrize("name", THINKER_FILES)
def test_guide_thinkers_play_whole_games_against_random(doc_dir: Path, name: str) -> None:
    path = doc_dir / name
    fqns = thinker_classes(path)
    assert fqns, f"{name} defines no thinker"
    mc = MatchConfig()
    for fqn in fqns:
        for seed in ("1", "2"):
            mine = ThinkerPrototype(fqn, "", mc, (str(path),)).create()
            rnd = ThinkerPrototype("random", seed, mc).create()
            for white, red in ((mine, rnd), (rnd, mine)):
                board = mc.new_board()
                for _ in play(white, red, board):
                    pass
                assert board.check_winner() != Winner.NONE


@pytest.mark.unit
@pytest.mark.parametrize("name", THINKER_FILES)
def test_guide_thinkers_stop_when_cancelled(doc_dir: Path, name: str) -> None:
    path = doc_dir / name
    ct = CancellationToken()
    ct.cancel()
    for fqn in thinker_classes(path):
        thinker = ThinkerPrototype(fqn, "", MatchConfig(), (str(path),)).create()
        assert thinker.think(MatchConfig().new_board(), ct) == FutureMove.NO_MOVE


def _minimax_pair(doc_dir: Path, depth: str, mc: MatchConfig) -> tuple[AbstractThinker, ...]:
    path = str(doc_dir / "my_minimax.py")
    mine = ThinkerPrototype("my_minimax.MinimaxThinker", depth, mc, (path,)).create()
    builtin = ThinkerPrototype("csl_game.thinkers.minimax.MinimaxAIThinker", depth, mc).create()
    return mine, builtin


# Board settings with wins by rows, columns and diagonals, shapes that run out,
# and small boards that fill up.
SETTINGS = [MatchConfig(), MatchConfig(rows=5, cols=4, win_sequence=3),
            MatchConfig(rows=7, cols=9, win_sequence=5, round_pieces=3, square_pieces=30),
            MatchConfig(rows=3, cols=3, win_sequence=3, round_pieces=5, square_pieces=0)]


@pytest.mark.parametrize("mc", SETTINGS, ids=lambda m: f"{m.rows}x{m.cols}w{m.win_sequence}")
@pytest.mark.parametrize("depth", ["1", "2"])
def test_tutorial_minimax_chooses_the_builtin_moves(doc_dir: Path, mc: MatchConfig,
                                                    depth: str) -> None:
    mine, builtin = _minimax_pair(doc_dir, depth, mc)
    assert str(mine) == str(builtin) == f"MinimaxD{depth}"
    positions = 0
    for seed in ("3", "4", "5"):
        white = ThinkerPrototype("random", seed, mc).create()
        red = ThinkerPrototype("random", seed + "1", mc).create()
        for board in play(white, red, mc.new_board()):
            ct = CancellationToken()
            assert mine.think(board.copy(), ct) == builtin.think(board.copy(), ct), (
                f"different moves after {board.history}")
            positions += 1
    assert positions >= 10


def test_tutorial_minimax_matches_the_builtin_at_depth_3(doc_dir: Path) -> None:
    mc = MatchConfig()
    mine, builtin = _minimax_pair(doc_dir, "", mc)
    assert str(mine) == "MinimaxD3"
    board = mc.new_board()
    rnd = ThinkerPrototype("random", "11", mc).create()
    for count, position in enumerate(play(rnd, rnd, board)):
        if count % 3 == 0:
            ct = CancellationToken()
            assert mine.think(position.copy(), ct) == builtin.think(position.copy(), ct)


@pytest.mark.unit
def test_tutorial_minimax_is_the_builtin_code() -> None:
    """The built-in minimax is the tutorial's file, method for method (its own
    setup() aside), so the guide teaches what ships and the two cannot drift."""
    def methods(source: str) -> dict[str, str]:
        (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
        return {n.name: ast.dump(n) for n in cls.body if isinstance(n, ast.FunctionDef)}

    mine = methods(FILES["my_minimax.py"].code)
    builtin = methods(Path(builtin_minimax.__file__).read_text(encoding="utf-8"))
    assert set(mine) == set(builtin)
    for name in sorted(set(mine) - {"setup"}):
        assert mine[name] == builtin[name], (
            f"{name}() of the guide's my_minimax.py differs from thinkers/minimax.py")


# ------------------------------------------------------------- the test example
def test_example_test_file_passes(doc_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TEST_FILES],
        cwd=doc_dir, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed and int(passed[1]) >= 5, proc.stdout


# ------------------------------------------------------------ other blocks, links
@pytest.mark.unit
def test_session_file_example_names_known_thinkers(doc_dir: Path, tmp_path: Path) -> None:
    (block,) = blocks_of("text", "session-file")
    league = tmp_path / "league.txt"
    league.write_text(block.code, encoding="utf-8")
    reg = registry(tuple(str(doc_dir / n) for n in THINKER_FILES))
    for entry in read_session_file(league):
        reg.resolve(entry.thinker)
    with pytest.raises(ThinkerError, match="ambiguous"):  # as the guide warns
        reg.resolve("minimax")


@pytest.mark.parametrize("whole_module", [False, True], ids=["class", "module"])
def test_pyproject_entry_point_makes_the_thinker_known(tmp_path: Path,
                                                       whole_module: bool) -> None:
    (block,) = blocks_of("toml", "pyproject")
    project = tomllib.loads(block.code)["project"]
    ((name, value),) = project["entry-points"][ENTRY_POINT_GROUP].items()
    module, _, cls = value.partition(":")
    # Lay the package out as pip would install it: the code and its dist-info.
    package = tmp_path / module.rpartition(".")[0]
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / (module.replace(".", "/") + ".py")).write_text(
        FILES["my_thinker.py"].code, encoding="utf-8")
    info = tmp_path / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\n{name} = {module if whole_module else value}\n",
        encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "csl_game", "info"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"{module}.{cls}" in proc.stdout and not proc.stderr, proc.stdout + proc.stderr


@pytest.mark.unit
def test_forfeit_table_names_every_reason() -> None:
    for reason in ForfeitReason:
        assert f"| {reason.value} |" in TEXT, f"the guide does not explain '{reason}'"


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.unit
def test_links_point_at_headings() -> None:
    anchors = {_slug(h) for h in re.findall(r"^#+ (.+)$", TEXT, re.MULTILINE)}
    links = set(re.findall(r"\]\(#([\w-]+)\)", TEXT))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links |= set(re.findall(r"docs/thinkers\.md#([\w-]+)", readme))
    assert links and links <= anchors, f"dangling links: {links - anchors}"
