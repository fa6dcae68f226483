"""The hub as the I/O around the rooms, without sockets: clients on made-up
transports, an SQLite database in memory that records its batches, and a
made-up clock. A move is one frame, the same bytes written to every
receiver, and one appended row; a slow reader is dropped by the bytes it
holds; a room is woken by its own timer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest

from csl_game.server import Client, Hub, ServerOptions, SqliteStore, hash_token
from csl_game.server.store import Moved, NewGame, Write
from csl_game.thinker.api import MatchConfig

pytestmark = pytest.mark.unit


class Transport:
    """A connection that keeps what is written (and never sends it)."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.aborted = False
        self.wrote = asyncio.Event()

    def write(self, data: bytes) -> None:
        self.frames.append(data)
        self.wrote.set()

    def get_write_buffer_size(self) -> int:
        return sum(map(len, self.frames))

    def is_closing(self) -> bool:
        return self.aborted

    def abort(self) -> None:
        self.aborted = True

    def docs(self) -> list[dict[str, Any]]:
        return [json.loads(_payload(f)) for f in self.frames]


def _payload(data: bytes) -> bytes:
    size = data[1]
    return data[2:] if size < 126 else data[4:] if size == 126 else data[10:]


class Recording(SqliteStore):
    def __init__(self) -> None:
        super().__init__(":memory:")
        self.batches: list[list[Write]] = []

    def apply(self, writes: Sequence[Write], check: Any = None) -> None:
        self.batches.append(list(writes))
        super().apply(writes, check)


def client(session: str = "", outbox_bytes: int = 1 << 20) -> Client:
    return Client("local", hash_token(session) if session else "", transport=Transport(),
                  outbox_bytes=outbox_bytes)


def sent(c: Client) -> Transport:
    assert isinstance(c.transport, Transport)
    return c.transport


async def say(hub: Hub, c: Client, **doc: Any) -> dict[str, Any]:
    before = len(sent(c).frames)
    await hub.receive(c, json.dumps(doc))
    await hub.db(lambda: None)  # what is told of a game is sent once its writes are made
    got = sent(c).docs()[before:]
    return got[-1] if got else {}


def test_a_move_is_one_frame_to_everyone_and_one_appended_row() -> None:
    async def go() -> tuple[Recording, list[Client], str]:
        store = Recording()
        hub = Hub(store, ServerOptions(write_every_s=0.01))
        await hub.start()
        ann, bob = client("a" * 24), client("b" * 24)
        watchers = [client() for _ in range(3)]
        for c in (ann, bob, *watchers):
            hub.connected(c)
        await say(hub, ann, type="hello", version=1, name="Ann")
        state = await say(hub, ann, type="create", opponent="friend", color="white")
        game = state["game"]
        await say(hub, bob, type="hello", version=1, name="Bob")
        assert (await say(hub, bob, type="join", code=state["code"]))["color"] == "red"
        for w in watchers:
            assert (await say(hub, w, type="watch", game=game))["color"] is None
        await say(hub, ann, type="move", game=game, ply=0, col=3, shape="round")
        last = [sent(c).frames[-1] for c in (ann, bob, *watchers)]
        assert all(f is last[0] for f in last)  # one frame, written to each
        assert json.loads(_payload(last[0]))["type"] == "played"
        await say(hub, bob, type="move", game=game, ply=1, col=3, shape="square")
        row = await hub.db(store.game, game)  # a read comes after the writes before it
        assert row is not None and [m["col"] for m in row.moves] == [3, 3]
        hub.disconnected(watchers[0])
        await hub.close()
        return store, [ann, bob, *watchers], game
    store, clients, game = asyncio.run(go())
    writes = [w for batch in store.batches for w in batch]
    assert [type(w) for w in writes] == [NewGame, Moved, Moved]  # stored once joined
    assert [w.ply for w in writes if isinstance(w, Moved)] == [0, 1]
    assert game not in clients[2].rooms and game in clients[3].rooms


