"""The thinker API: names, moves, tokens, settings, prototypes, discovery, minimax."""

from __future__ import annotations

import dataclasses
import math
import random
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from csl_game import (
    AbstractThinker,
    Board,
    CancellationToken,
    ConfigError,
    FutureMove,
    MatchConfig,
    PColor,
    PShape,
    ThinkerError,
    ThinkerPrototype,
    Winner,
)
from csl_game.errors import SetupRefused
from csl_game.thinker.api import thinker_display_name
from csl_game.thinker.discovery import ENTRY_POINT_GROUP, registry
from csl_game.thinkers.minimax import MinimaxAIThinker

o, s = PShape.ROUND, PShape.SQUARE


@pytest.fixture(autouse=True)
def clean_imports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Forget the thinker modules, sys.path entries and registries a test loaded."""
    temp, path = str(tmp_path_factory.getbasetemp()), list(sys.path)
    yield
    for name, module in list(sys.modules.items()):
        if (getattr(module, "__file__", None) or "").startswith(temp):
            del sys.modules[name]
    sys.path[:] = path
    registry.cache_clear()


def write(folder: Path, name: str, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / name
    file.write_text(textwrap.dedent(source), encoding="utf-8")
    return file


def thinker_source(*class_names: str, body: str = "") -> str:
    classes = "".join(f"""
