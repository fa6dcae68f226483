"""The game server's ladder end to end: `csl-game server` on loopback with a
database in a temporary folder, three `csl-game bot` processes (negamax,
random, minimax 2) that register by name, play the ladder and are rated;
Ctrl+C, and a restart on the same database keeps the ladder. Also: the
admin mode's tokens, and bad input as one line and exit status 2."""

from __future__ import annotations

import http.client
import json
import signal
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from csl_game.cli import main
from online_procs import Proc

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process: POSIX")

LADDER_TIMEOUT = 120.0


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def wait_json(url: str, found: Callable[[Any], bool], timeout: float, why: Callable[[], Any]
              = lambda: "") -> Any:
    """`url`'s JSON once `found` says yes, asked again every 0.1 s on one
    kept-alive connection (the server limits an address's new connections)."""
    address, _, path = url.removeprefix("http://").partition("/")
    deadline = time.monotonic() + timeout
    conn = http.client.HTTPConnection(address, timeout=10)
    try:
        while True:
            conn.request("GET", "/" + path)
            doc = json.loads(conn.getresponse().read())
            if found(doc):
                return doc
            assert time.monotonic() < deadline, (doc, why())
            time.sleep(0.1)
    finally:
        conn.close()


def start_server(db: Path, *more: str) -> tuple[Proc, str]:
    server = Proc("server", "--host", "127.0.0.1", "--port", "0", "--db", str(db), *more)
    try:
        url = server.wait_for(r"on (http://127\.0\.0\.1:\d+)", 30).group(1)
    except AssertionError:
        server.kill()  # a server that never said where it listens is not left running
        raise
    return server, url


def stop(proc: Proc, sig: int = signal.SIGINT) -> int:
    if proc.proc.poll() is None:
        proc.proc.send_signal(sig)
    try:
        return proc.finish(20)
    except Exception:
        proc.proc.kill()
        return proc.proc.wait(10)


def stop_all(procs: list[Proc], sig: int = signal.SIGINT) -> None:
    """`stop` each of `procs`, all told at once (each stops while the others do)."""
    for proc in procs:
        if proc.proc.poll() is None:
            proc.proc.send_signal(sig)
    for proc in procs:
        stop(proc, sig)


def games_of(ladder: list[dict[str, Any]]) -> dict[str, int]:
    return {row["name"]: row["games"] for row in ladder}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's data folder of every process of the test (saved tokens)."""
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


GRACE = ("--grace", "10000")
"""The network's grace on the server's wall clock for a bot's move (1 s by
default): a bot's first move in a game also starts its worker process, which
a loaded machine stretches past a second; a game lost on time there would
rate the bots by the machine's load, not by their play."""


def test_three_bots_climb_the_ladder_and_a_restart_keeps_it(tmp_path: Path,
                                                             home: Path) -> None:
    """Each bot plays two games at once (--games 2): the three pairs' games
    are played side by side, four games a bot in two rounds."""
    db = tmp_path / "games.sqlite3"
    server, url = start_server(db, "--register", "open", "-t", "50", *GRACE)
    bots = [Proc("bot", url, "negamax", "--name", "Nega", "--games", "2"),
            Proc("bot", url, "random", "--name", "Rando", "--games", "2"),
            Proc("bot", url, "minimax", "--params", "2", "--name", "Mini2", "--games", "2")]
    try:
        ladder = wait_json(url + "/api/ladder", lambda rows: len(rows) == 3 and min(
            games_of(rows).values()) >= 4, LADDER_TIMEOUT,
            lambda: (server.text(), [b.text() for b in bots]))
        played = games_of(ladder)
        ratings = {row["name"]: row["rating"] for row in ladder}
        assert ratings["Nega"] > ratings["Rando"], (ladder, [b.text()[-1500:] for b in bots])
        assert [row["rating"] for row in ladder] == sorted(ratings.values(), reverse=True)
        for row in ladder:
            low, high = row["ci95"]
            assert low <= row["rating"] <= high
        tokens = json.loads((home / "server-tokens.json").read_text())
        assert len(tokens) == 3  # each bot's token saved in its owner's data folder
        for bot in bots:
            assert "registered as" in bot.text()

        games = get_json(url + "/api/games")
        a_game = games[0]["game"] if games else None
        assert stop(server) in (0, 130), server.text()
        # the database keeps the tokens hashed, never as they are
        raw = db.read_bytes() + (Path(str(db) + "-wal").read_bytes()
                                 if Path(str(db) + "-wal").exists() else b"")
        for token in tokens.values():
            assert token.encode() not in raw

        server, url2 = start_server(db, "--register", "open", "-t", "50", *GRACE)
        again = get_json(url2 + "/api/ladder")
        for name, count in played.items():
            assert games_of(again)[name] >= count, (again, played)
        if a_game is not None:  # a game that was being played resumed, or has ended since
            doc = get_json(f"{url2}/api/games/{a_game}")
            assert doc["state"] in ("playing", "over")
    finally:
        stop_all(bots, signal.SIGTERM)
        stop(server)