def test_a_reader_holding_too_many_bytes_is_dropped_and_the_others_go_on() -> None:
    async def go() -> None:
        hub = Hub(Recording(), ServerOptions())
        await hub.start()
        slow, quick = client("s" * 24, outbox_bytes=60), client("q" * 24)
        for c in (slow, quick):
            hub.connected(c)
            await say(hub, c, type="hello", version=1, name="Sam")
        assert not slow.closed  # its welcome fits
        for c in (slow, quick):
            await say(hub, c, type="lobby")
        assert slow.closed and sent(slow).aborted
        assert not quick.closed
        assert [d["type"] for d in sent(quick).docs()] == ["welcome", "lobby"]
        await hub.close()
    asyncio.run(go())


def test_a_bot_out_of_time_is_woken_by_its_games_timer() -> None:
    now = [1000.0]

    async def go() -> list[dict[str, Any]]:
        store = Recording()
        for name in ("Alpha", "Beta"):
            store.add_bot(name, hash_token(f"token-{name}"))
        hub = Hub(store, ServerOptions(config=MatchConfig(time_limit_ms=1), grace_ms=5))
        hub._clock = lambda: now[0]
        await hub.start()
        bots = [client(), client()]
        for c, name in zip(bots, ("Alpha", "Beta"), strict=True):
            hub.connected(c)
            await say(hub, c, type="bot", version=1, name=name, token=f"token-{name}")
        hub._pair()
        await hub.db(lambda: None)  # the games' states are sent once stored
        assert len(hub.games) == 1 and len(hub._timers) == 1
        now[0] += 60  # nobody moved; the game's timer rings 7 ms on
        told = sent(bots[0])
        told.wrote.clear()
        await asyncio.wait_for(told.wrote.wait(), 5)
        assert not hub.games and not hub._timers
        await hub.close()
        return sent(bots[0]).docs()
    docs = asyncio.run(go())
    assert [d["type"] for d in docs] == ["welcome", "game", "result"]
    assert docs[-1]["result"]["forfeit"] == "timeout"


def test_a_friend_joins_with_the_code_as_read_out_to_them() -> None:
    """Typed in lower case, without its dashes, with an O for a 0 or an L for a
    1, the code finds its game; a code of another form (an older server's,
    still in a game being resumed) is found only as it is."""
    async def go() -> None:
        hub = Hub(Recording(), ServerOptions())
        await hub.start()
        ann, bob, cara = client("a" * 24), client("b" * 24), client("c" * 24)
        for c, name in ((ann, "Ann"), (bob, "Bob"), (cara, "Cara")):
            hub.connected(c)
            await say(hub, c, type="hello", version=1, name=name)
        made = await say(hub, ann, type="create", opponent="friend", color="white")
        code = made["code"]
        typed = code.lower().replace("-", "").replace("0", "o").replace("1", "l")
        joined = await say(hub, bob, type="join", code=typed)
        assert (joined["type"], joined["game"], joined["color"]) == ("game", made["game"], "red")
        other = await say(hub, ann, type="create", opponent="friend", color="white")
        theirs = hub.games[other["game"]]
        hub.codes.pop(theirs.code)  # as a game an older server made, being resumed
        theirs.code = "Kp1YD0KM1Qla"
        hub.codes[theirs.code] = theirs.id
        refused = await say(hub, cara, type="join", code="KP1YD0KM1QLA")
        assert refused["type"] == "error"
        joined = await say(hub, cara, type="join", code="Kp1YD0KM1Qla")
        assert (joined["type"], joined["game"]) == ("game", theirs.id)
        await hub.close()
    asyncio.run(go())


def test_a_write_the_database_refuses_costs_only_itself() -> None:
    async def go() -> Recording:
        store = Recording()
        hub = Hub(store, ServerOptions(write_every_s=10.0))
        await hub.start()
        ann = client("a" * 24)
        hub.connected(ann)
        await say(hub, ann, type="hello", version=1, name="Ann")
        made = await say(hub, ann, type="create", opponent="open", color="white")
        game = made["game"]
        bob = client("b" * 24)
        hub.connected(bob)
        await say(hub, bob, type="hello", version=1, name="Bob")
        await say(hub, bob, type="join", code=made["code"])
        hub.database.write([Moved(game, 0, 3, "round", 1.0), Moved(game, 0, 4, "round", 1.0),
                    Moved(game, 1, 2, "square", 1.0)])  # the second is move 0 again
        row = await hub.db(store.game, game)
        await hub.close()
        assert row is not None and [m["col"] for m in row.moves] == [3, 2]
        return store
    store = asyncio.run(go())
    assert [len(b) for b in store.batches] == [1, 3, 1, 1, 1]  # the batch, then one by one


