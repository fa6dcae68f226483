"""The hub's games for people, without sockets: a rematch made when both ask
(colours swapped, both seated in it), a challenge to a ladder bot within its
--games, and what a create may not ask for."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest

from csl_game.server import Hub, ServerOptions, hash_token
from test_server_hub import Recording, client, say, sent

pytestmark = pytest.mark.unit


async def _ann_and_bob() -> tuple[Hub, Any, Any]:
    """A started hub with Ann and Bob connected and greeted."""
    hub = Hub(Recording(), ServerOptions())
    await hub.start()
    ann, bob = client("a" * 24), client("b" * 24)
    for c, name in ((ann, "Ann"), (bob, "Bob")):
        hub.connected(c)
        await say(hub, c, type="hello", version=1, name=name)
    return hub, ann, bob


def test_a_rematch_swaps_the_colours_once_both_ask() -> None:
    async def go() -> None:
        hub, ann, bob = await _ann_and_bob()
        made = await say(hub, ann, type="create", opponent="friend", color="white",
                         clock={"base": 300, "increment": 3})
        game = made["game"]
        assert made["clock"] == {"white": 300000, "red": 300000}
        await say(hub, bob, type="join", code=made["code"])
        assert (await say(hub, ann, type="rematch", game=game))["type"] == "error"  # not over
        await say(hub, ann, type="resign", game=game)
        offer = await say(hub, ann, type="rematch", game=game)
        assert offer == {"type": "offer", "game": game, "what": "rematch", "color": "white"}
        assert sent(bob).docs()[-1] == offer
        refused = await say(hub, client("c" * 24), type="rematch", game=game)
        assert refused["type"] == "error"
        again = await say(hub, bob, type="rematch", game=game)
        assert again["type"] == "game" and again["game"] != game
        assert (again["color"], again["white"], again["red"]) == ("white", "Bob", "Ann")
        assert again["clock"] == {"white": 300000, "red": 300000}
        theirs = sent(ann).docs()[-1]
        assert (theirs["type"], theirs["game"], theirs["color"]) == ("game", again["game"], "red")
        assert hub.games[again["game"]].started
        await hub.close()
    asyncio.run(go())


def test_a_guest_challenges_a_ladder_bot_within_its_games() -> None:
    async def go() -> None:
        store = Recording()
        store.add_bot("Nega", hash_token("token-nega"))
        hub = Hub(store, ServerOptions())
        await hub.start()
        bot, ann, cid = client(), client("a" * 24), client("c" * 24)
        for c in (bot, ann, cid):
            hub.connected(c)
        await say(hub, bot, type="bot", version=1, name="Nega", token="token-nega", games=1)
        for c, name in ((ann, "Ann"), (cid, "Cid")):
            await say(hub, c, type="hello", version=1, name=name)
        absent = await say(hub, ann, type="create", opponent="bot", bot="Deep Blue",
                           color="white")
        assert absent["type"] == "error" and "no bot called 'Deep Blue'" in absent["message"]
        timed = await say(hub, ann, type="create", opponent="bot", bot="Nega", color="white",
                          clock={"base": 60, "increment": 0})
        assert timed["type"] == "error" and "clocks are for games between people" in \
            timed["message"]
        made = await say(hub, ann, type="create", opponent="bot", bot="Nega", color="white")
        assert (made["white"], made["red"], made["kind"]) == ("Ann", "Nega", "bot")
        told = sent(bot).docs()[-1]
        assert (told["type"], told["color"], told["game"]) == ("game", "red", made["game"])
        busy = await say(hub, cid, type="create", opponent="bot", bot="Nega", color="red")
        assert busy["type"] == "error" and "plays as many games" in busy["message"]
        assert hub.ladder.playing["Nega"] == 1  # the pairing counts it too
        await say(hub, ann, type="resign", game=made["game"])
        assert hub.ladder.playing["Nega"] == 0  # its game with a person ended: free again
        later = await say(hub, cid, type="create", opponent="bot", bot="Nega", color="red")
        assert later["type"] == "game" and later["white"] == "Nega"
        await hub.close()
    asyncio.run(go())


def test_offers_and_claims_reach_the_room_through_the_hub() -> None:
    async def go() -> list[dict[str, Any]]:
        hub, ann, bob = await _ann_and_bob()
        made = await say(hub, ann, type="create", opponent="friend", color="white")
        await say(hub, bob, type="join", code=made["code"])
        claim = await say(hub, ann, type="claim", game=made["game"])
        assert claim["type"] == "error" and "Bob is here" in claim["message"]
        await say(hub, ann, type="draw", game=made["game"])
        await say(hub, bob, type="draw", game=made["game"])
        await hub.close()
        return sent(ann).docs()
    docs = asyncio.run(go())
    assert docs[-1]["type"] == "result" and docs[-1]["result"]["winner"] == "draw"


def test_a_draw_and_a_rematch_are_declined_through_the_hub() -> None:
    """Bob declines Ann's draw and, after the game, her rematch: she is told
    each time; nothing is agreed, and his own ask afterwards is only an ask."""
    async def go() -> None:
        hub, ann, bob = await _ann_and_bob()
        made = await say(hub, ann, type="create", opponent="friend", color="white")
        game = made["game"]
        await say(hub, bob, type="join", code=made["code"])
        await say(hub, ann, type="draw", game=game)
        no_draw = await say(hub, bob, type="draw", game=game, decline=True)
        assert no_draw == {"type": "declined", "game": game, "what": "draw", "color": "red"}
        assert sent(ann).docs()[-1] == no_draw and hub.games[game].game.result is None
        again = await say(hub, bob, type="draw", game=game, decline=True)
        assert again["type"] == "error" and "nothing to decline" in again["message"]
        await say(hub, ann, type="resign", game=game)
        await say(hub, ann, type="rematch", game=game)
        no_rematch = await say(hub, bob, type="rematch", game=game, decline=True)
        assert no_rematch == {"type": "declined", "game": game, "what": "rematch",
                              "color": "red"}
        assert sent(ann).docs()[-1] == no_rematch
        asked = await say(hub, bob, type="rematch", game=game)  # his own ask, not a yes
        assert asked == {"type": "offer", "game": game, "what": "rematch", "color": "red"}
        assert not hub.games  # no rematch was made
        await hub.close()
    asyncio.run(go())


def test_a_finished_game_is_pgn_as_the_report_writes_it(tmp_path: Any) -> None:
    """GET /api/games/ID.pgn's text: the report's PGN of the stored result,
    with the people's time control and the day it ended."""
    from csl_game.model.board import PColor, PShape
    from csl_game.server.clock import TimeControl
    from csl_game.server.export import game_pgn
    from csl_game.server.room import Room, new_game
    from csl_game.server.store import SqliteStore
    from csl_game.services.report import load_report
    from csl_game.thinker.api import MatchConfig

    seats = ["web:ann", "web:bob"]
    game = new_game("game00000009", MatchConfig(), seats, ["Ann", "Bob"], 0.5,
                    control=TimeControl(300, 3))
    r: Room[str] = Room(game, "friend", "code00000009", seats, 30.0, 0.0)
    writes = list(r.open("ann", PColor.WHITE, 0.0).store)
    r.attach("bob", "web:bob", 0.0)
    for ply, col in enumerate([0, 1, 0, 1, 0, 1, 0]):
        shape = PShape.ROUND if ply % 2 == 0 else PShape.SQUARE
        writes += r.move("ann" if ply % 2 == 0 else "bob", ply, col, shape, 1.0 + ply).store
    store = SqliteStore(tmp_path / "games.sqlite3")
    store.apply(writes)
    row = store.game("game00000009")
    assert row is not None and game_pgn(row) is not None
    pgn = game_pgn(row) or ""
    head = dict(line[1:-1].split(" ", 1) for line in pgn.splitlines() if line.startswith("["))
    assert head["Event"] == '"csl-game server"' and head["White"] == '"Ann"'
    assert head["Black"] == '"Bob"' and head["Result"] == '"1-0"' and head["PlyCount"] == '"7"'
    assert head["TimeControl"] == '"300+3"' and head["Variant"] == '"colorshapelinks"'
    assert head["Date"].count(".") == 2 and "?" not in head["Date"]
    assert pgn.rstrip().endswith("1. 0r 1s 2. 0r 1s 3. 0r 1s 4. 0r 1-0")
    result = {**(row.result or {}), "match": 0,
              "white": {"thinker": "web", "params": "", "name": "Ann"},
              "red": {"thinker": "web", "params": "", "name": "Bob"}}
    body = load_report([result]).pgn("csl-game server").split("\n\n", 1)[1]
    assert pgn.split("\n\n", 1)[1] == body  # the report's own movetext
    # another program's PGN reader (python-chess) reads it as PGN: its tags and
    # result, and no error but that it cannot play the variant (no chess
    # program should take these moves for chess)
    import chess.pgn
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert read is not None and dict(read.headers) == {k: v.strip('"') for k, v in head.items()}
    assert [str(e) for e in read.errors] == ["unsupported variant: colorshapelinks"]
    playing = SqliteStore(tmp_path / "other.sqlite3")
    r2: Room[str] = Room(new_game("game00000010", MatchConfig(), seats, ["Ann", "Bob"], 0.5),
                         "friend", "code00000010", seats, 30.0, 0.0)
    playing.apply(r2.open("ann", PColor.WHITE, 0.0).store)
    unfinished = playing.game("game00000010")
    assert unfinished is not None and game_pgn(unfinished) is None
    store.close()
    playing.close()


