"""A tournament broadcast with ``session --listen``, followed by ``watch``
processes on loopback (bounded in time): every spectator prints the final
standings the session prints itself, one joining mid-tournament included, and
hostile spectators are closed while the tournament goes on."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from online_procs import Proc, connect_from, other_loopback_works
from online_warm import Warm

# -m makes each move last 60 ms, so a watcher can join mid-tournament
BOARD = ("-r", "4", "-c", "4", "-w", "3", "-t", "300", "-m", "60")
_ROW = re.compile(r"^\s+\d+\.\s+(.+?)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\d+)\b", re.M)


def _final_rows(text: str) -> list[tuple[str, int, int, int, int]]:
    """(name, points, W, D, L) of the table after the last 'Final standings:'."""
    after = text.rsplit("Final standings:", 1)[1]
    table = after.split("\n\n")[0]
    return [(m[1], int(m[2]), int(m[3]), int(m[4]), int(m[5])) for m in _ROW.finditer(table)]


@pytest.fixture
def game_file(tmp_path: Path) -> str:
    path = tmp_path / "three.txt"
    path.write_text("random 1\nsequential\nrandom 2\n")
    return str(path)


@pytest.fixture(scope="module")
def warm() -> Iterator[Warm]:
    """csl-game processes forked from a loaded one (online_warm): no start-up to wait for."""
    pool = Warm()
    yield pool
    pool.close()


@pytest.fixture
def procs(warm: Warm) -> Iterator[Warm]:
    """The forked processes; what a test took is killed after it."""
    yield warm
    for proc in warm.taken:
        proc.kill()
    warm.taken.clear()


def _session(procs: Warm, game_file: str, *more: str) -> tuple[Proc, int]:
    proc = procs.run("session", "-g", game_file, "--in-process", "--listen", "127.0.0.1:0",
                     *BOARD, *more)
    return proc, int(proc.wait_for(r"Broadcasting the tournament on port (\d+)")[1])


def test_watchers_print_the_sessions_final_standings(game_file: str, procs: Warm) -> None:
    # Three players, 6 matches of slow moves: long enough for a watch process
    # forked from a loaded csl-game after match 2 to connect even on a busy
    # machine.
    session, port = _session(procs, game_file, "-m", "120")
    early = procs.run("watch", f"127.0.0.1:{port}")
    late = procs.take()
    session.wait_for(r"Match 2/6")
    late.run("watch", f"127.0.0.1:{port}", "--json")
    assert session.finish(60) == 0, session.text()
    assert early.finish(20) == 0, early.text()
    assert late.finish(20) == 0, late.text()

    table = _final_rows("".join(session.out))
    assert len(table) == 3 and sum(r[2] for r in table) + sum(r[3] for r in table) // 2 == 6, \
        session.text()
    assert _final_rows("".join(early.out)) == table
    doc = late.json()
    assert [(r["name"], r["points"], r["wins"], r["draws"], r["losses"])
            for r in doc["standings"]] == table
    assert doc["matches"] == 6 and doc["played"] == 6
    # The early one saw every match from the one under way when it connected
    # (the first, unless the machine was slow to start it), with a table after
    # each; one that came later was shown the standings so far first.
    early_text = "".join(early.out)
    began = re.search(r"Match (\d+) of 6", early_text)
    assert began is not None, early_text[:2000]
    first = int(began[1])
    assert early_text.count("Game Over") == 7 - first, (first, early_text[:3000],
                                                        session.text()[-3000:])
    for n in range(first, 7):
        assert f"Standings after {n} of 6 matches:" in early_text
    if first > 1:
        assert early_text.index(f"Standings after {first - 1} of 6") < began.start()
    # the late one joined mid-tournament: the standings so far came first, not match 1
    late_text = "".join(late.err)
    shown = re.search(r"Standings after (\d+) of 6", late_text)
    assert shown is not None and int(shown[1]) >= 2, late_text[:2000]
    assert "Match 1 of 6" not in late_text


def _answer(port: int, raw: bytes, wait: float = 5.0) -> list[dict[str, object]]:
    """Send `raw`, then read every line until the broadcast closes (or `wait` s)."""
    data = b""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        try:
            s.sendall(raw)
        except OSError:
            pass
        try:
            while chunk := s.recv(65536):
                data += chunk
        except OSError:
            pass
    return [json.loads(line) for line in data.splitlines()]


HELLO = b'{"type":"hello","version":1,"role":"spectator"}\n'


@pytest.mark.parametrize("raw, says", [
    (b"\x00\xffgarbage\n", "not understood"),
    (b"{" + b"x" * 70_000 + b"\n", "longer than"),
    (HELLO + b'{"type":"move","ply":0,"col":1,"shape":"round"}\n', "spectators only watch"),
    (b'{"type":"hello","version":1,"role":"player","code":"abcd","name":"M","kind":"ai"}\n',
     "nobody takes a seat"),
    (b'{"type":"hello","version":7,"role":"spectator"}\n', "version"),
])
def test_a_hostile_spectator_is_closed_and_the_tournament_goes_on(
        game_file: str, procs: Warm, raw: bytes, says: str) -> None:
    session, port = _session(procs, game_file, "--handshake-timeout", "2")
    # A well-behaved spectator, connected at once on a socket of the test's own
    # (a watch process might start only after a short tournament has ended).
    followed: list[list[dict[str, object]]] = []
    spectator = threading.Thread(target=lambda: followed.append(_answer(port, HELLO, wait=60)))
    spectator.start()
    session.wait_for(r"Match 1/6")
    answer = _answer(port, raw)
    assert answer[-1]["type"] == "error" and says in str(answer[-1]["message"]), answer
    if raw.startswith(HELLO):  # welcomed first, as a spectator, then closed for moving
        assert answer[0]["type"] == "tournament"
    assert session.finish(60) == 0, session.text()
    spectator.join(60)
    final = followed[0][-1]
    assert final["type"] == "standings" and final["final"] is True, final
    assert [r["name"] for r in final["rows"]] == \
        [r[0] for r in _final_rows("".join(session.out))]  # type: ignore[attr-defined]
    assert "turned away a connection" in "".join(session.err)


def test_a_silent_connection_is_closed_after_the_handshake_time_out(
        game_file: str, procs: Warm) -> None:
    session, port = _session(procs, game_file, "--handshake-timeout", "1")
    answer = _answer(port, b"", wait=10)
    assert answer and answer[-1]["type"] == "error"
    assert "no hello within 1 s" in str(answer[-1]["message"])
    assert session.finish(60) == 0, session.text()


@pytest.mark.skipif(not other_loopback_works(), reason="127.0.0.2 is not loopback here")
def test_silent_connections_of_one_address_keep_no_watcher_out(
        game_file: str, procs: Warm) -> None:
    """20 connections from 127.0.0.2 that never say hello leave room for a
    spectator from 127.0.0.1, who follows the tournament to its end."""
    session, port = _session(procs, game_file, "--handshake-timeout", "5")
    silent = [connect_from("127.0.0.2", port) for _ in range(20)]
    try:
        answer = _answer(port, HELLO, wait=60)  # every line, until the broadcast closes
        assert answer[0]["type"] == "tournament", answer[:2]
        assert answer[-1]["type"] == "standings" and answer[-1]["final"] is True, answer[-1]
        assert session.finish(60) == 0, session.text()
        assert "too many connections from your address are waiting" in "".join(session.err)
    finally:
        for sock in silent:
            sock.close()
