"""The window's table of a server game believes a draw agreed, a takeback and a
rematch only when this side took part (issue 41; online/agreements.py): fed
the server's messages by a stand-in link, without sockets or a window."""

from __future__ import annotations

from typing import Any

import pytest

from csl_game.gui.server_table import ServerTable
from csl_game.model.board import PColor, PShape
from csl_game.online.protocol import config_json, result_json
from csl_game.server.game import ServerGame
from csl_game.server.messages import decode_event, encode
from csl_game.thinker.api import MatchConfig

CONFIG = MatchConfig()
GAME = "game0001"


class StandInLink:
    """What the table's link gives and takes: the server's messages as read, what is sent."""

    def __init__(self) -> None:
        self.inbox: list[tuple[str, dict[str, Any]]] = []
        self.sent: list[dict[str, Any]] = []
        self.cookie = "c"

    def say(self, text: str) -> None:
        self.inbox.append(decode_event(text))

    def poll(self) -> list[tuple[str, dict[str, Any]]]:
        got, self.inbox = self.inbox, []
        return got

    def send(self, doc: dict[str, Any]) -> None:
        self.sent.append(doc)

    def close(self) -> None:
        pass


def state(moves: list[tuple[int, PShape]], game: str = GAME, color: str = "white",
          names: tuple[str, str] = ("Alice", "Bob")) -> str:
    return encode("game", game=game, code="code0001", color=color, white=names[0],
                  red=names[1], settings=config_json(CONFIG),
                  moves=[{"col": c, "shape": s.name.lower(), "ms": 5.0} for c, s in moves],
                  kind="open")


def seated(moves: list[tuple[int, PShape]] = ()) -> tuple[ServerTable, StandInLink]:  # type: ignore[assignment]
    link = StandInLink()
    table = ServerTable("http://127.0.0.1:1", "Alice", None,
                        make=lambda *_: link)  # type: ignore[arg-type,return-value]
    link.say(state(list(moves)))
    table.poll()
    assert table.ready and table.local is PColor.WHITE
    return table, link


def agreed_draw(moves: list[tuple[int, PShape]]) -> str:
    g = ServerGame(GAME, CONFIG, ["Alice", "Bob"], (False, False))
    for ply, (col, shape) in enumerate(moves):
        g.play(g.to_move, ply, col, shape, 0.0)
    g.agree_draw()
    assert g.result is not None
    return encode("result", game=GAME, result=result_json(g.result, CONFIG))


MOVES = [(3, PShape.ROUND), (4, PShape.SQUARE)]


def test_a_draw_agreed_that_this_side_never_offered_fails_the_game() -> None:
    table, link = seated(MOVES)
    link.say(agreed_draw(MOVES))
    table.poll()
    assert table.result is None
    assert table.failed is not None and "neither offered nor accepted" in table.failed


def test_a_draw_agreed_after_this_side_offered_it_ends_the_game() -> None:
    table, link = seated(MOVES)
    table.offer("draw")
    assert link.sent[-1] == {"type": "draw", "game": GAME}
    link.say(agreed_draw(MOVES))
    table.poll()
    assert table.failed is None and table.result is not None


def test_moves_gone_with_no_takeback_asked_fail_the_game() -> None:
    table, link = seated(MOVES)
    link.say(state(MOVES[:1]))
    table.poll()
    assert table.failed is not None and "no takeback asked" in table.failed


@pytest.mark.parametrize(("kept", "fine"), [(0, True), (1, False)])
def test_a_takeback_asked_here_goes_back_exactly_its_moves(kept: int, fine: bool) -> None:
    table, link = seated(MOVES)  # White to move: its ask takes back its move and the reply
    table.offer("takeback")
    link.say(encode("offer", game=GAME, what="takeback", color="white"))
    link.say(state(MOVES[:kept]))
    table.poll()
    assert (table.failed is None) is fine, table.failed
    if fine:
        assert table.board.move_count == 0 and table.offers == {}


def test_another_game_is_a_rematch_only_when_asked_and_with_the_colours_swapped() -> None:
    for asked, swapped, fine in ((False, True, False), (True, False, False),
                                 (True, True, True)):
        table, link = seated(MOVES)
        link.say(agreed_draw(MOVES))
        table.offer("draw")  # (said before the result is read: it is believed)
        table.poll()
        if asked:
            table.offer("rematch")
        link.say(state([], "game0002", "red" if swapped else "white",
                       ("Bob", "Alice") if swapped else ("Alice", "Bob")))
        table.poll()
        assert (table.failed is None) is fine, (asked, swapped, table.failed)
        if fine:
            assert table.local is PColor.RED and table.result is None and table.games == 2
