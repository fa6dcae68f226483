"""Replays: results lines and `match --json` output played again to their records,
in the terminal and from the command line."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from csl_game.cli import main
from csl_game.console.replay_cmd import KEYS_HELP, print_replay, step_replay
from csl_game.engine import ForfeitReason
from csl_game.errors import ConfigError
from csl_game.model.board import Pos, Winner
from csl_game.services.replay import Replay, load_replays, numbered, pick_replay, read_replay_lines

FAKES = str(Path(__file__).parent / "fakes")
PLAYERS = "random 1\nsequential\ncolumnzero\nraiser\nnomove\nminimax 2\n"


@pytest.fixture(scope="module")
def session_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results file of a real session: board wins both ways, and every
    forfeit the fakes make (full column, exception, no move)."""
    folder = tmp_path_factory.mktemp("replay_session")
    (folder / "players.txt").write_text(PLAYERS, encoding="utf-8")
    results = folder / "results.jsonl"
    assert main(["session", "-g", str(folder / "players.txt"), "--results", str(results),
                 "--quiet", "--in-process", "--thinkers", FAKES, "--workers", "1",
                 "-r", "4", "-c", "5", "-w", "3", "-t", "5000"]) == 0
    return results


def match_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> Path:
    """The output of `match --json` with these arguments, saved as a file."""
    capsys.readouterr()
    assert main(["match", "--json", "--in-process", "--thinkers", FAKES, *args]) == 0
    path = tmp_path / "match.json"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return path


# ----------------------------------------------------------- exact replays
def test_every_line_of_a_results_file_replays_to_its_record(session_file: Path) -> None:
    docs = read_replay_lines(session_file)
    assert len(docs) == 30
    kinds = set()
    for doc in docs:
        replay = Replay.from_json(doc)
        final = replay.boards()[-1]
        solution: list[Pos] = []
        winner = final.check_winner(solution)
        assert replay.result.winner.name.lower() == doc["winner"]
        if doc["forfeit"] is None:
            assert winner.name.lower() == doc["winner"]
            assert [list(p) for p in solution] == doc["solution"]
            kinds.add(f"{doc['winner']} on the board")
        else:
            assert winner is Winner.NONE and final.turn.other.winner is replay.result.winner
            kinds.add(doc["forfeit"])
        assert [m.elapsed for m in replay.moves] == [m["ms"] / 1000 for m in doc["moves"]]
        assert replay.index == doc["match"] and replay.names == (
            doc["white"]["name"], doc["red"]["name"])
    assert kinds >= {"white on the board", "red on the board", "full_column", "exception",
                     "no_move"}


@pytest.mark.unit
@pytest.mark.parametrize(("args", "winner"), [
    (("-W", "sequential", "-R", "sequential", "-r", "1", "-c", "3", "-w", "3"), "draw"),
    (("-W", "random", "--white-params", "3", "-R", "sequential", "-r", "5", "-c", "6"), None),
    (("-W", "sequential", "-R", "nomove"), "white"),
])
def test_match_json_output_replays_to_its_record(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  args: tuple[str, ...],
                                                  winner: str | None) -> None:
    path = match_json(tmp_path, capsys, *args)
    (doc,) = read_replay_lines(path)
    (replay,) = load_replays(path)
    assert replay.index is None and replay.names == (doc["white"], doc["red"])
    assert replay.result.winner.name.lower() == doc["winner"]
    assert [list(p) for p in replay.result.solution] == doc["solution"]
    assert replay.notation == " ".join(f"{m['col']}{m['shape'][0]}" for m in doc["moves"])
    if winner is not None:
        assert doc["winner"] == winner


