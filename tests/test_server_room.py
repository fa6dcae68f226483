"""A game's room on the server without sockets or sleeps: seats, watchers,
reconnects, the clocks of bots and people, the server's AI, and what is told
and stored, on a made-up clock."""

from __future__ import annotations

import json
from typing import Any

import pytest

from csl_game.engine import Forfeit, ForfeitReason
from csl_game.model.board import PColor, PShape
from csl_game.online.protocol import config_json
from csl_game.server.game import Rejected
from csl_game.server.lobby import lobby_lists
from csl_game.server.room import Room, RoomStep, new_game
from csl_game.server.store import Dropped, Finished, GameRow, Moved, NewGame
from csl_game.thinker.api import MatchConfig

pytestmark = pytest.mark.unit

R, S = PShape.ROUND, PShape.SQUARE
W, RED = PColor.WHITE, PColor.RED
ANN, BOB = "web:ann-session", "web:bob-session"
RECONNECT = 30.0
CONFIG = MatchConfig(time_limit_ms=100)  # a bot's move: 0.1 s, the margin and 0.5 s grace


def room(seats: list[str], names: list[str], kind: str = "friend",
         moves: list[tuple[int, PShape, float]] | None = None) -> Room[str]:
    game = new_game("game00000001", CONFIG, seats, names, 0.5, moves)
    return Room(game, kind, "code00000001", seats, RECONNECT, 1000.0)


def told(step: RoomStep[str], peer: str) -> list[tuple[str, dict[str, Any]]]:
    docs = [json.loads(text) for text in step.to(peer)]
    return [(doc.pop("type"), doc) for doc in docs]


def kinds(step: RoomStep[str], peer: str) -> list[str]:
    return [kind for kind, _ in told(step, peer)]


def friend_game(now: float = 0.0) -> Room[str]:
    """Ann (White) made it, Bob took the free seat, Eve watches."""
    r = room([ANN, ""], ["Ann", ""])
    r.open("ann", W, now)
    r.sit("bob", BOB, "Bob", now)
    r.watch("eve", "", now)
    return r


def test_a_game_is_made_joined_and_watched() -> None:
    r = room([ANN, ""], ["Ann", ""])
    made = r.open("ann", W, 0.0)
    assert made.store == [] and made.lobby  # stored once joined (issue 41, item 11)
    (kind, state), = told(made, "ann")
    assert kind == "game" and state["color"] == "white" and state["code"] == "code00000001"
    assert made.wake is None and made.think is None and made.entered == ["ann"]
    joined = r.sit("bob", BOB, "Bob", 1.0)
    (new,), = [joined.store]
    assert isinstance(new, NewGame) and (new.row.white, new.row.red) == ("Ann", "Bob")
    assert new.row.settings["seats"] == [ANN, BOB] and new.row.state == "playing"
    assert kinds(joined, "ann") == ["game"] and told(joined, "bob")[0][1]["color"] == "red"
    assert joined.lobby and r.started
    watched = r.watch("eve", "", 2.0)
    (kind, state), = told(watched, "eve")
    assert state["color"] is None and state["code"] == ""  # no code to watchers
    late = r.sit("cid", "web:cid-session", "Cid", 3.0)  # a link followed late: watches
    assert told(late, "cid")[0][1]["color"] is None and r.seats == [ANN, BOB]


def test_a_move_is_told_once_to_everyone_and_stored_as_one_row() -> None:
    r = friend_game()
    step = r.move("ann", 0, 3, R, 5.0)
    (peers, text), = step.send
    assert set(peers) == {"ann", "bob", "eve"}  # one message, its receivers
    assert json.loads(text) == {"type": "played", "game": "game00000001", "ply": 0, "col": 3,
                                "shape": "round", "ms": 5000.0, "watchers": 1}
    assert step.store == [Moved("game00000001", 0, 3, "round", 5000.0)]
    second = r.move("bob", 1, 3, S, 6.0)
    assert second.store == [Moved("game00000001", 1, 3, "square", 1000.0)]


