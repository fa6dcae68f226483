"""People's accounts and Glicko-2 ratings on the server: a name reserved by a
password kept only as an Argon2 hash; a rated game between two accounts
moves both ratings as Glicko-2 says, and GET /api/players/NAME and /@/NAME
show it; guests play casual games only."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from csl_game.model.board import PColor, PShape
from csl_game.server.accounts import hash_password, password_matches
from csl_game.server.game import Rejected
from csl_game.server.glicko import DEFAULT, rate
from csl_game.server.room import Room, new_game
from csl_game.server.store import Rated, SqliteStore
from csl_game.thinker.api import MatchConfig
from server_thread import ServerThread

WIN = [0, 1, 0, 1, 0, 1, 0]
"""White's four rounds in column 0 (Red's squares in column 1)."""


@pytest.mark.unit
def test_a_password_is_kept_only_as_an_argon2_hash(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3")
    stored = hash_password("correct horse")
    assert stored.startswith("$argon2id$") and "correct horse" not in stored
    assert password_matches(stored, "correct horse")
    assert not password_matches(stored, "wrong horse") and not password_matches("x", "y")
    assert store.add_player("Ann", stored)
    assert not store.add_player("ann", stored)  # a name in any case
    found = store.player("ANN")
    assert found is not None and found[0] == "Ann" and found[2] == DEFAULT
    store.log_in("session-hash", "ann")
    assert store.logged_in("session-hash") == "Ann" and store.logged_in("other") is None
    store.log_in("session-hash", None)
    assert store.logged_in("session-hash") is None
    store.close()
    assert b"correct horse" not in (tmp_path / "games.sqlite3").read_bytes()


def rated_room(seats: tuple[str, str]) -> Room[str]:
    game = new_game("game00000001", MatchConfig(), list(seats), ["Ann", ""], 0.5)
    r: Room[str] = Room(game, "friend", "code00000001", list(seats), 30.0, 0.0)
    r.rated = True
    return r


@pytest.mark.unit
def test_a_rated_game_seats_accounts_takes_nothing_back_and_rates_both() -> None:
    r = rated_room(("user:Ann", ""))
    r.open("ann", PColor.WHITE, 0.0)
    with pytest.raises(Rejected, match="sign in"):
        r.sit("guest", "web:guest-session", "Gus", 1.0)
    began = r.sit("bob", "user:Bob", "Bob", 1.0)
    assert began.store[0].row.settings["rated"] is True  # type: ignore[union-attr]
    assert json.loads(began.to("bob")[0])["rated"] is True
    r.move("ann", 0, 0, PShape.ROUND, 2.0)
    with pytest.raises(Rejected, match="takes no move back"):
        r.offer("ann", "takeback", 3.0)
    for ply, col in enumerate(WIN[1:], 1):
        step = r.move("bob" if ply % 2 else "ann", ply, col,
                      PShape.SQUARE if ply % 2 else PShape.ROUND, 3.0 + ply)
    assert step.store[-1] == Rated("game00000001", "Ann", "Bob", 1.0)
    casual = rated_room(("web:ann-session", ""))
    casual.rated = False
    casual.open("ann", PColor.WHITE, 0.0)
    casual.sit("bob", "web:bob-session", "Bob", 1.0)
    assert not any(isinstance(w, Rated) for w in casual.forfeit("ann", None, "", 2.0).store)


@pytest.mark.unit
def test_a_rated_result_moves_both_ratings_as_glicko_2_says(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3")
    for name in ("Ann", "Bob"):  # the store keeps what it is given: no hash needed here
        store.add_player(name, f"$argon2id$stands-for-{name}")
    r = rated_room(("user:Ann", "user:Bob"))
    writes = list(r.open(None, PColor.WHITE, 0.0).store)
    r.attach("ann", "user:Ann", 0.0)
    r.attach("bob", "user:Bob", 0.0)
    writes += r.offer("ann", "draw", 1.0).store + r.offer("bob", "draw", 2.0).store
    store.apply(writes)
    ann, bob = store.player("Ann"), store.player("bob")
    assert ann is not None and bob is not None
    assert ann[2] == rate(DEFAULT, [(DEFAULT, 0.5)]) == bob[2]
    assert ann[2].rd < DEFAULT.rd
    assert store.player_games("ann") == [("game00000001", ann[2].rating, ann[2].rd)]
    store.close()


async def _play(url: str) -> dict[str, Any]:
    """Ann and Bob sign up over HTTP, play a rated game over the WebSocket
    (Ann wins), and a guest is refused a rated game."""
    jars = [aiohttp.CookieJar(unsafe=True) for _ in range(3)]
    https = [aiohttp.ClientSession(cookie_jar=jar) for jar in jars]
    seen: dict[str, Any] = {}
    try:
        ann_http, bob_http, guest_http = https
        for http, name in ((ann_http, "Ann"), (bob_http, "Bob")):
            async with http.post(url + "/api/signup", data={"name": name,
                                                            "password": f"{name} secret 1"},
                                 allow_redirects=False) as answer:
                assert answer.status == 303, await answer.text()
        async with guest_http.post(url + "/api/signup", data={"name": "ann", "password":
                                                              "12345678"}) as answer:
            seen["taken"] = (answer.status, await answer.text())
        async with guest_http.post(url + "/api/login", data={"name": "Ann", "password":
                                                             "not hers"}) as answer:
            seen["wrong"] = (answer.status, await answer.text())
        async with ann_http.get(url + "/") as answer:
            seen["lobby"] = await answer.text()
        async with ann_http.ws_connect(url + "/ws") as ann, \
                bob_http.ws_connect(url + "/ws") as bob, \
                guest_http.ws_connect(url + "/ws") as guest:
            async def say(ws: Any, **doc: Any) -> dict[str, Any]:
                await ws.send_str(json.dumps(doc))
                while True:
                    got = json.loads((await ws.receive()).data)
                    if got["type"] != "lobby":
                        return dict(got)
            for ws in (ann, bob, guest):
                await say(ws, type="hello", version=1, name="Someone Else")
            seen["guest"] = await say(guest, type="create", opponent="open", color="white",
                                      rated=True)
            made = await say(ann, type="create", opponent="friend", color="white", rated=True)
            seen["made"] = made
            seen["guest_join"] = await say(guest, type="join", code=made["code"])
            await say(bob, type="join", code=made["code"])
            for ply, col in enumerate(WIN):
                ws = ann if ply % 2 == 0 else bob
                await ws.send_str(json.dumps({
                    "type": "move", "game": made["game"], "ply": ply, "col": col,
                    "shape": "round" if ply % 2 == 0 else "square"}))
                while True:  # until this move is played (not an earlier move's news)
                    got = json.loads((await ws.receive()).data)
                    assert got["type"] != "error", got
                    if got["type"] == "played" and got["ply"] == ply:
                        break
            while json.loads((await ann.receive()).data)["type"] != "result":
                pass
        for name in ("Ann", "Bob"):
            for _ in range(200):  # until the game's end is written (a batch, soon after)
                async with guest_http.get(f"{url}/api/players/{name.lower()}") as answer:
                    seen[name] = await answer.json()
                if seen[name]["games"]:
                    break
                await asyncio.sleep(0.05)
        async with guest_http.get(url + "/@/Ann") as answer:
            seen["page"] = await answer.text()
        async with guest_http.get(url + "/api/players/Nobody") as answer:
            seen["nobody"] = answer.status
    finally:
        for http in https:
            await http.close()
    return seen


def test_two_accounts_play_a_rated_game_and_their_ratings_move(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seen = asyncio.run(_play(server.url))
    assert seen["taken"][0] == 400 and "is taken" in seen["taken"][1]
    assert seen["wrong"][0] == 400 and "no account has that name and password" in seen["wrong"][1]
    assert "Signed in as" in seen["lobby"] and 'data-account="Ann"' in seen["lobby"]
    assert seen["guest"]["type"] == "error" and "signed in" in seen["guest"]["message"]
    made = seen["made"]
    assert made["white"] == "Ann" and made["rated"] is True  # the account's name, not the hello's
    assert seen["guest_join"]["type"] == "error" and "sign in" in seen["guest_join"]["message"]
    won, lost = rate(DEFAULT, [(DEFAULT, 1.0)]), rate(DEFAULT, [(DEFAULT, 0.0)])
    assert seen["Ann"] == {"name": "Ann", "rating": round(won.rating, 2),
                           "rd": round(won.rd, 2), "games": [made["game"]]}
    assert seen["Bob"]["rating"] == round(lost.rating, 2) < 1500 < seen["Ann"]["rating"]
    assert f"Rating {won.rating:.0f}" in seen["page"] and made["game"] in seen["page"]
    assert seen["nobody"] == 404


def test_at_most_two_passwords_are_hashed_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2 takes 64 MiB a hash: a flood of sign-ups waits its turn."""
    import threading
    import time

    from csl_game.server import Hub, ServerOptions, people

    lock, running, most = threading.Lock(), [0], [0]

    def slow(password: str) -> str:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return "$argon2id$made-up"

    monkeypatch.setattr(people, "hash_password", slow)

    async def go() -> list[str]:
        hub = Hub(SqliteStore(":memory:"), ServerOptions())
        await hub.start()
        made = await asyncio.gather(*(people.sign_up(hub, f"session{i}", f"Name{i}",
                                                     "a password") for i in range(6)))
        await hub.close()
        return list(made)
    assert asyncio.run(go()) == [f"Name{i}" for i in range(6)]
    assert most[0] == 2


