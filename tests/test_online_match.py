"""Online matches between two real processes over loopback (127.0.0.1): AIs on
both sides, a human fed through standard input, a joiner killed mid-game and
started again, a spectator, a claimed game, and bad addresses. Both sides and
the host's results file always tell the same result."""

from __future__ import annotations

import json
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from csl_game.cli import main
from online_procs import CODE
from online_warm import Warm


@pytest.fixture(scope="module")
def warm() -> Iterator[Warm]:
    """csl-game processes forked from a loaded one (online_warm): no start-up to wait for."""
    pool = Warm()
    yield pool
    pool.close()


def _moves(result: dict[str, object]) -> list[tuple[object, ...]]:
    return [(m["col"], m["shape"], m["color"]) for m in result["moves"]]  # type: ignore


def _results(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_two_ais_play_across_processes(tmp_path: Path, warm: Warm) -> None:
    results = tmp_path / "r.jsonl"
    # White thinks to its CPU time limit at each move (MCTS), so the game lasts
    # some hundred times the watcher's own work to connect on any machine, busy or not
    server, port = warm.host("-W", "mcts", "-t", "200", "-m", "60",
                             "--results", str(results), "--json")
    # Forked from a loaded csl-game after the join: an interpreter started then
    # could, on a loaded machine, start after the game's last move.
    watcher = warm.take()
    try:
        joiner = warm.join(port, "-R", "sequential", "--json")
        joiner.wait_for(r"Sequential joined|you play Red")
        watcher.run("watch", f"127.0.0.1:{port}", "--json")
        assert joiner.finish() == 0, joiner.text()
        assert server.finish() == 0, server.text()
        assert watcher.finish() == 0, watcher.text()
    finally:
        for proc in (server, joiner, watcher):
            proc.kill()
    hosted, joined, watched = server.json(), joiner.json(), watcher.json()
    assert hosted == joined == watched
    assert hosted["white"] == "MCTS" and hosted["red"] == "Sequential"
    assert hosted["winner"] in ("white", "red", "draw") and hosted["moves"]
    assert "you play Red" in joiner.text() and "6 x 7 board" in joiner.text()
    assert "(watching)" in watcher.text()
    game_over = [line for line in server.err if line.startswith("Game Over")]
    assert game_over and game_over[-1] in joiner.err and game_over[-1] in watcher.err
    [line] = _results(results)
    assert line["red"] == {"thinker": "remote", "params": "", "name": "Sequential"}
    assert line["white"] == {"thinker": "mcts", "params": "", "name": "MCTS"}
    walls = [m.pop("wall_ms", None) for m in line["moves"]]  # type: ignore
    assert walls[0] >= 0 and walls[1] is None  # the local thinker's wall times are kept
    assert {k: line[k] for k in hosted if k not in ("white", "red")} == \
        {k: v for k, v in hosted.items() if k not in ("white", "red")}


def test_a_human_joins_through_standard_input(warm: Warm) -> None:
    typed = "".join(f"{c} {s}\n" for _ in range(12) for c in (3, 2, 4, 1, 5, 0, 6)
                    for s in "rs")  # the full columns and used-up shapes are refused
    server, port = warm.host("-R", "sequential", "-t", "200", "--json")
    try:
        joiner = warm.join(port, "--json", stdin="9\n" + typed)
        assert joiner.finish() == 0, joiner.text()
        assert server.finish() == 0, server.text()
    finally:
        server.kill()
        joiner.kill()
    assert server.json() == joiner.json()
    assert server.json()["white"] == "Human" and server.json()["red"] == "Sequential"
    assert "Invalid move" in joiner.text()  # column 9 does not exist: asked again
    assert "White (Human), your move" in joiner.text()


def test_a_human_hosts_through_standard_input(warm: Warm) -> None:
    typed = "".join(f"{c} {s}\n" for _ in range(12) for c in (3, 2, 4, 1, 5, 0, 6)
                    for s in "rs")
    server, port = warm.host("-t", "200", "--json", stdin=typed)
    try:
        joiner = warm.join(port, "-R", "sequential", "--json")
        assert joiner.finish() == 0, joiner.text()
        assert server.finish() == 0, server.text()
    finally:
        server.kill()
        joiner.kill()
    assert server.json() == joiner.json() and server.json()["white"] == "Human"
    assert "White (Human), your move" in server.text()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_stops_a_waiting_host(warm: Warm) -> None:
    server, _ = warm.host("-W", "random")
    try:
        server.wait_for("Waiting for a player")
        server.proc.send_signal(signal.SIGINT)
        assert server.finish(10) == 130
    finally:
        server.kill()
    assert "csl-game: interrupted" in server.text() and "Traceback" not in server.text()


def test_the_joiner_killed_mid_game_comes_back(tmp_path: Path, warm: Warm) -> None:
    """The game goes on from the same position and ends as it would have (a
    seeded random thinker hosts, a stateless minimax joins, so the game is the
    same game played without interruption; that game is played meanwhile)."""
    args = ("-W", "random", "--white-params", "3", "-t", "1000", "-m", "120")
    joining = ("-R", "minimax", "--red-params", "2")
    alone = warm.run("match", *args, *joining, "--in-process", "--json")
    results = tmp_path / "r.jsonl"
    server, port = warm.host(*args, "--results", str(results), "--json")
    first = again = None
    try:
        first = warm.join(port, *joining, "--json")
        first.wait_count("placed", 4)
        first.kill()
        server.wait_for("waiting for MinimaxD2 to reconnect")
        again = warm.join(port, *joining, "--json")
        assert again.finish() == 0, again.text()
        assert server.finish() == 0, server.text()
        assert alone.finish() == 0, alone.text()
    finally:
        for proc in (server, first, again, alone):
            if proc is not None:
                proc.kill()
    expected = alone.json()
    assert "MinimaxD2 is back" in server.text()
    hosted = server.json()
    assert hosted == again.json()
    assert _moves(hosted) == _moves(expected) and hosted["winner"] == expected["winner"]
    assert max(m["ms"] for m in hosted["moves"]) < 1000  # the clock stood still meanwhile
    assert _results(results)[0]["winner"] == hosted["winner"]


def test_the_host_claims_a_game_its_joiner_left(tmp_path: Path, warm: Warm) -> None:
    results = tmp_path / "r.jsonl"
    server, port = warm.host("-W", "random", "-t", "200", "-m", "150", "--reconnect-timeout",
                             "1", "--results", str(results), "--json")
    try:
        joiner = warm.join(port, "-R", "sequential")
        joiner.wait_count("placed", 2)
        joiner.kill()
        server.wait_for("type claim")
        server.write("claim\n")
        assert server.finish() == 0, server.text()
    finally:
        server.kill()
        joiner.kill()
    assert server.json()["forfeit"] == "disconnected" and server.json()["winner"] == "white"
    assert _results(results)[0]["forfeit"] == "disconnected"
    assert "left the game and did not come back" in server.text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("args, says", [
    (["match", "--listen", "70000"], "port must be from 0 to 65535"),
    (["match", "--listen", "127.0.0.1:http"], "port must be a number"),
    (["match", "--connect", "5000", "--code", CODE], "is not HOST:PORT"),
    (["match", "--connect", "127.0.0.1:99999", "--code", CODE], "port must be from 0"),
    (["match", "--connect", "127.0.0.1:5000"], "needs the host's join code"),
    (["match", "--listen", "0", "--connect", "127.0.0.1:1", "--code", CODE], "give one"),
    (["match", "--listen", "0", "-W", "random", "-R", "random"], "not both"),
    (["match", "--listen", "0", "--code", "a b"], "--code must be"),
    (["match", "--listen", "0", "--code", "tiger"], "--code must be 6 to 64 characters"),
    (["match", "--connect", "127.0.0.1:5000", "--code", "abcd"], "--code must be 6 to 64"),
    (["watch", "nowhere"], "is not HOST:PORT"),
    (["match", "--connect", "127.0.0.1:{free}", "--code", CODE], "connection refused"),
    (["watch", "127.0.0.1:{free}"], "connection refused"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    free = str(_free_port())
    assert main([a.replace("{free}", free) for a in args]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_a_joiner_asking_other_board_settings_is_told(warm: Warm) -> None:
    server, port = warm.host("-W", "random", "-t", "200")
    try:
        other = warm.join(port, "-R", "sequential", "-r", "7")
        assert other.finish() == 2
        assert "board settings differ from the host's game: rows 7 (the host's: 6)" \
            in other.text()
        same = warm.join(port, "-R", "sequential", "-r", "6")
        assert same.finish() == 0, same.text()
        assert server.finish() == 0
    finally:
        server.kill()
