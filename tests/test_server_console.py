"""``csl-game match --connect URL``: a game on a game server from the
terminal, one side a thinker that opens a challenge, the other a person
typing moves who joins it by its code; both see the game to its end."""

from __future__ import annotations

import json
import re
import signal
import sys
from pathlib import Path

import pytest

from csl_game.cli import main
from online_procs import Proc
from test_server_ladder import start_server, stop

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")


def test_a_thinker_and_a_person_play_a_server_game_from_the_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    server, url = start_server(tmp_path / "games.sqlite3", "-t", "200")
    try:
        ai = Proc("match", "--connect", url, "-W", "random", "--json")
        code = ai.wait_for(r"--code (\S+)", 30).group(1)
        typed = "".join(f"{c} {'s' if i % 3 else 'r'}\n" for i in range(40) for c in range(7))
        person = Proc("match", "--connect", url, "--code", code, stdin=typed)
        assert person.finish(60) == 0, person.text()
        assert ai.finish(60) == 0, ai.text()
        result = json.loads(ai.out[-1])
        assert result["white"] == "Random" and result["red"] == "Console"
        assert result["winner"] in ("white", "red", "draw")
        said = person.text()
        assert "you play red" in said and "Game over:" in said
        assert re.search(r"Red \(Console\), your move", said)
    finally:
        stop(server, signal.SIGINT)


@pytest.mark.parametrize(("args", "words"), [
    (["match", "--connect", "http://", "-W", "random"], "--connect"),
    (["match", "--connect", "http://127.0.0.1:9", "--code", "../x"], "--code"),
    (["match", "--connect", "http://127.0.0.1:9", "-W", "nosuchthinker"], "nosuchthinker"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], words: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Called in this process, as the other verbs' bad input is (tests/test_bad_input.py):
    each is refused before the verb connects."""
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err, err


def test_public_host_names_the_server_for_browsers(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """--public-host: a browser's WebSocket under that name (a proxy's name) is
    answered; any other name is refused (DNS rebinding), as without the flag
    (and a name that is none is bad input, refused in this process as above)."""
    import asyncio

    import aiohttp

    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    assert main(["server", "--db", str(tmp_path / "bad.sqlite3"),
                 "--public-host", "no name!"]) == 2
    assert "--public-host: 'no name!' is no host name" in capsys.readouterr().err
    server, url = start_server(tmp_path / "games.sqlite3", "--public-host", "CSL.example.org")

    async def status(name: str) -> int:
        async with aiohttp.ClientSession() as http:
            try:
                async with http.ws_connect(url + "/ws", headers={
                        "Host": name, "Origin": f"https://{name}"}) as ws:
                    await ws.close()
                    return 101
            except aiohttp.WSServerHandshakeError as e:
                return e.status
    try:
        assert asyncio.run(status("csl.example.org")) == 101
        assert asyncio.run(status("attacker.example.net")) == 403
    finally:
        stop(server, signal.SIGINT)


def test_sigterm_stops_a_server_as_ctrl_c_does(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """What a service manager sends (systemd, docker stop): the server stops,
    its writes made, with the CLI's line and status 143. Under uvloop the CLI's
    handler raised inside uvloop's callback, which logged it and served on."""
    import asyncio
    import sqlite3

    import aiohttp

    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    db = tmp_path / "games.sqlite3"
    server, url = start_server(db)

    async def start_a_game() -> str:  # (stored once both seats are taken)
        async with aiohttp.ClientSession() as ann_http, aiohttp.ClientSession() as bob_http, \
                ann_http.ws_connect(url + "/ws") as ann, bob_http.ws_connect(url + "/ws") as bob:
            for ws, name in ((ann, "Ann"), (bob, "Bob")):
                await ws.send_json({"type": "hello", "version": 1, "name": name})
                await ws.receive_json(timeout=10)
            await ann.send_json({"type": "create", "opponent": "friend", "color": "white"})
            made = await ann.receive_json(timeout=10)
            await bob.send_json({"type": "join", "code": made["code"]})
            joined = await bob.receive_json(timeout=10)
            assert joined["game"] == made["game"] and joined["red"] == "Bob", joined
            return str(made["game"])
    try:
        game = asyncio.run(start_a_game())
    finally:
        status = stop(server, signal.SIGTERM)  # at once: the game's write is still to make
    said = server.text()
    assert status == 143, said
    assert "csl-game: terminated (SIGTERM)" in said and "Traceback" not in said, said
    with sqlite3.connect(db) as stored:
        assert stored.execute("SELECT id FROM games").fetchall() == [(game,)]