def test_moves_out_of_turn_stale_or_by_a_watcher_are_refused_and_the_game_goes_on() -> None:
    r = friend_game()
    with pytest.raises(Rejected, match="not red's move 0"):
        r.move("bob", 0, 3, R, 1.0)
    r.move("ann", 0, 3, R, 1.0)
    with pytest.raises(Rejected, match="not white's move 0"):
        r.move("ann", 0, 3, R, 1.0)
    with pytest.raises(Rejected, match="no side"):
        r.move("eve", 1, 3, R, 1.0)
    waiting = room([ANN, ""], ["Ann", ""])
    waiting.open("ann", W, 0.0)
    with pytest.raises(Rejected, match="waits for its second player"):
        waiting.move("ann", 0, 3, R, 1.0)
    assert r.game.result is None and r.game.ply == 1


def test_people_are_not_timed_and_need_no_waking() -> None:
    r = friend_game()
    assert r.move("ann", 0, 3, R, 1.0).wake is None
    later = r.wake(1_000_000.0)
    assert not later.send and not later.done and r.game.result is None
    assert not r.move("bob", 1, 3, S, 1_000_000.0).done


def test_a_bot_is_timed_on_the_wall_clock_and_woken_when_its_time_is_up() -> None:
    r = room(["bot:Alpha", "bot:Beta"], ["Alpha", "Beta"], "ladder")
    opened = r.open(None, W, 10.0)
    r.attach("alpha", "bot:Alpha", 10.0)
    r.attach("beta", "bot:Beta", 10.0)
    limit = r.game.limit_s()
    assert opened.wake == pytest.approx(10.0 + limit)
    moved = r.move("alpha", 0, 0, R, 10.2)
    assert moved.wake == pytest.approx(10.2 + limit)
    early = r.wake(10.0 + limit)  # the timer of the first move rings: not due yet
    assert not early.send and early.wake == pytest.approx(10.2 + limit)
    late = r.wake(10.2 + limit + 0.01)
    assert late.done and late.wake is None and isinstance(late.store[-1], Finished)
    (kind, doc), = told(late, "alpha")
    assert kind == "result" and doc["result"]["forfeit"] == "timeout"
    assert doc["result"]["winner"] == "white"


def test_a_bot_move_that_comes_late_loses_and_is_not_stored_as_played() -> None:
    r = room(["bot:Alpha", "bot:Beta"], ["Alpha", "Beta"], "ladder")
    r.open(None, W, 0.0)
    r.attach("alpha", "bot:Alpha", 0.0)
    step = r.move("alpha", 0, 0, R, r.game.limit_s() + 1)
    assert step.done and [type(w) for w in step.store] == [Finished]
    assert kinds(step, "alpha") == ["result"]


def test_a_player_who_leaves_has_the_reconnect_time_to_come_back() -> None:
    r = friend_game()
    r.move("ann", 0, 3, R, 1.0)
    gone = r.left("bob", 2.0)
    assert gone.wake == 2.0 + RECONNECT
    assert not r.wake(2.0 + RECONNECT / 2).send
    back = r.attach("bob2", BOB, 20.0)
    (kind, state), = told(back, "bob2")
    assert state["color"] == "red" and len(state["moves"]) == 1 and back.wake is None
    assert back.entered == ["bob2"]
    r.left("bob2", 40.0)
    assert not r.wake(40.0 + RECONNECT).done  # not past it yet
    ended = r.wake(40.0 + RECONNECT + 0.5)
    assert ended.done and set(ended.send[0][0]) == {"ann", "eve"}
    doc = told(ended, "ann")[0][1]["result"]
    assert doc["forfeit"] == "disconnected" and doc["winner"] == "white"


def test_a_game_its_maker_left_before_anyone_joined_is_dropped() -> None:
    r = room([ANN, ""], ["Ann", ""], "open")
    r.open("ann", W, 0.0)
    assert r.left("ann", 1.0).wake == 1.0 + RECONNECT
    dropped = r.wake(2.0 + RECONNECT)
    assert dropped.done and dropped.store == [] and dropped.lobby  # it never was stored