def test_a_finished_game_reads_as_the_results_file_records_it(tmp_path: Path,
                                                             home: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server, url = start_server(db, "--register", "open", "-t", "100")
    bots = [Proc("bot", url, "random", "--name", "R1"),
            Proc("bot", url, "random", "--name", "R2", "--in-process")]  # threads, as debugging
    try:
        ladder = wait_json(url + "/api/ladder", lambda rows: any(r["games"] for r in rows), 60,
                           server.text)
        rows = [r for r in ladder if r["games"]]
        finished = bots[0].wait_for(r"game (\S+): R", 10).group(1)
        bots[0].wait_for(r"R\d - R\d: (white|red|draw)", 30)
        doc = get_json(f"{url}/api/games/{finished}")
        assert doc["state"] == "over"
        assert {"white", "red", "winner", "winner_name", "solution", "forfeit", "detail",
                "moves", "settings"} <= set(doc)
        assert doc["settings"]["time_limit_ms"] == 100
        assert rows[0]["name"] in ("R1", "R2")
        with pytest.raises(urllib.error.HTTPError) as missing:
            get_json(f"{url}/api/games/..%2F..%2Fetc")
        assert missing.value.code == 404
    finally:
        stop_all(bots, signal.SIGTERM)
        stop(server)


def test_admin_mode_needs_the_token_from_add_bot(tmp_path: Path, home: Path) -> None:
    db = tmp_path / "games.sqlite3"
    added = Proc("server", "--db", str(db), "--add-bot", "Alpha")
    assert added.finish(30) == 0, added.text()
    token = "".join(added.out).strip()
    assert len(token) >= 20
    again = Proc("server", "--db", str(db), "--add-bot", "Alpha")
    assert again.finish(30) == 2 and "registered already" in again.text()

    server, url = start_server(db)
    bots = [Proc("bot", url, "random", "--name", "Beta"),  # all three at once
            Proc("bot", url, "random", "--name", "Alpha", "--token", "x" * 32),
            Proc("bot", url, "random", "--name", "Alpha", "--token", token)]
    stranger, wrong, right = bots
    try:
        assert stranger.finish(60) != 0, stranger.text()
        assert "no bot is registered as 'Beta'" in stranger.text(), stranger.text()
        assert wrong.finish(60) != 0 and "wrong token" in wrong.text(), wrong.text()
        right.wait_for("connected to", 30)
    finally:
        stop_all(bots, signal.SIGTERM)
        stop(server)


@pytest.mark.parametrize(("args", "words"), [
    (["server", "--port", "70000"], "--port"),
    (["server", "--db", "mysql://x/y"], "--db"),
    (["server", "--add-bot", "../etc"], "--add-bot"),
    (["server", "--register", "everyone"], "--register"),
    (["bot", "ftp://example.org", "random"], "no server address"),
    (["bot", "http://127.0.0.1:9", "nosuchthinker"], "nosuchthinker"),
    (["bot", "http://127.0.0.1:9", "random", "--games", "99"], "--games"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], words: str, home: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Called in this process, as the other verbs' bad input is (tests/test_bad_input.py):
    each is refused before the verb opens a database or a connection."""
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err, err
