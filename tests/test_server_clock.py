"""People's clocks, offers, takebacks, claims and rematches in a game's room on
the server, without sockets or sleeps: every time is made up and fed in."""

from __future__ import annotations

import json
from typing import Any

import pytest

from csl_game.engine import ForfeitReason
from csl_game.errors import ProtocolError
from csl_game.model.board import PColor, PShape, Winner
from csl_game.online.protocol import config_json
from csl_game.server.clock import TimeControl, clock_left, could_still_win
from csl_game.server.game import Rejected
from csl_game.server.messages import (
    Claim,
    Create,
    Offer,
    clock_of,
    decode_event,
    decode_request,
    game_state,
)
from csl_game.server.rematch import Rematches
from csl_game.server.room import Room, RoomStep, new_game
from csl_game.server.store import Finished, GameRow, SqliteStore, TakenBack
from csl_game.thinker.api import MatchConfig

pytestmark = pytest.mark.unit

R, S = PShape.ROUND, PShape.SQUARE
W, RED = PColor.WHITE, PColor.RED
ANN, BOB = "web:ann-session", "web:bob-session"
GAME = "game00000001"


def room(control: TimeControl | None = None, config: MatchConfig = MatchConfig(),
         seats: tuple[str, str] = (ANN, "")) -> Room[str]:
    game = new_game(GAME, config, list(seats), ["Ann", ""], 0.5, control=control)
    return Room(game, "friend", "code00000001", list(seats), 30.0, 1000.0, claim_s=15.0)


def started(control: TimeControl | None = None, config: MatchConfig = MatchConfig(),
            now: float = 0.0) -> tuple[Room[str], RoomStep[str]]:
    """Ann (White) made it, Bob took the free seat at `now`, Eve watches."""
    r = room(control, config)
    r.open("ann", W, now)
    step = r.sit("bob", BOB, "Bob", now)
    r.watch("eve", "", now)
    return r, step


def told(step: RoomStep[str], peer: str) -> list[tuple[str, dict[str, Any]]]:
    docs = [json.loads(text) for text in step.to(peer)]
    for text in step.to(peer):
        decode_event(text)  # every message is one the clients' parser takes
    return [(doc.pop("type"), doc) for doc in docs]


def last(step: RoomStep[str], peer: str, kind: str) -> dict[str, Any]:
    return [doc for k, doc in told(step, peer) if k == kind][-1]


# ------------------------------------------------------------------ clocks
def test_the_clocks_run_for_the_side_to_move_with_the_increment() -> None:
    r, step = started(TimeControl(10, 1), now=0.0)
    assert last(step, "ann", "game")["clock"] == {"white": 10000, "red": 10000}
    kind, doc = decode_event(step.to("ann")[-1])  # as the app and the bots read it
    assert game_state(doc).clock == (10000, 10000) and clock_of({"type": "played"}) is None
    assert step.wake == 10.0  # White's flag falls at 10 s unless she moves
    played = r.move("ann", 0, 3, R, 3.0)
    assert last(played, "eve", "played")["clock"] == {"white": 8000, "red": 10000}
    assert played.wake == 13.0  # now Red's
    back = r.watch("bob2", BOB, 5.5)  # Bob's page reloads: the clocks as they stand
    assert last(back, "bob2", "game")["clock"] == {"white": 8000, "red": 7500}
    r.move("bob2", 1, 3, S, 6.0)
    assert r.game.left(6.0) == (8.0, 8.0)
    assert r.wake(13.9).send == []
    flag = r.wake(14.0)  # White: 8 s from 6 s
    told_end = last(flag, "ann", "result")
    result = told_end["result"]
    assert (result["winner"], result["forfeit"]) == ("red", "timeout") and flag.done
    assert told_end["clock"] == {"white": 0, "red": 8000}  # the clocks as it ended
    assert isinstance(flag.store[-1], Finished)


def test_a_move_after_the_flag_fell_loses_on_time_even_before_the_wake() -> None:
    r, _ = started(TimeControl(5, 0), now=0.0)
    late = r.move("ann", 0, 3, R, 5.2)
    assert [k for k, _ in told(late, "bob")] == ["result"]
    assert r.game.ply == 0 and r.game.result is not None
    assert r.game.result.forfeit is ForfeitReason.TIMEOUT and r.game.result.winner is Winner.RED


