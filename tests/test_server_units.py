"""The game server's parts without sockets: the message parsers, a game's
judging and clock, the ladder's pairing, the edge's limits, the store, and
a bot's checks of what the server says."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from csl_game.engine import Forfeit, ForfeitReason, MatchResult
from csl_game.errors import ProtocolError
from csl_game.model.board import PColor, PShape, Winner
from csl_game.online.protocol import result_json
from csl_game.server import (
    AddressGuard,
    Answer,
    BotError,
    BotGame,
    GameRow,
    Ladder,
    Limits,
    SeatThinker,
    SqliteStore,
    TokenBucket,
    answer_doc,
    decode_event,
    decode_request,
    hash_token,
    new_token,
    ws_url,
)
from csl_game.server.game import Rejected, ServerGame
from csl_game.server.messages import (
    CODE_ALPHABET,
    GameState,
    Move,
    code_as_made,
    frame,
    is_id,
    new_code,
)
from csl_game.server.store import Finished, Moved
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

pytestmark = pytest.mark.unit

R, S = PShape.ROUND, PShape.SQUARE
W, RED = PColor.WHITE, PColor.RED


def test_a_move_is_read_with_every_field_checked() -> None:
    msg = decode_request('{"type":"move","game":"abcdefgh","ply":3,"col":2,"shape":"square"}')
    assert msg == Move("abcdefgh", 3, 2, S)


@pytest.mark.parametrize("line", [
    '{"type":"move","game":"abcdefgh","ply":3,"col":2,"shape":"square","x":1}',
    '{"type":"move","game":"abcdefgh","ply":-1,"col":2,"shape":"round"}',
    '{"type":"move","game":"abcdefgh","ply":true,"col":2,"shape":"round"}',
    '{"type":"move","game":"abc","ply":0,"col":2,"shape":"round"}',
    '{"type":"move","game":"../../../etc","ply":0,"col":2,"shape":"round"}',
    '{"type":"move","game":"abcdefgh","ply":0,"col":2,"shape":"triangle"}',
    '{"type":"hello","version":2,"name":"Ann"}',
    '{"type":"hello","version":1,"name":"<script>"}',
    '{"type":"hello","version":1,"name":""}',
    '{"type":"bot","version":1,"name":"B","token":"t","games":99}',
    '{"type":"create","opponent":"everyone","color":"white"}',
    '{"type":"join","code":"a b c d e f"}',
    '{"type":"lobby","more":1}',
    '{"type":"nope"}', "[]", "NaN", '{"type":"move","ply":1e400}',
    '{"type":"lobby","x":"' + "a" * 5000 + '"}',
])
def test_a_bad_request_is_refused(line: str) -> None:
    with pytest.raises(ProtocolError):
        decode_request(line)


@pytest.mark.parametrize("line", [
    '{"type":"played","game":"abcdefgh","ply":0,"col":99,"shape":"round","ms":1}',
    '{"type":"played","game":"abcdefgh","ply":0,"col":1,"shape":"round","ms":-1}',
    '{"type":"game","game":"abcdefgh","code":"","color":"blue","white":"a","red":"b",'
    '"settings":{},"moves":[],"kind":"ladder"}',
    '{"type":"welcome"}', '{"type":"surprise"}',
])
def test_a_bad_server_message_is_refused(line: str) -> None:
    with pytest.raises(ProtocolError):
        decode_event(line)


def game(timed: tuple[bool, bool] = (True, True), **config: int) -> ServerGame:
    return ServerGame("g" * 12, MatchConfig(**config), ["Ann", "Bob"], timed, 0.5)


def test_a_join_code_reads_out_and_is_found_however_it_is_typed() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        groups = code.split("-")
        assert [len(g) for g in groups] == [4, 4, 4] and is_id(code)
        assert set("".join(groups)) <= set(CODE_ALPHABET)
        assert not set(code) & set("ILOU")  # no letter read as a digit, or as V
        typed = code.lower().replace("-", "").replace("0", "o").replace("1", "l")
        assert code_as_made(typed) == code
        assert code_as_made(code.replace("1", "I").replace("-", "", 1)) == code
    # any other text is looked up as it is: an older code ('_', lower case, 11 long) or none
    for other in ("Kp1Y-D0KM1Ql", "abcdefgh", "ABCD-EFGH-JKMN-P", "ABCD-EFGH-JKU0", ""):
        assert code_as_made(other) == other


def test_a_game_is_won_on_the_board() -> None:
    g = game()
    g.start_clock(0.0)
    for ply, (color, col, shape) in enumerate([(W, 0, R), (RED, 1, S)] * 3 + [(W, 0, R)]):
        ended = g.play(color, ply, col, shape, ply * 0.1)
    assert ended and g.result is not None
    assert g.result.winner is Winner.WHITE and len(g.result.solution) == 4
    assert [m.elapsed for m in g.result.moves] == pytest.approx([0.0] + [0.1] * 6)


def test_a_move_out_of_turn_or_stale_is_refused_without_a_forfeit() -> None:
    g = game()
    with pytest.raises(Rejected):
        g.play(RED, 0, 0, R, 0.0)
    g.play(W, 0, 0, R, 0.0)
    with pytest.raises(Rejected):
        g.play(RED, 0, 0, R, 0.0)  # the ply already played
    assert g.result is None


def test_an_illegal_move_costs_the_game_through_the_judge() -> None:
    g = game(rows=2, cols=3, win_sequence=2, round_pieces=3, square_pieces=3)
    g.play(W, 0, 0, R, 0.0)
    g.play(RED, 1, 0, S, 0.0)
    assert g.play(W, 2, 0, R, 0.0)  # column 0 is full
    assert g.result is not None and g.result.forfeit is ForfeitReason.FULL_COLUMN
    assert g.result.winner is Winner.RED and "column 0" in g.result.detail


def test_the_clock_counts_for_timed_players_only() -> None:
    g = game(time_limit_ms=100)  # limit 0.1 s + grace 0.5 s
    g.start_clock(10.0)
    assert not g.expired(10.5)
    assert g.expired(10.7)
    assert g.result is not None and g.result.forfeit is ForfeitReason.TIMEOUT
    late = game(time_limit_ms=100)
    late.start_clock(0.0)
    assert late.play(W, 0, 3, R, 0.9)
    assert late.result is not None and late.result.forfeit is ForfeitReason.TIMEOUT
    human = game(timed=(False, True), time_limit_ms=100)
    human.start_clock(0.0)
    assert not human.expired(1000.0)
    assert not human.play(W, 0, 3, R, 1000.0)


def test_the_ladder_pairs_fairly_and_each_pair_plays_both_colours() -> None:
    ladder = Ladder()
    free = {"a": 1, "b": 1, "c": 1}
    colours: dict[tuple[str, str], int] = {}
    for _ in range(12):
        pairs = ladder.pairings(free)
        assert len(pairs) == 1  # three bots, one game each at most: one game at a time
        white, red = pairs[0]
        colours[white, red] = colours.get((white, red), 0) + 1
        ladder.ended(white, red, MatchResult(Winner.WHITE, white, red))
    assert {ladder.games(n) for n in "abc"} == {8}
    assert set(colours.values()) == {2} and len(colours) == 6
    table = ladder.table(["a", "b", "c", "d"])
    assert [row["name"] for row in table][-1] == "d" and table[-1]["rating"] is None


def test_a_bot_that_plays_more_games_at_once_is_paired_more() -> None:
    pairs = Ladder().pairings({"a": 2, "b": 1, "c": 1})
    assert len(pairs) == 2 and sum("a" in p for p in pairs) == 2


def test_an_address_holds_so_many_connections_and_opens_so_many() -> None:
    guard = AddressGuard(Limits(per_address=2, burst=3, window_s=10))
    assert guard.admit("1.2.3.4", 0) is None and guard.admit("1.2.3.4", 0) is None
    assert "connections from one address" in (guard.admit("1.2.3.4", 0) or "")
    assert guard.admit("5.6.7.8", 0) is None
    guard.release("1.2.3.4")
    assert guard.admit("1.2.3.4", 1) is None
    guard.release("1.2.3.4")
    assert "new connections" in (guard.admit("1.2.3.4", 2) or "")
    assert guard.admit("1.2.3.4", 20) is None  # the window has passed


def test_a_token_bucket_lets_a_burst_through_then_the_rate() -> None:
    bucket = TokenBucket(rate=2, burst=3)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.5) and not bucket.take(0.5)


def test_the_store_keeps_bots_hashed_and_games(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.sqlite3")
    token = new_token()
    assert store.add_bot("Bot", hash_token(token))
    assert not store.add_bot("Bot", hash_token("other"))
    assert store.bot_hash("Bot") == hash_token(token) != token
    row = GameRow("g" * 12, "ladder", "A", "B", {"rows": 6}, [], "playing", None, 1.0)
    store.add_game(row)
    store.apply([Moved(row.id, 0, 1, "round", 2.0)])
    assert store.games("playing")[0].moves[0]["col"] == 1
    store.apply([Finished(row.id, {"winner": "white"})])
    assert store.games("playing") == [] and store.game(row.id).result == {"winner": "white"}
    store.close()
    assert SqliteStore(tmp_path / "s.sqlite3").bots() == ["Bot"]


def state(moves: tuple[tuple[int, PShape, float], ...] = (), color: PColor = RED) -> GameState:
    return GameState("g" * 12, "c" * 12, color, "A", "B", MatchConfig(), moves)


def test_a_bot_refuses_a_server_that_contradicts_its_board() -> None:
    with pytest.raises(BotError, match="illegal"):
        BotGame(state(tuple((0, R, 0.0) for _ in range(7))))  # a column of 6 holds 6
    game = BotGame(state())
    with pytest.raises(BotError, match="came at move"):
        game.played(1, 0, R)
    game.played(0, 0, R)
    with pytest.raises(BotError, match="did not send"):
        game.played(1, 3, S)  # the bot's own move, which it never sent
    game.sent = (3, S)
    game.played(1, 3, S)
    with pytest.raises(BotError, match="not the game played"):
        game.resume(state(((1, R, 0.0), (3, S, 0.0))))


def ended(moves: list[tuple[int, PShape]], loser: PColor | None = None,
          reason: ForfeitReason | None = None, resigned: bool = False,
          names: tuple[str, str] = ("A", "B")) -> dict[str, object]:
    """The result the server writes of a game of `moves` (ended on the board,
    or by `loser`'s forfeit or resignation)."""
    g = ServerGame("g" * 12, MatchConfig(), list(names), (False, False))
    for ply, (col, shape) in enumerate(moves):
        g.play(g.to_move, ply, col, shape, 0.0)
    if loser is not None:
        g.forfeit(loser, reason, "", resigned)
    assert g.result is not None
    return result_json(g.result, g.config)


WIN = [(0, R), (1, S), (0, R), (1, S), (0, R), (1, S), (0, R)]
"""White's four rounds in column 0."""


def test_a_bot_accepts_a_true_result_and_refuses_a_forged_one() -> None:
    game = BotGame(state(tuple((c, s, 0.0) for c, s in WIN)))  # the bot plays Red
    game.check_result(ended(WIN))
    forged = {**ended(WIN), "winner": "red", "winner_name": "B"}
    with pytest.raises(BotError, match="board that shows white"):
        game.check_result(forged)
    with pytest.raises(BotError, match="a result of C against B"):
        game.check_result(ended(WIN, names=("C", "B")))
    with pytest.raises(BotError, match="6 moves where 7"):
        game.check_result(ended(WIN[:6], loser=RED, reason=ForfeitReason.DISCONNECTED))
    with pytest.raises(BotError, match="without 'white'"):
        game.check_result({"moves": [], "winner": "white"})


@pytest.mark.parametrize("loser, reason, resigned, words", [
    (RED, ForfeitReason.TIMEOUT, False, None),  # the server's clock: it may
    (RED, ForfeitReason.DISCONNECTED, False, None),
    (W, ForfeitReason.DISCONNECTED, False, None),
    (W, None, True, None),  # the other side resigns
    (RED, None, True, "which did not resign"),
    (RED, ForfeitReason.EXCEPTION, False, "never reported"),
    (W, ForfeitReason.EXCEPTION, False, "when Red was to move"),
])
def test_a_bot_checks_who_could_lose_off_the_board(loser: PColor,
                                                   reason: ForfeitReason | None,
                                                   resigned: bool, words: str | None) -> None:
    moves = WIN[:3]  # Red (the bot) to move
    game = BotGame(state(tuple((c, s, 0.0) for c, s in moves)))
    doc = ended(moves, loser, reason, resigned)
    if words is None:
        game.check_result(doc)
        return
    with pytest.raises(BotError, match=words):
        game.check_result(doc)


def test_a_bot_that_reported_its_thinkers_forfeit_accepts_it() -> None:
    moves = WIN[:3]
    game = BotGame(state(tuple((c, s, 0.0) for c, s in moves)))
    sent = game.answered(3, Forfeit(ForfeitReason.EXCEPTION, "it raised"))
    assert sent["type"] == "forfeit" and sent["reason"] == "exception"
    game.check_result(ended(moves, RED, ForfeitReason.EXCEPTION))
    assert game.answered(3, (2, S, 0.1))["type"] == "move" and game.sent == (2, S)


def test_a_bot_finds_the_websocket_of_a_server_address() -> None:
    assert ws_url("http://127.0.0.1:8080") == "ws://127.0.0.1:8080/ws"
    assert ws_url("https://csl.example.org/") == "wss://csl.example.org/ws"
    for bad in ("ftp://x", "http://", "example.org", "http://x/a/b"):
        with pytest.raises(BotError):
            ws_url(bad)


def test_a_server_message_encodes_as_one_json_object() -> None:
    from csl_game.server.messages import encode

    assert json.loads(encode("game", kind="ladder")) == {"type": "game", "kind": "ladder"}


def test_an_empty_lobby_table_says_so_and_a_full_one_lists_its_rows() -> None:
    from csl_game.server.pages import lobby_page

    empty = lobby_page({"challenges": [], "games": [], "ladder": []})
    assert "No open challenge right now" in empty and "No bot has joined the ladder yet" in empty
    assert 'colspan="4"' in empty and 'colspan="5"' in empty  # challenges, games: 4 columns
    full = lobby_page({"challenges": [], "games": [],
                       "ladder": [{"name": "Nega", "rating": 12.0, "ci95": [-3.0, 27.0],
                                   "games": 4, "score": 0.5, "online": True}]})
    assert "Nega" in full and "No bot has joined" not in full


@pytest.mark.parametrize("size, header", [(5, b"\x81\x05"), (200, b"\x81\x7e\x00\xc8"),
                                          (70_000, b"\x81\x7f" + (70_000).to_bytes(8, "big"))])
def test_a_message_is_one_websocket_text_frame_for_every_receiver(size: int,
                                                                   header: bytes) -> None:
    text = "é" + "x" * (size - 2)  # two bytes of UTF-8 and the rest
    data = frame(text)
    assert data == header + text.encode("utf-8")


FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")


def test_one_think_and_judge_serves_the_ai_bots_and_the_console() -> None:
    """A thinker's answer is judged on the board it was asked about, which
    stays as it was; a move the judge refuses is the thinker's forfeit."""
    async def answers() -> list[Answer]:
        board = MatchConfig().new_board()
        got = []
        for name in ("fake_thinkers.ColumnZeroThinker", "fake_thinkers.OffBoardThinker",
                     "fake_thinkers.NoMoveThinker"):
            seat = SeatThinker(ThinkerPrototype(name, "", MatchConfig(), (FAKES,)),
                               in_process=True)
            got.append(await seat.answer(board))
            seat.close()
        assert board.move_count == 0
        return got
    zero, off, none = asyncio.run(answers())
    assert zero[:2] == (0, R) and not isinstance(zero, Forfeit)
    assert isinstance(off, Forfeit) and off.reason is ForfeitReason.INVALID_COLUMN
    assert isinstance(none, Forfeit) and none.reason is ForfeitReason.NO_MOVE
    assert answer_doc("g" * 12, 3, zero) == {"type": "move", "game": "g" * 12, "ply": 3,
                                             "col": 0, "shape": "round"}
    doc = answer_doc("g" * 12, 3, Forfeit(ForfeitReason.EXCEPTION, "x" * 5000))
    assert doc["reason"] == "exception" and len(doc["detail"]) == 2000
    assert decode_request(json.dumps(doc)) is not None  # the server reads what is sent


def test_docs_say_how_big_tokens_are_and_where_they_are_saved() -> None:
    """Issue 41, item 13: docs/server.md said 32 bytes in the data folder."""
    import base64
    from pathlib import Path

    from csl_game.server import new_token
    from csl_game.server.bot import _tokens_file
    from csl_game.services.userdata import user_dir

    docs = (Path(__file__).parent.parent / "docs" / "server.md").read_text(encoding="utf-8")
    size = len(base64.urlsafe_b64decode(new_token() + "=="))
    assert f"Tokens** are {size} random bytes" in docs
    assert _tokens_file().parent == user_dir()  # the config folder
    assert "saved in the owner's config folder (`server-tokens.json`" in docs
    assert "data folder" not in docs


def test_what_the_server_believes_of_a_request() -> None:
    """Issue 41, item 9, without sockets: cookies it issued, TLS at a proxy,
    the address a proxy says, and the names a browser's WebSocket may use."""
    from csl_game.server import trust
    key = trust.new_key()
    cookie = trust.new_session(key)
    assert trust.session_of(cookie, key) == cookie
    assert trust.session_of(cookie, trust.new_key()) == ""  # another server's
    assert trust.session_of("x" * 40, key) == ""  # a made-up one
    assert trust.came_over_tls(False, {"X-Forwarded-Proto": "https, http"})
    assert trust.came_over_tls(False, {"Forwarded": 'for=1.2.3.4;proto="https"'})
    assert not trust.came_over_tls(False, {"Forwarded": "for=1.2.3.4;proto=http"})
    assert trust.client_address("127.0.0.1", {"X-Forwarded-For": "6.6.6.6, 192.0.2.5"}) \
        == "192.0.2.5"
    assert trust.client_address("203.0.113.9", {"X-Forwarded-For": "192.0.2.5"}) \
        == "203.0.113.9"  # not through a proxy of ours: the header is the client's word
    assert trust.client_address("127.0.0.1", {"X-Forwarded-For": "nonsense"}) == "127.0.0.1"
    for host in ("127.0.0.1:8080", "[::1]:8080", "localhost:8080", "csl.example.org"):
        assert trust.origin_allowed(f"https://{host}", host, ["csl.example.org"]), host
    assert not trust.origin_allowed("http://evil.example:8080", "evil.example:8080", [])
    assert trust.origin_allowed("http://evil.example", "evil.example", [], through_proxy=True)
    assert not trust.origin_allowed("http://evil.example", "127.0.0.1:8080", [])
    assert trust.origin_allowed(None, "evil.example", [])  # no browser


def test_a_transport_is_taken_for_what_it_does_not_its_class() -> None:
    """The server wrote to a connection, and aborted a refused one, only if its
    transport was an `asyncio.Transport`: on another loop, nothing was sent."""
    from csl_game.server import web
    from csl_game.server.seats import Client, Transport
    from test_server_hub import Transport as OtherLoops  # (the methods the server uses, no more)
    transport = OtherLoops()
    assert not isinstance(transport, asyncio.Transport)
    assert isinstance(transport, Transport)  # what the WebSocket handler checks
    assert not isinstance(object(), Transport)
    client = Client("127.0.0.1", transport=transport, outbox_bytes=10)
    client.send_frame(b"12345")
    assert transport.frames == [b"12345"] and not transport.aborted
    client.send_frame(b"678901")  # more than the outbox: a reader too slow is dropped
    assert transport.aborted and client.closed
    refused = OtherLoops()
    web._abort(refused)  # type: ignore[arg-type]
    assert refused.aborted
    web._abort(object())  # type: ignore[arg-type]  # (one without `abort` is left be)


def test_the_loop_a_server_runs_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """uvloop where it is installed; on Windows, which it does not run on, the
    default loop, but a selector loop for a process on PostgreSQL: the default
    there (the proactor) has no `add_reader`, which the relay listens with, and
    psycopg's async connections refuse it, so such a process stopped at its start."""
    from csl_game.server import PostgresStore, server_loop
    sqlite = SqliteStore(tmp_path / "one.sqlite3")
    try:
        assert server_loop(sqlite, "win32") is None
    finally:
        sqlite.close()
    postgres = PostgresStore.__new__(PostgresStore)  # (no database: only its kind counts)
    assert server_loop(postgres, "win32") is asyncio.SelectorEventLoop
    with asyncio.Runner(loop_factory=server_loop(postgres, "win32")) as runner:
        assert isinstance(runner.get_loop(), asyncio.SelectorEventLoop)
    uvloop = pytest.importorskip("uvloop")
    for platform in ("linux", "darwin"):
        assert server_loop(postgres, platform) is uvloop.new_event_loop
    with asyncio.Runner(loop_factory=server_loop(postgres, "linux")) as runner:
        assert isinstance(runner.get_loop(), uvloop.Loop)
    monkeypatch.setitem(sys.modules, "uvloop", None)  # not installed: asyncio's own
    assert server_loop(postgres, "linux") is None
