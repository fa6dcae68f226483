"""Games on the server over its WebSocket, as the app or a browser's script
plays them: against the server's own AI (bounded), between two people with
a join code and a watcher, a reconnect that finds its seat, and moves the
server refuses."""

from __future__ import annotations

import asyncio
import gc
import json
import random
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from csl_game.model.board import PShape, Winner
from csl_game.server import ServerOptions
from csl_game.thinker.api import MatchConfig
from server_thread import ServerThread

pytestmark = pytest.mark.timing


class Client:
    def __init__(self, http: aiohttp.ClientSession, url: str, cookie: str = "") -> None:
        self.http, self.url = http, url
        self.cookie = cookie
        self.ws: aiohttp.ClientWebSocketResponse | None = None

    async def open(self, name: str) -> Client:
        if not self.cookie:  # a browser's: the server issues it with a page
            async with self.http.get(self.url + "/") as page:
                self.cookie = page.cookies["csl_session"].value
        self.ws = await self.http.ws_connect(self.url.replace("http", "ws") + "/ws",
                                             headers={"Cookie": f"csl_session={self.cookie}"})
        await self.send(type="hello", version=1, name=name)
        assert (await self.next("welcome"))["name"] == name
        return self

    async def send(self, **doc: Any) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(doc))

    async def next(self, *kinds: str, timeout: float = 20) -> dict[str, Any]:
        assert self.ws is not None
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.ws.receive()
                assert msg.type is aiohttp.WSMsgType.TEXT, msg
                doc = json.loads(msg.data)
                if doc["type"] in kinds:
                    return doc


def random_move(board: Any) -> tuple[int, PShape]:
    col = random.choice([c for c in range(board.cols) if not board.is_column_full(c)])
    shape = random.choice([s for s in PShape if board.piece_count(board.turn, s) > 0])
    return col, shape


@pytest.fixture
def server(tmp_path: Path) -> Any:
    options = ServerOptions(config=MatchConfig(time_limit_ms=100), max_ai_games=1)
    with ServerThread(tmp_path, options) as s:
        yield s


GRACE_MS = 100
"""The network's grace of `people_server` (the default is 1 s): a timed player
there forfeits 0.2 s into a move (100 ms and the grace)."""


@pytest.fixture
def people_server(tmp_path: Path) -> Any:
    """A server for games between people, with a short grace: a person timed by
    mistake would have a timer set for the game, and lose within 0.2 s."""
    options = ServerOptions(config=MatchConfig(time_limit_ms=100), grace_ms=GRACE_MS)
    with ServerThread(tmp_path, options) as s:
        yield s


def test_a_person_plays_the_servers_ai_to_the_end(server: ServerThread) -> None:
    async def go() -> dict[str, Any]:
        async with aiohttp.ClientSession() as http:
            me = await Client(http, server.url).open("Ann")
            await me.send(type="create", opponent="ai", color="white", level="easy")
            state = await me.next("game")
            assert state["color"] == "white" and state["red"] == "AI Easy"
            other = await Client(http, server.url).open("Bob")  # the one AI game is taken
            await other.send(type="create", opponent="ai", color="red", level="easy")
            busy = await other.next("error")
            assert "busy" in busy["message"]
            board = MatchConfig().new_board()
            while True:
                col, shape = random_move(board)
                await me.send(type="move", game=state["game"], ply=board.move_count, col=col,
                              shape=shape.name.lower())
                mine = await me.next("played")
                board.do_move(PShape[mine["shape"].upper()], mine["col"])
                if board.check_winner() is not Winner.NONE:
                    return (await me.next("result"))["result"]
                theirs = await me.next("played", "result")
                if theirs["type"] == "result":
                    return theirs["result"]
                board.do_move(PShape[theirs["shape"].upper()], theirs["col"])
                if board.check_winner() is not Winner.NONE:
                    return (await me.next("result"))["result"]
    result = asyncio.run(go())
    assert result["white"] == "Ann" and result["red"] == "AI Easy"
    assert result["forfeit"] in (None, "no_pieces") and result["winner"] in ("white", "red",
                                                                              "draw")
    assert server.hub.ai.has_room()  # its runner ended with the game