def _edit(doc: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


def _won(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return next(d for d in docs if d["solution"] and len(d["moves"]) > 3)


TAMPERING: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("row", lambda d: d["moves"][1].update(row=3), r"move 2 '\d[rs]': recorded in row 3"),
    ("colour", lambda d: d["moves"][0].update(color="red"),
     "move 1 '.*': recorded for Red, but White is to play"),
    ("column", lambda d: d["moves"][0].update(col=9), "move 1 '9[rs]' cannot be played"),
    ("winner", lambda d: d.update(winner="draw" if d["winner"] != "draw" else "white"),
     "the moves give"),
    ("run", lambda d: d.update(solution=d["solution"][::-1]), "the record says"),
    ("last move", lambda d: d["moves"].pop(), "the moves give None"),
    ("shape", lambda d: d["moves"][0].update(shape="oval"), "unknown shape 'oval'"),
    ("settings", lambda d: d["settings"].update(rows=0), "rows must be at least 1"),
    ("no moves", lambda d: d.pop("moves"), "no field 'moves'"),
    ("players", lambda d: d.update(white=7), "player 7 has no name"),
]


@pytest.mark.unit
@pytest.mark.parametrize(("what", "change", "words"), TAMPERING, ids=[t[0] for t in TAMPERING])
def test_a_record_that_does_not_replay_is_refused(session_file: Path, what: str,
                                                  change: Callable[[dict[str, Any]], None],
                                                  words: str) -> None:
    doc = _won(read_replay_lines(session_file))
    with pytest.raises(ConfigError, match=words) as info:
        Replay.from_json(_edit(doc, change))
    assert str(info.value).startswith(f"match {doc['match'] + 1}")


@pytest.mark.unit
def test_a_forfeit_must_leave_the_game_going(session_file: Path) -> None:
    docs = read_replay_lines(session_file)
    forfeit = next(d for d in docs if d["forfeit"])
    other = "white" if forfeit["winner"] == "red" else "red"
    with pytest.raises(ConfigError, match="to play forfeits"):
        Replay.from_json(_edit(forfeit, lambda d: d.update(winner=other)))
    assert Replay.from_json(forfeit).result.forfeit is ForfeitReason[forfeit["forfeit"].upper()]


# ------------------------------------------------------------- the file
@pytest.mark.unit
def test_torn_last_line_is_left_out_and_other_bad_lines_are_errors(session_file: Path,
                                                                   tmp_path: Path) -> None:
    lines = session_file.read_text(encoding="utf-8").splitlines()
    torn = tmp_path / "torn.jsonl"
    torn.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40], encoding="utf-8")
    assert len(load_replays(torn)) == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n{oops\n" + lines[1] + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 2: not JSON"):
        load_replays(bad)
    array = tmp_path / "array.jsonl"
    array.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 1: not a match result"):
        load_replays(array)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds no finished match"):
        load_replays(empty)
    with pytest.raises(ConfigError, match="cannot read"):
        load_replays(tmp_path / "missing.jsonl")


@pytest.mark.unit
def test_matches_are_picked_by_the_number_reports_give(session_file: Path) -> None:
    replays = load_replays(session_file)
    by_number = numbered(replays)
    assert sorted(by_number) == list(range(1, 31))
    assert pick_replay(replays, 7).index == 6
    with pytest.raises(ConfigError, match=r"holds 30 matches: choose one with --match N "
                                          r"\(1 to 30\)"):
        pick_replay(replays, None)
    with pytest.raises(ConfigError, match="no match 31"):
        pick_replay(replays, 31)
    again = replays + [replays[0]]  # a resumed session wrote match 1 twice
    assert len(numbered(again)) == 30 and pick_replay(again, 1) is replays[0]
    assert pick_replay(replays[4:5], None) is replays[4]


# ---------------------------------------------------------------- console
def _replay(session_file: Path, forfeit: bool) -> Replay:
    return next(r for r in load_replays(session_file)
                if (r.result.forfeit is not None) is forfeit and len(r.moves) >= 4)


@pytest.mark.unit
def test_console_prints_every_move_and_board_then_the_end(session_file: Path) -> None:
    replay = _replay(session_file, forfeit=False)
    out = io.StringIO()
    print_replay(replay, out)
    text = out.getvalue()
    assert text.startswith(replay.title + "\n4x5, 3 in a row, 5 round + 5 square "
                                          "pieces each, 5000 ms a move\n")
    assert f"Moves: {replay.notation}\n" in text and "\tw - White Round" in text
    for i, played in enumerate(replay.moves):
        assert f"{i + 1:>3}. {replay.token(i):<5}{played.move.piece.color} (" in text
    assert text.count("\n 0  1  2  3  4\n") == len(replay.moves) + 1  # a board per position
    board, end = text.rsplit("\n\n", 1)
    assert end.startswith("Game Over, ") and "\nSolution: (" in end
    last = board.rsplit("\n\n", 1)[1].splitlines()
    assert last[-1] == " 0  1  2  3  4" and sum(line.count("[") for line in last) == 3