def test_a_game_nobody_joined_never_reaches_the_database() -> None:
    """Issue 41, item 11: unjoined games were stored at once and kept for good."""
    for kind in ("open", "friend"):
        r = room([ANN, ""], ["Ann", ""], kind)
        steps = [r.open("ann", W, 0.0), r.watch("eve", "", 1.0), r.left("ann", 2.0),
                 r.wake(3.0 + RECONNECT)]
        assert r.done and [w for step in steps for w in step.store] == []
    ai = room(["ai:easy", ANN], ["AI Easy", "Ann"], "ai")  # an AI game begins at once
    assert [type(w) for w in ai.open("ann", RED, 0.0).store] == [NewGame]


def test_the_maker_cancels_a_waiting_game_from_anywhere() -> None:
    """Issue 41, item 1: nothing cancelled a waiting challenge."""
    r = room([ANN, ""], ["Ann", ""], "open")
    r.open("ann", W, 0.0)
    r.watch("eve", "", 1.0)
    with pytest.raises(Rejected, match="no side"):
        r.cancel("eve", "web:eve-session", 2.0)
    step = r.cancel("ann-lobby", ANN, 2.0)  # her lobby's connection, not the game's
    assert step.done and step.lobby and step.store == []
    for peer in ("ann", "eve"):
        (kind, doc), = told(step, peer)
        assert kind == "aborted" and doc["reason"] == "its maker cancelled it"
    started = friend_game()
    with pytest.raises(Rejected, match="resign it instead"):
        started.cancel("ann", ANN, 3.0)


def test_the_others_learn_at_once_that_a_player_left_and_came_back() -> None:
    """Issue 41, item 4: the one who stayed saw nothing for 30 s."""
    r = friend_game()
    gone = r.left("bob", 2.0)
    for peer in ("ann", "eve"):
        assert told(gone, peer) == [("away", {"game": "game00000001", "color": "red",
                                              "seconds": RECONNECT, "claim": 15.0})]
    late_watcher = r.watch("cid", "", 12.0)  # who comes later learns it too, with less time
    assert told(late_watcher, "cid")[-1] == ("away", {"game": "game00000001", "color": "red",
                                                     "seconds": RECONNECT - 10, "claim": 5.0})
    back = r.watch("bob2", BOB, 20.0)
    assert told(back, "ann") == [("away", {"game": "game00000001", "color": "red",
                                          "seconds": None})]
    assert kinds(back, "bob2") == ["game"]
    r.left("ann", 21.0)
    ann_back = r.watch("ann2", ANN, 22.0)
    assert kinds(ann_back, "ann2") == ["game"]  # Bob is here: nothing more to say


def test_a_game_both_players_left_is_aborted_and_nobody_wins() -> None:
    """Issue 41, item 5: after a restart with both bots offline, White was
    forfeited and Red, as absent, won."""
    row = GameRow("game00000003", "ladder", "Alpha", "Beta",
                  {**config_json(CONFIG), "seats": ["bot:Alpha", "bot:Beta"],
                   "code": "code00000003"}, [{"col": 3, "shape": "round", "ms": 50.0}],
                  "playing", None, 5.0)
    r: Room[str] = Room.from_row(row, 0.5, RECONNECT)
    assert r.resume(100.0).wake == 100.0 + RECONNECT
    r.watch("eve", "", 101.0)
    step = r.wake(100.0 + RECONNECT + 0.1)
    assert step.done and r.game.result is None
    assert step.store == [Dropped("game00000003")]  # stored, so marked; no Finished
    assert kinds(step, "eve") == ["aborted"]
    people = GameRow("game00000004", "friend", "Ann", "Bob",
                     {**config_json(CONFIG), "seats": [ANN, BOB], "code": "code00000004"},
                     [], "playing", None, 5.0)
    one_back: Room[str] = Room.from_row(people, 0.5, RECONNECT)  # one came back:
    one_back.resume(100.0)                                      # the other forfeits
    one_back.attach("bob", BOB, 101.0)
    ended = one_back.wake(100.0 + RECONNECT + 0.1)
    result = told(ended, "bob")[0][1]["result"]
    assert ended.done and (result["winner"], result["forfeit"]) == ("red", "disconnected")