def test_a_game_without_a_clock_sends_none_and_never_flags() -> None:
    r, step = started(None, now=0.0)
    assert "clock" not in last(step, "ann", "game") and step.wake is None
    played = r.move("ann", 0, 3, R, 10_000.0)
    assert "clock" not in last(played, "bob", "played") and r.game.result is None


def test_a_flag_draws_when_the_other_side_could_no_longer_win() -> None:
    """The rule chosen: a flag loses unless the opponent has no line left it
    could make (every corridor blocked for it), as FIDE's and lichess's."""
    one_row = MatchConfig(rows=1, cols=4, win_sequence=4, round_pieces=2, square_pieces=2)
    r, _ = started(TimeControl(10, 0), one_row, now=0.0)
    r.move("ann", 0, 0, R, 1.0)  # a white round piece: Red's only line is blocked
    assert not could_still_win(r.game.board, RED) and could_still_win(r.game.board, W)
    r.move("bob", 1, 1, S, 2.0)  # Red's square: White's line is blocked too
    assert not could_still_win(r.game.board, W)
    flag = r.wake(11.0)  # White (to move) runs out: Red could not win
    result = last(flag, "bob", "result")["result"]
    assert (result["winner"], result["forfeit"]) == ("draw", "timeout")
    assert "could no longer win" in result["detail"]


def test_red_running_out_loses_while_white_could_still_win() -> None:
    one_row = MatchConfig(rows=1, cols=4, win_sequence=4, round_pieces=2, square_pieces=2)
    r, _ = started(TimeControl(10, 0), one_row, now=0.0)
    r.move("ann", 0, 0, R, 1.0)
    flag = r.wake(11.0)
    assert last(flag, "ann", "result")["result"]["winner"] == "white"


def test_the_clocks_are_read_back_from_the_moves_after_a_restart() -> None:
    r, step = started(TimeControl(60, 2), now=0.0)
    (new,) = [w for w in step.store]
    assert new.row.settings["timecontrol"] == {"base": 60.0, "increment": 2.0}  # type: ignore[union-attr]
    r.move("ann", 0, 3, R, 10.0)
    r.move("bob", 1, 3, S, 15.0)
    row = GameRow(GAME, "friend", "Ann", "Bob",
                  {**config_json(MatchConfig()), "seats": [ANN, BOB], "code": "code00000001",
                   "timecontrol": {"base": 60, "increment": 2}},
                  r.game.moves_json(), "playing", None, 0.0)
    again: Room[str] = Room.from_row(row, 0.5, 30.0)
    again.resume(100.0)
    assert again.game.left(100.0) == (52.0, 57.0)  # the restart's downtime is not charged
    step = again.watch("ann", ANN, 101.0)  # her clock runs again once she is back
    assert last(step, "ann", "game")["clock"] == {"white": 52000, "red": 57000}
    assert again.game.left(103.0) == (50.0, 57.0)


def test_clock_left_and_the_time_control_parser() -> None:
    control = TimeControl(60, 1)
    assert clock_left(control, [5.0, 2.0, 7.0], 10.0, 13.0) == (50.0, 56.0)
    assert control.tc == "60+1" and TimeControl(0.5, 0.1).tc == "0.5+0.1"
    made = decode_request('{"type": "create", "opponent": "friend", "color": "white", '
                          '"clock": {"base": 60, "increment": 1}}')
    assert isinstance(made, Create) and made.clock == control
    for bad in ('{"base": 0, "increment": 1}', '{"base": 60}', '{"base": true, "increment": 0}',
                '{"base": 99999, "increment": 0}', '{"base": 60, "increment": -1}', '"3+2"'):
        with pytest.raises(ProtocolError, match="'clock'"):
            decode_request('{"type": "create", "opponent": "friend", "color": "white", '
                           f'"clock": {bad}}}')


# ------------------------------------------------------------------ offers
def test_a_draw_is_offered_then_accepted() -> None:
    r, _ = started()
    offered = r.offer("ann", "draw", 1.0)
    for peer in ("bob", "eve"):
        assert told(offered, peer) == [("offer", {"game": GAME, "what": "draw",
                                                  "color": "white"})]
    again = r.offer("ann", "draw", 1.5)  # offering twice is still one offer
    assert r.game.result is None and [k for k, _ in told(again, "bob")] == ["offer"]
    agreed = r.offer("bob", "draw", 2.0)
    result = last(agreed, "eve", "result")["result"]
    assert (result["winner"], result["forfeit"], result["detail"]) == \
        ("draw", None, "the players agreed a draw")
    assert agreed.done and isinstance(agreed.store[-1], Finished)