def test_two_people_a_join_code_a_watcher_and_a_reconnect(people_server: ServerThread) -> None:
    server = people_server

    async def go() -> None:
        async with aiohttp.ClientSession() as http:
            ann = await Client(http, server.url).open("Ann")
            await ann.send(type="create", opponent="friend", color="white")
            state = await ann.next("game")
            game, code = state["game"], state["code"]
            bob = await Client(http, server.url).open("Bob")
            await bob.send(type="join", code=code)
            assert (await bob.next("game"))["color"] == "red"
            eve = await Client(http, server.url).open("Eve")
            await eve.send(type="watch", game=game)
            watched = await eve.next("game")
            assert watched["color"] is None and watched["code"] == ""  # no code to watchers
            await ann.send(type="move", game=game, ply=0, col=3, shape="round")
            await bob.next("played")
            # people are not timed: their games set no timer (tests/test_server_room.py)
            assert not server.hub._timers
            await bob.send(type="move", game=game, ply=0, col=3, shape="square")  # stale
            assert "not red's move 0" in (await bob.next("error"))["message"]
            await eve.send(type="move", game=game, ply=1, col=3, shape="square")
            assert "no side" in (await eve.next("error"))["message"]
            assert bob.ws is not None
            await bob.ws.close()  # Bob's page drops, and comes back with his cookie
            bob = await Client(http, server.url, bob.cookie).open("Bob")
            await bob.send(type="watch", game=game)  # a player watching takes its seat
            again = await bob.next("game")
            assert again["color"] == "red" and len(again["moves"]) == 1
            assert server.hub.games[game].game.result is None, "Bob lost on time"
            await bob.send(type="resign", game=game)
            for who in (ann, bob, eve):
                result = (await who.next("result"))["result"]
                assert result["winner"] == "white" and result.get("resigned") is True
    asyncio.run(go())


def test_one_player_keeps_only_a_few_games_waiting(server: ServerThread) -> None:
    async def go() -> list[str]:
        async with aiohttp.ClientSession() as http:
            me = await Client(http, server.url).open("Ann")
            said = []
            for _ in range(server.hub.options.max_waiting + 1):
                await me.send(type="create", opponent="open", color="random")
                said.append((await me.next("game", "error"))["type"])
            return said
    said = asyncio.run(go())
    assert said == ["game"] * server.hub.options.max_waiting + ["error"]
    assert len(server.hub.lobby()["challenges"]) <= server.hub.options.max_waiting


def test_a_server_process_collects_its_young_garbage_less_often(tmp_path: Path) -> None:
    """run_server (what `csl-game server` runs) sets the collector's youngest
    threshold (csl_game.server.GC_YOUNG: at Python's 700, a busy server
    stopped 0.2-0.4 s at a time to scan its whole heap)."""
    from csl_game.server import GC_YOUNG, SqliteStore, run_server
    before = gc.get_threshold()
    gc.set_threshold(700, before[1], before[2])

    async def serve_once() -> None:
        stop = asyncio.Event()
        await run_server(SqliteStore(tmp_path / "games.sqlite3"), ServerOptions(),
                         "127.0.0.1", 0, ready=lambda served: stop.set(), stop=stop)
    try:
        asyncio.run(serve_once())
        assert gc.get_threshold() == (GC_YOUNG, before[1], before[2])
    finally:
        gc.set_threshold(*before)


def test_a_connection_accepted_as_the_server_closes_does_not_hold_its_close(
        tmp_path: Path) -> None:
    """A WebSocket whose handler reaches the hub after the hub has closed
    (accepted before the listening socket was) is closed at once: the
    server's close waits for every handler, and would wait on it for as long
    as its client stayed."""
    with ServerThread(tmp_path) as s:
        s.call(s.hub.close)  # as Served.close's await lets a handler in after it

        async def go() -> aiohttp.WSMsgType:
            async with aiohttp.ClientSession() as http:
                ws = await http.ws_connect(s.url.replace("http", "ws") + "/ws")
                async with asyncio.timeout(5):
                    return (await ws.receive()).type

        assert asyncio.run(go()) in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        s.call(s.served.close, 5)  # nothing left open: at once