def test_watching_a_game_one_plays_gives_the_seat() -> None:
    r = friend_game()
    step = r.watch("ann2", ANN, 3.0)
    assert told(step, "ann2")[0][1]["color"] == "white" and r.players[W] == "ann2"
    assert "ann2" not in r.watchers


def test_resigning_and_forfeiting_end_the_game_for_everyone() -> None:
    r = friend_game()
    step = r.forfeit("bob", None, "", 1.0)
    assert step.done and {kind for _, text in step.send for kind in [json.loads(text)["type"]]} \
        == {"result"}
    doc = told(step, "eve")[0][1]["result"]
    assert doc["winner"] == "white" and doc["resigned"] is True
    with pytest.raises(Rejected):
        room([ANN, ""], ["Ann", ""]).forfeit("ann", ForfeitReason.EXCEPTION, "x", 0.0)
    other = friend_game()
    failed = other.forfeit("ann", ForfeitReason.EXCEPTION, "it raised", 1.0)
    assert told(failed, "bob")[0][1]["result"]["forfeit"] == "exception"


def test_the_servers_ai_is_asked_once_and_its_answer_played() -> None:
    r = room(["ai:easy", ANN], ["AI Easy", "Ann"], "ai")
    opened = r.open("ann", RED, 0.0)
    assert opened.think == 0 and opened.wake is None  # the AI is timed by its runner
    assert r.wake(100.0).think is None  # asked already
    played = r.ai_answer(0, (3, S, 0.25), 100.0)
    assert told(played, "ann")[0][1] == {"game": "game00000001", "ply": 0, "col": 3,
                                         "shape": "square", "ms": 250.0, "watchers": 0}
    assert played.think is None and played.store == [Moved("game00000001", 0, 3, "square",
                                                           250.0)]
    assert not r.ai_answer(0, (4, S, 0.1), 101.0).send  # an answer the game moved past
    again = r.move("ann", 1, 3, R, 102.0)
    assert again.think == 2
    lost = r.ai_answer(2, Forfeit(ForfeitReason.TIMEOUT, "too slow"), 103.0)
    assert lost.done and told(lost, "ann")[0][1]["result"]["winner"] == "red"


def test_a_game_read_back_after_a_restart_waits_for_its_players() -> None:
    r = room([ANN, BOB], ["Ann", "Bob"], moves=[(3, R, 0.5), (3, S, 0.25)])
    step = r.resume(50.0)
    assert step.wake == 50.0 + RECONNECT and not step.send and r.game.ply == 2
    back = r.attach("ann", ANN, 51.0)
    assert len(told(back, "ann")[0][1]["moves"]) == 2
    assert r.move("ann", 2, 0, R, 52.0).store == [Moved("game00000001", 2, 0, "round",
                                                        1000.0)]
    ai = room(["ai:easy", BOB], ["AI Easy", "Bob"], "ai", moves=[(3, R, 0.5), (3, S, 0.25)])
    assert ai.resume(0.0).think == 2