def test_an_offer_lapses_with_the_next_move() -> None:
    r, _ = started()
    r.move("ann", 0, 3, R, 1.0)
    r.offer("ann", "draw", 2.0)
    r.move("bob", 1, 3, S, 3.0)
    step = r.offer("bob", "draw", 4.0)  # Bob's own offer now, not an acceptance
    assert r.game.result is None and last(step, "ann", "offer")["color"] == "red"


def test_a_takeback_undoes_the_askers_move_and_the_reply() -> None:
    r, _ = started(TimeControl(60, 0))
    r.move("ann", 0, 3, R, 1.0)
    with pytest.raises(Rejected, match="no move of yours"):
        r.offer("bob", "takeback", 1.5)  # Red has not moved yet
    r.offer("ann", "takeback", 2.0)  # her move only: Red is to move
    taken = r.offer("bob", "takeback", 3.0)
    assert r.game.ply == 0 and r.game.board.move_count == 0
    assert taken.store == [TakenBack(GAME, 0)]
    for peer, color in (("ann", "white"), ("bob", "red"), ("eve", None)):
        state = last(taken, peer, "game")
        assert state["moves"] == [] and state["color"] == color
    r.move("ann", 0, 2, S, 4.0)  # the game goes on from there
    r.move("bob", 1, 2, S, 5.0)
    r.offer("ann", "takeback", 6.0)  # her turn: her move and Bob's reply go
    r.offer("bob", "takeback", 7.0)
    assert r.game.ply == 0


def test_offers_to_the_ai_or_a_bot_and_after_the_end_are_refused() -> None:
    for other in ("ai:medium", "bot:Nega"):
        r = room(seats=(ANN, other))
        r.open("ann", W, 0.0)
        with pytest.raises(Rejected, match="no person"):
            r.offer("ann", "draw", 1.0)
    r, _ = started()
    r.forfeit("ann", None, "", 1.0)
    with pytest.raises(Rejected, match="over"):
        r.offer("bob", "draw", 2.0)
    with pytest.raises(Rejected, match="no side"):
        started()[0].offer("eve", "draw", 1.0)


def test_a_takeback_is_stored_as_moves_deleted(tmp_path: Any) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3")
    r, step = started()
    writes = list(step.store)
    for ply, (peer, col) in enumerate((("ann", 3), ("bob", 3), ("ann", 4))):
        writes += r.move(peer, ply, col, R if ply % 2 == 0 else S, 1.0 + ply).store
    r.offer("ann", "takeback", 5.0)
    writes += r.offer("bob", "takeback", 6.0).store
    writes += r.move("ann", 2, 0, R, 7.0).store
    store.apply(writes)
    row = store.game(GAME)
    assert row is not None and [m["col"] for m in row.moves] == [3, 3, 0]
    store.close()


# ------------------------------------------------------------------ claims
def test_the_one_who_stayed_claims_the_win_once_the_countdown_ran_out() -> None:
    r, _ = started()
    gone = r.left("bob", 2.0)
    assert last(gone, "ann", "away") == {"game": GAME, "color": "red", "seconds": 30.0,
                                         "claim": 15.0}
    with pytest.raises(Rejected, match="for 7 s more"):
        r.claim("ann", 10.0)
    with pytest.raises(Rejected, match="no side"):
        r.claim("eve", 20.0)  # a watcher claims nothing
    claimed = r.claim("ann", 17.0)
    result = last(claimed, "eve", "result")["result"]
    assert (result["winner"], result["forfeit"]) == ("white", "disconnected")
    assert "claimed the win" in result["detail"] and claimed.done


def test_nobody_claims_against_a_player_who_is_here() -> None:
    r, _ = started()
    with pytest.raises(Rejected, match="Bob is here"):
        r.claim("ann", 100.0)