def test_a_player_with_a_waiting_game_keeps_the_lobby_and_cancels_it_from_there() -> None:
    """Issue 41, item 1: a browser with a challenge waiting was sent back to it
    from the lobby (its hello took its seats there), and nothing cancelled it."""
    async def go() -> None:
        hub = Hub(Recording(), ServerOptions())
        await hub.start()
        game_page, lobby_page = client("a" * 24), client("a" * 24)  # one browser, two pages
        for c in (game_page, lobby_page):
            hub.connected(c)
            await say(hub, c, type="hello", version=1, name="Ann")
        made = await say(hub, game_page, type="create", opponent="open", color="white")
        await say(hub, lobby_page, type="lobby")
        assert [d["type"] for d in sent(lobby_page).docs()] == ["welcome", "lobby"]
        assert sent(lobby_page).docs()[-1]["challenges"][0]["game"] == made["game"]
        assert hub.games[made["game"]].players[0] is game_page  # its seat stays there
        await say(hub, lobby_page, type="cancel", game=made["game"])
        assert made["game"] not in hub.games
        assert sent(game_page).docs()[-1]["type"] == "aborted"
        hub._lobby_dirty, hub._lobby_frame = False, None
        assert (await say(hub, lobby_page, type="lobby"))["challenges"] == []
        await hub.close()
    asyncio.run(go())


def test_one_address_keeps_only_so_many_games_waiting_whatever_its_cookies() -> None:
    """Issue 41, item 11: 'three waiting games a player' was by cookie, which a
    client makes anew."""
    async def go() -> None:
        hub = Hub(Recording(), ServerOptions(max_waiting_per_address=4))
        await hub.start()
        made, made_by = [], []
        for i in range(6):
            c = Client("192.0.2.7", hash_token(f"cookie-{i:020d}"), transport=Transport())
            made_by.append(c)
            hub.connected(c)
            await say(hub, c, type="hello", version=1, name=f"P{i}")
            made.append(await say(hub, c, type="create", opponent="open", color="white"))
        assert [d["type"] for d in made] == ["game"] * 4 + ["error"] * 2
        assert "your address has 4 games waiting" in made[-1]["message"]
        other = Client("198.51.100.1", hash_token("another-cookie-000000"), transport=Transport())
        hub.connected(other)
        await say(hub, other, type="hello", version=1, name="Q")
        assert (await say(hub, other, type="create", opponent="open",
                          color="red"))["type"] == "game"
        # one of the four begins (joined) and one is cancelled: two more may wait
        await say(hub, other, type="join", code=made[0]["code"])
        await say(hub, made_by[1], type="cancel", game=made[1]["game"])
        again = [await say(hub, made_by[i], type="create", opponent="open", color="white")
                 for i in (4, 5, 5)]
        assert [d["type"] for d in again] == ["game", "game", "error"]
        assert "your address has 4 games waiting" in again[-1]["message"]
        await hub.close()
    asyncio.run(go())


def test_the_lobby_lists_the_best_bots_and_is_made_once_for_every_asker() -> None:
    """Issue 41, item 10: the lobby listed every bot (41.5 KB with 300), made
    again for each of the clients asking for it many times a second."""
    async def go() -> None:
        store = Recording()
        for i in range(300):
            store.add_bot(f"Bot number {i:03d} with a long name", hash_token(f"t{i}"))
        hub = Hub(store, ServerOptions())
        await hub.start()
        askers = [client(f"{i:024d}") for i in range(3)]
        for c in askers:
            hub.connected(c)
            for _ in range(5):
                await say(hub, c, type="lobby")
        frames = [f for c in askers for f in sent(c).frames]
        assert len(frames) == 15 and all(f is frames[0] for f in frames)
        lobby = sent(askers[0]).docs()[0]
        assert len(lobby["ladder"]) == 50 and len(frames[0]) < 8_000
        assert len(hub.ladder_table()) == 300  # /api/ladder has them all
        await hub.close()
    asyncio.run(go())