@pytest.mark.unit
def test_wrong_passwords_close_an_account_to_the_guesser_for_a_while() -> None:
    from csl_game.server.guard import Guesses

    guesses = Guesses(per_address=3, per_account=5, window_s=60.0, most=4)
    for t in (0.0, 1.0, 2.0):
        assert guesses.wait("Ann", "10.0.0.1", t) == 0.0
        guesses.failed("Ann", "10.0.0.1", t)
    assert guesses.wait("ann", "10.0.0.1", 3.0) == 57.0  # the first try leaves at 60 s
    assert guesses.wait("Ann", "10.0.0.2", 3.0) == 0.0  # another address may still try
    guesses.failed("Ann", "10.0.0.2", 3.0)
    guesses.failed("Ann", "10.0.0.3", 4.0)  # five within the window from all: closed to all
    assert guesses.wait("Ann", "10.0.0.9", 4.0) == 56.0
    assert guesses.wait("Bob", "10.0.0.1", 4.0) == 0.0
    guesses.succeeded("Ann", "10.0.0.1")  # its own tries are forgotten, not the account's
    assert guesses.wait("Ann", "10.0.0.1", 4.0) == 56.0
    assert guesses.wait("Ann", "10.0.0.1", 60.0) == 0.0  # the window passed
    for i in range(10):  # a flood of names keeps `most` keys
        guesses.failed(f"name{i}", "10.0.0.1", 63.0)
    assert len(guesses._failed) == 4


