"""Play online -> On a server, in the window (real events under the dummy
driver) against a game server on loopback: one window opens a challenge in
the server's lobby, a second takes its seat with the join code, and the two
play a whole game to the same result, judged by the server; a bad server
address is said on the picker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from csl_game.gui.app import App
from csl_game.gui.online_table import Action
from csl_game.gui.scenes.online import OnlineScene
from csl_game.gui.scenes.online_board import OnlineBoardScene
from csl_game.gui.scenes.online_wait import OnlineWaitScene
from csl_game.gui.scenes.replay import ReplayScene
from csl_game.gui.server_table import ServerTable
from csl_game.model.board import PColor
from csl_game.server import ServerOptions
from gui_events import Apps, click, key
from server_thread import ServerThread
from test_gui_online import (
    board,
    moves_of,
    on_board,
    picker,
    play_click,
    play_key,
    steps,
    type_text,
    window,
)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    with ServerThread(tmp_path, ServerOptions()) as s:
        yield s


def on_a_server(app: App, url: str, name: str, code: str = "", clock: str = "") -> ServerTable:
    """Play online, On a server: the address, a code or none, the name, the clock
    typed (none: no clock), Play; the table of the game made or joined."""
    scene = picker(app)
    click(app, scene.widgets["mode.server"])
    scene = app.scenes.current  # type: ignore[assignment]
    assert isinstance(scene, OnlineScene) and scene.mode == "server"
    screen = pygame.Rect(0, 0, 800, 600)  # the window's size (test_gui_online.window)
    rects = [pygame.Rect(w.rect) for w in scene.widgets.values()]
    assert all(screen.contains(r) for r in rects), "the server's rows fit the window"
    assert not any(r.colliderect(o) for i, r in enumerate(rects) for o in rects[i + 1:])
    typed = [("server", url), ("server_code", code), ("name", name)]
    for field, text in typed + ([("clock", clock)] if clock else []):
        click(app, scene.widgets[field], frames=1)
        type_text(app, text)
    click(app, scene.widgets["go"])
    shown = app.scenes.current  # waiting, or already on the board on a quick server
    assert isinstance(shown, OnlineWaitScene | OnlineBoardScene), getattr(shown, "error", "")
    assert isinstance(shown.table, ServerTable)
    return shown.table


def test_two_windows_play_a_game_on_a_server(apps: Apps, server: ServerThread) -> None:
    a = window(apps)
    seeking = on_a_server(a, server.url, "Alice")
    steps([a], lambda: seeking.game is not None)  # the challenge is in the lobby
    assert seeking.game is not None
    code = seeking.game.state.code
    assert [c["code"] for c in server.hub.lobby()["challenges"]] == [code]
    b = window(apps)
    on_a_server(b, server.url, "Bob", code.replace("-", " ").lower())  # as Alice read it out
    steps([a, b], on_board(a, b))
    ta, tb = board(a).table, board(b).table
    assert {ta.local, tb.local} == {PColor.WHITE, PColor.RED}
    assert sorted(ta.name(c) for c in PColor) == ["Alice", "Bob"]
    assert ta.kind(tb.local) == tb.kind(ta.local) == "Opponent", "a stranger, not a friend"
    opening = next(line for line in a.log.lines if line.startswith("The server's game: "))
    assert "6 x 7 board" in opening and "AIs" not in opening, opening  # people: no AI's limit
    white, red = (a, b) if ta.local is PColor.WHITE else (b, a)
    for ply, col in enumerate([3, 3, 4, 4, 5, 5, 6]):
        mover = white if ply % 2 == 0 else red
        steps([a, b], lambda m=mover: board(m).input_enabled)  # type: ignore[misc]
        (play_key if mover is white else play_click)(mover, col)
        steps([a, b], lambda p=ply: moves_of(a) == moves_of(b) == p + 1)  # type: ignore[misc]
    steps([a, b], lambda: board(a).banner is not None and board(b).banner is not None)
    assert board(white).banner[0] == "You win!"  # type: ignore[index]
    assert board(red).banner[0] == "You lose"  # type: ignore[index]
    ra, rb = ta.result, tb.result
    assert ra is not None and rb is not None and ra.winner == rb.winner
    assert [m.move for m in ra.moves] == [m.move for m in rb.moves]


def first_challenge(apps: Apps, a: App, url: str) -> tuple[App, Any]:
    """A second window that looks at the server's open challenges (those `a`
    made), and the button of the first it lists."""
    b = window(apps)
    scene = picker(b)
    click(b, scene.widgets["mode.server"])
    scene = b.scenes.current  # type: ignore[assignment]
    assert isinstance(scene, OnlineScene)
    click(b, scene.widgets["server"], frames=1)
    type_text(b, url)
    click(b, scene.widgets["challenges.look"])
    steps([a, b], lambda: "challenges.0" in b.scenes.current.widgets)  # type: ignore[union-attr]
    return b, b.scenes.current.widgets["challenges.0"]  # type: ignore[union-attr]


def test_a_challenge_is_accepted_from_the_lobby_in_the_window(apps: Apps,
                                                              server: ServerThread) -> None:
    a = window(apps)
    seeking = on_a_server(a, server.url, "Alice")
    steps([a], lambda: seeking.game is not None)
    b, offered = first_challenge(apps, a, server.url)
    assert "Alice" in offered.text
    click(b, offered)
    assert isinstance(b.scenes.current, OnlineWaitScene | OnlineBoardScene), \
        getattr(b.scenes.current, "error", "")
    steps([a, b], on_board(a, b))
    assert {board(a).table.local, board(b).table.local} == {PColor.WHITE, PColor.RED}


def test_a_bad_server_address_is_said_on_the_picker(apps: Apps) -> None:
    app = window(apps)
    scene = picker(app)
    click(app, scene.widgets["mode.server"])
    scene = app.scenes.current  # type: ignore[assignment]
    assert isinstance(scene, OnlineScene)
    scene.values["server"] = "csl.example.org"
    scene.go()
    assert "http://HOST:PORT" in scene.error


def test_the_lobby_look_takes_only_well_formed_challenges() -> None:
    from csl_game.gui.lobby_look import challenges_of

    doc = {"challenges": [
        {"name": "Alice", "free": "red", "code": "abcdefgh12"},
        {"name": "Bad\x1b[2J", "free": "red", "code": "abcdefgh12"},
        {"name": "Eve", "free": "blue", "code": "abcdefgh12"},
        {"name": "Mal", "free": "white", "code": "../../etc/passwd"},
        "nonsense", {"name": "Bob", "free": "white", "code": "ZZZZZZZZ"},
        {"name": "C", "free": "white", "code": "CCCCCCCC"},
        {"name": "D", "free": "white", "code": "DDDDDDDD"}]}
    assert [c.name for c in challenges_of(doc)] == ["Alice", "Bob", "C"]  # three fit
    assert challenges_of([1, 2]) == [] and challenges_of({"challenges": 5}) == []


def test_a_game_on_a_server_is_resigned_with_r_twice(apps: Apps, server: ServerThread) -> None:
    """A server's game can be given up, as a match can: R asks, R again
    resigns; the server judges it and both windows show the result (issue
    43, item 8: a server game could not be resigned)."""
    a = window(apps)
    seeking = on_a_server(a, server.url, "Alice")
    steps([a], lambda: seeking.game is not None)
    assert seeking.game is not None
    b = window(apps)
    on_a_server(b, server.url, "Bob", seeking.game.state.code)
    steps([a, b], on_board(a, b))
    red = a if board(a).table.local is PColor.RED else b
    other = b if red is a else a
    steps([a, b], lambda: board(other).input_enabled)
    play_key(other, 3)  # White's move: a game to review
    steps([a, b], lambda: moves_of(a) == moves_of(b) == 1)
    key(red, pygame.K_r)
    assert "Press R (or Resign) again to resign" in red.log.lines
    assert board(red).table.result is None, "R once only asks"
    key(red, pygame.K_r)
    steps([a, b], lambda: board(a).banner is not None and board(b).banner is not None)
    assert board(red).banner[0] == "You lose"  # type: ignore[index]
    assert board(other).banner[0] == "You win!"  # type: ignore[index]
    result = board(other).table.result
    assert result is not None and result.resigned and result.winner.color is PColor.WHITE
    # and the game is reviewed from its result, as a match is (it had no Review)
    steps([red], lambda: Action.REVIEW in board(red).buttons.buttons)
    click(red, board(red).buttons.buttons[Action.REVIEW])
    review = red.scenes.current
    assert isinstance(review, ReplayScene) and len(review.boards) == 2