def test_a_bots_failure_is_published_as_one_line_without_its_paths() -> None:
    """Issue 41, item 7: a bot's traceback and its owner's path were published,
    and the result read 'won by raised an exception'."""
    async def go() -> dict[str, Any]:
        store = Recording()
        for name in ("Alpha", "Beta"):
            store.add_bot(name, hash_token(f"token-{name}"))
        hub = Hub(store, ServerOptions())
        await hub.start()
        bots = [client(), client()]
        for c, name in zip(bots, ("Alpha", "Beta"), strict=True):
            hub.connected(c)
            await say(hub, c, type="bot", version=1, name=name, token=f"token-{name}")
        hub._pair()
        await hub.db(lambda: None)  # the games' states are sent once stored
        game = sent(bots[0]).docs()[-1]
        white = bots[0] if game["color"] == "white" else bots[1]
        trace = ('Traceback (most recent call last):\n  File "/home/owner/bots/secret.py", '
                 'line 9, in think\n    raise ValueError("no /home/owner/data.bin")\n'
                 'ValueError: no /home/owner/data.bin')
        result = await say(hub, white, type="forfeit", game=game["game"], ply=0,
                           reason="exception", detail=trace)
        await hub.close()
        return dict(result["result"])
    doc = asyncio.run(go())
    from csl_game.server.pages import game_page, result_words
    assert doc["detail"] == "ValueError: no data.bin" and doc["forfeit"] == "exception"
    words = result_words(doc)
    assert words.endswith(f"won: White ({doc['white']}) raised an exception"), words
    assert "/home" not in game_page({**doc, "state": "over"})


def test_a_hello_without_the_servers_cookie_is_given_a_session_of_its_own() -> None:
    """Issue 41, item 9: a made-up cookie was a session; now a connection
    without one the server issued is given a new one (its welcome says it)."""
    async def go() -> None:
        hub = Hub(Recording(), ServerOptions())
        await hub.start()
        made_up = Client("local", hub.session_of("A" * 32 + "." + "B" * 22), transport=Transport())
        assert made_up.session == ""
        hub.connected(made_up)
        welcome = await say(hub, made_up, type="hello", version=1, name="Mallory")
        cookie = welcome["session"]
        assert hub.session_of(cookie) == cookie and made_up.session == hash_token(cookie)
        assert hub.session_of(cookie[:-1] + ("A" if cookie[-1] != "A" else "B")) == ""
        await hub.close()
    asyncio.run(go())


def test_a_connection_silent_past_the_limit_is_dropped_and_the_others_are_pinged() -> None:
    """The ticker's pings: a WebSocket ping (a client's library answers it, and
    the answer counts as hearing from it) and the protocol's, as one write;
    a connection not heard from in silent_s is taken as gone (its end went
    without a word) and aborted. Each connection is pinged once every
    ping_every_s, a few at each tick: never all at once (they would all
    answer at once)."""
    from csl_game.server.seats import PING, Pinger
    pinger = Pinger(every_s=15.0, silent_s=40.0)
    quiet, talking, test_made = client(), client(), client()
    quiet.heard, talking.heard = 100.0, 130.0  # test_made: heard is None, not counted
    for c in (quiet, talking, test_made):
        pinger.add(c)
    writes = []
    for now in range(140, 177):  # a tick a second: the first pings nobody, then
        # quiet's turn at 145 (a third of 15 s), then one of the two every 7.5 s
        before = sum(len(sent(c).frames) for c in (talking, test_made))
        pinger.tick(float(now))
        writes.append(sum(len(sent(c).frames) for c in (talking, test_made)) - before)
    assert quiet.closed and sent(quiet).aborted and sent(quiet).frames == []
    assert max(writes) == 1  # a few at each tick (here one), never all at once
    for c in (talking, test_made):  # once a period each
        assert sent(c).frames == [PING, PING] and not c.closed
    assert PING[:2] == b"\x89\x00"  # a ping frame with no payload, then a text frame
    assert json.loads(_payload(PING[2:])) == {"type": "ping"}
    pinger.tick(1000.0)  # after a stall, each is pinged once, not for every period missed
    assert talking.closed  # 870 s without a word
    assert len(sent(test_made).frames) == 3