def test_tv_follows_the_best_rated_game_being_played() -> None:
    from csl_game.server import Client
    from csl_game.server.people import best_game
    from csl_game.server.store import Rated
    from test_server_hub import Transport

    async def go() -> tuple[str | None, str | None, str | None, list[str]]:
        store = Recording()
        for name in ("Ann", "Bob", "Cid", "Dan"):  # TV reads ratings: no password is checked
            store.add_player(name, f"$argon2id$stands-for-{name}")
        store.apply([Rated("x" * 12, "Ann", "Cid", 1.0), Rated("y" * 12, "Bob", "Dan", 1.0)])
        hub = Hub(store, ServerOptions())
        await hub.start()
        none = await best_game(hub)
        people = [Client("local", hash_token(n * 24), transport=Transport(), account=n)
                  for n in ("Ann", "Bob")]
        guests = [client("g" * 24), client("h" * 24)]
        games = []
        for (white, red) in (guests, people):
            for c in (white, red):
                hub.connected(c)
                await say(hub, c, type="hello", version=1, name="Guest")
            made = await say(hub, white, type="create", opponent="friend", color="white")
            await say(hub, red, type="join", code=made["code"])
            games.append(made["game"])
        await say(hub, guests[0], type="move", game=games[0], ply=0, col=3, shape="round")
        best = await best_game(hub)  # Ann and Bob (1662 each) before two guests (1500)
        await say(hub, people[0], type="resign", game=games[1])
        after = await best_game(hub)  # theirs ended: the guests' game
        await hub.close()
        return none, best, after, games
    none, best, after, (casual, rated) = asyncio.run(go())
    assert none is None and best == rated and after == casual