def test_a_room_is_read_back_from_its_row_and_the_lobby_lists_rooms() -> None:
    row = GameRow("game00000002", "open", "Ann", "Bob",
                  {**config_json(CONFIG), "seats": [ANN, BOB], "code": "code00000002"},
                  [{"col": 3, "shape": "round", "ms": 500.0}], "playing", None, 5.0)
    r: Room[str] = Room.from_row(row, 0.5, RECONNECT)
    assert (r.code, r.seats, r.game.ply, r.game.config, r.created) == \
        ("code00000002", [ANN, BOB], 1, CONFIG, 5.0)
    assert r.game.moves == [(3, R, 0.5)] and r.game.timed == (False, False)
    waiting = room([ANN, ""], ["Ann", ""], "open")
    friend = room([BOB, ""], ["Bob", ""], "friend")  # a friend's game is not in the lobby
    lists = lobby_lists([r, waiting, friend])
    assert lists["games"] == [{"game": "game00000002", "white": "Ann", "red": "Bob", "ply": 1,
                               "kind": "open", "watchers": 0}]
    assert r.watch("eve", "", 6.0).lobby and r.watch("cid", "", 6.0).lobby
    assert lobby_lists([r])["games"][0]["watchers"] == 2  # a game shows how many watch it
    assert r.left("eve", 7.0).lobby and lobby_lists([r])["games"][0]["watchers"] == 1
    assert lists["challenges"] == [{"game": "game00000001", "code": "code00000001",
                                    "name": "Ann", "free": "red", "clock": None,
                                    "rated": False}]
    assert lobby_lists([waiting] * 5, most=2)["challenges"] == lists["challenges"] * 2


def test_a_watcher_who_takes_the_free_seat_is_told_the_game_as_its_player_only() -> None:
    """A link's page watches first, then takes the seat under the name typed
    there (issue 41, item 2): it must not be told the game again as a watcher."""
    r = room([ANN, ""], ["Ann", ""], "friend")
    r.open("ann", W, 0.0)
    r.watch("bob", "", 1.0)
    step = r.sit("bob", BOB, "Bob", 2.0)
    assert [doc["color"] for kind, doc in told(step, "bob")] == ["red"]
    assert "bob" not in r.watchers and r.game.names == ["Ann", "Bob"]


# ------------------------------------------------------------------ declining (issue 41)
def people_game() -> Room[str]:
    """Ann (White) and Bob (Red), two people; Eve watches."""
    r = friend_game()
    r.move("ann", 0, 3, R, 1.0)
    r.move("bob", 1, 3, S, 2.0)
    return r


@pytest.mark.parametrize("what", ["draw", "takeback"])
def test_an_offer_declined_stands_no_more_and_the_offerer_is_told(what: str) -> None:
    r = people_game()
    r.offer("ann", what, 3.0)
    declined = r.decline("bob", what, 4.0)
    for peer in ("ann", "bob", "eve"):  # the offerer first of all, and the watchers
        assert told(declined, peer) == [("declined", {"game": "game00000001", "what": what,
                                                      "color": "red"})]
    assert declined.store == [] and not declined.done
    assert r.offers.standing == {}
    again = r.offer("bob", what, 5.0)  # Bob's word is his own offer now, no acceptance
    assert kinds(again, "ann") == ["offer"] and r.game.result is None and r.game.ply == 2
    r.decline("ann", what, 5.5)
    with pytest.raises(Rejected, match="nothing to decline"):
        r.decline("ann", what, 5.6)  # declined once, it is gone
    with pytest.raises(Rejected, match="Bob declined it: ask again after the next move"):
        r.offer("ann", what, 5.7)  # no asking again and again
    r.move("ann", 2, 2, R, 6.0)
    r.offer("ann", what, 6.5)  # a move later Ann asks anew, and this time Bob accepts
    r.offer("bob", what, 7.0)
    assert (r.game.result is not None) if what == "draw" else r.game.ply == 2


def test_only_the_other_sides_offer_is_declined_and_only_by_a_player() -> None:
    r = people_game()
    with pytest.raises(Rejected, match="Bob does not ask for a draw"):
        r.decline("ann", "draw", 3.0)  # nothing offered
    r.offer("ann", "draw", 3.0)
    with pytest.raises(Rejected, match="Bob does not ask for a draw"):
        r.decline("ann", "draw", 3.5)  # her own offer is no offer to her
    with pytest.raises(Rejected, match="Ann does not ask to take back a move"):
        r.decline("bob", "takeback", 3.5)  # a draw offered, no takeback
    with pytest.raises(Rejected, match="no side"):
        r.decline("eve", "draw", 3.5)  # a watcher declines nothing
    assert r.offers.standing == {"draw": W}
    r.move("ann", 2, 2, R, 4.0)  # an offer lapses with the next move: nothing to decline
    with pytest.raises(Rejected, match="nothing to decline"):
        r.decline("bob", "draw", 5.0)
    r.offer("bob", "draw", 5.0)
    r.forfeit("ann", None, "", 6.0)
    with pytest.raises(Rejected, match="over"):
        r.decline("ann", "draw", 7.0)