@pytest.mark.unit
def test_console_names_the_forfeit(session_file: Path) -> None:
    replay = _replay(session_file, forfeit=True)
    out = io.StringIO()
    print_replay(replay, out)
    loser = replay.result.winner.color.other  # type: ignore[union-attr]
    assert f"{loser} ({replay.names[loser]}) {replay.result.forfeit}" in out.getvalue()


@pytest.mark.unit
def test_console_steps_as_the_user_asks(session_file: Path) -> None:
    replay = _replay(session_file, forfeit=False)
    end = len(replay.moves)
    answers = iter(["", "n", "b", "e", "s", "3", "x", "99", "q"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    out = io.StringIO()
    step_replay(replay, read, out)
    steps = [int(p[1:p.index("/")]) for p in prompts]
    assert steps == [0, 1, 2, 1, end, 0, 3, 3, 3]
    assert all(p.endswith(f"/{end}] {KEYS_HELP} > ") for p in prompts)
    assert "'x'? " in out.getvalue() and "'99'? " in out.getvalue()


@pytest.mark.unit
def test_console_stepping_ends_with_the_input() -> None:
    doc = {"white": "A", "red": "B", "winner": "draw", "solution": [], "forfeit": None,
           "moves": [{"row": 0, "col": c, "color": color, "shape": shape, "ms": 1.5}
                     for c, color, shape in ((0, "white", "round"), (1, "red", "square"),
                                             (2, "white", "round"))],
           "settings": {"rows": 1, "cols": 3, "win_sequence": 3, "round_pieces": 10,
                        "square_pieces": 11, "time_limit_ms": 100}}

    def read(prompt: str) -> str:
        raise EOFError

    out = io.StringIO()
    step_replay(Replay.from_json(doc), read, out)
    assert out.getvalue().startswith("A (White) vs B (Red)\n1x3, 3 in a row")
    assert "Start\n" in out.getvalue()


# ----------------------------------------------------------- command line
@pytest.mark.unit
def test_replay_verb_prints_in_the_console(session_file: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(session_file), "--match", "4", "--console"]) == 0
    out = capsys.readouterr().out
    replay = pick_replay(load_replays(session_file), 4)
    assert out.startswith(f"Match 4: {replay.players}\n")
    assert out.count("placed a") == len(replay.moves)


@pytest.mark.unit
def test_replay_verb_lists_the_matches(session_file: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(session_file), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 30 and lines[0].startswith("   1  ") and "Game Over" in lines[0]


@pytest.mark.unit
@pytest.mark.parametrize(("args", "words"), [
    ([], "choose one with --match N (1 to 30)"),
    (["--match", "40"], "there is no match 40 in the file (1 to 30)"),
    (["--match", "x"], "argument --match: invalid int value"),
])
def test_replay_verb_bad_input_exits_2(session_file: Path, capsys: pytest.CaptureFixture[str],
                                       args: list[str], words: str) -> None:
    assert main(["replay", str(session_file), "--console", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("csl-game: error: ") and words in err and err.count("\n") == 1


@pytest.mark.unit
def test_replay_verb_of_a_file_that_does_not_replay(tmp_path: Path, session_file: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    doc = _edit(_won(read_replay_lines(session_file)), lambda d: d["moves"][1].update(row=3))
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--console"]) == 2
    assert "recorded in row 3" in capsys.readouterr().err


def test_replay_verb_opens_the_window_and_closes_with_auto(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    # one move (a one-cell board, one in a row): the window shows each move for 0.6 s
    path = match_json(tmp_path, capsys, "-W", "sequential", "-R", "sequential", "-r", "1",
                      "-c", "1", "-w", "1", "-o", "1", "-s", "1")
    assert main(["replay", str(path), "--auto"]) == 0


@pytest.mark.unit
def test_without_a_display_the_replay_is_printed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = match_json(tmp_path, capsys, "-W", "sequential", "-R", "nomove")
    for name in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main(["replay", str(path)]) == 0
    assert "Red (NoMove) returned no move" in capsys.readouterr().out
