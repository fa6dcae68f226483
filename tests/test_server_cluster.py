"""Two server processes on one PostgreSQL database (a real one, started by the
test as the store's tests do: tests/pg_cluster.py; skipped, saying why, where
there is none): a game made through one is seen in the other's lobby, joined,
played and watched through the other; the process that owns a game is killed
mid-game and the game goes on in the other, its players and watcher with it.
And an SQLite file is served by one process only."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from csl_game.model.board import Board, PColor, PShape
from csl_game.server import open_store
from csl_game.server.relay import Relay
from online_procs import Proc
from test_server_ladder import start_server, stop_all
from test_server_store import start_servers_at

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")
WAIT = 30.0
"""Seconds any one thing may take (a loaded machine)."""


@pytest.fixture
def two(pg_url: str) -> Iterator[tuple[Proc, str, Proc, str]]:
    """Two server processes on the database (A and B, started at once), emptied first."""
    empty(pg_url)
    (a, url_a), (b, url_b) = start_servers_at(pg_url, 2)
    try:
        yield a, url_a, b, url_b
    finally:  # killed: how a server stops is no claim here (test_server_store's is)
        a.kill()
        b.kill()


def empty(pg_url: str) -> None:
    cleaner = open_store(pg_url)
    for table in ("games", "moves", "owners", "lobbies", "player_games", "logins", "players"):
        cleaner._run(f"DELETE FROM {table}")
    cleaner.close()


class Peer:
    """A browser-less client: one WebSocket, every message it gets kept as it comes."""

    def __init__(self, url: str, name: str, cookie: str = "") -> None:
        self.url = url.replace("http://", "ws://") + "/ws"
        self.name = name
        self.cookie = cookie
        self.got: list[dict[str, Any]] = []
        self._news = asyncio.Event()
        self._http: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> Peer:
        self._http = aiohttp.ClientSession()
        headers = {"Cookie": f"csl_session={self.cookie}"} if self.cookie else {}
        self._ws = await self._http.ws_connect(self.url, headers=headers)
        self._reader = asyncio.create_task(self._read())
        await self.send(type="hello", version=1, name=self.name)
        welcome = await self.until(lambda: self.last("welcome"))
        self.cookie = welcome.get("session", self.cookie)
        return self

    async def _read(self) -> None:
        assert self._ws is not None
        async for msg in self._ws:
            doc = json.loads(msg.data)
            if doc["type"] == "ping":
                await self.send(type="pong")
            self.got.append(doc)
            self._news.set()
        self.got.append({"type": "closed"})
        self._news.set()

    async def open_bot(self) -> Peer:
        """Open as a bot registering itself, playing one game at a time."""
        self._http = aiohttp.ClientSession()
        self._ws = await self._http.ws_connect(self.url)
        self._reader = asyncio.create_task(self._read())
        await self.send(type="bot", version=1, name=self.name, token="", games=1)
        await self.until(lambda: self.last("welcome"))
        return self

    async def send(self, **doc: Any) -> None:
        assert self._ws is not None
        await self._ws.send_str(json.dumps(doc))

    async def until(self, found: Callable[[], Any], timeout: float = WAIT) -> Any:
        """What `found()` gives once it is true, waiting for messages up to `timeout` s."""
        end = time.monotonic() + timeout
        while not (value := found()):
            left = end - time.monotonic()
            assert left > 0, f"{self.name} waited in vain; it got {self.got[-8:]}"
            self._news.clear()
            try:
                await asyncio.wait_for(self._news.wait(), left)
            except TimeoutError:
                pass
        return value

    def last(self, kind: str, game: str = "") -> dict[str, Any] | None:
        for doc in reversed(self.got):
            if doc["type"] == kind and (not game or doc.get("game") == game):
                return doc
        return None

    def count(self, kind: str, game: str) -> int:
        return sum(1 for d in self.got if d["type"] == kind and d.get("game") == game)

    def played(self, game: str) -> list[tuple[int, int, str]]:
        return [(d["ply"], d["col"], d["shape"]) for d in self.got
                if d["type"] == "played" and d["game"] == game]

    def moves(self, game: str) -> dict[int, tuple[int, str]]:
        """Every move of `game` this peer was told, by ply (in a game's state or played)."""
        seen: dict[int, tuple[int, str]] = {}
        for d in self.got:
            if d["type"] == "game" and d["game"] == game:
                seen.update((i, (m["col"], m["shape"])) for i, m in enumerate(d["moves"]))
            elif d["type"] == "played" and d["game"] == game:
                seen[d["ply"]] = (d["col"], d["shape"])
        return seen

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.wait_for(self._reader, WAIT)
        if self._http is not None:
            await self._http.close()


async def poll(url: str, found: Callable[[Any], bool], timeout: float = WAIT) -> Any:
    """`url`'s JSON once `found` says yes, asked again (on one kept-alive
    connection: the server limits an address's new connections) as soon as it
    answers ({} for a game the database does not have yet)."""
    end = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        while True:
            async with http.get(url) as answer:
                doc = await answer.json() if answer.status != 404 else {}
            if found(doc):
                return doc
            assert time.monotonic() < end, f"{url} never did: {doc}"
            await asyncio.sleep(0.05)


def board_of(state: dict[str, Any]) -> Board:
    s = state["settings"]
    board = Board(s["rows"], s["cols"], s["win_sequence"], s["round_pieces"], s["square_pieces"])
    for m in state["moves"]:
        board.do_move(PShape[m["shape"].upper()], m["col"])
    return board


async def play(game: str, board: Board, seats: dict[PColor, Peer], everyone: list[Peer],
               upto: int = 10_000) -> None:
    """The players play (a move each turn, each waiting until everyone has
    it) until the game ends or `upto` moves are played."""
    while board.move_count < upto and board.legal_moves():
        ply = board.move_count
        legal = board.legal_moves()
        col, shape = legal[(ply * 5) % len(legal)]
        await seats[board.turn].send(type="move", game=game, ply=ply, col=col,
                                     shape=shape.name.lower())
        for peer in everyone:
            await peer.until(lambda p=peer, ply=ply: ply in p.moves(game))
        assert all(p.moves(game)[ply] == (col, shape.name.lower()) for p in everyone)
        board.do_move(shape, col)


async def made(url: str, opponent: str) -> tuple[Peer, dict[str, Any]]:
    """Ann makes a game (White) for `opponent` ("open", "friend") through `url`:
    (Ann, her first state of it)."""
    ann = await Peer(url, "Ann").open()
    await ann.send(type="create", opponent=opponent, color="white")
    return ann, await ann.until(lambda: ann.last("game"))


async def seated(maker_url: str, joiner_url: str) -> tuple[Peer, Peer, str, dict[str, Any]]:
    """Ann makes a game (White) on one process and Bob joins it (Red) through
    another (or the same): (Ann, Bob, the game's id, Bob's first state of it)."""
    ann, state = await made(maker_url, "friend")
    game = state["game"]
    bob = await Peer(joiner_url, "Bob").open()
    await bob.send(type="join", code=state["code"])
    joined = await bob.until(lambda: bob.last("game", game))
    return ann, bob, game, joined


def test_a_game_made_on_one_process_is_joined_played_and_watched_on_the_other(
        two: tuple[Proc, str, Proc, str]) -> None:
    a, url_a, b, url_b = two

    async def run() -> None:
        maker, state = await made(url_a, "open")
        game = state["game"]
        lobby = await poll(url_b + "/api/lobby",  # B's lobby lists A's challenge
                           lambda doc: any(c["game"] == game for c in doc["challenges"]))
        code = next(c["code"] for c in lobby["challenges"] if c["game"] == game)
        joiner = await Peer(url_b, "Bob").open()
        await joiner.send(type="join", code=code)
        joined = await joiner.until(lambda: joiner.last("game", game))
        assert joined["color"] == "red" and joined["white"] == "Ann"
        watcher = await Peer(url_b, "Cid").open()
        await watcher.send(type="watch", game=game)
        await watcher.until(lambda: watcher.last("game", game))
        await maker.until(lambda: maker.count("game", game) == 2)  # told Bob sat down
        for url in (url_a, url_b):  # the game being played, from either process
            await poll(url + "/api/lobby", lambda doc: any(g["game"] == game and g["red"] == "Bob"
                                                           for g in doc["games"]))
        everyone = [maker, joiner, watcher]
        board = board_of(joined)
        await play(game, board, {PColor.WHITE: maker, PColor.RED: joiner}, everyone)
        results = [await p.until(lambda p=p: p.last("result", game)) for p in everyone]
        assert results[0] == results[1] == results[2]
        assert [ply for ply, _, _ in watcher.played(game)] == list(range(board.move_count))
        stored = await poll(url_a + f"/api/games/{game}", lambda doc: doc.get("state") == "over")
        assert len(stored["moves"]) == board.move_count
        for peer in everyone:
            await peer.close()

    asyncio.run(asyncio.wait_for(run(), 180))
    assert "Traceback" not in a.text() + b.text(), a.text() + b.text()


def test_the_owner_hears_who_a_client_of_the_other_process_is_now(
        two: tuple[Proc, str, Proc, str]) -> None:
    """The owner is told who a client is with its first request, and again when
    that changes: a watcher who takes a new name, then joins, sits as the new."""
    a, url_a, b, url_b = two

    async def run() -> None:
        maker, state = await made(url_a, "open")
        game = state["game"]
        other = await Peer(url_b, "Cid").open()
        await other.send(type="watch", game=game)
        await other.until(lambda: other.last("game", game))
        await other.send(type="hello", version=1, name="Dee")
        await other.until(lambda: [d["name"] for d in other.got if d["type"] == "welcome"]
                          == ["Cid", "Dee"])
        await other.send(type="join", code=state["code"])
        joined = await other.until(lambda: (doc := other.last("game", game))
                                   and doc.get("color") == "red" and doc)
        assert joined["red"] == "Dee"
        told = await maker.until(lambda: (doc := maker.last("game", game))
                                 and doc.get("red") and doc)
        assert told["red"] == "Dee"
        for peer in (maker, other):
            await peer.close()

    asyncio.run(asyncio.wait_for(run(), 120))
    assert "Traceback" not in a.text() + b.text(), a.text() + b.text()


@pytest.mark.parametrize("end", ["kill", "cut"])
def test_a_game_goes_on_when_its_process_is_killed(two: tuple[Proc, str, Proc, str], end: str,
                                                   pg_url: str) -> None:
    """`kill`: the owner is SIGKILLed; `cut`: the database ends the owner's
    connections (a network's failure), and the owner stops by itself."""
    a, url_a, b, url_b = two

    async def run() -> None:
        maker, joiner, game, joined = await seated(url_a, url_b)
        watcher = await Peer(url_b, "Cid").open()
        await watcher.send(type="watch", game=game)
        await watcher.until(lambda: watcher.last("game", game))
        board = board_of(joined)
        await play(game, board, {PColor.WHITE: maker, PColor.RED: joiner},
                   [maker, joiner, watcher], upto=5)
        # every move is in the database (stored before it is told) before the kill
        await poll(url_b + f"/api/games/{game}", lambda doc: len(doc.get("moves", ())) == 5)
        states = joiner.count("game", game), watcher.count("game", game)
        if end == "kill":
            a.kill()  # SIGKILL: nothing is tidied
        else:
            cut_off(pg_url, game)
            assert a.finish(WAIT) == 2
            assert "the connection to the database was lost" in a.text(), a.text()
        # B takes the game over and gives its players and watchers their seats again
        again = await joiner.until(lambda: joiner.count("game", game) > states[0]
                                   and joiner.last("game", game))
        assert again["color"] == "red" and len(again["moves"]) == 5
        await watcher.until(lambda: watcher.count("game", game) > states[1])
        back = await Peer(url_b, "Ann", maker.cookie).open()  # Ann comes back through B
        await back.send(type="watch", game=game)
        mine = await back.until(lambda: back.last("game", game))
        assert mine["color"] == "white" and len(mine["moves"]) == 5
        everyone = [back, joiner, watcher]
        await play(game, board, {PColor.WHITE: back, PColor.RED: joiner}, everyone)
        results = [await p.until(lambda p=p: p.last("result", game)) for p in everyone]
        assert results[0] == results[1] == results[2]
        assert results[0]["result"]["winner_name"] in ("Ann", "Bob", None)
        assert sorted(watcher.moves(game)) == list(range(board.move_count))
        stored = await poll(url_b + f"/api/games/{game}", lambda doc: doc.get("state") == "over")
        assert len(stored["moves"]) == board.move_count
        await maker.close()
        for peer in everyone:
            await peer.close()

    asyncio.run(asyncio.wait_for(run(), 180))
    assert "Traceback" not in b.text(), b.text()


def test_no_move_a_player_saw_is_lost_when_its_owner_is_killed(
        two: tuple[Proc, str, Proc, str]) -> None:
    """The owner is SIGKILLed as soon as the players have seen a few quick
    moves (each within the same batch window): the process that takes the
    game over has every one of them, as a move is told once it is stored."""
    a, url_a, b, url_b = two

    async def run() -> None:
        ann, bob, game, joined = await seated(url_a, url_b)
        await ann.until(lambda: ann.count("game", game) == 2)
        board = board_of(joined)
        await play(game, board, {PColor.WHITE: ann, PColor.RED: bob}, [ann, bob], upto=6)
        a.kill()  # at once: no wait for the database
        seen = bob.moves(game)
        states = bob.count("game", game)
        again = await bob.until(lambda: bob.count("game", game) > states
                                and bob.last("game", game))
        assert [(m["col"], m["shape"]) for m in again["moves"]] == [seen[i] for i in range(6)]
        await ann.close()
        await bob.close()

    asyncio.run(asyncio.wait_for(run(), 120))
    assert "Traceback" not in b.text(), b.text()


def test_a_process_that_lost_a_game_writes_and_tells_none_of_its_moves(
        two: tuple[Proc, str, Proc, str], pg_url: str) -> None:
    """A's game is B's in the database while A still holds it (as after B
    took it over when A's connections to the database were cut): a move A
    then judges is refused by the database (each batch checks that its
    games are still its process's) and told to nobody."""
    a, url_a, b, url_b = two

    async def run() -> None:
        ann, bob, game, joined = await seated(url_a, url_a)
        board = board_of(joined)
        await play(game, board, {PColor.WHITE: ann, PColor.RED: bob}, [ann, bob], upto=2)
        db = open_store(pg_url)
        try:
            end = time.monotonic() + WAIT
            while len(db._run("SELECT process FROM lobbies")) < 2:  # B's number
                assert time.monotonic() < end, "B has no lobby"
                await asyncio.sleep(0.05)
            db._run("UPDATE owners SET process = (SELECT process FROM lobbies WHERE "
                    "process <> owners.process LIMIT 1) WHERE game = %s", (game,))
            await ann.send(type="move", game=game, ply=2, col=0, shape="round")
            end = time.monotonic() + WAIT
            while f"game {game}: its writes were refused" not in a.text():
                assert time.monotonic() < end, a.text()
                await asyncio.sleep(0.05)
            assert len(db._run("SELECT ply FROM moves WHERE game = %s", (game,))) == 2
        finally:
            db.close()
        assert sorted(ann.moves(game)) == [0, 1]
        await ann.close()
        await bob.close()

    asyncio.run(asyncio.wait_for(run(), 120))


def cut_off(pg_url: str, game: str) -> None:
    """The database ends the connections of `game`'s owner (named by its process)."""
    db = open_store(pg_url)
    try:
        owner = db._run("SELECT process FROM owners WHERE game = %s", (game,))[0][0]
        ended = db._run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE application_name = %s", (f"csl-game {owner}",))
        assert len(ended) == 3, ended
    finally:
        db.close()


def test_bots_on_two_processes_play_each_other_on_one_ladder(
        two: tuple[Proc, str, Proc, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One bot connects to A, the other to B: one process pairs them (they can
    meet nowhere else), and both processes' ladders count their games (two
    each, played at once: each bot takes two games at a time)."""
    a, url_a, b, url_b = two
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    bots = [Proc("bot", url, "random", "--name", name, "--games", "2")
            for url, name in ((url_a, "L1"), (url_b, "L2"))]
    try:
        async def both() -> None:
            for url in (url_a, url_b):
                ladder = await poll(url + "/api/ladder", lambda rows: len(rows) == 2 and all(
                    r["games"] >= 2 for r in rows), 60)
                assert {r["name"] for r in ladder} == {"L1", "L2"}
                assert all(r["online"] for r in ladder), ladder
        asyncio.run(both())
    finally:
        stop_all(bots)
    assert "Traceback" not in a.text() + b.text(), a.text() + b.text()


def heard_through_a_relay(pg_url: str, count: int,
                          publish: Callable[[Relay], Awaitable[None]]) -> list[str]:
    """The first `count` messages a relay of its own hears, once `publish` has
    published through it."""
    open_store(pg_url).close()  # its tables

    async def run() -> list[str]:
        relay = Relay(pg_url)
        heard: list[str] = []
        news = asyncio.Event()
        await relay.start(lambda text: (heard.append(text), news.set()))
        try:
            await publish(relay)
            while len(heard) < count:
                await asyncio.wait_for(news.wait(), WAIT)
                news.clear()
            return heard
        finally:
            await relay.close()

    return asyncio.run(run())


def test_a_message_too_long_for_a_notification_is_relayed_in_its_turn(pg_url: str) -> None:
    async def publish(relay: Relay) -> None:
        for text in ("short", "x" * 20_000, "after"):
            relay.publish(relay.me, text)

    assert heard_through_a_relay(pg_url, 3, publish) == ["short", "x" * 20_000, "after"]


def test_messages_published_while_a_batch_is_answered_follow_it_in_order(
        pg_url: str) -> None:
    """Batches published in many turns of the loop, each before the one
    before it is answered (so sent when it is), and a long one among them:
    each message heard once, in the order published."""
    sent = [f"m{i}" for i in range(600)]
    sent[300] = "y" * 9000  # spilled to its table, in its turn

    async def publish(relay: Relay) -> None:
        for i in range(0, len(sent), 20):
            for text in sent[i:i + 20]:
                relay.publish(relay.me if i % 40 else None, text)
            await asyncio.sleep(0)  # a turn: the next batch is published meanwhile

    assert heard_through_a_relay(pg_url, len(sent), publish) == sent


def test_an_sqlite_file_is_served_by_one_process(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    first, _ = start_server(db)
    try:
        second = Proc("server", "--host", "127.0.0.1", "--port", "0", "--db", str(db))
        assert second.finish(60) == 2
        lines = second.text().strip().splitlines()
        assert len(lines) == 1 and "served by another csl-game server" in lines[0], lines
    finally:
        first.kill()


def test_offers_a_takeback_a_draw_and_a_rematch_cross_processes(
        two: tuple[Proc, str, Proc, str]) -> None:
    """Bob plays through B a game A owns: his takeback, draw and rematch reach
    it through the relay like his moves, and its answers reach him."""
    a, url_a, b, url_b = two

    async def run() -> None:
        ann, bob, game, _ = await seated(url_a, url_b)
        await ann.send(type="move", game=game, ply=0, col=3, shape="round")
        await bob.until(lambda: bob.played(game))
        await bob.send(type="move", game=game, ply=1, col=4, shape="square")
        await ann.until(lambda: len(ann.played(game)) == 2)
        await bob.send(type="takeback", game=game)  # his move: Ann is to move
        await ann.until(lambda: ann.last("offer", game))
        await ann.send(type="takeback", game=game)
        state = await bob.until(lambda: (s := bob.last("game", game)) and len(s["moves"]) == 1
                                and s)
        assert state["color"] == "red"
        await bob.send(type="draw", game=game)
        await ann.until(lambda: (o := ann.last("offer", game)) and o["what"] == "draw")
        await ann.send(type="draw", game=game)
        result = await bob.until(lambda: bob.last("result", game))
        assert result["result"]["winner"] == "draw"
        await ann.send(type="rematch", game=game)
        await bob.until(lambda: (o := bob.last("offer", game)) and o["what"] == "rematch")
        await bob.send(type="rematch", game=game)
        again = await bob.until(lambda: next((d for d in reversed(bob.got) if d["type"] == "game"
                                              and d["game"] != game), None))
        assert (again["color"], again["white"], again["red"]) == ("white", "Bob", "Ann")
        for peer in (ann, bob):
            await peer.close()

    asyncio.run(asyncio.wait_for(run(), 120))
    assert "Traceback" not in a.text() + b.text(), a.text() + b.text()


def test_the_pairing_counts_a_bots_games_held_by_another_process(pg_url: str) -> None:
    """The pairing process counts each bot's games in progress in every
    process (from the database), not only those it made: P1, playing its
    one game with Ann on the other process (as it would a game taken over
    there from a process that ended), is not paired; P2 and P3 are (P1,
    first by name, was paired with P2 before)."""
    empty(pg_url)
    servers = [Proc("server", "--host", "127.0.0.1", "--port", "0", "--db", pg_url,
                    "--register", "open", "-t", "100", "--log-level", "info") for _ in range(2)]
    try:
        urls = [p.wait_for(r"on (http://127\.0\.0\.1:\d+)", WAIT).group(1) for p in servers]
        end = time.monotonic() + WAIT
        while not any("this process pairs the ladder" in p.text() for p in servers):
            assert time.monotonic() < end, "no process pairs the ladder"
            time.sleep(0.05)
        pairer = next(i for i, p in enumerate(servers)
                      if "this process pairs the ladder" in p.text())
        other = urls[1 - pairer]

        async def run() -> dict[str, Any]:
            p1 = await Peer(other, "P1").open_bot()
            ann = await Peer(other, "Ann").open()
            await ann.send(type="create", opponent="bot", bot="P1", color="white")
            await p1.until(lambda: p1.last("game"))
            p2 = await Peer(urls[pairer], "P2").open_bot()
            p3 = await Peer(other, "P3").open_bot()
            ladder = await p2.until(lambda: next((d for d in p2.got if d["type"] == "game"
                                                  and d["kind"] == "ladder"), None))
            assert [d["kind"] for d in p1.got if d["type"] == "game"] == ["bot"]
            for peer in (p1, ann, p2, p3):
                await peer.close()
            return dict(ladder)

        ladder = asyncio.run(asyncio.wait_for(run(), 120))
        assert {ladder["white"], ladder["red"]} == {"P2", "P3"}, ladder
    finally:
        for server in servers:
            server.kill()
    assert "Traceback" not in servers[0].text() + servers[1].text()


def test_a_bot_with_one_game_takes_no_second_from_another_process(
        two: tuple[Proc, str, Proc, str]) -> None:
    """Q1 plays one game at a time and plays Ann's, made through A: Cid's
    challenge to it through B is refused, as B counts Q1's games in every
    process; once Ann's game ends, Cid's is made."""
    a, url_a, b, url_b = two

    async def run() -> None:
        q1 = await Peer(url_a, "Q1").open_bot()
        ann = await Peer(url_a, "Ann").open()
        await ann.send(type="create", opponent="bot", bot="Q1", color="white")
        game = (await q1.until(lambda: q1.last("game")))["game"]
        await poll(url_b + "/api/ladder", lambda rows: any(  # B knows Q1 is connected
            r["name"] == "Q1" and r["online"] for r in rows))
        cid = await Peer(url_b, "Cid").open()
        await cid.send(type="create", opponent="bot", bot="Q1", color="white")
        refused = await cid.until(lambda: cid.last("error"))
        assert "plays as many games as it takes (1)" in refused["message"], refused
        await ann.send(type="resign", game=game)
        await ann.until(lambda: ann.last("result", game))
        await cid.send(type="create", opponent="bot", bot="Q1", color="white")
        made = await cid.until(lambda: cid.last("game"))
        assert made["red"] == "Q1"
        for peer in (q1, ann, cid):
            await peer.close()

    asyncio.run(asyncio.wait_for(run(), 120))
    assert "Traceback" not in a.text() + b.text(), a.text() + b.text()


def test_a_player_on_the_other_process_claims_the_win(two: tuple[Proc, str, Proc, str]) -> None:
    """Ann makes a game on A and Bob plays it through B; Ann's connection
    ends: Bob is told at once, with the countdown, and his claim (refused
    while the countdown runs, then granted) reaches A through the relay."""
    a, url_a, b, url_b = two

    async def run() -> None:
        ann, bob, game, _ = await seated(url_a, url_b)
        await ann.until(lambda: ann.count("game", game) == 2)
        await ann.send(type="move", game=game, ply=0, col=3, shape="round")
        await bob.until(lambda: bob.played(game))
        await ann.close()
        away = await bob.until(lambda: bob.last("away", game))
        assert away["color"] == "white" and away["seconds"] > away["claim"] > 0, away
        end = time.monotonic() + WAIT
        while not bob.last("result", game):  # asked again until the countdown ran out
            said = sum(d["type"] == "error" for d in bob.got)
            await bob.send(type="claim", game=game)
            await bob.until(lambda said=said: bob.last("result", game)
                            or sum(d["type"] == "error" for d in bob.got) > said)
            if not bob.last("result", game):
                refused = bob.last("error")
                assert refused is not None and "may come back for" in refused["message"]
                assert time.monotonic() < end, "the claim was never granted"
                await asyncio.sleep(0.5)
        result = (bob.last("result", game) or {})["result"]
        assert (result["winner"], result["forfeit"]) == ("red", "disconnected"), result
        assert "Bob claimed the win" in result["detail"]
        stored = await poll(url_b + f"/api/games/{game}", lambda doc: doc.get("state") == "over")
        assert stored["winner"] == "red"
        await bob.close()

    asyncio.run(asyncio.wait_for(run(), 120))
    assert "Traceback" not in a.text() + b.text(), a.text() + b.text()


async def signed_up(url: str, name: str) -> str:
    """A new account `name`, made through `url`: the cookie signed in to it."""
    async with aiohttp.ClientSession() as http:
        async with http.post(url + "/api/signup", allow_redirects=False,
                             data={"name": name, "password": f"{name} secret 1"}) as answer:
            assert answer.status == 303, await answer.text()
            return answer.cookies["csl_session"].value


async def tv(url: str, game: str) -> None:
    """`url`'s /tv sends a browser to `game` (asked again until it does)."""
    end = time.monotonic() + WAIT
    async with aiohttp.ClientSession() as http:
        while True:
            async with http.get(url + "/tv", allow_redirects=False) as answer:
                went = answer.headers.get("Location", "")
            if went == f"/game/{game}?tv=1":
                return
            assert time.monotonic() < end, f"{url}/tv went to {went!r}, not to {game}"
            await asyncio.sleep(0.05)


async def text_of(url: str) -> str:
    async with aiohttp.ClientSession() as http:
        async with http.get(url) as answer:
            assert answer.status == 200, url
            return await answer.text()


def test_tv_and_a_players_pages_are_the_same_from_either_process(
        two: tuple[Proc, str, Proc, str], pg_url: str) -> None:
    """A rated game owned by A (Ann, rated 1800, against Cara, on B) and a
    guests' game owned by B: /tv of either process follows the rated game,
    then, once it ended, the guests'; /@/Ann and /api/players/NAME of B,
    which recorded nothing of the game, say what A's say."""
    a, url_a, b, url_b = two

    async def run() -> None:
        cookies = {"Ann": await signed_up(url_a, "Ann"), "Cara": await signed_up(url_b, "Cara")}
        db = open_store(pg_url)
        try:
            db._run("UPDATE players SET rating = 1800 WHERE key = 'ann'")
        finally:
            db.close()
        ann = await Peer(url_a, "Ann", cookies["Ann"]).open()
        await ann.send(type="create", opponent="friend", color="white", rated=True)
        made = await ann.until(lambda: ann.last("game"))
        rated = made["game"]
        cara = await Peer(url_b, "Cara", cookies["Cara"]).open()
        # as Ann read it out to Cara: lower case, no dashes, an O for each 0
        await cara.send(type="join", code=made["code"].lower().replace("-", "").replace("0", "o"))
        joined = await cara.until(lambda: cara.last("game", rated))
        assert joined.get("rated") is True and joined["red"] == "Cara"
        dan, eve, casual, _ = await seated(url_b, url_b)  # two guests, on B
        await ann.until(lambda: ann.count("game", rated) == 2)
        for url in (url_a, url_b):  # Ann and Cara (1650) before two guests (1500)
            await tv(url, rated)
        await play(rated, board_of(joined), {PColor.WHITE: ann, PColor.RED: cara}, [ann, cara])
        await cara.until(lambda: cara.last("result", rated))
        for url in (url_a, url_b):  # the rated game ended: the guests'
            await tv(url, casual)
        owner = await poll(url_a + "/api/players/Ann", lambda doc: doc.get("games") == [rated]
                           and doc["rating"] != 1800)
        for name in ("Ann", "Cara"):
            mine = await poll(url_a + f"/api/players/{name}", lambda doc: bool(doc))
            assert await poll(url_b + f"/api/players/{name}", lambda doc: bool(doc)) == mine
        assert owner["name"] == "Ann"
        page = await text_of(url_a + "/@/Ann")
        assert f"Rating {owner['rating']:.0f}" in page and rated in page
        assert await text_of(url_b + "/@/Ann") == page
        for peer in (ann, cara, dan, eve):
            await peer.close()

    asyncio.run(asyncio.wait_for(run(), 180))
    assert "Traceback" not in a.text() + b.text(), a.text() + b.text()