def test_past_the_bound_a_password_is_not_even_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: guesses were bounded only by connection limits and Argon2's
    cost. Over HTTP: five wrong passwords from one address close Ann's sign-in
    to it (her right password too, unchecked), not to another address."""
    from csl_game.server import people
    from online_procs import other_loopback_works

    checked: list[str] = []

    def matches(stored: str, password: str) -> bool:  # Argon2's answer, without its cost
        checked.append(password)
        return stored == f"hashed {password}"
    monkeypatch.setattr(people, "hash_password", lambda password: f"hashed {password}")
    monkeypatch.setattr(people, "password_matches", matches)

    async def sign(url: str, kind: str, password: str, source: str = "127.0.0.1"
                   ) -> tuple[int, str]:
        connector = aiohttp.TCPConnector(local_addr=(source, 0))
        async with aiohttp.ClientSession(connector=connector) as http, http.post(
                f"{url}/api/{kind}", data={"name": "Ann", "password": password},
                allow_redirects=False) as answer:
            return answer.status, await answer.text()

    async def go(url: str) -> list[tuple[int, str]]:
        said = [await sign(url, "signup", "right password")]
        said += [await sign(url, "login", f"wrong {i}") for i in range(6)]
        said.append(await sign(url, "login", "right password"))
        if other_loopback_works():
            said.append(await sign(url, "login", "right password", "127.0.0.2"))
        return said
    with ServerThread(tmp_path) as server:
        said = asyncio.run(go(server.url))
    assert said[0][0] == 303
    assert all(status == 400 and "no account has that name" in text
               for status, text in said[1:6]), said
    assert all(status == 400 and "too many wrong passwords" in text
               for status, text in said[6:8]), said
    assert checked[:5] == [f"wrong {i}" for i in range(5)]
    if len(said) > 8:  # from another address: checked, and right
        assert said[8][0] == 303 and checked[5:] == ["right password"], said[8]
    else:
        assert checked[5:] == []