def test_a_rematch_asked_is_declined_and_may_be_asked_again() -> None:
    from csl_game.server.rematch import Rematches

    desk: Rematches[str] = Rematches(keep_s=600)
    r = people_game()
    r.forfeit("bob", None, "", 3.0)
    desk.ended(r, 3.0)
    with pytest.raises(Rejected, match="Ann did not ask for a rematch"):
        desk.decline("game00000001", BOB, "bob", 4.0)
    desk.ask("game00000001", ANN, "ann", 4.0)
    with pytest.raises(Rejected, match="no side"):
        desk.decline("game00000001", "web:eve", "eve", 4.5)
    ended, color = desk.decline("game00000001", BOB, "bob", 5.0)
    assert color is RED and ended.asked == set() and ended.players == ["ann", "bob"]
    _, _, agreed = desk.ask("game00000001", BOB, "bob", 6.0)  # his ask: no acceptance now
    assert not agreed
    _, _, agreed = desk.ask("game00000001", ANN, "ann", 7.0)
    assert agreed


def test_a_decline_is_a_message_of_the_protocol() -> None:
    from csl_game.errors import ProtocolError
    from csl_game.server.messages import Offer, decode_event, decode_request

    for what in ("draw", "takeback", "rematch"):
        said = decode_request(f'{{"type": "{what}", "game": "game00000001", "decline": true}}')
        assert said == Offer(what, "game00000001", decline=True)
        plain = decode_request(f'{{"type": "{what}", "game": "game00000001"}}')
        assert plain == Offer(what, "game00000001") and not plain.decline
    with pytest.raises(ProtocolError, match="'decline' must be true or false"):
        decode_request('{"type": "draw", "game": "game00000001", "decline": "yes"}')
    with pytest.raises(ProtocolError):
        decode_request('{"type": "claim", "game": "game00000001", "decline": true}')
    assert decode_event('{"type": "declined", "game": "game00000001", "what": "draw", '
                        '"color": "red"}')[0] == "declined"
    with pytest.raises(ProtocolError):
        decode_event('{"type": "declined", "game": "game00000001", "what": "tea", '
                     '"color": "red"}')


def test_the_game_message_carries_its_time_control() -> None:
    """A game with clocks tells its time control with its state (so a client
    shows '3+2' for a game in progress); one without tells none."""
    from csl_game.server.clock import TimeControl
    from csl_game.server.messages import decode_event, game_state

    seats = [ANN, ""]
    game = new_game("game00000001", CONFIG, seats, ["Ann", ""], 0.5, control=TimeControl(180, 2))
    r: Room[str] = Room(game, "friend", "code00000001", seats, RECONNECT, 1000.0)
    r.open("ann", W, 0.0)
    r.sit("bob", BOB, "Bob", 0.0)
    r.move("ann", 0, 3, R, 10.0)
    back = r.watch("bob2", BOB, 25.0)  # Bob's page reloads mid-game
    text, = back.to("bob2")
    kind, doc = decode_event(text)
    assert doc["timecontrol"] == {"base": 180, "increment": 2}
    state = game_state(doc)
    assert state.control == TimeControl(180, 2) and state.clock == (172000, 165000)
    assert "timecontrol" not in told(friend_game().watch("cid", "", 1.0), "cid")[0][1]


def test_a_game_message_with_a_bad_time_control_is_refused() -> None:
    from csl_game.errors import ProtocolError
    from csl_game.server.messages import decode_event

    r = friend_game()
    doc = json.loads(r.state(None, 0.0))
    for bad in ({"base": 0, "increment": 2}, {"base": 60}, "3+2"):
        with pytest.raises(ProtocolError, match="'timecontrol'"):
            decode_event(json.dumps({**doc, "timecontrol": bad}))