class {name}(AbstractThinker):
    def think(self, board, ct):
        return FutureMove(0, PShape.ROUND)
{textwrap.indent(textwrap.dedent(body), '    ')}
""" for name in class_names)
    return "from csl_game import AbstractThinker, FutureMove, PShape\n" + classes


# ------------------------------------------------------------------- names
@pytest.mark.unit
@pytest.mark.parametrize("class_name, name", [
    ("MinimaxAIThinker", "Minimax"), ("RandomThinker", "Random"),
    ("DeepThinkerAI", "Deep"), ("Greedythinker", "Greedy"), ("LOUDAITHINKER", "LOUD"),
    ("quietthinkerai", "quiet"), ("Plain", "Plain"), ("ThinkerBot", "ThinkerBot"),
    ("MyAI", "MyAI"), ("AIThinker", "AIThinker"), ("Thinker", "Thinker"),
])
def test_name_rule(class_name: str, name: str) -> None:
    assert thinker_display_name(class_name) == name
    cls = type(class_name, (AbstractThinker,), {"think": lambda self, b, ct: FutureMove.NO_MOVE})
    assert str(cls()) == name


def worker_name(prototype: ThinkerPrototype) -> str:
    """The name a thinker gives itself, read in a worker process as the engine reads it."""
    from csl_game.engine import probe_all

    return probe_all([prototype])[0].name


def test_overridden_str_wins() -> None:
    assert worker_name(ThinkerPrototype("minimax", "4")) == "MinimaxD4"
    assert str(ThinkerPrototype("minimax", "4").create()) == "MinimaxD4"
    assert ThinkerPrototype("minimax", "4").default_name == "Minimax"  # no thinker code


# ------------------------------------------------------- moves and tokens
@pytest.mark.unit
def test_no_move() -> None:
    assert FutureMove.NO_MOVE.is_no_move
    assert FutureMove.NO_MOVE.column == -1
    assert FutureMove.NO_MOVE == FutureMove(-1, PShape.ROUND)
    assert not FutureMove(0, PShape.SQUARE).is_no_move
    assert str(FutureMove.NO_MOVE) == "no move"
    assert str(FutureMove(3, PShape.SQUARE)) == "square at column 3"


@pytest.mark.unit
def test_cancellation_token() -> None:
    ct = CancellationToken()
    assert not ct.is_cancellation_requested
    assert not ct.wait(0.01)
    thread = threading.Thread(target=ct.cancel)
    thread.start()
    assert ct.wait(5)
    thread.join()
    assert ct.is_cancellation_requested


@pytest.mark.unit
def test_cancellation_seen_by_a_thinking_thread() -> None:
    ct, seen = CancellationToken(), threading.Event()

    def think() -> None:
        while not ct.is_cancellation_requested:
            pass
        seen.set()

    thread = threading.Thread(target=think)
    thread.start()
    ct.cancel()
    assert seen.wait(5)
    thread.join()


# ----------------------------------------------------------------- settings
@pytest.mark.unit
def test_match_config_defaults() -> None:
    mc = MatchConfig()
    assert (mc.rows, mc.cols, mc.win_sequence, mc.round_pieces, mc.square_pieces,
            mc.time_limit_ms, mc.min_move_time_ms) == (6, 7, 4, 10, 11, 500, 0)
    assert mc.new_board().settings == (6, 7, 4, 10, 11)
    with pytest.raises(dataclasses.FrozenInstanceError):
        mc.rows = 8  # type: ignore[misc]


@pytest.mark.unit
@pytest.mark.parametrize("kwargs", [
    dict(rows=3, cols=3), dict(rows=0), dict(cols=-1), dict(win_sequence=0),
    dict(rows="6"), dict(round_pieces=0, square_pieces=0), dict(square_pieces=-1),
    dict(time_limit_ms=0), dict(time_limit_ms=-5), dict(time_limit_ms=1.5),
    dict(time_limit_ms=True), dict(min_move_time_ms=-1), dict(min_move_time_ms=None),
])
def test_match_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as info:
        MatchConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError) and str(info.value)


@pytest.mark.unit
@pytest.mark.parametrize("rows, cols, expected", [
    (7, 8, (7, 8, 4, 14, 14, 200)),
    (5, 5, (5, 5, 3, 6, 7, 125)),
    (9, 3, (9, 3, 5, 6, 7, 225)),
    (6, 7, (6, 7, 3, 10, 11, 175)),
])
def test_unknown_track(rows: int, cols: int, expected: tuple[int, ...]) -> None:
    mc = MatchConfig.unknown_track(rows, cols)
    assert (mc.rows, mc.cols, mc.win_sequence, mc.round_pieces, mc.square_pieces,
            mc.time_limit_ms) == expected


# --------------------------------------------------------------- prototypes
@pytest.mark.unit
@pytest.mark.parametrize("name", ["minimax", "MiniMax", " minimax ", "MinimaxAIThinker",
                                  "csl_game.thinkers.minimax.MinimaxAIThinker"])
def test_prototype_by_short_name_and_fqn(name: str) -> None:
    proto = ThinkerPrototype(name)
    assert proto.thinker_class is MinimaxAIThinker
    assert proto.fqn == "csl_game.thinkers.minimax.MinimaxAIThinker"


@pytest.mark.unit
def test_created_thinker_inherits_the_match_settings() -> None:
    mc = MatchConfig(rows=8, cols=9, win_sequence=5, round_pieces=17, square_pieces=19,
                     time_limit_ms=1234)
    infos: list[str] = []
    thinker = ThinkerPrototype("random", "7", mc).create(infos.append)
    assert (thinker.rows, thinker.cols, thinker.win_sequence, thinker.round_pieces_per_player,
            thinker.square_pieces_per_player, thinker.time_limit_ms) == (8, 9, 5, 17, 19, 1234)
    thinker.on_thinking_info("pondering")
    assert infos == ["pondering"]
    ThinkerPrototype("random").create().on_thinking_info("nobody listens")


@pytest.mark.unit
@pytest.mark.parametrize("attribute", ["rows", "cols", "win_sequence", "round_pieces_per_player",
                                       "square_pieces_per_player", "time_limit_ms"])
def test_settings_without_a_prototype(attribute: str) -> None:
    with pytest.raises(ThinkerError, match="MinimaxAIThinker"):
        getattr(MinimaxAIThinker(), attribute)


@pytest.mark.unit
@pytest.mark.parametrize("body, params", [
    ("""
     def setup(self, params):
         raise RuntimeError("bad parameters: " + params)
     """, "x y"),
    ("""
     def __init__(self):
         raise KeyError("no constructor")
     """, ""),
])
def test_setup_errors_name_the_thinker(tmp_path: Path, body: str, params: str) -> None:
    file = write(tmp_path, "fragile_thinker_mod.py", thinker_source("FragileThinker", body=body))
    proto = ThinkerPrototype("fragile", params, paths=(str(file),))
    with pytest.raises(ThinkerError, match="fragile_thinker_mod.FragileThinker") as info:
        proto.create()
    assert info.value.__cause__ is not None
    assert type(info.value.__cause__).__name__ in str(info.value)
    assert proto.default_name == "Fragile"


# ---------------------------------------------------------------- discovery
@pytest.mark.unit
def test_discovery_from_a_file_and_a_folder(tmp_path: Path) -> None:
    file = write(tmp_path / "single", "solo_thinker_mod.py", thinker_source("SoloThinker"))
    folder = tmp_path / "many"
    write(folder, "first_thinker_mod.py", thinker_source("AlphaAIThinker", "BetaThinkerAI"))
    write(folder, "second_thinker_mod.py", thinker_source("GammaThinker"))
    write(folder, "_private_helper.py", "raise RuntimeError('never imported')\n")
    reg = registry((str(file), str(folder)))
    for short, fqn in [("solo", "solo_thinker_mod.SoloThinker"),
                       ("alpha", "first_thinker_mod.AlphaAIThinker"),
                       ("beta", "first_thinker_mod.BetaThinkerAI"),
                       ("gamma", "second_thinker_mod.GammaThinker")]:
        cls = reg.resolve(short)
        assert reg.resolve(fqn) is cls and f"{cls.__module__}.{cls.__name__}" == fqn
    assert reg.resolve("minimax") is MinimaxAIThinker
    proto = ThinkerPrototype("gamma", paths=(str(folder),))
    assert proto.create().think(Board(), CancellationToken()) == FutureMove(0, PShape.ROUND)


@pytest.mark.unit
def test_unknown_name_lists_known_thinkers() -> None:
    with pytest.raises(ThinkerError, match="unknown thinker 'nosuch'") as info:
        ThinkerPrototype("nosuch")
    for known in ("minimax", "random", "sequential"):
        assert known in str(info.value)


@pytest.mark.unit
@pytest.mark.parametrize("source", ["def broken(:\n", "raise RuntimeError('import boom')\n"])
def test_broken_file(tmp_path: Path, source: str) -> None:
    file = write(tmp_path, "broken_thinker_mod.py", source)
    with pytest.raises(ThinkerError, match="broken_thinker_mod.py"):
        registry((str(file),))
    with pytest.raises(ThinkerError, match="broken_thinker_mod.py"):
        registry((str(tmp_path),))
    assert "broken_thinker_mod" not in sys.modules


@pytest.mark.unit
def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(ThinkerError, match="does not exist"):
        registry((str(tmp_path / "nowhere.py"),))
    with pytest.raises(ThinkerError):
        registry((str(write(tmp_path, "notes.txt", "hello")),))


@pytest.mark.unit
def test_ambiguous_short_name(tmp_path: Path) -> None:
    write(tmp_path, "dup_one_mod.py", thinker_source("DupThinker"))
    write(tmp_path, "dup_two_mod.py", thinker_source("DupAIThinker"))
    reg = registry((str(tmp_path),))
    with pytest.raises(ThinkerError, match="ambiguous") as info:
        reg.resolve("dup")
    assert "dup_one_mod.DupThinker" in str(info.value)
    assert "dup_two_mod.DupAIThinker" in str(info.value)
    assert reg.resolve("dup_two_mod.DupAIThinker").__name__ == "DupAIThinker"


@pytest.mark.unit
def test_entry_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "ep_thinker_mod.py", thinker_source("PluggedThinker"))
    write(tmp_path, "ep_module_mod.py", thinker_source("ModularAIThinker"))
    info = tmp_path / "csl_plugins-1.0.dist-info"
    write(info, "METADATA", "Metadata-Version: 2.1\nName: csl-plugins\nVersion: 1.0\n")
    write(info, "entry_points.txt", f"""\
        [{ENTRY_POINT_GROUP}]
        plugged = ep_thinker_mod:PluggedThinker
        modular = ep_module_mod
        missing = ep_nowhere_mod:Nothing
        """)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.cache_clear()
    reg = registry()
    assert reg.resolve("plugged").__module__ == "ep_thinker_mod"
    assert reg.resolve("modular").__name__ == "ModularAIThinker"
    assert reg.resolve("minimax") is MinimaxAIThinker
    assert any("missing" in p for p in reg.problems)
    with pytest.raises(ThinkerError, match="missing"):
        reg.resolve("nosuch")
    assert ThinkerPrototype("plugged").create().think(Board(), CancellationToken()).column == 0


# ------------------------------------------------------------------ minimax
def play(board: Board, moves: list[tuple[int, PShape]]) -> Board:
    for col, shape in moves:
        board.do_move(shape, col)
    return board


def minimax_move(board: Board, params: str = "") -> FutureMove:
    thinker = ThinkerPrototype("minimax", params).create()
    return thinker.think(board.copy(), CancellationToken())


def test_minimax_name_and_depth() -> None:
    assert worker_name(ThinkerPrototype("minimax")) == "MinimaxD3"
    assert worker_name(ThinkerPrototype("minimax", " 2 ")) == "MinimaxD2"


@pytest.mark.unit
@pytest.mark.parametrize("params", ["abc", "x y z", "-5", "0", "2.5", "depth=2"])
def test_minimax_refuses_a_depth_that_is_not_one_or_more(params: str) -> None:
    with pytest.raises(SetupRefused, match="ValueError: the depth is a whole number from 1 up"):
        ThinkerPrototype("minimax", params).create()


@pytest.mark.unit
def test_minimax_takes_an_immediate_win() -> None:
    board = play(Board(), [(0, o), (6, s), (1, o), (6, o), (2, o), (5, s)])
    move = minimax_move(board)
    board.do_move(move.shape, move.column)
    assert board.check_winner() is Winner.WHITE


@pytest.mark.unit
def test_minimax_blocks() -> None:
    board = play(Board(), [(0, o), (6, s), (1, o), (6, o), (2, o)])
    assert minimax_move(board) == FutureMove(3, PShape.SQUARE)


@pytest.mark.unit
def test_minimax_gives_up_when_cancelled() -> None:
    ct = CancellationToken()
    ct.cancel()
    thinker = ThinkerPrototype("minimax").create()
    assert thinker.think(Board(), ct).is_no_move


class CountingClock:
    """A clock for a token: `step` seconds pass at every reading, and from the
    `jump_at`-th reading on the time is `jump_to` (a machine that stalls)."""

    def __init__(self, step: float = 0.0, jump_at: int = -1, jump_to: float = 0.0) -> None:
        self.step, self.jump_at, self.jump_to = step, jump_at, jump_to
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        if 0 <= self.jump_at <= self.readings:
            return self.jump_to
        return self.step * self.readings


@pytest.mark.unit
def test_minimax_does_not_start_a_search_it_cannot_finish() -> None:
    # A millisecond a node: looking 1 move ahead takes 15 ms, so 2 moves
    # would take about 14 times that, more than is left of 200 ms.
    board = play(Board(), [(0, o), (6, s)])
    assert minimax_move(board, "1") != minimax_move(board, "2")
    ct = CancellationToken(0.2, CountingClock(step=0.001))
    move = ThinkerPrototype("minimax", "4").create().think(board.copy(), ct)
    assert move == minimax_move(board, "1")
    assert ct.elapsed() < 0.05 and not ct.is_cancellation_requested


@pytest.mark.unit
def test_minimax_plays_the_deepest_finished_search_when_time_runs_short() -> None:
    # No time passes until the search 3 moves ahead has begun; then only 5 %
    # of the limit is left: that search is dropped, the one 2 moves ahead plays.
    board = Board()
    assert minimax_move(board, "2") != minimax_move(board, "3")
    ct = CancellationToken(1.0, CountingClock(jump_at=1000, jump_to=0.95))
    move = ThinkerPrototype("minimax", "3").create().think(board.copy(), ct)
    assert move == minimax_move(board, "2")
    assert ct.time_left() > 0 and not ct.is_cancellation_requested


@pytest.mark.unit
def test_minimax_first_search_cut_short_gives_no_move() -> None:
    ct = CancellationToken(1.0, CountingClock(jump_at=3, jump_to=0.95))
    assert ThinkerPrototype("minimax", "3").create().think(Board(), ct).is_no_move


@pytest.mark.timing
@pytest.mark.parametrize("depth", ["3", "4", "6"])
def test_minimax_keeps_to_200_ms_of_processor_time(depth: str) -> None:
    thinker = ThinkerPrototype("minimax", depth, MatchConfig(time_limit_ms=200)).create()
    for board in (Board(), play(Board(), [(3, o), (3, s), (2, o), (4, s)])):
        ct = CancellationToken(0.2, time.process_time)
        move = thinker.think(board.copy(), ct)
        assert move in board.legal_moves()
        assert ct.elapsed() < 0.2


def guide_heuristic(board: Board, color: PColor) -> float:
    """The guide's Heuristic(), line by line."""
    def dist(x1: float, y1: float, x2: float, y2: float) -> float:
        return math.sqrt(math.pow(x1 - x2, 2) + math.pow(y1 - y2, 2))

    center_row, center_col = float(board.rows // 2), float(board.cols // 2)
    max_points = dist(center_row, center_col, 0, 0)
    h = 0.0
    for i in range(board.rows):
        for j in range(board.cols):
            piece = board[i, j]
            if piece is None:
                continue
            points = max_points - dist(center_row, center_col, i, j)
            h += points if piece.color == color else -points
            h += points if piece.shape == color.shape else -points
    return h


def guide_minimax(board: Board, max_depth: int, player: PColor, turn: PColor,
                  depth: int) -> tuple[FutureMove, float]:
    """The guide's Minimax() (seeds/000), without the cancellation check."""
    winner = board.check_winner()
    if winner != Winner.NONE:
        if winner.color == player:
            return FutureMove.NO_MOVE, math.inf
        if winner.color == player.other:
            return FutureMove.NO_MOVE, -math.inf
        return FutureMove.NO_MOVE, 0.0
    if depth == max_depth:
        return FutureMove.NO_MOVE, guide_heuristic(board, player)
    selected = (FutureMove.NO_MOVE, -math.inf if turn == player else math.inf)
    for i in range(board.cols):
        if board.is_column_full(i):
            continue
        for shape in (PShape.ROUND, PShape.SQUARE):
            if board.piece_count(turn, shape) == 0:
                continue
            board.do_move(shape, i)
            score = guide_minimax(board, max_depth, player, turn.other, depth + 1)[1]
            board.undo_move()
            if turn == player and score >= selected[1]:
                selected = (FutureMove(i, shape), score)
            elif turn == player.other and score <= selected[1]:
                selected = (FutureMove(i, shape), score)
    return selected


@pytest.mark.unit
@pytest.mark.parametrize("seed, depth, size", [
    *[(seed, 2, (6, 7, 4, 10, 11)) for seed in range(6)],
    (6, 3, (6, 7, 4, 10, 11)), (7, 2, (5, 5, 3, 2, 3)), (8, 3, (4, 5, 3, 3, 7)),
])
def test_minimax_follows_the_guide(seed: int, depth: int, size: tuple[int, ...]) -> None:
    rng = random.Random(seed)
    board = Board(*size)
    for _ in range(rng.randrange(2, 12)):
        free = [c for c in range(board.cols) if not board.is_column_full(c)]
        shapes = [sh for sh in PShape if board.piece_count(board.turn, sh)]
        board.do_move(rng.choice(shapes), rng.choice(free))
        if board.check_winner() is not Winner.NONE:
            board.undo_move()
            break
    mc = MatchConfig(*size)
    thinker = ThinkerPrototype("minimax", str(depth), mc).create()
    for color in PColor:
        assert thinker.heuristic(board, color) == pytest.approx(guide_heuristic(board, color))
    expected = guide_minimax(board.copy(), depth, board.turn, board.turn, 0)[0]
    assert thinker.think(board.copy(), CancellationToken()) == expected


@pytest.mark.unit
@pytest.mark.parametrize("stem", ["random", "json"])
def test_a_file_named_like_an_imported_module_is_refused(tmp_path: Path, stem: str) -> None:
    before = sys.modules[stem] if stem in sys.modules else __import__(stem)
    file = write(tmp_path, f"{stem}.py", thinker_source("ShadowThinker"))
    with pytest.raises(ThinkerError, match=f"'{stem}' is already taken"):
        registry((str(file),))
    assert sys.modules[stem] is before


@pytest.mark.unit
def test_reloading_a_thinker_file_from_another_folder(tmp_path: Path) -> None:
    first = write(tmp_path / "a", "twin_thinker_mod.py", thinker_source("OneThinker"))
    second = write(tmp_path / "b", "twin_thinker_mod.py", thinker_source("TwoThinker"))
    assert registry((str(first),)).resolve("one").__name__ == "OneThinker"
    assert registry((str(first),)).resolve("one") is registry((str(first),)).resolve("one")
    assert registry((str(second),)).resolve("two").__name__ == "TwoThinker"


@pytest.mark.unit
def test_the_thinker_api_declares_every_attribute_type() -> None:
    """What a thinker author reads (the board, the fast core) has a declared type
    for every public attribute, so that type checkers (pyright --verifytypes:
    100 % for csl_game.thinker.api) never have to guess one."""
    import typing

    from csl_game.model.board import Board
    from csl_game.model.core import FastBoard, Geometry

    for cls in (Board, FastBoard, Geometry):
        hints = typing.get_type_hints(cls)
        public = [name for name in cls.__slots__ if not name.startswith("_")]
        assert public and all(name in hints for name in public), (cls, public, hints)