# ------------------------------------------------------------------ rematches
def test_a_rematch_needs_both_and_swaps_the_colours() -> None:
    desk: Rematches[str] = Rematches(keep_s=600)
    r, _ = started(TimeControl(180, 2))
    r.forfeit("bob", None, "", 5.0)
    desk.ended(r, 5.0)
    with pytest.raises(Rejected, match="no side"):
        desk.ask(GAME, "web:eve", "eve", 6.0)
    ended, color, agreed = desk.ask(GAME, ANN, "ann", 6.0)
    assert (color, agreed) == (W, False)
    ended, color, agreed = desk.ask(GAME, BOB, "bob", 7.0)
    assert (color, agreed) == (RED, True)
    assert ended.swapped() == ([BOB, ANN], ["Bob", "Ann"])
    assert ended.control == TimeControl(180, 2) and ended.players == ["ann", "bob"]
    with pytest.raises(Rejected, match="did not end"):  # played again: forgotten
        desk.ask(GAME, ANN, "ann", 8.0)


def test_the_ai_accepts_a_rematch_and_old_games_are_forgotten() -> None:
    desk: Rematches[str] = Rematches(keep_s=60, most=2)
    ai = room(seats=(ANN, "ai:easy"))
    ai.kind = "ai"
    ai.open("ann", W, 0.0)
    ai.forfeit("ann", None, "", 1.0)
    desk.ended(ai, 1.0)
    with pytest.raises(Rejected, match="all busy"):
        desk.ask(GAME, ANN, "ann", 2.0, ai_free=False)
    assert desk.ask(GAME, ANN, "ann", 2.0)[2] is True
    r, _ = started()
    r.forfeit("ann", None, "", 1.0)
    desk.ended(r, 1.0)
    with pytest.raises(Rejected, match="did not end"):
        desk.ask(GAME, ANN, "ann", 62.0)


def test_the_new_messages_parse() -> None:
    assert decode_request('{"type": "rematch", "game": "game00000001"}') == \
        Offer("rematch", GAME)
    assert decode_request('{"type": "takeback", "game": "game00000001"}') == \
        Offer("takeback", GAME)
    assert decode_request('{"type": "claim", "game": "game00000001"}') == Claim(GAME)
    with pytest.raises(ProtocolError, match="'bot'"):
        decode_request('{"type": "create", "opponent": "bot", "color": "red", "bot": "<b>"}')
    with pytest.raises(ProtocolError):
        decode_event('{"type": "offer", "game": "game00000001", "what": "tea", '
                     '"color": "red"}')
    with pytest.raises(ProtocolError):
        decode_event('{"type": "played", "game": "game00000001", "ply": 0, "col": 0, '
                     '"shape": "round", "ms": 1, "clock": {"white": -1, "red": 0}}')


def test_a_client_takes_a_draw_on_time_only_where_the_board_allows_it() -> None:
    """The app, match --connect and bots check a result against their own
    board (BotGame): a draw on time stands only where the side that ran out
    had an opponent who could no longer win; a draw agreed is one this side
    never offered (none of them offers draws), so it is refused."""
    from csl_game.online.protocol import result_json
    from csl_game.server.bot import BotError, BotGame
    from csl_game.server.messages import GameState

    one_row = MatchConfig(rows=1, cols=4, win_sequence=4, round_pieces=2, square_pieces=2)
    r, _ = started(TimeControl(10, 0), one_row)
    r.move("ann", 0, 0, R, 1.0)
    r.move("bob", 1, 1, S, 2.0)
    r.wake(20.0)
    assert r.game.result is not None
    drawn = result_json(r.game.result, one_row)
    moves = tuple(r.game.moves)
    BotGame(GameState(GAME, "", RED, "Ann", "Bob", one_row, moves)).check_result(drawn)
    one_move = GameState(GAME, "", RED, "Ann", "Bob", one_row, moves[:1])
    with pytest.raises(BotError, match="not the game played"):
        BotGame(one_move).check_result(drawn)
    # after White's first move, Red to move: White could still win, so no draw on time
    forged = {**drawn, "moves": drawn["moves"][:1]}
    with pytest.raises(BotError, match="could still win"):
        BotGame(GameState(GAME, "", W, "Ann", "Bob", one_row, moves[:1])).check_result(forged)
    agreed, _ = started()
    agreed.offer("ann", "draw", 1.0)
    agreed.offer("bob", "draw", 2.0)
    assert agreed.game.result is not None
    with pytest.raises(BotError, match="draw"):
        BotGame(GameState(GAME, "", RED, "Ann", "Bob", MatchConfig(), ())).check_result(
            result_json(agreed.game.result, MatchConfig()))
